#!/usr/bin/env bash
# End-to-end test of --locals: each traced frame an exception leaves, its
# arguments and locals as the exception passed through it (the first pass,
# before any finally of the frame ran), shown under the frame's exception.
#
# Usage: tests/e2e/run_locals.sh [path/to/libclrtrace.so]
#
# tests/targets/Faults handles exceptions every way C# has: `when` filters
# with side effects (it prints the order they run in), finally blocks,
# rethrow, ExceptionDispatchInfo, an exception thrown from a finally,
# stackalloc, nested try regions; it prints each caught exception's stack
# trace as the runtime gives it, and exits with 3. The values each frame
# must show are written here by hand from its source. Checks:
#   1. run --locals: stdout, stderr and exit code equal the untraced run's
#      (the program's filters ran in the same order, the stack traces and
#      the rethrows are the same); each failed frame's "locals:" line, by
#      hand: a thrower's local, a loop's state at the throw (total 12 of
#      {5, 7, -1}, attempts 3, i 2), a frame whose finally changes a local
#      afterwards (state=2, not 4), a frame with stackalloc, the frame an
#      exception from its finally leaves (shown once, the finally's);
#      frames that caught the exception have none;
#   1b. the ELT engine (no --locals: it has no filter) traces the same
#      program with the same output and exit code;
#   2. record --locals: replay shows the same lines; a trace recorded
#      without --locals has none;
#   3. --failed --locals: the failed calls with their locals;
#   4. the ELT engine and --no-args refuse --locals (exit 2, one line);
#   6. under attach (-p) to tests/targets/Service: Validate's exceptions,
#      each with its locals (n as the call's), the service's own checks
#      right;
#   5. under GC stress: 2000 exceptions out of a frame holding a string
#      and an array made for its call, while another thread allocates and
#      forces compacting collections: each locals line has its own call's
#      values (the filter's probe reads with no GC able to run: the call
#      goes through the runtime's calli stub, which keeps
#      SuppressGCTransition).
# Ends with "run_locals.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup locals "${1:-}" cli

echo "== building tests/targets/Faults"
app=$(ct_dotnet_build "$root/tests/targets/Faults" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Faults failed" >&2; exit 2; }

ct_run "$work" plain timeout -k 5 300 dotnet "$app"
check_eq "untraced: exit code 3" 3 "$(cat "$work/plain.rc")"
check "untraced: the filters ran inner first, then the outer one, then the finally" \
    grep -qzF $'inner filter\nouter filter boom 30\nmiddle finally\nfiltered -1\n' "$work/plain.out"

# locals FILE: each "locals:" line and the line above it (the frame's end),
# time, thread and duration columns left out.
locals() {
    awk '/^ *[0-9.]+ +[0-9]+ / { line = $0; sub(/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [um]?s +)?/, "", line)
                                 if (line ~ /^locals: /) print prev " | " line; prev = line }' "$1"
}
want="Faults.Work.Thrower(int n=1) -> exception System.InvalidOperationException: \"boom 10\" | locals: n=1, local=10
Faults.Work.Accumulate(int[] items=int[4] {5, 7, -1, 3}) -> exception System.ArgumentException: \"negative at 2\" | locals: items=int[4] {5, 7, -1, 3}, total=12, attempts=3, i=2
Faults.Work.Thrower(int n=2) -> exception System.InvalidOperationException: \"boom 20\" | locals: n=2, local=20
} exception System.InvalidOperationException: \"boom 20\" | locals: n=2, state=2
} exception System.InvalidOperationException: \"boom 30\" | locals: n=3, local=30
} exception System.InvalidOperationException: \"boom 30\" | locals: n=3
Faults.Work.Thrower(int n=4) -> exception System.InvalidOperationException: \"boom 40\" | locals: n=4, local=40
} exception System.InvalidOperationException: \"boom 40\" | locals: n=4
Faults.Work.Thrower(int n=5) -> exception System.InvalidOperationException: \"boom 50\" | locals: n=5, local=50
} exception System.InvalidOperationException: \"boom 50\" | locals: n=5, edi=System.Runtime.ExceptionServices.ExceptionDispatchInfo{_exception=System.InvalidOperationException{Message=\"boom 50\"}, _dispatchState={...}}
Faults.Work.Stack(int n=3) -> exception System.InvalidOperationException: \"stack 18\" | locals: n=3, buf=[4] {0, 3, 6, 9}, sum=18, i=4, v=9
Faults.Work.Thrower(int n=6) -> exception System.InvalidOperationException: \"boom 60\" | locals: n=6, local=60
} exception System.ApplicationException: \"from finally 6\" | locals: n=6"

echo "== 1. run --locals"
ct_run "$work" run timeout -k 5 300 "$ct" run --locals -o "$work/run.txt" -- dotnet "$app"
check "run --locals: stdout, stderr and exit code (3) equal the untraced run's" \
    ct_same_run "$work" plain run
