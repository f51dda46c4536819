#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Hello with libclrtrace.so in a real
# `dotnet` process.
#
# Usage: tests/e2e/run_hello.sh [path/to/libclrtrace.so]
#
# Without an argument (or CLRTRACE_LIB), the profiler is built with CMake
# into a temporary directory. Checks:
#   1. the traced run prints the same stdout and exits with the same code (3)
#      as the untraced run, and writes nothing to stderr;
#   2. the trace holds the calls expected from Program.cs, with their counts,
#      decoded arguments and return values, and its blocks are balanced;
#   3. the default filter keeps framework code out; CLRTRACE_ALL=1 lets it in;
#   4. an unwritable CLRTRACE_OUTPUT gives exactly one stderr line and an
#      untouched run.
# Exits non-zero with a message naming the first failed check.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
target_dir="$root/tests/targets/Hello"

work=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-e2e.XXXXXX")
trap '[[ $BASHPID != $$ ]] || { rm -rf "$work"; }' EXIT

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
die() {
    echo "ERROR: $*" >&2
    exit 2
}

# ------------------------------------------------------------- the profiler
lib=${1:-${CLRTRACE_LIB:-}}
if [[ -z "$lib" ]]; then
    echo "== building libclrtrace.so"
    cmake -S "$root" -B "$work/build" -DCLRTRACE_TESTS=OFF >"$work/cmake.log" 2>&1 ||
        { cat "$work/cmake.log" >&2; die "cmake configure failed"; }
    cmake --build "$work/build" --target clrtrace_profiler >>"$work/cmake.log" 2>&1 ||
        { cat "$work/cmake.log" >&2; die "building clrtrace_profiler failed"; }
    lib="$work/build/src/profiler/libclrtrace.so"
fi
[[ -f "$lib" ]] || die "no profiler library at $lib"
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

# --------------------------------------------------------------- the target
echo "== building tests/targets/Hello"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
# --artifacts-path keeps bin/ and obj/ out of the source tree.
dotnet build "$target_dir/Hello.csproj" -c Release --artifacts-path "$work/artifacts" \
    >"$work/dotnet-build.log" 2>&1 ||
    { cat "$work/dotnet-build.log" >&2; die "dotnet build failed"; }
app=$(find "$work/artifacts/bin" -name Hello.dll | head -n 1)
[[ -n "$app" ]] || die "Hello.dll not found after the build"

clsid='{8B4B2E65-C262-4FCC-BAE6-2A302612F038}'

# run NAME [VAR=VALUE...]: runs the target with the extra environment,
# leaving NAME.out, NAME.err and NAME.rc in $work.
run() {
    local name=$1
    shift
    local rc=0
    env "$@" dotnet "$app" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
    echo "$rc" >"$work/$name.rc"
}
traced=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$lib")

# Compares a run's stdout and exit code with the untraced run.
same_as_plain() {
    local name=$1
    cmp -s "$work/plain.out" "$work/$name.out" ||
        fail "$name: stdout differs from the untraced run: $(diff "$work/plain.out" "$work/$name.out" | head -n 5)"
    [[ "$(cat "$work/$name.rc")" == "$(cat "$work/plain.rc")" ]] ||
        fail "$name: exit code $(cat "$work/$name.rc"), untraced $(cat "$work/plain.rc")"
}

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run plain
[[ "$(cat "$work/plain.rc")" == 3 ]] || fail "untraced run exited with $(cat "$work/plain.rc"), expected 3"
expected_stdout=$'sum=5\nscaled=6\nfib=5\nHello, clrtrace!!\nbumped=10\ndivide=3; error: b must not be zero'
[[ "$(cat "$work/plain.out")" == "$expected_stdout" ]] ||
    fail "untraced stdout is not what Program.cs prints: $(head -n 3 "$work/plain.out")"

trace="$work/trace.txt"
run traced "${traced[@]}" "CLRTRACE_OUTPUT=$trace"
same_as_plain traced
[[ ! -s "$work/traced.err" ]] || fail "traced run wrote to stderr: $(head -n 3 "$work/traced.err")"
[[ -s "$trace" ]] || die "the traced run wrote no trace to $trace (is the profiler loading?)"

