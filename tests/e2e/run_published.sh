#!/usr/bin/env bash
# End-to-end test: published apps started through their apphost
# (`clrtrace run -- ./Published`, not `dotnet Published.dll`), and the
# runtime versions: tests/targets/Published, published once per build tree
# (ct_dotnet_publish) as
#   apphost       framework-dependent, with its apphost (.NET 10, the SDK's runtime)
#   net10         self-contained (.NET 10 runtime pack)
#   singlefile    self-contained, PublishSingleFile: assemblies inside the
#                 executable, no file path per assembly
#   readytorun    self-contained, PublishReadyToRun
#   trimmed       self-contained, PublishTrimmed
#   net8, net9    self-contained from NuGet's .NET 8 and 9 runtime packs
#   net11         self-contained on the .NET 11.0.0 runtime pack (a net10.0
#                 build with RuntimeFrameworkVersion 11.0.0), when it restores
#   net11async    the same, compiled with runtime-async (SumAsync without a
#                 state machine): one logical call with the IL engine, not
#                 traced by the ELT engine, the rest traced
# The runtime packs' versions are the SDK's choice: none is named here.
#
# Usage: tests/e2e/run_published.sh [path/to/libclrtrace.so]
#   (clrtrace beside it; CLRTRACE_ENGINE=elt for the ELT engine: eltsuite.list)
#
# Checks, for each variant:
#   1. the traced run prints what the untraced one printed (the line the C#
#      source makes) and exits with 3;
#   2. the header: filter "my code (framework by public key token)"; the
#      runtime's version is the one the publish carries (its deps.json), the
#      ICorProfilerInfo the one that version gives (8: 14; 9, 10, 11: 15);
#   3. the main thread's call tree, written by hand from Program.cs: objects,
#      a List and a Dictionary, DateOnly, an exception chain, an async
#      method suspended then resumed and its Task's result;
#   4. "my code" is the program's own assembly only (signed with its own key):
#      no function of the framework (CoreLib's Interop.*, System.Console's)
#      in the trace; the summary has one row per function of the tree, with
#      the tree's call counts;
#   5. in the single-file bundle, assemblies by name: --assembly Published
#      traces the same tree, --assembly System.Private.CoreLib with -F one
#      CoreLib method's call;
# and, for each runtime version (net8, net9, net10, net11; not again under
# the IL engine, which attach uses anyway):
#   6. `clrtrace run -p PID` on the running service: the header says
#      attached, with the version; every Tick call's value is 2n; the
#      service ends on its own (exit 0);
# and once:
#   7. every assembly of the shared frameworks and of the runtime packs
#      carries one of the public key tokens the profiler takes for the
#      framework (src/agent/model/identity.c), read by
#      System.Reflection.AssemblyName (`Published tokens DIR...`); the
#      target's own assembly carries another.
# Ends with "run_published.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup published "${1:-}" cli
engine=${CLRTRACE_ENGINE:-il}
src="$root/tests/targets/Published"
# Under tests/e2e/sanitized.sh: what preloads the sanitizers into a program
# started without `dotnet`.
sanit=(${CLRTRACE_SANITIZE_RUN:+"$CLRTRACE_SANITIZE_RUN"})

# The framework's public key tokens, as identity.c lists them.
fw_tokens="b03f5f7f11d50a3a 7cec85d7bea7798e cc7b13ffcd2ddd51 adb9793829ddae60 31bf3856ad364e35 b77a5c561934e089"

# ----------------------------------------------------------------- publish
sc=(-r linux-x64 --self-contained)
declare -A exe
publish() { # VARIANT ARGS...
    local v=$1 e
    shift
    echo "== publishing $v"
    e=$(ct_dotnet_publish "$src" "$v" "$work" "$@") && [[ -n "$e" ]] || return 1
    exe[$v]=$e
}
publish apphost -f net10.0 -p:SelfContained=false ||
    { echo "ERROR: dotnet publish of tests/targets/Published failed" >&2; exit 2; }