# (the ExceptionDispatchInfo's captured state is the runtime's: its bytes
# vary; shown as {...} here)
got=$(locals "$work/run.txt" | sed -E 's/_dispatchState=\{StackTrace=.*\}\}$/_dispatchState={...}}/')
check_eq "run --locals: each failed frame's locals, by hand from the source" "$want" "$got"
check "the frames that caught their exception (Filtered, Main) show none" bash -c \
    "! grep -B1 'locals:' '$work/run.txt' | grep -qE 'Faults\\.Work\\.Filtered|Faults\\.Program\\.Main'"

ct_run "$work" elt timeout -k 5 300 "$ct" run --engine=elt -o "$work/elt.txt" -- dotnet "$app"
check "the ELT engine: stdout, stderr and exit code (3) equal the untraced run's" \
    ct_same_run "$work" plain elt

echo "== 2. recorded"
ct_run "$work" rec timeout -k 5 300 "$ct" record --locals -o "$work/rec" -- dotnet "$app"
check "record --locals: stdout and exit code equal the untraced run's" bash -c \
    "diff -q '$work/plain.out' '$work/rec.out' && [[ \$(cat '$work/rec.rc') == 3 ]]"
"$ct" replay "$work/rec" >"$work/replay.txt" 2>&1
got=$(locals "$work/replay.txt" | sed -E 's/_dispatchState=\{StackTrace=.*\}\}$/_dispatchState={...}}/')
check_eq "replay: the same locals" "$want" "$got"
ct_run "$work" recno timeout -k 5 300 "$ct" record -o "$work/recno" -- dotnet "$app"
"$ct" replay "$work/recno" >"$work/replay-no.txt" 2>&1
check_eq "recorded without --locals: no locals lines" 0 "$(grep -c 'locals:' "$work/replay-no.txt")"

echo "== 3. --failed --locals"
ct_run "$work" failed timeout -k 5 300 "$ct" run --failed --locals -o "$work/failed.txt" -- dotnet "$app"
check "--failed --locals: stdout and exit code equal the untraced run's" bash -c \
    "diff -q '$work/plain.out' '$work/failed.out' && [[ \$(cat '$work/failed.rc') == 3 ]]"
check "--failed --locals: Accumulate's failed call with its locals" grep -qF \
    "locals: items=int[4] {5, 7, -1, 3}, total=12, attempts=3, i=2" "$work/failed.txt"
check_eq "--failed --locals: no call that returned" 0 \
    "$(grep -cE 'Faults\.Work\.Stack\(int n=2\) -> int' "$work/failed.txt")"

echo "== 4. refusals"
for opt in --engine=elt --no-args; do
    ct_run "$work" refuse "$ct" run "$opt" --locals -- dotnet "$app"
    check_eq "$opt --locals: exit code 2" 2 "$(cat "$work/refuse.rc")"
    check_eq "$opt --locals: the one line" \
        "clrtrace run: --locals puts probes in the IL of methods: not with --engine=elt, -a, --no-args or --null" \
        "$(cat "$work/refuse.err")"
done

echo "== 5. under GC stress"
ct_run "$work" stress timeout -k 5 300 "$ct" run --locals -F 'Faults.Work.Churn' -o "$work/stress.txt" \
    -- dotnet "$app" stress 2000
check_eq "stress: the program caught each exception it made (exit code 0)" "0 caught 2000" \
    "$(cat "$work/stress.rc") $(cat "$work/stress.out")"
check "stress: 2000 locals lines, each with its call's n, text \"v\" + n and pair {n, 2n}" awk '
    /Faults\.Work\.Churn\(int n=/ { match($0, /n=[0-9]+/); n = substr($0, RSTART + 2, RLENGTH - 2) }
    /locals:/ { k++; want = "locals: n=" n ", text=\"v" n "\", pair=int[2] {" n ", " (n * 2) "}"
                if (substr($0, length($0) - length(want) + 1) != want) { if (bad++ < 3) print } }
    END { exit !(k == 2000 && !bad) }' "$work/stress.txt"

echo "== 6. under attach"
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }
ct_service_run "$svc"
if [[ -n "$spid" ]]; then
    ct_run "$work" att "$ct" run -p "$spid" --max-overhead off --locals -F 'Svc.Handlers.Validate' -d 1s -o "$work/att.txt"
    check_eq "run -p --locals: exit code 0" 0 "$(cat "$work/att.rc")"
    # (Its exception's message is "n=N"; a call another thread's line came
    # into the middle of ends on a "} exception" line of its own.)
    check "run -p --locals: each exception of Validate(n) followed by locals: n=<the same n>" awk '
        /exception System\.InvalidOperationException: "n=[0-9]+"$/ { match($0, /"n=[0-9]+"/); want = substr($0, RSTART + 1, RLENGTH - 2); e++; next }
        /locals:/ { k++; if ($0 !~ ("locals: " want "$")) { print; bad++ } }
        END { exit !(e > 0 && k == e && !bad) }' "$work/att.txt"
    ct_service_done
else
    ct_fail "the service did not start"
fi

ct_end run_locals.sh
