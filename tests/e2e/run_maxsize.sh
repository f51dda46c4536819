#!/usr/bin/env bash
# End-to-end test of --max-size (issue 42): a flight recorder. A busy
# program (bench/Workload: each step calls Add(i, 3), Mul(i, 0.5), ... for
# i = 0, 1, 2, ...) is recorded with --max-size; the trace's files never pass
# the size, the oldest segments are deleted, and what is kept reads right to
# the program's end.
#
# Usage: tests/e2e/run_maxsize.sh [path/to/libclrtrace.so]
#   MAXSIZE_CALLS  the Workload's calls (default 20000000, about 7 s traced;
#                  about 900000000 for the 5-minute form by hand)
#
#   1. record --max-size 8M: the program's output and exit code as untraced;
#      the files (trace.clrt and trace.clrt.1 to .3) together never above
#      8 MiB (polled while it runs, and at the end); replay says which
#      segments were dropped and from when; the kept calls are right by the
#      source (Add(i, 3) = i + 3, Mul(i, 0.5) = i / 2), the last step's i the
#      one the program's own count gives; info names the segments;
#   2. record -p with --max-size 8M, a running Workload attached: the same
#      bound, a readable trace;
#   3. the limits: 8M (CT_MIN_MAX_SIZE) and 1T taken, one byte less and
#      one more refused with one line; run --max-size refused (the text log
#      is not bounded).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup maxsize "${1:-}" cli
calls=${MAXSIZE_CALLS:-20000000}
size=$((8 * 1024 * 1024))

