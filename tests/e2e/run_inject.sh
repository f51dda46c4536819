#!/usr/bin/env bash
# End-to-end test of --inject: faults injected on purpose into the calls
# it names, at start-up and under attach (docs/cli.md, "Injecting faults").
#
# Usage: tests/e2e/run_inject.sh [path/to/libclrtrace.so]
#
# tests/targets/Inject has a client whose Send a retry loop repeats (up to
# three attempts a request), methods of every return type, async methods a
# caller awaits, Charge(decimal amount), methods whose delay it measures,
# and a service mode (Send in a loop) for the attach; tests/targets/
# InjectTests holds xunit tests of the client. Every expectation below is
# written by hand from their source. Checks:
#   1. the retry loop: `throw HttpRequestException every 2` fails Send's
#      2nd, 4th, ... calls: each request after the first recovers at its
#      second attempt (the program's own output), exit code 0; the trace
#      marks exactly those calls [injected] with the exception, counts them
#      ("# injected:"), and info counts them; every call not chosen ran its
#      original code (its reply); `every 1`: nothing recovers, and the exit
#      code is the program's (3);
#   2. return VALUE for each return type (int, bool, string, decimal, enum
#      member, struct default, Nullable null, double, long, char, void,
#      Task<int>, Task<string>, Task, ValueTask<int>): the program prints
#      the values injected and every other method's own;
#   3. an async method: `throw TimeoutException("slow") every 2` faults the
#      task it returns (the caller gets its task, then the exception at its
#      await), exit code the program's (2 failures);
#   4. `when amount > 100`: only the charges above 100 time out, the trace
#      line of one of them as the issue writes it;
#   5. `delay 250ms`: the call returns its own value, at least 200 ms later;
#      an async method's delay is before its first await: it returns its
#      task at least 200 ms later, and the task ends with its own value;
#   6. selectors on 20 calls: after 17, 3..5, every 3 after 10, and
#      probability 0.3 with --inject-seed (the same calls fail twice; a run
#      without a seed tells its seed on stderr, and that seed repeats it);
#   7. refusals, each one line with its offset, exit 2, the program not
#      run: a malformed spec, --engine=elt, more than CT_INJECT_MAX (8)
#      specs, --inject-seed alone; checked against the program's assembly
#      before it runs: a value the method cannot return (a string for an
#      int, out of range, no such enum member), a type that is not an
#      exception, an abstract one, none of that name, a constructor; the
#      profiler alone (CLRTRACE_INJECT) checks the same: one note, and the
#      program runs as without it;
#   8. exports: Chrome's args.injected, Perfetto's "injected" annotation
#      (check_perfetto.py), OTLP's clrtrace.injected attribute (protoc);
#   9. `dotnet test` of the xunit tests under --inject: the test of Send sees
#      the fault and fails, the others pass, exit code 1 (the untraced run:
#      all 3 pass);
#  10. under attach (-p) to the service mode: a spec its assembly refuses
#      refuses the attach (exit 2, one line, no profiler in the process, no
#      trace folder); then Send's calls fail every 10th,
#      Count returns -1 and FetchAsync's task 7 every 5th, during the
#      session only: the service's own counts of each equal the trace's
#      injected calls, none after the detach, nothing else it prints
#      changes, and it ends as it does untraced.
# Checks 1-9 are the cases of cases/inject.case, but 6's probability.
# Ends with "run_inject.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup inject "${1:-}" cli

