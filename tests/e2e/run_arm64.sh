#!/usr/bin/env bash
# End-to-end test on arm64: a self-contained linux-arm64 .NET program
# (tests/targets/Arm64) run under qemu-user, traced by the arm64 profiler
# (the cross build, scripts/cross-aarch64.sh), its trace read by the x86-64
# clrtrace and by the arm64 one (docs/arm64.md).
#
# Usage: tests/e2e/run_arm64.sh X64-LIBCLRTRACE.SO AARCH64-BUILD-DIR
#
# The arm64 profiler is loaded the two ways a user has here: by the
# CORECLR_* variables alone (qemu-user cannot follow an exec of an aarch64
# program without binfmt_misc, so the arm64 clrtrace cannot launch one), and
# by the x86-64 clrtrace's launcher, whose child is qemu-aarch64
# (`run --profiler ARM64-LIB -- qemu-aarch64 ... PROGRAM`). Checks:
#   1. untraced, the program prints what its source says (by hand);
#   2. each engine (il, elt, and the ELT fast path --no-args), loaded by the
#      variables: the program's stdout, stderr and exit code unchanged; every
#      call's values as written by hand from Program.cs: integers past x7,
#      floats and doubles, a 16-byte struct returned in x0:x1, HFA and HVA
#      structs in v registers, a 32-byte struct by reference, a P/Invoke
#      into libc, an exception, async, two threads;
#   3. the same calls read the same on x86-64 (the program run natively);
#   4. the binary trace an arm64 profiler wrote: replayed by the x86-64 CLI as
#      the profiler's own text log says; the arm64 CLI (under qemu-user)
#      replays it, and an x86-64 trace, byte for byte as the x86-64 CLI does
#      (the format is architecture-neutral);
#   5. the arm64 .NET tool package: its files are aarch64, and its clrtrace
#      (under qemu-user) launches qemu-aarch64 running the program, with the
#      profiler beside it;
#   6. attach: `record -p` of a running arm64 process with the arm64
#      profiler (--profiler) records its calls and detaches, the program runs
#      on and ends as untraced; without --profiler, one line says the
#      runtime is arm64 and what to pass, and the process is untouched.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

x64lib=${1:-$root/build/src/agent/libclrtrace.so}
armbuild=$(cd "${2:-$root/build-aarch64}" && pwd) || { echo "ERROR: no aarch64 build" >&2; exit 2; }
ct_setup arm64 "$x64lib" cli
armlib=$armbuild/src/agent/libclrtrace.so
armct=$armbuild/clrtrace
[[ -f "$armlib" && -x "$armct" ]] || { echo "ERROR: no $armlib or $armct (scripts/cross-aarch64.sh)" >&2; exit 2; }
command -v qemu-aarch64 >/dev/null || { echo "ERROR: no qemu-aarch64 (Debian's qemu-user)" >&2; exit 2; }
# qemu-user's loader: the cross toolchain's libc and the multiarch arm64
# libraries (libzstd.so.1, libz.so.1, libncursesw.so.6). With libc6:arm64
# beside the cross libc, -L alone can hang (../shared/FACTS.md).
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:/usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu)
# The CORECLR_* variables, for the arm64 profiler.
armtraced=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$CLRTRACE_CLSID" "CORECLR_PROFILER_PATH=$armlib")

echo "== publishing tests/targets/Arm64 for linux-arm64 and linux-x64"
app=$(ct_dotnet_publish "$root/tests/targets/Arm64" arm64 "$work" -r linux-arm64 --self-contained) &&
    [[ -n "$app" ]] || { echo "ERROR: dotnet publish -r linux-arm64 failed" >&2; exit 2; }
check_eq "the published program is an aarch64 executable" 1 \
    "$(file -b "$app" | grep -c 'ARM aarch64')"