echo "== building bench/Workload"
app=$(ct_dotnet_build "$root/bench/Workload" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of bench/Workload failed" >&2; exit 2; }

# total DIR: the bytes of the trace's files (trace.clrt and its segments).
total() { cat "$1"/trace.clrt "$1"/trace.clrt.[0-9] 2>/dev/null | wc -c; }
# watch_size DIR PID: the trace's files in DIR measured every 0.2 s while
# PID (a child) runs, and once more after it ended (waited for): the
# largest total in $most.
watch_size() {
    local n
    most=0
    while kill -0 "$2" 2>/dev/null; do
        n=$(total "$1")
        ((n > most)) && most=$n
        sleep 0.2
    done
    wait "$2"
    n=$(total "$1")
    ((n > most)) && most=$n
}

echo "== 1. record --max-size 8M, $calls calls"
ct_run "$work" plain timeout -k 5 1800 dotnet "$app" calls "$calls"
( ct_run "$work" rec timeout -k 5 3600 "$ct" record --max-size 8M -o "$work/t" -- dotnet "$app" calls "$calls" ) &
watch_size "$work/t" $!
# The program's own line: "calls=MADE ns_per_call=... sum=S"; the sum
# differs by timing only in ns_per_call.
check_eq "the program's output (calls and sum) and exit code as untraced" \
    "$(sed -E 's/ ns_per_call=[0-9.]+//' "$work/plain.out") $(cat "$work/plain.rc")" \
    "$(sed -E 's/ ns_per_call=[0-9.]+//' "$work/rec.out") $(cat "$work/rec.rc")"
check "the trace's files never above 8 MiB together (most seen: $most bytes)" test "$most" -le "$size"
check_eq "trace.clrt and three older segments, nothing else" "trace.clrt trace.clrt.1 trace.clrt.2 trace.clrt.3" \
    "$(cd "$work/t" && ls | LC_ALL=C sort | paste -sd ' ')"
"$ct" replay "$work/t" >"$work/replay.txt" 2>"$work/replay.err"
check_eq "replay reads the segments joined (exit 0, nothing on stderr)" "0|" "$?|$(cat "$work/replay.err")"
line=$(grep -m1 '^# max-size: ' "$work/replay.txt")
check "replay says which segments were dropped, how much, and from when: $line" \
    grep -qE '^# max-size: segments 0 to [0-9]+ \([0-9.]+ MiB\) were dropped: the calls before [0-9]+\.[0-9]{6} s$' <<<"$line"
# Every Add and Mul kept, by the source; the last step's i from the
# program's count: MADE = steps * 19 calls, the last step i = steps - 1.
made=$(sed -nE 's/^calls=([0-9]+) .*/\1/p' "$work/plain.out")
last_i=$((made / 19 - 1))
bad=$(sed -nE 's/.*Bench\.Ops\.(Add\(int a=[0-9]+, int b=3\) -> int [0-9]+|Mul\(double a=[0-9]+, double b=0\.5\) -> double [0-9.]+)$/\1/p' "$work/replay.txt" |
    awk '/^Add/ { split($0, f, /[=,)]| int /); if (f[2] + 3 != $NF) { print; exit } n++ }
         /^Mul/ { split($0, f, /[=,]/); if (f[2] / 2 != $NF) { print; exit } m++ }
         END { if (n < 1000 || m < 1000) print "only " n " Add and " m " Mul calls" }')
check_eq "every Add(i, 3) = i + 3 and Mul(i, 0.5) = i / 2 kept" "" "$bad"
check_eq "the last step's calls are there: Add(int a=$last_i, int b=3) -> int $((last_i + 3))" \
    "Add(int a=$last_i, int b=3) -> int $((last_i + 3))" \
    "$(grep -oE 'Bench\.Ops\.Add\(int a=[0-9]+, int b=3\) -> int [0-9]+$' "$work/replay.txt" | tail -n 1 | sed 's/^Bench\.Ops\.//')"
check "the calls begun in the dropped segments are counted, not shown as drops" \
    grep -qE '^# summary: .*, 0 events dropped$' "$work/replay.txt"
"$ct" info "$work/t" >"$work/info.txt" 2>&1
check "info: the segments joined and those dropped" \
    grep -qE '^max-size +segments ([1-9][0-9]*) to [0-9]+ \(4 files joined, [0-9]+ bytes on disk\); 0 to [0-9]+ dropped' "$work/info.txt"
check "info: complete (the END record is in the newest segment)" grep -qE '^complete +yes' "$work/info.txt"

echo "== 2. record -p --max-size 8M"
# (CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime the
# profiler it will load needs.)
env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$app" calls 4000000000 >"$work/long.out" 2>&1 &
lpid=$!
ct_at_exit ct_kill_quiet "$lpid"
sleep 1
( timeout -k 5 300 "$ct" record -p "$lpid" --max-size 8M --max-overhead off -d 4s -o "$work/a" \
    >"$work/a.out" 2>"$work/a.err"; echo $? >"$work/a.rc" ) &
watch_size "$work/a" $!
{ ct_kill_quiet "$lpid"; wait "$lpid"; } 2>/dev/null
check_eq "record -p exits 0" 0 "$(cat "$work/a.rc")"
check "attached: the files never above 8 MiB together (most seen: $most bytes), older segments deleted" \
    test "$most" -le "$size" -a -f "$work/a/trace.clrt.3"
"$ct" replay "$work/a" >"$work/a.txt" 2>"$work/a-replay.err"
check_eq "attached: replay reads it (exit 0)" 0 "$?"
check "attached: it says segments were dropped" grep -qE '^# max-size: segments 0 to [0-9]+ ' "$work/a.txt"
bad=$(grep -oE 'Bench\.Ops\.Add\(int a=[0-9]+, int b=3\) -> int [0-9]+$' "$work/a.txt" |
    awk '{ split($0, f, /[=,)]| int /); if (f[2] + 3 != $NF) { print; exit } n++ } END { if (n < 1000) print "only " n " Add calls" }')
check_eq "attached: every Add(i, 3) kept = i + 3" "" "$bad"

echo "== 3. the limits"
# bad_size NAME VALUE: record --max-size VALUE refused: exit 2, one line.
bad_size() {
    ct_run "$work" "$1" "$ct" record --max-size "$2" -o "$work/$1" -- dotnet "$app" hello
    check_eq "--max-size $2: refused (exit 2, one line naming the range), nothing run" \
        "2|1|clrtrace record: --max-size takes a size from 8M to 1024G (a number of bytes, or with K, M or G), not '$2'|" \
        "$(cat "$work/$1.rc")|$(wc -l <"$work/$1.err")|$(cat "$work/$1.err")|$(cat "$work/$1.out")"
}
ct_run "$work" min "$ct" record --max-size 8M -o "$work/min" -- dotnet "$app" hello
check_eq "--max-size 8M (CT_MIN_MAX_SIZE): taken" "0 hello" "$(cat "$work/min.rc") $(cat "$work/min.out")"
bad_size below $((size - 1))
ct_run "$work" max "$ct" record --max-size 1T -o "$work/max" -- dotnet "$app" hello
check_eq "--max-size 1T (CT_MAX_MAX_SIZE): taken" "0 hello" "$(cat "$work/max.rc") $(cat "$work/max.out")"
bad_size above $((1024 * 1024 * 1024 * 1024 + 1))
bad_size zero 0
bad_size word big
ct_run "$work" run "$ct" run --max-size 8M -- dotnet "$app" hello
check_eq "run --max-size: refused (exit 2), one line saying to use record" \
    "2|clrtrace run: --max-size bounds a binary trace: use clrtrace record -o DIR --max-size SIZE (its text log, --text FILE, is not bounded)" \
    "$(cat "$work/run.rc")|$(cat "$work/run.err")"

ct_end run_maxsize.sh
