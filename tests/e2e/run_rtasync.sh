#!/usr/bin/env bash
# End-to-end test: .NET 11 runtime-async methods (CorMethodImpl Async, no
# state machine) as logical calls (issue 36), tests/targets/RtAsync
# published self-contained on the 11.0.0 runtime pack with the C#
# compiler's runtime-async (a preview feature of the .NET 10 SDK). The
# expected lines are written by hand from the target's source (Program.cs):
# each call's arguments at its first entry, "(async: goes on)" where its
# chain suspends, one end with its result or its exception, resumptions not
# shown as calls.
#
# Usage: tests/e2e/run_rtasync.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. the methods are runtime-async (System.Reflection: MethodImplAttributes
#      Async), and the program prints and exits (5) as its source says;
#   2. the IL engine (the default): traced and untraced runs the same; the
#      main thread's tree as written below (a call that completes at once,
#      one that suspends and ends with its result, an awaited chain (Outer >
#      Inner) both suspending, a throw after resuming (FailLate), one
#      before any await (FailEarly), a Task (Pause), a ValueTask<long>
#      (Twice), an exception coming out of an awaited call (ChainFail), and
#      caught there (Catcher), a chain resumed on the thread pool (HopTwice >
#      Hop, their callees on the pool's threads); report counts each call
#      once; a call left out by --when leaves the rest of the tree as it is;
#   3. the ELT engine and the IL engine's --no-args: the runtime-async
#      methods are not traced (docs/tracer.md), the program is unchanged,
#      the rest traced.
# Exits 77 (skipped) when the 11.0.0 runtime pack does not restore here.
# Ends with "run_rtasync.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup rtasync "${1:-}" cli
# Under tests/e2e/sanitized.sh: what preloads the sanitizers into a program
# started without `dotnet`.
sanit=(${CLRTRACE_SANITIZE_RUN:+"$CLRTRACE_SANITIZE_RUN"})

echo "== publishing tests/targets/RtAsync (net11, runtime-async)"
exe=$(CT_PUBLISH_QUIET=1 ct_dotnet_publish "$root/tests/targets/RtAsync" net11async "$work" -f net10.0 \
    -r linux-x64 --self-contained -p:RuntimeFrameworkVersion=11.0.0 \
    -p:Features=runtime-async=on -p:EnablePreviewFeatures=true) && [[ -n "$exe" ]] ||
    { echo "skip: the .NET 11.0.0 runtime pack does not restore here"; exit 77; }

# ------------------------------------------------------------------ 1
"$exe" impl >"$work/impl.txt" 2>&1
for m in Quick Sum Inner Outer FailLate FailEarly Pause Twice ChainFail Catcher Hop HopTwice; do
    check "$m is runtime-async (MethodImplAttributes.Async)" grep -qx "$m async" "$work/impl.txt"
done
check "Plain is not" grep -qx "Plain plain" "$work/impl.txt"

ct_run "$work" plain "$exe"
want_out='quick=2 sum=42 plain=12 outer=v=10 late=late 7 early=early 3 pause=RanToCompletion twice=42 chain=late 9 caught=7 hops=10'
check_eq "untraced: exit code 5" 5 "$(cat "$work/plain.rc")"
check_eq "untraced: the line Program.cs prints" "$want_out" "$(cat "$work/plain.out")"

# ------------------------------------------------------------------ 2
gate='Task<int> gate=System.Threading.Tasks.Task<int>{Status=WaitingForActivation}'
want_main() {
    ct_dedent <<EOF
    Rt.Program.Main(string[] args=string[0] {}) {
      Rt.Work.Quick(int x=1) -> int 2
      Rt.Work.Sum(int a=20, int b=21, $gate)  (async: goes on)
      Rt.Work.Plain(int x=4) -> int 12
      Rt.Work.Sum(int a=20, int b=21, $gate) -> int 42  (async: task ended)
      Rt.Work.Outer(string tag="v=", $gate) {
        Rt.Work.Inner($gate)  (async: goes on)
      }  (async: goes on)
      Rt.Work.Inner($gate) -> int 10  (async: task ended)
      Rt.Work.Outer(string tag="v=", $gate) -> string "v=10"  (async: task ended)
      Rt.Work.FailLate($gate)  (async: goes on)
      Rt.Work.FailLate($gate) -> exception System.InvalidOperationException: "late 7"  (async: task ended)
      Rt.Work.FailEarly(int n=3) -> exception System.ArgumentException: "early 3"
      Rt.Work.Pause($gate)  (async: goes on)
      Rt.Work.Pause($gate)  (async: task ended)
      Rt.Work.Twice(long v=21, $gate)  (async: goes on)
      Rt.Work.Twice(long v=21, $gate) -> long 42  (async: task ended)
      Rt.Work.ChainFail($gate) {
        Rt.Work.FailLate($gate)  (async: goes on)
      }  (async: goes on)
      Rt.Work.FailLate($gate) -> exception System.InvalidOperationException: "late 9"  (async: task ended)
      Rt.Work.ChainFail($gate) -> exception System.InvalidOperationException: "late 9"  (async: task ended)
      Rt.Work.Catcher($gate) {
        Rt.Work.FailLate($gate)  (async: goes on)
      }  (async: goes on)
      Rt.Work.FailLate($gate) -> exception System.InvalidOperationException: "late 11"  (async: task ended)
      Rt.Work.Catcher($gate) -> int 7  (async: task ended)
      Rt.Work.HopTwice(int x=2)  (async: goes on)
    } -> int 5
EOF
}
# (lines of other threads, as ct_calls gives them, without time and thread)
others() {
    local pid
    pid=$(ct_pid "$1")
    ct_calls "$1" | awk -v pid="$pid" '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        split(substr($0, 1, RLENGTH), h, " "); if (h[2] == pid) next
        t = substr($0, RLENGTH + 1); sub(/^ *[0-9.]+ [mun]?s  /, "", t); sub(/^ +/, "", t); print t }'
}