# ------------------------------------------------------------- 2. the trace
echo "== trace contents"
# count|extended regex, one line of the trace each. Written from Program.cs:
# Fib(5) makes 15 calls (Fib(1) five times and Fib(0) three times are
# leaves, folded onto one line; Fib(2) three times, Fib(3) twice, Fib(4) and
# Fib(5) have children and open blocks); Bump, TryDivide and Divide run
# twice; the second Divide leaves by an exception. Values are shown as
# `type name=value`, returns as `-> type value`, objects as Class@address.
a='0x[0-9a-f]+'
expect=(
    '1|^# clrtrace: dotnet .*Hello\.dll, pid [0-9]+, [0-9-]+T[0-9:]+Z, filter: my code$'
    '1|^#  TIME\(s\)    TID   DURATION  CALL$'
    '1|^ *[0-9.]+ +[0-9]+ {13}Demo\.Program\.Main\(string\[\] args=string\[0\] \{\}\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {4}Demo\.MathOps\.Add\(int a=2, int b=3\) -> int 5$'
    '1| Demo\.MathOps\.Scale\(double x=1\.5, double k=4\) -> double 6$'
    '1| Demo\.MathOps\.Fib\(int n=5\) \{$'
    '1| Demo\.MathOps\.Fib\(int n=4\) \{$'
    '2| Demo\.MathOps\.Fib\(int n=3\) \{$'
    '3| Demo\.MathOps\.Fib\(int n=2\) \{$'
    '5| Demo\.MathOps\.Fib\(int n=1\) -> int 1$'
    '3| Demo\.MathOps\.Fib\(int n=0\) -> int 0$'
    '1| \} -> int 5$'
    '2| \} -> int 3$'
    '2| \} -> int 2$'
    '3| \} -> int 1$'
    "1| Demo\\.Greeter\\.\\.ctor\\(this=Demo\\.Greeter@$a, string greeting=\"Hello\"\\)\$"
    "1| Demo\\.Greeter\\.Greet\\(this=Demo\\.Greeter@$a, string name=\"clrtrace\", int times=3\\) -> string \"Hello, clrtrace!!\"\$"
    "1| Demo\\.Greeter\\.Counter\\.\\.ctor\\(this=Demo\\.Greeter\\.Counter@$a\\)\$"
    "1| Demo\\.Greeter\\.Counter\\.Bump\\(this=Demo\\.Greeter\\.Counter@$a, int by=4\\) -> int 4\$"
    "1| Demo\\.Greeter\\.Counter\\.Bump\\(this=Demo\\.Greeter\\.Counter@$a, int by=6\\) -> int 10\$"
    '1| Demo\.MathOps\.TryDivide\(int a=7, int b=2\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {6}Demo\.MathOps\.Divide\(int a=7, int b=2\) -> int 3$'
    '1| \} -> string "3"$'
    '1| Demo\.MathOps\.TryDivide\(int a=1, int b=0\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {6}Demo\.MathOps\.Divide\(int a=1, int b=0\) -> exception$'
    '1| \} -> string "error: b must not be zero"$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s  \} -> int 3$'
    '1|^# summary: 27 calls, 10 functions, 1 thread, 0 events dropped$'
    '1|^ +15 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s  Demo\.MathOps\.Fib$'
    '1|^ +2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s  Demo\.MathOps\.Divide$'
    '1|^# clrtrace: shutdown, [0-9]+ functions JIT-compiled, 10 traced$'
)
for e in "${expect[@]}"; do
    want=${e%%|*}
    re=${e#*|}
    got=$(grep -cE -- "$re" "$trace" || true)
    [[ "$got" == "$want" ]] || fail "trace: expected $want line(s) matching /$re/, found $got"
done

# Every call line belongs to Demo (the filter); blocks open and close in
# pairs; 27 calls end on a line with a duration (Main 1, Add 1, Scale 1,
# Fib 15, Greeter..ctor 1, Greet 1, Counter..ctor 1, Bump 2, TryDivide 2,
# Divide 2).
calls=$(sed '/^# summary: /,$d' "$trace" | grep -vE '^(#|$)' || true)
others=$(grep -vE '^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mu]?s)? +(Demo\.|\})' <<<"$calls" || true)
[[ -z "$others" ]] || fail "trace has calls outside Demo with the default filter: $(head -n 3 <<<"$others")"
opens=$(grep -cE ' \{$' <<<"$calls" || true)
closes=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\}' <<<"$calls" || true)
[[ "$opens" == "$closes" ]] || fail "trace: $opens blocks opened but $closes closed"
timed=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s ' <<<"$calls" || true)
[[ "$timed" == 27 ]] || fail "trace: expected 27 calls, found $timed"

# --------------------------------------------------- 3. CLRTRACE_ALL=1
echo "== CLRTRACE_ALL=1"
run all "${traced[@]}" "CLRTRACE_OUTPUT=$work/all.txt" CLRTRACE_ALL=1
same_as_plain all
grep -qE '^ *[0-9.]+ +[0-9]+ .* System\.' "$work/all.txt" ||
    fail "CLRTRACE_ALL=1: no framework (System.*) calls in the trace"
grep -qE ' Demo\.MathOps\.Add\(int a=2, int b=3\) -> int 5$' "$work/all.txt" ||
    fail "CLRTRACE_ALL=1: Demo.MathOps.Add missing from the trace"

# ------------------------------------------- 4. unwritable CLRTRACE_OUTPUT
echo "== unwritable CLRTRACE_OUTPUT"
bad="$work/no-such-dir/trace.txt"
run badout "${traced[@]}" "CLRTRACE_OUTPUT=$bad"
same_as_plain badout
nerr=$(wc -l <"$work/badout.err")
[[ "$nerr" == 1 ]] || fail "unwritable output: expected 1 stderr line, got $nerr: $(head -n 3 "$work/badout.err")"
grep -qE '^clrtrace: cannot write the trace to CLRTRACE_OUTPUT=.*no-such-dir/trace\.txt \(No such file or directory\); the program runs untraced$' \
    "$work/badout.err" || fail "unwritable output: unexpected message: $(cat "$work/badout.err")"
[[ ! -e "$bad" ]] || fail "unwritable output: $bad exists"

if ((failures)); then
    echo "run_hello.sh: $failures check(s) failed; trace kept in the output above" >&2
    echo "---- trace ----" >&2
    head -n 80 "$trace" >&2
    exit 1
fi
echo "run_hello.sh: all checks passed"
