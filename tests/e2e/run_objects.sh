#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Objects and check objects field by
# field, collections by element, boxed values and well-known structs, with
# the expected text written by hand from the target's C# source (Program.cs).
#
# Usage: tests/e2e/run_objects.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. traced and untraced runs print the same stdout and exit with the same
#      code (5); the traced run writes nothing to stderr;
#   2. the decoded calls (Program.cs);
#   3. replay of a recorded trace reads byte for byte as that run's live log,
#      and as the first traced run (addresses aside); dump --chrome
#      carries the same values;
#   3b. the offline selection (-F, -N, --tid, --since/--until) on the recorded
#      trace, by arithmetic over the full report;
#   4. the limits --object-depth, --object-fields, --value-bytes at their
#      value and one past it; bad values: one stderr line, an untraced run;
#   5. CLRTRACE_ALL=1: every framework object the program passes is shown by
#      content, the program unchanged, nothing damaged.
# Ends with "run_objects.sh: N passed, M failed"; exits non-zero when a check
# failed (2 when the setup did).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup objects "${1:-}" cli

echo "== building tests/targets/Objects"
app=$(ct_dotnet_build "$root/tests/targets/Objects" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Objects failed" >&2; exit 2; }

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 5" 5 "$(cat "$work/plain.rc")"
trace="$work/traced.txt"
run_traced traced --
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"
[[ -s "$trace" ]] || { echo "ERROR: the traced run wrote no trace" >&2; exit 2; }

# The "run this, expect these lines" checks: cases/objects.case (lib_cases.sh).
ct_cases "$here/cases/objects.case"

# --------------------------------------------------- 3. replay and chrome
echo "== record, replay, dump --chrome"
ct_run "$work" rec "$ct" record -o "$work/rec" --text "$work/live.txt" -- dotnet "$app"
check_eq "record: exit code 5" 5 "$(cat "$work/rec.rc")"
ct_run "$work" replay "$ct" replay "$work/rec"
check "replay: byte for byte the live text log of the same run" cmp "$work/live.txt" "$work/replay.out"
calls() { grep -E '^ *[0-9]+\.[0-9]{6} .*Demo\.Calls\.[A-Za-z]+\(' "$1" | sed -E 's/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mun]?s +)?//; s/@0x[0-9a-f]+/@ADDR/g'; }
check "the recorded run shows the calls as the first traced run" diff <(calls "$trace") <(calls "$work/replay.out")
ct_run "$work" chrome "$ct" dump --chrome "$work/rec"
check "dump --chrome carries the values" grep -qF 'Demo.Customer{Name=\"Ada\", Age=36}' "$work/chrome.out"

# ------------------------------------------------ the selection offline
echo "== selection: -F, -N, --tid, --since"
"$ct" report "$work/rec" >"$work/full.report"
"$ct" report -F 'Demo.Calls.*' "$work/rec" >"$work/F.report"
"$ct" report -N 'Demo.Calls.*' "$work/rec" >"$work/N.report"
rows() { sed -nE 's/^ *([0-9]+) +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +(\S+)$/\2 \1/p' "$1" | sort; }
check "report -F 'Demo.Calls.*': exactly the Demo.Calls rows of the full report, same calls" \
    diff <(rows "$work/full.report" | grep '^Demo\.Calls\.') <(rows "$work/F.report")
check "report -N 'Demo.Calls.*': the other rows' calls as in the full report" \
    diff <(rows "$work/full.report" | grep -v '^Demo\.Calls\.') <(rows "$work/N.report")
# Main's total is its own call's whole time, whatever is left out under it.
main_total() { sed -nE 's/^ *1 +([0-9.]+ [mun]?s) .* Demo\.Program\.Main$/\1/p' "$1"; }
check_eq "report -N: Main's total unchanged" "$(main_total "$work/full.report")" "$(main_total "$work/N.report")"
tid=$("$ct" dump "$work/rec" | sed -nE 's/.* ENTER t=[0-9]+ tid=([0-9]+) .*/\1/p' | head -n 1)
check_eq "info --tid $tid: one thread" "threads       1" "$("$ct" info --tid "$tid" "$work/rec" | grep '^threads')"
check_eq "info --tid 1 (no such thread): no call" \
    "calls         0 ended (0 returned, 0 by exception, 0 by tail call); 0 entered" \
    "$("$ct" info --tid 1 "$work/rec" | grep '^calls')"
check_eq "info --since 3600s (after the end): no call" \
    "calls         0 ended (0 returned, 0 by exception, 0 by tail call); 0 entered" \
    "$("$ct" info --since 3600s "$work/rec" | grep '^calls')"
full_calls=$("$ct" info "$work/rec" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')
check_eq "info --since 0 --until 1h: every call" "$full_calls" \
    "$("$ct" info --since 0 --until 3600s "$work/rec" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')"

# Overloads get a row each, named by their parameter types; --params names
# every row; --stats: each row's MIN <= AVG <= MAX, and for a function
# called once, AVG = MIN = MAX = TOTAL.
ct_has_re "$work/full.report" 1 '^ +2 +.*  Demo\.Calls\.Twice\(int\)$'
ct_has_re "$work/full.report" 1 '^ +1 +.*  Demo\.Calls\.Twice\(string\)$'
"$ct" report --params --stats "$work/rec" >"$work/stats.report"
ct_has_re "$work/stats.report" 1 '  Demo\.Calls\.Save\(Order\)$'
check "report --stats: MIN <= AVG <= MAX; called once: TOTAL = AVG = MIN = MAX" awk '
    function ns(v, u) { return (u == "ns") ? v : (u == "us") ? v * 1e3 : (u == "ms") ? v * 1e6 : v * 1e9 }
    /^#  CALLS/ { on = 1; next }
    /^# / { on = 0 }
    # CALLS, TOTAL, SELF, AVG, MIN, MAX (each a number and a unit), FUNCTION
    on && NF >= 12 {
        a = ns($6, $7); lo = ns($8, $9); hi = ns($10, $11)
        if (lo > a || a > hi) { print "bad: " $0; bad = 1 }
        if ($1 == 1 && ($2 $3 != $6 $7 || $2 $3 != $8 $9 || $2 $3 != $10 $11)) { print "once: " $0; bad = 1 }
        rows++
    }
    END { if (!rows) print "no rows"; exit bad || !rows }' "$work/stats.report"

ct_end run_objects.sh