x64app=$(ct_dotnet_build "$root/tests/targets/Arm64" "$work") && [[ -n "$x64app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Arm64 failed" >&2; exit 2; }

# What Program.cs prints, worked out by hand:
#   Mix: 1 + 2 + 3 + 4 + 1 (true) + 65 ('A') + 7 + 8 + 9 = 100
#   Scale: 1.5 * 2.5 + 0.125 = 3.875
#   MakeSmall(6, -21) = {7, -42}; MakeHfa2(3, 4) = {1.5, 4.25}
#   MakeHfa4(1.5) = {1.5, 3, 4.5, -1.5}, sum 7.5
#   MakeHva2(2) = {<2, 3, 4, 5>, <-2, -2, -2, -2>}, sum of P + Q = 0+1+2+3 = 6
#   MakeBig(10) = {10, 11, 12, 2.5}, sum 10 + 11 + 12 + 2 = 35
#   strlen("qemu-user") = 9; Check(11) throws; Later(14) = 42; Work(1), Work(2)
expected="add 42
mix 100
scale 3.875
greet hello arm #64
small 7 -42
hfa2 1.5 4.25
hfa4 1.5 3 4.5 -1.5 sum 7.5
hva2 <2, 3, 4, 5> <-2, -2, -2, -2> sum 6
big 10 11 12 2.5 sum 35
strlen 9
caught x
later 42
threads 107 207"
# Each call as the trace must show it, by hand from the same source.
calls=(
    'Arm.Calc.Add(int a=40, int b=2) -> int 42'
    "Arm.Calc.Mix(int a=1, long b=2, short c=3, byte d=4, bool e=true, char f='A', uint g=7, ulong h=8, int i=9) -> long 100"
    'Arm.Calc.Scale(double x=1.5, float y=2.5, double z=0.125) -> double 3.875'
    'Arm.Calc.Greet(string name="arm", int n=64) -> string "hello arm #64"'
    'Arm.Calc.MakeSmall(int a=6, long b=-21) -> Small {A=7, B=-42}'
    'Arm.Calc.MakeHfa2(double x=3, double y=4) -> Hfa2 {X=1.5, Y=4.25}'
    'Arm.Calc.MakeHfa4(float a=1.5) -> Hfa4 {A=1.5, B=3, C=4.5, D=-1.5}'
    'Arm.Calc.SumHfa4(Hfa4 h={A=1.5, B=3, C=4.5, D=-1.5}) -> float 7.5'
    'Arm.Calc.MakeHva2(float s=2) -> Hva2 {P=<2, 3, 4, 5>, Q=<-2, -2, -2, -2>}'
    'Arm.Calc.SumHva2(Hva2 h={P=<2, 3, 4, 5>, Q=<-2, -2, -2, -2>}) -> float 6'
    'Arm.Calc.MakeBig(long a=10) -> Big {A=10, B=11, C=12, D=2.5}'
    'Arm.Calc.SumBig(Big b={A=10, B=11, C=12, D=2.5}) -> long 35'
    'Arm.Calc.NativeLength(string s="qemu-user") -> int 9'
    'Arm.Calc.Check(int x=5) -> int 5'
    'Arm.Calc.Check(int x=11) -> exception System.ArgumentOutOfRangeException: "too big: 11"'
    'Arm.Calc.Later(int x=14) -> int 42  (async: task ended)'
    'Arm.Calc.Work(int id=1) -> int 107'
    'Arm.Calc.Work(int id=2) -> int 207'
)
# The text after the time, thread and duration columns, indentation kept.
call_text() { sed -nE 's/^ *[0-9]+\.[0-9]+ +[0-9]+ +([0-9.]+ [mun]?s)? {2}//p' "$1"; }
# check_calls NAME TRACE: every call above, once, at its depth in the tree.
check_calls() {
    local name=$1 t=$2 c text
    text=$(call_text "$t" | sed -E 's/^ +//')
    for c in "${calls[@]}"; do
        check_eq "$name: $c" 1 "$(grep -cxF -- "$c" <<<"$text")"
    done
    # Work runs on two threads of their own, each inside its lambda.
    check_eq "$name: Work on two threads, neither Main's" "2 0" \
        "$(grep -F 'Arm.Calc.Work(' "$t" | awk '{print $2}' | sort -u | wc -l) $(grep -F 'Arm.Calc.Work(' "$t" | awk '{print $2}' | grep -cxF "$(grep -F 'Arm.Program.Main(' "$t" | awk '{print $2}' | head -n 1)")"
}

echo "== untraced, under qemu-aarch64"
ct_run "$work" plain timeout -k 5 300 "${qemu[@]}" "$app"
check_eq "untraced: the program printed what its source says" "$expected" "$(cat "$work/plain.out")"
check_eq "untraced: exit code 3" 3 "$(cat "$work/plain.rc")"

for engine in il elt; do
    echo "== the arm64 profiler by the CORECLR_* variables, engine $engine"
    ct_run "$work" "$engine" env "${armtraced[@]}" CLRTRACE_ENGINE=$engine \
        "CLRTRACE_OUTPUT=$work/$engine.txt" timeout -k 5 300 "${qemu[@]}" "$app"
    check "$engine: stdout, stderr and exit code equal the untraced run's" ct_same_run "$work" plain "$engine"
    check_calls "$engine" "$work/$engine.txt"
    check "$engine: the calls balance" ct_balance "$work/$engine.txt"
done
check_eq "the trace names its engine" "engine il" \
    "$(grep -o 'engine il' "$work/il.txt" | head -n 1)"

echo "== the ELT fast path (the arm64 stubs): calls and tree, no values"
ct_run "$work" fast env "${armtraced[@]}" CLRTRACE_ENGINE=elt CLRTRACE_NO_ARGS=1 \
    "CLRTRACE_OUTPUT=$work/fast.txt" timeout -k 5 300 "${qemu[@]}" "$app"
check "--no-args: stdout, stderr and exit code equal the untraced run's" ct_same_run "$work" plain fast
check_eq "--no-args: each call of Calc once or as often as the source makes it" \
    "Add 1 Check 2 Greet 1 Later 1 MakeBig 1 MakeHfa2 1 MakeHfa4 1 MakeHva2 1 MakeSmall 1 Mix 1 NativeLength 1 Scale 1 SumBig 1 SumHfa4 1 SumHva2 1 Work 2" \
    "$(call_text "$work/fast.txt" | sed -nE 's/^ *Arm\.Calc\.([A-Za-z0-9]+)\(\.\.\.\).*/\1/p' | sort | uniq -c | awk '{ print $2, $1 }' | paste -sd ' ')"
check_eq "--no-args: Check(11) left by its exception" 1 \
    "$(grep -cF 'Arm.Calc.Check(...) -> exception System.ArgumentOutOfRangeException: "too big: 11"' "$work/fast.txt")"
check "--no-args: the calls balance" ct_balance "$work/fast.txt"

echo "== the x86-64 launcher, its child qemu-aarch64"
ct_run "$work" launched timeout -k 5 300 "$ct" run --profiler "$armlib" -o "$work/launched.txt" \
    -- "${qemu[@]}" "$app"
check "launched: stdout, stderr and exit code equal the untraced run's" ct_same_run "$work" plain launched
check_calls "launched" "$work/launched.txt"

echo "== the same calls on x86-64"
ct_run "$work" x64 timeout -k 5 300 "$ct" run -o "$work/x64.txt" -- dotnet "$x64app"
check_eq "x86-64: the program printed the same" "$expected" "$(cat "$work/x64.out")"
check_calls "x86-64" "$work/x64.txt"
only_calc() { call_text "$1" | grep -F 'Arm.Calc.' | sed -E 's/^ +//' | sort; }
check_eq "the calls of Calc read the same on arm64 and x86-64" "$(only_calc "$work/x64.txt")" \
    "$(only_calc "$work/il.txt")"

echo "== the binary trace across architectures"
ct_run "$work" bin env "${armtraced[@]}" CLRTRACE_ENGINE=il "CLRTRACE_TRACE=$work/arm.clrt" \
    "CLRTRACE_OUTPUT=$work/bin.txt" timeout -k 5 300 "${qemu[@]}" "$app"
check "binary: stdout, stderr and exit code equal the untraced run's" ct_same_run "$work" plain bin
"$ct" replay "$work/arm.clrt" >"$work/replay-x64.txt" 2>"$work/replay-x64.err"
check_eq "the x86-64 CLI replays an arm64 trace" 0 "$?"
check_eq "its calls as the arm64 profiler's own text log wrote them" \
    "$(call_text "$work/bin.txt")" "$(call_text "$work/replay-x64.txt")"
"${qemu[@]}" "$armct" replay "$work/arm.clrt" >"$work/replay-arm.txt" 2>"$work/replay-arm.err"
check_eq "the arm64 CLI replays it" 0 "$?"
check "... byte for byte as the x86-64 CLI does" cmp "$work/replay-x64.txt" "$work/replay-arm.txt"
"$ct" record -o "$work/x64rec" -- dotnet "$x64app" >/dev/null 2>&1
"$ct" replay "$work/x64rec" >"$work/x64rec-x64.txt" 2>&1
"${qemu[@]}" "$armct" replay "$work/x64rec" >"$work/x64rec-arm.txt" 2>&1
check "an x86-64 trace: the arm64 CLI replays it byte for byte as the x86-64 CLI does" \
    cmp "$work/x64rec-x64.txt" "$work/x64rec-arm.txt"
check_calls "x86-64 trace, read by the arm64 CLI" "$work/x64rec-arm.txt"
"$ct" info "$work/arm.clrt" >"$work/info-x64.txt" 2>&1
"${qemu[@]}" "$armct" info "$work/arm.clrt" >"$work/info-arm.txt" 2>&1
check "info: the same text from either CLI" cmp "$work/info-x64.txt" "$work/info-arm.txt"
# Main 1, the closure classes' constructors 1 + 2, the two lambdas 2, the
# 13 calls of Calc before Check, Check 2, Later 1 and its state machine's
# MoveNext 2, Work 2: 26, Check(11) ended by its exception.
check_eq "info: 26 calls, one ended by an exception" \
    "calls         26 ended (25 returned, 1 by exception, 0 by tail call); 26 entered" \
    "$(grep '^calls ' "$work/info-x64.txt")"

echo "== the arm64 .NET tool package (cmake --build build-aarch64 --target nupkg)"
version=$(sed -nE 's/^project\(clrtrace VERSION ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/p' "$root/CMakeLists.txt")
pkg=$armbuild/nupkg/clrtrace.linux-arm64.$version.nupkg
check "the cross build made clrtrace.linux-arm64.$version.nupkg" test -f "$pkg"
check_eq "the tool's package names both runtime identifiers' packages" \
    'RuntimeIdentifier="linux-x64" Id="clrtrace.linux-x64" RuntimeIdentifier="linux-arm64" Id="clrtrace.linux-arm64"' \
    "$(unzip -p "$armbuild/nupkg/clrtrace.$version.nupkg" tools/any/any/DotnetToolSettings.xml | grep -oE 'RuntimeIdentifier="[^"]+" Id="[^"]+"' | paste -sd ' ')"
# `dotnet tool install` takes the machine's RID (--arch arm64 is for Windows
# and macOS only), so the package is unpacked as the SDK would on arm64.
mkdir -p "$work/tool" && (cd "$work/tool" && unzip -q "$pkg")
tooldir=$work/tool/tools/any/linux-arm64
chmod +x "$tooldir/clrtrace"
check_eq "its clrtrace and libclrtrace.so are aarch64 ELF files" "2" \
    "$(file -b "$tooldir/clrtrace" "$tooldir/libclrtrace.so" | grep -c 'ARM aarch64')"
# The arm64 clrtrace (emulated) launches the emulator, which runs the
# program: the arm64 launcher end to end, its profiler found beside it.
ct_run "$work" armtool timeout -k 5 300 "${qemu[@]}" "$tooldir/clrtrace" run -o "$work/armtool.txt" \
    -- "${qemu[@]}" "$app"
check "the package's arm64 clrtrace, launching: stdout, stderr and exit code equal the untraced run's" \
    ct_same_run "$work" plain armtool
check_calls "the package's arm64 clrtrace" "$work/armtool.txt"

echo "== attach to a running arm64 process"
flag=$work/stop
( "${qemu[@]}" "$app" serve "$flag" >"$work/serve.out" 2>"$work/serve.err"; echo $? >"$work/serve.rc" ) &
for ((i = 0; i < 600; i++)); do grep -q '^serving ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
spid=$(sed -n 's/^serving //p' "$work/serve.out")
[[ -n "$spid" ]] || { echo "ERROR: the arm64 target did not start" >&2; cat "$work/serve.err" >&2; exit 2; }
ct_at_exit touch "$flag"
# Without --profiler: clrtrace's own (x86-64) profiler cannot load there.
timeout -k 5 60 "$ct" record -o "$work/refused" -p "$spid" -d 1s >"$work/refused.out" 2>"$work/refused.err"
check_eq "without --profiler: refused (exit 1)" 1 "$?"
check_eq "... with one line: the runtime is arm64, the profiler x86-64, give --profiler" \
    "clrtrace record: pid $spid runs a .NET runtime for arm64 (ELF machine 183; under an emulator such as qemu-user, say), the profiler $lib is built for x86-64 (machine 62): give --profiler PATH of a libclrtrace.so built for arm64 (docs/arm64.md)" \
    "$(cat "$work/refused.err")"
timeout -k 5 120 "$ct" record -o "$work/attached" -p "$spid" --profiler "$armlib" -d 2s \
    >"$work/attach.out" 2>"$work/attach.err"
check_eq "with the arm64 profiler: record -p exits 0" 0 "$?"
check "it attached and detached" grep -qE "^clrtrace record: detached from pid $spid in [0-9]+ ms \(original code restored" "$work/attach.err"
"$ct" replay "$work/attached" >"$work/attached.txt" 2>&1
# The serve loop's calls: Add(round, 1) and MakeHfa2(round, 1), round
# counting up; each result by hand.
bad="" adds=0 hfas=0
while IFS= read -r line; do
    if [[ $line =~ ^Arm\.Calc\.Add\(int\ a=([0-9]+),\ int\ b=1\)\ -\>\ int\ ([0-9]+)$ ]] &&
        ((BASH_REMATCH[2] == BASH_REMATCH[1] + 1)); then adds=$((adds + 1))
    elif [[ $line =~ ^Arm\.Calc\.MakeHfa2\(double\ x=([0-9]+),\ double\ y=1\)\ -\>\ Hfa2\ \{X=([0-9.]+),\ Y=1\.25\}$ ]] &&
        [[ $(awk -v x="${BASH_REMATCH[1]}" 'BEGIN { print x / 2 }') == "${BASH_REMATCH[2]}" ]]; then hfas=$((hfas + 1))
    elif [[ $line == Arm.* ]]; then bad+="$line"$'\n'
    fi
done < <(call_text "$work/attached.txt")
((adds >= 5 && hfas >= 5)) || bad+="only $adds Add and $hfas MakeHfa2 calls"
check_eq "the attached trace: Add(r, 1) -> r + 1 and MakeHfa2(r, 1) -> {r / 2, 1.25}, at least 5 of each" "" "$bad"
touch "$flag"
for ((i = 0; i < 600; i++)); do [[ -s "$work/serve.rc" ]] && break; sleep 0.1; done
check_eq "the attached program ends as untraced (3), its last line printed" "3 served" \
    "$(cat "$work/serve.rc" 2>/dev/null) $(tail -n 1 "$work/serve.out")"
check "... and nothing on its stderr" ct_empty "$work/serve.err"

ct_end run_arm64.sh
