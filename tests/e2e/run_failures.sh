#!/usr/bin/env bash
# End-to-end test: async methods that fail (issue 35), tests/targets/Failures.
# An async method's body (its state machine's MoveNext, shown as `async
# NAME(...)`) whose task its builder faults or cancels (SetException) ends by
# that exception, as a throw would end it: type, message, on the body's own
# line; each awaiting body that rethrows it ends by it too; one that catches
# it does not. The expected ends are written by hand from the target's
# source (Program.cs).
#
# Usage: tests/e2e/run_failures.sh [path/to/libclrtrace.so]
#
# Checks (CLRTRACE_ENGINE picks the engine: e2e.failures and
# e2e.elt.failures):
#   1. traced and untraced runs print the same and exit with the same code
#      (9); nothing on stderr;
#   2. every async body that ends by an exception, with it: a chain three
#      deep (Checkout > Charge > Authorize, thrown after an await), the same
#      caught in the middle (SafeCheckout ends normally), a throw before the
#      first await (Validate), a ValueTask<T> (Stock), Task.WhenAll of two
#      failures (each Fail, and Both by the first), an IAsyncEnumerable
#      throwing after its first item (the iterator, and Sum awaiting it), a
#      cancellation (Wait: TaskCanceledException); no other body ends by one;
#   3. each async call (the method's stub, with its arguments) ends when
#      its task does: its result or its exception, on a line of its own;
#      report counts it once;
#   4. report's EXCEPTIONS column counts them; replay --failed shows them;
#      --when '...: exception == "T"' chooses them; dump --chrome carries
#      each exception;
#   5. under attach (the IL engine), the calls and bodies end as in 2 and 3.
# The checks are the cases of cases/failures.case (sections start and
# attach); the script builds the target and serves it for the attach.
# Ends with "run_failures.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup failures "${1:-}" cli

echo "== building tests/targets/Failures"
app=$(ct_dotnet_build "$root/tests/targets/Failures" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Failures failed" >&2; exit 2; }

# ends FILE: "CALL => END" for each async body of every thread (a call
# written as an opening line and its closing line, or as one line).
ends() {
    local tid
    for tid in $(ct_calls "$1" | awk 'match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /) { split(substr($0, 1, RLENGTH), h, " "); if (!seen[h[2]]++) print h[2] }'); do
        ct_tree "$1" "$tid"
        echo "@@"
    done | awk '
        $0 == "@@" { n = 0; next }
        { i = match($0, /[^ ]/); t = substr($0, i) }
        t ~ /^}/ { if (n) { c = open[n--]; e = substr(t, 2); sub(/^ (-> )?/, "", e); if (c ~ /^async /) print c " => " e } next }
        t ~ / \{$/ { open[++n] = substr(t, 1, length(t) - 2); next }
        t ~ /^async / {
            k = index(t, " -> ")
            if (k) print substr(t, 1, k - 1) " => " substr(t, k + 4); else print t " => "
        }' | LC_ALL=C sort
}
# task_ended FILE: "NAME(ARGS) -> END" of each line "... (async: task ended)".
task_ended() {
    sed -n 's/^ *[0-9.]* *[0-9]* *[0-9.]* [mun]*s *\(.*\)  (async: task ended)$/\1/p' "$1" | LC_ALL=C sort
}
# checkouts FILE: the Checkout calls' opening lines and their ends.
checkouts() {
    sed -n 's/^ *[0-9.]* *[0-9]* *\([0-9.]* [mun]*s\)\{0,1\} *\(Shop\.Orders\.Checkout(.*\)$/\2/p' "$1" |
        sed 's/ {$//; s/  (async: task ended)$/ (end)/' | LC_ALL=C sort
}
ct_cases "$here/cases/failures.case" start

# Under attach (the IL engine's only way; run with it, e2e.failures): the
# builders are not rewritten after an attach, so an async body's own return
# looks at its task: a call that returned during the session ends when its
# task does, with its result or the exception its task holds.
if [[ "${CLRTRACE_ENGINE:-il}" == il ]]; then
    echo "== attached"
    # (CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime
    # the profiler it will load needs; lib_checks.sh, ct_serve_shop.)
    env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$app" serve 5 >"$work/serve.out" 2>"$work/serve.err" &
    spid=$!
    ct_at_exit ct_kill_quiet "$spid"
    if ct_ready_pid "$work/serve.out"; then
        ct_run "$work" att timeout -k 5 120 "$ct" record -p "$spid" -d 2s -o "$work/att" \
            -F 'Shop.*' -N '*Open*' -N '*RunOnce*'
        ct_cases "$here/cases/failures.case" attach
        wait "$spid"
        check_eq "attach: the service served on and exited with 0" "0 served" \
            "$? $(tail -n 1 "$work/serve.out")"
    else
        check "attach: the service is ready" false
    fi
fi
ct_end run_failures.sh