publish net10 -f net10.0 "${sc[@]}" || ct_fail "publish net10 (self-contained)"
publish singlefile -f net10.0 "${sc[@]}" -p:PublishSingleFile=true || ct_fail "publish singlefile"
publish readytorun -f net10.0 "${sc[@]}" -p:PublishReadyToRun=true || ct_fail "publish readytorun"
publish trimmed -f net10.0 "${sc[@]}" -p:PublishTrimmed=true || ct_fail "publish trimmed"
publish net8 -f net8.0 "${sc[@]}" || ct_fail "publish net8 (self-contained, NuGet's runtime pack)"
publish net9 -f net9.0 "${sc[@]}" || ct_fail "publish net9 (self-contained, NuGet's runtime pack)"
# .NET 11: only when its runtime pack is served (FACTS: it is, here).
CT_PUBLISH_QUIET=1 publish net11 -f net10.0 "${sc[@]}" -p:RuntimeFrameworkVersion=11.0.0 ||
    echo "note: the .NET 11.0.0 runtime pack does not restore here: net11 not checked"
# .NET 11 with the C# compiler's runtime-async (a preview feature of the .NET 10
# SDK): SumAsync compiled without a state machine.
if [[ -n "${exe[net11]:-}" ]]; then
    publish net11async -f net10.0 "${sc[@]}" -p:RuntimeFrameworkVersion=11.0.0 \
        -p:Features=runtime-async=on -p:EnablePreviewFeatures=true || ct_fail "publish net11async"
fi

# runtime_of EXE: the version of the runtime the publish carries
# (runtimepack.Microsoft.NETCore.App.Runtime.linux-x64/X.Y.Z in its
# deps.json); for the framework-dependent apphost, the SDK's newest
# Microsoft.NETCore.App of that major version, as `dotnet --list-runtimes` says.
runtime_of() {
    local deps=${1}.deps.json
    if [[ -f "$deps" ]] && grep -q '"runtimepack\.Microsoft\.NETCore\.App\.Runtime' "$deps"; then
        sed -n 's/.*"runtimepack\.Microsoft\.NETCore\.App\.Runtime\.[^/]*\/\([0-9][0-9.a-z-]*\)".*/\1/p' "$deps" | head -n 1
    elif [[ -f "$deps" ]]; then
        dotnet --list-runtimes | sed -n "s/^Microsoft\.NETCore\.App \($2\.[0-9.]*\) .*/\1/p" | tail -n 1
    else
        # a single-file bundle carries its deps.json inside: the same
        # runtime pack as the net10 variant's.
        runtime_of "${exe[net10]}"
    fi
}

# ----------------------------------------------------------------- checks
# The line Program.Main prints (Program.cs): Make(7, "seven"), Total of
# {1, 2, 3}, map["b"], 2024-02-28 + 1 day, the caught chain, 20 + 21 + 1,
# "hello".Length.
want_out='order=7:seven total=6 lookup=2 next=2024-02-29 caught=outer/inner 5 sum=42 len=5'

