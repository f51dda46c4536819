#!/usr/bin/env bash
# End-to-end test: the budget and the limits (issue 27): --max-overhead (on by
# default under -p), --limit N, --rate N/s, on tests/targets/Service and
# tests/targets/Values.
#
# Usage: tests/e2e/run_budget.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. a service whose one thread calls Svc.Handlers.Add as fast as it can
#      (`spin`), attached with -F Svc.Handlers.Add and no budget option: the
#      default budget (5%) steps Add down one step a window, values off, then
#      sampled, then untraced (its code restored), each a "# budget at"
#      line naming the thread and its share over 5%; `info` says budget 5%,
#      lossy, and counts the calls not recorded, as does clrtrace's line
#      after its detach line; nothing on the service's
#      stdout or stderr but its own, its exit code (0);
#   2. the same with --max-overhead off: no budget, lossless (nothing
#      dropped, no budget line);
#   3. --limit 3 at start-up (Values): Demo.Program.Show, the program's one
#      Console.WriteLine (a line per call), recorded 3 times; the summary's
#      budget line counts the others;
#   4. --rate 5/s at start-up (Service run: two workers, a call a ms each):
#      at most 5 Handle calls recorded in any second of the trace, and the
#      others counted;
#   5. --failed (Values: Thrower.Catch(3) -> Outer(3) -> Fail(3), which
#      throws InvalidOperationException("code 3"), caught in Catch): only
#      that chain, with Main around it, at record time and offline
#      (replay --failed of a whole trace), the same tree both ways;
#   6. bad values: one line, exit 2.
# Ends with "run_budget.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup budget "${1:-}" cli

echo "== building tests/targets/Service and tests/targets/Values"
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }
vals=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$vals" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }

pids=()
cleanup_pids() { local p; for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; }
ct_at_exit cleanup_pids

# spin NAME SECONDS: the service spinning in the background (NAME.out/.err/
# .rc); spid once it printed "ready PID" (at most 60 s).
spin() {
    local name=$1
    # CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the process gets the
    # sanitizers' runtime the profiler it will load needs.
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$svc" spin "$2" >"$work/$name.out" 2>"$work/$name.err"
      echo $? >"$work/$name.rc" ) &
    ct_ready_pid "$work/$name.out" && pids+=("$spid")
}
# finish NAME: waits for the service's end (its .rc), at most 120 s.
finish() {
    local i
    for ((i = 0; i < 1200; i++)); do
        [[ -s "$work/$1.rc" ]] && return 0
        sleep 0.1
    done
    return 1
}

# ------------------------------------------------ 1. the default budget
echo "== attach with the default budget"
spin def 8
check "the service is ready" test -n "$spid"
sleep 1
ct_run "$work" rec "$ct" record -p "$spid" -F Svc.Handlers.Add -d 3s -o "$work/def"
finish def
check_eq "record -p: exit code 0" 0 "$(cat "$work/rec.rc")"
check_eq "the service: exit code 0 (spin)" 0 "$(cat "$work/def.rc" 2>/dev/null)"
check_eq "the service: nothing on its stderr" "" "$(cat "$work/def.err")"
check_eq "the service: no line of clrtrace on its stdout" 0 "$(grep -c clrtrace "$work/def.out")"
check "the service: its last line is its own" grep -q '^done$' "$work/def.out"
"$ct" replay "$work/def" >"$work/def.txt" 2>&1
"$ct" info "$work/def" >"$work/def.info" 2>&1
steps=$(sed -nE 's/^# budget at [0-9.]+: Svc\.Handlers\.Add (values off|sampled: one call in 16 per thread|untraced) \(the tracer took ([0-9.]+)% of thread ([0-9]+).s time\)$/\1|\2|\3/p' \
    "$work/def.txt")
# (After a quiet spell the service may get a step back, and lose it again.)
check_eq "the first steps, one a window: values off, sampled, untraced" \
    "values off;sampled: one call in 16 per thread;untraced" \
    "$(cut -d'|' -f1 <<<"$steps" | head -3 | paste -sd';')"
check_eq "each step names the service's spinning thread" "" \
    "$(cut -d'|' -f3 <<<"$steps" | grep -v "^[0-9]\+$" || true)"
check_eq "each step's share is over the budget (5%)" "" \
    "$(cut -d'|' -f2 <<<"$steps" | awk '$1 <= 5' )"
check "info: budget 5% and lossy in the settings" grep -qE '^settings .*, budget 5%, lossy, attached$' \
    "$work/def.info"
skipped=$(sed -nE 's/^budget +([0-9]+) calls not recorded.*/\1/p' "$work/def.info")
check "info: calls not recorded, counted ($skipped)" test "${skipped:-0}" -gt 0
check "record -p: after its detach line, the budget's doings, the count as info's" grep -qE \
    "^clrtrace record: budget 5%: [0-9]+ steps \(Svc\.Handlers\.Add [a-z :0-9]+\); $skipped calls not recorded, counted in the trace$" \
    "$work/rec.err"
