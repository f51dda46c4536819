#!/usr/bin/env bash
# End-to-end test of the percentiles and histograms of `clrtrace report`
# (--stats: P50, P90, P99; --histogram GLOB), on a real program of known
# durations.
#
# Usage: tests/e2e/run_percentiles.sh [path/to/libclrtrace.so]
#
# tests/targets/Latency calls Work.Wait(ms), a Thread.Sleep, 50 times with
# 5 ms, 45 times with 40 ms and 5 times with 200 ms. By hand from that
# source: the 50th shortest call is a 5 ms one, the 90th a 40 ms one, the
# 99th a 200 ms one (a sleep takes its time and a little more). Checks:
#   1. report --stats: 100 calls; MIN at least 4.5 ms; P50 a 5 ms call
#      (below 38 ms), P90 a 40 ms one (38 ms, below 190 ms), P99 a 200 ms
#      one (190 ms or more), MAX at least P99;
#   2. the same percentiles computed here from replay's duration of each
#      call (sorted, the values of ranks 50, 90 and 99): report's are within
#      4 % of them (the buckets' bound, 3.125 %, and the text's rounding);
#   3. report --histogram 'Latency.Work.*': one histogram of 100 calls, the
#      five 200 ms calls in the ranges from 134.2 ms up; a glob that
#      matches nothing prints none; --histogram without its glob is a usage
#      error (exit 2, one line);
#   4. graph 'Latency.*': Main's one call from no caller, its 100 calls of
#      Wait (their time: Wait's TOTAL), Wait's one caller; a glob that
#      matches nothing: exit 1, one line.
# The checks but graph's are the cases of cases/percentiles.case.
# Ends with "run_percentiles.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup percentiles "${1:-}" cli

echo "== building tests/targets/Latency"
app=$(ct_dotnet_build "$root/tests/targets/Latency" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Latency failed" >&2; exit 2; }

# ns VALUE UNIT: a duration as the text shows it ("5.1 ms"), in ns.
ns() { awk -v v="$1" -v u="$2" 'BEGIN { m = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9
                                        printf "%.0f\n", v * m }'; }
# stats_row: Wait's row of report --stats (stats.out): $calls, each column
# and its unit ($min $minu ...), and in ns ($minn $p50n $p90n $p99n $maxn).
stats_row() {
    local row
    row=$(grep -E '^ +[0-9]+ .* Latency.Work.Wait$' "$work/stats.out")
    read -r calls _t _tu _s _su avg avgu min minu max maxu p50 p50u p90 p90u p99 p99u _name <<<"$row"
    minn=$(ns "${min:-0}" "${minu:-s}") p50n=$(ns "${p50:-0}" "${p50u:-s}") p90n=$(ns "${p90:-0}" "${p90u:-s}")
    p99n=$(ns "${p99:-0}" "${p99u:-s}") maxn=$(ns "${max:-0}" "${maxu:-s}")
}
# sorted_durations: each call's duration as replay (replay.out) shows it,
# durations.txt, and in ns, sorted, sorted.txt.
sorted_durations() {
    awk '/Latency.Work.Wait\(/ { print $3, $4 }' "$work/replay.out" >"$work/durations.txt"
    while read -r v u; do ns "$v" "$u"; done <"$work/durations.txt" | sort -n >"$work/sorted.txt"
}
within() { (($2 <= $1 && $1 <= $3)); }
close() { # REPORTED EXACT: within 4 %
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.04) }'
}
ct_cases "$here/cases/percentiles.case"

# graph (issue 40), on a trace of the program's own code (Main too): by
# hand from Program.cs, Main (one call, from no caller) makes the 100 calls
# of Wait, which calls nothing traced; the time of Main's edge to Wait is
# Wait's own total (report's TOTAL).
"$ct" record -o "$work/t2" -- dotnet "$app" >/dev/null 2>&1
"$ct" graph "$work/t2" 'Latency.*' >"$work/graph.txt" 2>&1
wait_total=$("$ct" report "$work/t2" | awk '/ Latency.Work.Wait$/ && $1 == 100 { print $2, $3 }')
check_eq "graph: Main's callers and callees, then Wait's (the larger time first)" \
    "# graph: Latency.Program.Main, 1 call, TIME
#  CALLS      TOTAL  CALLERS
       1       TIME  <root>
#  CALLS      TOTAL  CALLEES
     100 $(printf '%10s' "$wait_total")  Latency.Work.Wait

# graph: Latency.Work.Wait, 100 calls, $wait_total
#  CALLS      TOTAL  CALLERS
     100 $(printf '%10s' "$wait_total")  Latency.Program.Main
#  CALLS      TOTAL  CALLEES" \
    "$(sed -E '1s/, [0-9.]+ [mun]?s$/, TIME/; 3s/^( +1) +[0-9.]+ [mun]?s  /\1       TIME  /' "$work/graph.txt")"
check_eq "graph of a trace of Wait alone: its caller is <root> (Main is not in it)" \
    "     100 $(printf '%10s' "$(awk '/ Latency.Work.Wait$/ && $1 == 100 { print $2, $3 }' "$work/stats.out")")  <root>" \
    "$("$ct" graph "$work/t" 'Latency.*' | sed -n 3p)"
ct_end run_percentiles.sh