# want_tree PID: the main thread's calls, from Program.cs (ct_tree's form:
# addresses as @ADDR; the state machine's class number as d__N).
want_tree() {
    ct_dedent <<EOF
    Pub.Program.Main(string[] args=string[0] {}) {
      Pub.Work.Make(int id=7, string name="seven") {
        Pub.Order..ctor(this=Pub.Order@ADDR, int id=7, string name="seven")
      } -> Order Pub.Order{Id=7, Name="seven"}
      Pub.Work.Total(List<int> items=List<int>(3) {1, 2, 3}) -> int 6
      Pub.Work.Lookup(Dictionary<string, int> map=Dictionary<string, int>(2) {["a"]=1, ["b"]=2}, string key="b") -> int 2
      Pub.Work.NextDay(DateOnly day=2024-02-28) -> DateOnly 2024-02-29
      Pub.Work.Outer(int n=5) {
        Pub.Work.Inner(int n=5) -> exception System.InvalidOperationException: "inner 5"
      } exception System.ApplicationException: "outer" <- System.InvalidOperationException: "inner 5"
      Pub.Work.SumAsync(int a=20, int b=21, Task<int> gate=System.Threading.Tasks.Task<int>{Status=WaitingForActivation}) {
        async Pub.Work.SumAsync(int a=20, int b=21, Task<int> gate=System.Threading.Tasks.Task<int>{Status=WaitingForActivation}, <>1__state=-1)
      } -> Task<int> System.Runtime.CompilerServices.AsyncTaskMethodBuilder<int>.AsyncStateMachineBox<Pub.Work.<SumAsync>d__N>{Status=WaitingForActivation}  (async: goes on)
      async Pub.Work.SumAsync(int a=20, int b=21, Task<int> gate=System.Threading.Tasks.Task<int>{Status=RanToCompletion, Result=1}, <>1__state=0) {
        Pub.Work.SumAsync(int a=20, int b=21, Task<int> gate=System.Threading.Tasks.Task<int>{Status=WaitingForActivation}) -> int 42  (async: task ended)
      }
      Pub.Work.Done(Task<int> task=System.Runtime.CompilerServices.AsyncTaskMethodBuilder<int>.AsyncStateMachineBox<Pub.Work.<SumAsync>d__N>{Status=RanToCompletion, Result=42}) -> int 42
      Pub.Work.WriteRead(string path="$work/clrtrace-published-$1", string text="hello") -> int 5
    } -> int 3
EOF
}

# want_tree_async PID: want_tree where SumAsync is a runtime-async method
# (no state machine; docs/tracer.md, "Async methods and iterators"): with
# the IL engine one logical call, its arguments at its entry, "(async: goes
# on)" where it suspends on the gate, its end (20 + 21 + 1) when Main
# completes the gate; the ELT engine does not trace it (none of its lines);
# the task Done reads is the runtime's own class (TASK).
want_tree_async() {
    local g='Task<int> gate=System.Threading.Tasks.Task<int>{Status=WaitingForActivation}'
    want_tree "$1" | grep -v 'SumAsync(\|^  } -> Task<int>\|^  }$' |
        sed -E 's/task=[A-Za-z.]+<int>[A-Za-z.<>_]*\{/task=TASK{/' |
        if [[ $engine == il ]]; then
            awk -v g="$g" '/Pub\.Work\.Done\(/ {
                print "  Pub.Work.SumAsync(int a=20, int b=21, " g ")  (async: goes on)"
                print "  Pub.Work.SumAsync(int a=20, int b=21, " g ") -> int 42  (async: task ended)" }
                { print }'
        else cat; fi
}

# not_mine FILE: call lines whose function is not the program's own (Pub.*).
not_mine() {
    ct_calls "$1" | awk '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t); sub(/^async /, "", t)
        if (t !~ /^\}/ && t !~ /^Pub\./) { print substr(t, 1, 120); n++ } }
        END { exit n > 0 }' | head -n 5
    return "${PIPESTATUS[1]}"
}

