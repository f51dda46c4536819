#!/usr/bin/env bash
# Tree filters and triggers (issue 7): --depth, --min-time, --trigger, --after
# and --assembly, through the launcher and as CLRTRACE_* variables, live and
# recorded. The target is tests/targets/Filters: every expected tree below is
# written from the call order documented at the top of its Program.cs (and
# the durations its Thread.Sleep calls guarantee), not from our output.
#
# Usage: tests/e2e/run_tree_filters.sh [path/to/libclrtrace.so]   (KEEP=1 keeps the work directory)
#
# The checks but the min-time ones (which rest on the durations) are the
# cases of cases/tree_filters.case, with the script's launch and every_thread.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup treefilters "${1:-}" cli

echo "== building tests/targets/Filters"
app=$(ct_dotnet_build "$root/tests/targets/Filters" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Filters failed" >&2; exit 2; }

# launch NAME OPTIONS...: `clrtrace run -o NAME.txt OPTIONS -- dotnet Filters.dll`.
launch() {
    local name=$1
    shift
    ct_run "$work" "$name" timeout -k 5 300 "$ct" run --profiler "$lib" -o "$work/$name.txt" \
        "$@" -- dotnet "$app"
    check "$name: stdout, stderr and exit code equal the untraced run's" \
        ct_same_run "$work" plain "$name"
}

# every_thread FILE: the trees of all threads, each thread's calls as one
# block, in order of each thread's first call; TIDs replaced by T1, T2...
every_thread() {
    local tid n=0
    for tid in $(ct_calls "$1" | awk '{ if (match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) { split(substr($0, 1, RLENGTH), h, " "); if (!seen[h[2]]++) print h[2] } }'); do
        n=$((n + 1))
        echo "[thread $n]"
        ct_tree "$1" "$tid"
    done
}

ct_cases "$here/cases/tree_filters.case"

# ----------------------------------------------------------- min-time
# Slow lasts >= 100 ms and SlowChild >= 60 ms (Thread.Sleep); Main contains
# them. Everything else is a few arithmetic operations, a thread start/join
# (Gate.Run, milliseconds) or a small call: far below 50 ms.
launch mintime -t 50ms
expected='[thread 1]
Filt.Program.Main(string[] args=string[0] {}) {
  Filt.Timing.Slow(int ms=100) {
    Filt.Timing.SlowChild(int ms2=60) -> int 7
  } -> int 12
} -> int 51'
check "min-time 50ms: only the calls that sleep, and Main" ct_diff_tree "$expected" "$(every_thread "$work/mintime.txt")"
check "min-time 50ms: the header says so" grep -q '^# clrtrace: .*, filter: my code (framework by public key token), min-time 50.0 ms$' "$work/mintime.txt"
check "min-time: the shown durations are at least 50 ms" awk '
    /^# summary/ { exit }
    match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ +[0-9.]+ (us|ms|s) /) {
        split(substr($0, 1, RLENGTH), h, " "); v = h[3]; u = h[4]
        ns = (u == "us") ? v * 1e3 : (u == "ms") ? v * 1e6 : v * 1e9
        if (ns < 50e6) { print "too short: " $0; bad = 1 } }
    END { exit bad }' "$work/mintime.txt"

launch mintime_us --min-time 50000
check_eq "min-time 50000 (bare number = us): the same calls as 50ms" \
    "$(every_thread "$work/mintime.txt")" "$(every_thread "$work/mintime_us.txt")"

ct_run "$work" rec timeout -k 5 300 "$ct" record --profiler "$lib" -o "$work/rec" -t 50ms \
    --text "$work/rec.txt" -- dotnet "$app"
check "record -t 50ms: the program unharmed" ct_same_run "$work" plain rec
"$ct" replay "$work/rec" >"$work/rec.replay" 2>&1
check "record -t 50ms: the binary trace replays to the live text (held-back events included)" \
    cmp "$work/rec.txt" "$work/rec.replay"
check_eq "record -t 50ms: the same calls as run -t 50ms" \
    "$(every_thread "$work/mintime.txt")" "$(every_thread "$work/rec.replay")"

# The recording made by the cases, read with the same filter.
"$ct" replay --min-time 50ms "$work/full" >"$work/full.mintime.txt" 2>&1
check_eq "replay --min-time 50ms: the same calls as run -t 50ms" \
    "$(every_thread "$work/mintime.txt")" "$(every_thread "$work/full.mintime.txt")"
check_eq "dump --folded -t 50ms: the stacks of Main, Slow and SlowChild only" \
    "Filt.Program.Main|Filt.Program.Main;Filt.Timing.Slow|Filt.Program.Main;Filt.Timing.Slow;Filt.Timing.SlowChild" \
    "$("$ct" dump --folded -t 50ms "$work/full" | awk '{ print $1 }' | paste -sd '|')"

ct_end run_tree_filters.sh