echo "== building tests/targets/Inject and tests/targets/InjectTests"
app=$(ct_dotnet_build "$root/tests/targets/Inject" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Inject failed" >&2; exit 2; }
tests=$(ct_dotnet_build "$root/tests/targets/InjectTests" "$work") && [[ -n "$tests" ]] ||
    { echo "ERROR: dotnet build of tests/targets/InjectTests failed" >&2; exit 2; }

# inj NAME ARGS... -- PROGRAM-ARGS...: `clrtrace run ARGS -o NAME.txt --
# dotnet Inject.dll PROGRAM-ARGS` into NAME.out, .err, .rc.
inj() {
    local name=$1 args=()
    shift
    while [[ $# -gt 0 && "$1" != -- ]]; do args+=("$1"); shift; done
    shift
    ct_run "$work" "$name" timeout -k 5 300 "$ct" run -o "$work/$name.txt" "${args[@]}" -- \
        dotnet "$app" "$@"
}
# call lines of NAME's trace without the time, thread and duration columns
calls_of() {
    ct_calls "$work/$1.txt" | sed -E 's/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [um]?s +)?//; s/@0x[0-9a-f]+/@ADDR/g'
}

# failed NAME: the calls NAME.out says failed ("call N failed"), on one line.
failed() { sed -n 's/^call \([0-9]*\) failed$/\1/p' "$work/$1.out" | paste -sd ' '; }
ct_cases "$here/cases/inject.case"

echo "== 6b. probability (which calls: the seed's)"
inj p1 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed 7 -- calls 20
inj p2 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed 7 -- calls 20
check "probability 0.3, --inject-seed 7: some calls fail, not all" \
    test -n "$(failed p1)" -a "$(failed p1)" != "$(seq -s ' ' 1 20)"
check_eq "probability: the same seed fails the same calls" "$(failed p1)" "$(failed p2)"
inj p3 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' -- calls 20
seed=$(sed -n "s/^clrtrace: --inject: probability's seed is \([0-9]*\) .*/\1/p" "$work/p3.err")
check "no seed: stderr tells the seed" test -n "$seed"
inj p4 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed "${seed:-0}" -- calls 20
check_eq "that seed repeats the run" "$(failed p3)" "$(failed p4)"

echo "== 10. under attach"
ct_serve "$app"
check "the service is ready" test -n "$spid"
sleep 0.5
# A spec the service's assembly refuses: the attach is refused before it
# begins, the process untouched (no profiler in it, no trace folder).
ct_run "$work" attachbad timeout -k 5 120 "$ct" record -p "${spid:-0}" -d 1s -o "$work/attachbad.d" \
    --inject 'Inject.Client.Count: return "x"'
check_eq "under attach, a value Count cannot return: exit code 2" 2 "$(cat "$work/attachbad.rc")"
check_eq "under attach, a value Count cannot return: one line with its offset" \
    "clrtrace record: --inject 'Inject.Client.Count: return \"x\"': Inject.Client.Count: the method returns an integer: a whole number or default at offset 28" \
    "$(cat "$work/attachbad.err")"
check "under attach, refused: the process untouched (no profiler loaded in it)" \
    bash -c "! grep -q libclrtrace /proc/${spid:-0}/maps"
check "under attach, refused: no trace folder made" test ! -e "$work/attachbad.d"
ct_run "$work" attach timeout -k 5 120 "$ct" record -p "${spid:-0}" -d 2s -o "$work/attach.d" \
    --inject 'Inject.Client.Send: throw HttpRequestException every 10' \
    --inject 'Inject.Client.Count: return -1 every 5' \
    --inject 'Inject.Client.FetchAsync: return 7 every 5'
check_eq "record -p --inject: exit code 0" 0 "$(cat "$work/attach.rc")"
sleep 1 # the service runs on, its original code restored
ct_serve_done
nfail=$(grep -c '^live[0-9]* failed: injected by clrtrace$' "$work/svc.out")
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.Send \([0-9]*\) (.*/\1/p')
check "under attach: calls failed (every 10th)" test "${nfail:-0}" -gt 0
check_eq "under attach: the service's failures are the trace's injected calls, none after the detach" \
    "$nfail" "${ninj:-none}"
check "under attach: every 10th call of the session" awk '
    /^live[0-9]* failed/ { n = substr($1, 5) + 0; if (prev && n - prev != 10) bad = 1; prev = n }
    END { exit bad }' "$work/svc.out"
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.Count \([0-9]*\) (.*/\1/p')
check_eq "under attach: Count returned -1 (every 5th) as often as the trace says" \
    "$(grep -c '^live[0-9]* count -1$' "$work/svc.out")" "${ninj:-none}"
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.FetchAsync \([0-9]*\) (.*/\1/p')
check_eq "under attach: FetchAsync's task gave 7 (every 5th) as often as the trace says" \
    "$(grep -c '^live[0-9]* fetch 7$' "$work/svc.out")" "${ninj:-none}"
check "under attach: nothing else changed (only those lines)" \
    test -z "$(grep -vE '^(ready [0-9]+|served [0-9]+|live[0-9]+ (failed: injected by clrtrace|count -1|fetch 7))$' "$work/svc.out")"
check "under attach: the trace dropped nothing" \
    grep -qx 'dropped       0 events' <("$ct" info "$work/attach.d")

ct_end run_inject.sh