# summary_agrees FILE: the summary's rows are the tree's functions, each
# with as many calls as the tree has lines for it (opening or folded; an
# async call's end, "(async: task ended)", is not another call);
# overloads, which the summary tells apart by their parameters, counted
# under their name.
summary_agrees() {
    local tree rows
    tree=$(ct_calls "$1" | awk '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
        if (t ~ /^\}/ || t ~ /  \(async: task ended\)$/) next
        sub(/\(.*/, "", t); n[t]++ }
        END { for (f in n) print n[f], f }' | sort)
    rows=$(awk '/^#  CALLS/ { on = 1; next } /^# (tracer|jit|clrtrace)/ { on = 0 }
        on && /^ +[0-9]/ { n = $0; sub(/.*  /, "", n); sub(/\(.*/, "", n); c[n] += $1 }
        END { for (f in c) print c[f], f }' "$1" | sort)
    ct_diff_tree "$tree" "$rows"
}

# check_run VARIANT MAJOR INFO [WANT]: a traced run of the variant's
# apphost; WANT the function that writes the expected tree (want_tree).
check_run() {
    local v=$1 major=$2 info=$3 want=${4:-want_tree} t name ver pid
    [[ -n "${exe[$v]:-}" ]] || return 0
    name=$v.$engine
    t=$work/$name.txt
    echo "== $v ($engine engine)"
    ct_run "$work" "$name" env TMPDIR="$work" "$ct" run -o "$t" -- "${sanit[@]}" "${exe[$v]}"
    check_eq "$v: exit code 3 (Program.Main)" 3 "$(cat "$work/$name.rc")"
    check_eq "$v: the program printed what its source says" "$want_out" "$(cat "$work/$name.out")"
    [[ -s "$t" ]] || { ct_fail "$v: a trace was written" "$(head -n 3 "$work/$name.err")"; return; }
    check "$v: header: filter my code, by public key token" \
        grep -qE '^# clrtrace: .*/Published, pid [0-9]+, [0-9TZ:-]+, filter: my code \(framework by public key token\)$' "$t"
    ver=$(runtime_of "${exe[$v]}" "$major")
    check "$v: header: CoreCLR $ver (.NET $major), ICorProfilerInfo$info" \
        grep -qE "^# CoreCLR ${ver//./\\.}, ICorProfilerInfo$info, " "$t"
    [[ $ver == "$major".* ]] || ct_fail "$v: the runtime's version $ver is .NET $major's"
    pid=$(ct_pid "$t")
    check "$v: the main thread's calls, as Program.cs makes them" \
        ct_diff_tree "$("$want" "$pid")" "$(ct_tree "$t" | sed -E 's/d__[0-9]+>/d__N>/g' |
            if [[ $want == want_tree_async ]]; then
                sed -E 's/task=[A-Za-z.]+<int>[A-Za-z.<>_]*\{/task=TASK{/'
            else cat; fi)"
    check "$v: only the program's own code is traced (no framework function)" not_mine "$t"
    check "$v: the summary's rows are the tree's functions and calls" summary_agrees "$t"
    check "$v: balanced frames" ct_balance "$t"
}

# check_names VARIANT: assemblies by name (`--assembly`, from the runtime's
# GetAssemblyInfo), where a single-file bundle's have no file path: the
# program's own, and CoreLib's (a method of it chosen by -F).
check_names() {
    local v=$1 t
    [[ -n "${exe[$v]:-}" ]] || return 0
    t=$work/$v-asm.txt
    ct_run "$work" "$v-asm" env TMPDIR="$work" "$ct" run --assembly Published -o "$t" -- "${sanit[@]}" "${exe[$v]}"
    check "$v: --assembly Published traces the program's tree" \
        ct_diff_tree "$(want_tree "$(ct_pid "$t")")" "$(ct_tree "$t" | sed -E 's/d__[0-9]+>/d__N>/g')"
    t=$work/$v-corelib.txt
    ct_run "$work" "$v-corelib" "$ct" run --assembly System.Private.CoreLib -F 'System.DateOnly.AddDays' \
        -o "$t" -- "${sanit[@]}" "${exe[$v]}"
    # Work.NextDay calls day.AddDays(1) on 2024-02-28, once.
    check "$v: --assembly System.Private.CoreLib -F System.DateOnly.AddDays: its one call" \
        check_eq_text "System.DateOnly.AddDays(this=0xADDR -> 2024-02-28, int value=1) -> DateOnly 2024-02-29" \
        "$(ct_tree "$t")"
}
check_eq_text() { [[ "$1" == "$2" ]] || { echo "expected: $1"; echo "actual:   $2"; return 1; }; }

check_run apphost 10 15
check_run net10 10 15
check_run singlefile 10 15
check_run readytorun 10 15
check_run trimmed 10 15
check_run net8 8 14
check_run net9 9 15
check_run net11 11 15
check_run net11async 11 15 want_tree_async
check_names singlefile

# ------------------------------------------------------------------ attach
# check_attach VARIANT MAJOR INFO: `clrtrace run -p` on `Published serve FLAG`.
check_attach() {
    local v=$1 major=$2 info=$3 t spid i ver
    [[ -n "${exe[$v]:-}" ]] || return 0
    echo "== attach: $v"
    t=$work/attach-$v.txt
    rm -f "$work/flag-$v"
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 "${sanit[@]}" "${exe[$v]}" serve "$work/flag-$v" \
        >"$work/serve-$v.out" 2>"$work/serve-$v.err"
      echo $? >"$work/serve-$v.rc" ) 2>/dev/null &
    ct_ready_pid "$work/serve-$v.out" 300 || { ct_fail "attach $v: the service started"; touch "$work/flag-$v"; return; }
    ct_run "$work" "attach-$v" "$ct" run -p "$spid" -d 1s -o "$t"
    touch "$work/flag-$v"
    for ((i = 0; i < 300; i++)); do [[ -s "$work/serve-$v.rc" ]] && break; sleep 0.1; done
    check_eq "attach $v: clrtrace exits 0" 0 "$(cat "$work/attach-$v.rc")"
    check_eq "attach $v: the service ends on its own (exit 0)" 0 "$(cat "$work/serve-$v.rc" 2>/dev/null)"
    check_eq "attach $v: the service printed only its ready line" "ready $spid" "$(cat "$work/serve-$v.out")"
    ver=$(runtime_of "${exe[$v]}" "$major")
    check "attach $v: header: CoreCLR $ver, ICorProfilerInfo$info, engine il, attached" \
        grep -qE "^# CoreCLR ${ver//./\\.}, ICorProfilerInfo$info, engine il, .*, attached$" "$t"
    # Program.Serve calls Work.Tick(n) with n = 0..999 in turn: each returns 2n.
    check "attach $v: Tick calls traced, each -> int 2n" \
        awk '/Pub\.Work\.Tick\(int n=[0-9]+\) -> int [0-9]+$/ {
                 match($0, /n=[0-9]+/); n = substr($0, RSTART + 2, RLENGTH - 2)
                 r = $NF; c++; if (r != 2 * n) { print "wrong: " $0; bad++ } }
             END { if (c < 10) { print c + 0 " Tick calls"; exit 1 } exit bad > 0 }' "$t"
    check "attach $v: only the program's own code is traced" not_mine "$t"
}