check "replay: the summary's budget line counts them" grep -qE \
    "^# budget: $skipped calls not recorded \(the budget, --limit, --rate\): Svc\.Handlers\.Add $skipped( \(.*\))?$" \
    "$work/def.txt"

# --------------------------------------------- 2. --max-overhead off
echo "== attach with --max-overhead off"
spin off 6
sleep 1
ct_run "$work" recoff "$ct" record -p "$spid" -F Svc.Handlers.Add --max-overhead off -d 1s \
    -o "$work/off"
finish off
check_eq "the service: exit code 0 (spin)" 0 "$(cat "$work/off.rc" 2>/dev/null)"
"$ct" info "$work/off" >"$work/off.info" 2>&1
"$ct" replay "$work/off" >"$work/off.txt" 2>&1
check_eq "off: no budget line" 0 "$(grep -c '^# budget' "$work/off.txt")"
check "off: nothing dropped" grep -qE '^dropped +0 events$' "$work/off.info"
check "off: neither budget nor lossy in the settings" grep -qE '^settings .*bytes, attached$' \
    "$work/off.info"

# -------------------------------------------------------- 3. --limit
echo "== --limit 3"
ct_run "$work" lim "$ct" run --limit 3 -o "$work/lim.txt" -- dotnet "$vals"
# Show is the program's one Console.WriteLine: a line per call.
shows=$(wc -l <"$work/lim.out")
check "the program printed its lines ($shows)" test "$shows" -gt 3
check_eq "Show recorded 3 times" 3 \
    "$(grep -cE '^ *[0-9.]+ +[0-9]+ .* Demo\.Program\.Show\(' "$work/lim.txt")"
check "the budget line counts Show's other calls ($((shows - 3)))" grep -qE \
    "^# budget: [0-9]+ calls not recorded \(the budget, --limit, --rate\): (.*, )?Demo\.Program\.Show $((shows - 3))(,|$)" \
    "$work/lim.txt"

# --------------------------------------------------------- 4. --rate
echo "== --rate 5/s"
ct_run "$work" rate "$ct" record --rate 5/s -F Svc.Handlers.Handle -o "$work/rate" -- \
    dotnet "$svc" run 3 2
"$ct" replay "$work/rate" >"$work/rate.txt" 2>&1
per=$(sed -nE 's/^ *([0-9]+)\.[0-9]+ +[0-9]+ .* Svc\.Handlers\.Handle\(.*/\1/p' "$work/rate.txt" |
    sort | uniq -c | awk '{ print $1 }' | sort -n | tail -1)
check "at most 5 Handle calls in any second (most: ${per:-0})" test "${per:-0}" -le 5 -a "${per:-0}" -gt 0
check "the others are counted" grep -qE '^# budget: [0-9]+ calls not recorded .*Svc\.Handlers\.Handle [0-9]+' \
    "$work/rate.txt"

# ---------------------------------------------------------- 5. --failed
echo "== --failed"
# The chain, written from Kinds.cs and Program.cs: each call's name and
# values, its end (the exception leaves Fail and Outer; Catch returns the
# message; Main returns 7).
want_failed='Demo.Program.Main(string[] args=string[0] {}) {
Demo.Thrower.Catch(int code=3) {
Demo.Thrower.Outer(int code=3) {
Demo.Thrower.Fail(int code=3) -> exception System.InvalidOperationException: "code 3"
} exception System.InvalidOperationException: "code 3"
} -> string "code 3"
} -> int 7'
calls_of() { sed -nE 's/^ *[0-9]+\.[0-9]{6} +[0-9]+ +([0-9.]+ [mu]?s)? +//p' "$1" | sed -E 's/^ +//'; }
ct_run "$work" failrun "$ct" run --failed -o "$work/failrun.txt" -- dotnet "$vals"
check_eq "run --failed: the failed chain only" "$want_failed" "$(calls_of "$work/failrun.txt")"
ct_run "$work" failrec "$ct" record -o "$work/failrec" -- dotnet "$vals"
"$ct" replay --failed "$work/failrec" >"$work/failrep.txt" 2>&1
check_eq "replay --failed: the same chain from the whole trace" "$want_failed" \
    "$(calls_of "$work/failrep.txt")"
"$ct" report --failed "$work/failrec" >"$work/failreport.txt" 2>&1
check "report --failed: Fail's row, 1 call, 1 exception" grep -qE \
    '^ +1 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +1  Demo\.Thrower\.Fail$' "$work/failreport.txt"
check_eq "report --failed: four functions" 4 \
    "$(grep -cE '  Demo\.(Program\.Main|Thrower\.(Catch|Outer|Fail))$' "$work/failreport.txt")"

# ----------------------------------------------------- 6. bad values
echo "== bad values"
for bad in "--max-overhead 0" "--max-overhead 101" "--limit 0" "--rate abc" "--rate 5/m"; do
    # shellcheck disable=SC2086
    ct_run "$work" bad "$ct" run $bad -- dotnet "$vals"
    check_eq "$bad: exit code 2" 2 "$(cat "$work/bad.rc")"
    check_eq "$bad: one line" 1 "$(wc -l <"$work/bad.err")"
done

ct_end run_budget.sh