echo "== the IL engine"
t=$work/il.txt
ct_run "$work" il "$ct" run -o "$t" -- "${sanit[@]}" "$exe"
check "IL: the program runs as untraced" ct_same_run "$work" plain il
check "IL: the header names the engine" grep -qE '^# CoreCLR 11\.0\.[0-9]+, ICorProfilerInfo[0-9]+, engine il, ' "$t"
check "IL: the main thread's calls, as Program.cs makes them" ct_diff_tree "$(want_main)" "$(ct_tree "$t")"
# HopTwice resumes on the thread pool after its Task.Yield, awaits Hop (which
# suspends at its own Task.Yield), Hop calls Plain(2) there, and HopTwice
# Plain(1): their lines on the pool's threads.
others "$t" >"$work/il.others"
for want in 'Rt.Work.Hop(int x=2)  (async: goes on)' 'Rt.Work.Plain(int x=2) -> int 6' \
    'Rt.Work.Hop(int x=2) -> int 7  (async: task ended)' 'Rt.Work.Plain(int x=1) -> int 3' \
    'Rt.Work.HopTwice(int x=2) -> int 10  (async: task ended)'; do
    check "IL: on a pool thread: $want" grep -qxF -- "$want" "$work/il.others"
done
check_eq "IL: nothing else on other threads" 5 "$(wc -l <"$work/il.others")"
check "IL: balanced frames" ct_balance "$t"

ct_run "$work" ilrec "$ct" record -o "$work/ilrec" -- "${sanit[@]}" "$exe"
check "IL record: the program runs as untraced" ct_same_run "$work" plain ilrec
"$ct" report "$work/ilrec" >"$work/ilrec.report" 2>&1
# One call each (FailLate three), however many times it suspended.
for f in Quick Sum Inner Outer FailEarly Pause Twice ChainFail Catcher Hop HopTwice; do
    check "report: Rt.Work.$f counted once" grep -qE "^ +1 .* Rt\.Work\.$f$" "$work/ilrec.report"
done
check "report: Rt.Work.FailLate counted three times, three exceptions" \
    grep -qE '^ +3 .* 3  Rt\.Work\.FailLate$' "$work/ilrec.report"
"$ct" replay "$work/ilrec" >"$work/ilrec.txt" 2>&1
check "replay: the same main thread" ct_diff_tree "$(want_main)" "$(ct_tree "$work/ilrec.txt")"

# A call left out by its condition (--when on Sum's arguments: a = 20) is
# followed all the same, untold: its suspension closes its frame, and the
# rest of the tree is as above without Sum's two lines.
ct_run "$work" ilwhen "$ct" run --when 'Rt.Work.Sum: a > 100' -o "$work/ilwhen.txt" -- "${sanit[@]}" "$exe"
check "IL, Sum left out by --when: the program runs as untraced" ct_same_run "$work" plain ilwhen
check "IL, Sum left out by --when: the main thread's other calls as above" \
    ct_diff_tree "$(want_main | grep -v 'Rt\.Work\.Sum(')" "$(ct_tree "$work/ilwhen.txt")"

# ------------------------------------------------------------------ 3
for mode in "elt:--engine=elt" "il-noargs:--no-args"; do
    name=${mode%%:*} opt=${mode#*:}
    echo "== $name: runtime-async methods not traced"
    t=$work/$name.txt
    ct_run "$work" "$name" "$ct" run "$opt" -o "$t" -- "${sanit[@]}" "$exe"
    check "$name: the program runs as untraced" ct_same_run "$work" plain "$name"
    check "$name: no runtime-async method traced" bash -c '! grep -qE "Rt\.Work\.(Quick|Sum|Inner|Outer|FailLate|FailEarly|Pause|Twice|ChainFail|Catcher|Hop|HopTwice)\(" "$0"' "$t"
    check "$name: Plain traced (3 calls)" test "$(grep -c 'Rt\.Work\.Plain(' "$t")" -eq 3
done

ct_end run_rtasync.sh