if [[ $engine == il ]]; then
    check_attach net8 8 14
    check_attach net9 9 15
    check_attach net10 10 15
    check_attach net11 11 15
fi

# ------------------------------------------------------ framework tokens
if [[ $engine == il ]]; then
    echo "== public key tokens of the framework's assemblies (System.Reflection.AssemblyName)"
    dirs=()
    while read -r d; do dirs+=("$d"); done < <(dotnet --list-runtimes |
        sed -n 's/^\(Microsoft\.[A-Za-z]*\.App\) \([^ ]*\) \[\(.*\)\]$/\3\/\2/p')
    for v in net8 net9 net10 net11; do
        [[ -n "${exe[$v]:-}" ]] && dirs+=("$(dirname "${exe[$v]}")")
    done
    dotnet "${exe[apphost]}.dll" tokens "${dirs[@]}" >"$work/tokens.txt" 2>&1
    check "tokens: read from ${#dirs[@]} folders" test "$(wc -l <"$work/tokens.txt")" -gt 500
    check_eq "tokens: every framework assembly carries a framework token (identity.c)" "" \
        "$(awk -v fw="$fw_tokens" 'BEGIN { n = split(fw, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
            $2 != "Published" && !ok[$1] { print }' "$work/tokens.txt" | sort -u | head -n 5)"
    check_eq "tokens: the target's own key is not one of them" "" \
        "$(awk -v fw="$fw_tokens" '$2 == "Published" && index(fw, $1) { print }' "$work/tokens.txt")"
fi

ct_end run_published.sh
