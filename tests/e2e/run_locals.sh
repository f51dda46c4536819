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
# The checks are the cases of cases/locals.case (sections main, locals on
# the live log and the replay, attach).
# Ends with "run_locals.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup locals "${1:-}" cli

echo "== building tests/targets/Faults"
app=$(ct_dotnet_build "$root/tests/targets/Faults" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Faults failed" >&2; exit 2; }

# locals FILE: each "locals:" line and the line above it (the frame's end),
# time, thread and duration columns left out; the ExceptionDispatchInfo's
# captured state (the runtime's: its bytes vary) shown as {...}.
locals() {
    awk '/^ *[0-9.]+ +[0-9]+ / { line = $0; sub(/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [um]?s +)?/, "", line)
                                 if (line ~ /^locals: /) print prev " | " line; prev = line }' "$1" |
        sed -E 's/_dispatchState=\{StackTrace=.*\}\}$/_dispatchState={...}}/'
}

cf="$here/cases/locals.case"
ct_cases "$cf" main
t=run.txt label="run --locals: each failed frame's locals, by hand from the source" ct_cases "$cf" locals
t=replay.out label="replay: the same locals" ct_cases "$cf" locals

echo "== 6. under attach"
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }
ct_service_run "$svc"
if [[ -n "$spid" ]]; then
    ct_cases "$cf" attach
    ct_service_done
else
    ct_fail "the service did not start"
fi

ct_end run_locals.sh
