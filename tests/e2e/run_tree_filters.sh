#!/usr/bin/env bash
# Tree filters and triggers (issue 7): --depth, --min-time, --trigger, --after
# and --assembly, through the launcher and as CLRTRACE_* variables, live and
# recorded. The target is tests/targets/Filters: every expected tree below is
# written from the call order documented at the top of its Program.cs (and
# the durations its Thread.Sleep calls guarantee), not from our output.
#
# Usage: tests/e2e/run_tree_filters.sh [path/to/libclrtrace.so]   (KEEP=1 keeps the work directory)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup treefilters "${1:-}" cli

echo "== building tests/targets/Filters"
app=$(ct_dotnet_build "$root/tests/targets/Filters" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Filters failed" >&2; exit 2; }

run_plain plain
check_eq "untraced: exit code 51 (Program.cs: 351 % 100)" 51 "$(cat "$work/plain.rc")"

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

# ------------------------------------------------------------- depth
launch depth -D 2
expected='[thread 1]
Filt.Program.Main(string[] args=string[0] {}) {
  Filt.Chain.Level1(int n=1) -> int 43
  Filt.Timing.Slow(int ms=100) -> int 12
  Filt.Gate.Run(int n=5) -> int 26
  Filt.Inner.Work(int w=100) -> int 200
  FiltLib.Calc.Twice(int x=21) -> int 42
} -> int 51
[thread 2]
Filt.Gate.Helper() {
  Filt.Inner.Work(int w=8) -> int 16
}
[thread 3]
Filt.Program.Second() {
  Filt.Gate.Run(int n=6) -> int 28
}
[thread 4]
Filt.Gate.Helper() {
  Filt.Inner.Work(int w=8) -> int 16
}'
check "depth 2: two levels on each thread" ct_diff_tree "$expected" "$(every_thread "$work/depth.txt")"
check "depth 2: the header says so" grep -q '^# clrtrace: .*, filter: my code (framework by public key token), depth 2$' "$work/depth.txt"
check "depth 2: balanced per thread" ct_balance "$work/depth.txt"

launch depth1 --depth=1
# (Each thread's calls, compared sorted: the threads' order varies.)
check_eq "depth 1 (--depth=1): only each thread's outermost calls" \
    "Filt.Gate.Helper()|Filt.Gate.Helper()|Filt.Program.Main(string[] args=string[0] {}) -> int 51|Filt.Program.Second()" \
    "$(every_thread "$work/depth1.txt" | grep -v '^\[' | LC_ALL=C sort | paste -sd '|')"

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

# ------------------------------------------------------------ trigger
# Gate.Run runs on the main thread (n=5) and on "second-gate" (n=6); the
# Inner.Work(8) calls of the "gate-helper" threads run while a Gate.Run is
# open, but on another thread: a per-thread gate keeps them out.
launch trigger -T 'Filt.Gate.Run'
expected='[thread 1]
Filt.Gate.Run(int n=5) {
  Filt.Inner.Work(int w=5) -> int 10
} -> int 26
[thread 2]
Filt.Gate.Run(int n=6) {
  Filt.Inner.Work(int w=6) -> int 12
} -> int 28'
check "trigger Filt.Gate.Run: its calls on its own thread only" ct_diff_tree "$expected" "$(every_thread "$work/trigger.txt")"
check "trigger: gate-helper's Inner.Work(8) is not shown" \
    bash -c "! grep -qF 'Inner.Work(int w=8)' '$work/trigger.txt'"

# A framework function as the trigger: it is hooked although the default
# filter ("my code") leaves the framework out; Thread.Sleep is called once by
# Timing.Slow and once by Timing.SlowChild, and calls none of our code.
launch trigger_fw -T 'System.Threading.Thread.Sleep'
check_eq "trigger on a framework function (Thread.Sleep): hooked, shown twice, nothing else" \
    "System.Threading.Thread.Sleep(int millisecondsTimeout=60)|System.Threading.Thread.Sleep(int millisecondsTimeout=40)" \
    "$(every_thread "$work/trigger_fw.txt" | grep -v '^\[' | sed 's/)  *$/)/' | paste -sd '|')"

# Program.cs has 14 methods, all called; the trigger adds Thread.Sleep. Tree
# filters decide nothing about hooking (depth 2 hooks the same 14).
check "trigger on Thread.Sleep: 14 + 1 functions hooked" \
    grep -q '^# clrtrace: shutdown, [0-9]* functions JIT-compiled, 15 traced$' "$work/trigger_fw.txt"
check "depth 2: the 14 functions of Program.cs hooked" \
    grep -q '^# clrtrace: shutdown, [0-9]* functions JIT-compiled, 14 traced$' "$work/depth.txt"

# -------------------------------------------------------------- after
# Calls 1-3 (Main, Level1, Level2) are hidden; the rest are shown, calls of
# Main's that come later included.
launch after --after 3
tree=$(every_thread "$work/after.txt")
check_eq "after 3: the first shown call is call 4, Chain.Level3(3)" \
    "Filt.Chain.Level3(int n=3) {" "$(sed -n 2p <<<"$tree")"
check "after 3: Main, Level1 and Level2 are not shown" \
    bash -c "! grep -qE 'Filt.Program.Main\\(|Level1\\(|Level2\\(' '$work/after.txt'"
check_eq "after 3: 21 - 3 = 18 calls shown (Program.cs numbers 21 calls)" 18 \
    "$(sed -n 's/^# summary: \([0-9]*\) calls,.*/\1/p' "$work/after.txt")"
check "after 3: balanced per thread" ct_balance "$work/after.txt"

# ----------------------------------------------------------- assembly
launch asm_lib --assembly FiltersLib
expected='[thread 1]
FiltLib.Calc.Twice(int x=21) {
  FiltLib.Calc.Add(int a=21, int b=21) -> int 42
} -> int 42'
check "assembly FiltersLib: only the library's two calls" ct_diff_tree "$expected" "$(every_thread "$work/asm_lib.txt")"
# The closing line counts the functions hooked: the mapper answered
# pbHookFunction = FALSE for every other one.
check "assembly FiltersLib: only its 2 functions hooked (the rest cost nothing)" \
    grep -q '^# clrtrace: shutdown, [0-9]* functions JIT-compiled, 2 traced$' "$work/asm_lib.txt"
check "assembly: the header says so" grep -q '^# clrtrace: .*, filter: assembly FiltersLib$' "$work/asm_lib.txt"

launch asm_main --assembly 'Filt*s' -F 'Filt.Inner.*'
check_eq "assembly Filt*s (the main assembly only) narrowed by -F Filt.Inner.*: the 5 Inner.Work calls" \
    5 "$(ct_count "$work/asm_main.txt" 'Filt.Inner.Work(')"
check "assembly Filt*s: no FiltersLib call" bash -c "! grep -qF 'FiltLib.' '$work/asm_main.txt'"

# ------------------------------------------------- environment, record
ct_run "$work" envdepth env "${traced[@]}" "CLRTRACE_OUTPUT=$work/envdepth.txt" CLRTRACE_DEPTH=2 \
    timeout -k 5 300 dotnet "$app"
check "CLRTRACE_DEPTH=2 without the launcher: the program unharmed" ct_same_run "$work" plain envdepth
check_eq "CLRTRACE_DEPTH=2: the same tree as --depth 2" \
    "$(every_thread "$work/depth.txt")" "$(every_thread "$work/envdepth.txt")"

ct_run "$work" envtrig env "${traced[@]}" "CLRTRACE_OUTPUT=$work/envtrig.txt" \
    CLRTRACE_TRIGGER='Filt.Nothing:Filt.Gate.Run' CLRTRACE_MIN_TIME=0.001us \
    timeout -k 5 300 dotnet "$app"
check_eq "CLRTRACE_TRIGGER (a ':' list) with CLRTRACE_MIN_TIME: the same tree as -T Filt.Gate.Run" \
    "$(every_thread "$work/trigger.txt")" "$(every_thread "$work/envtrig.txt")"

ct_run "$work" rec timeout -k 5 300 "$ct" record --profiler "$lib" -o "$work/rec" -t 50ms \
    --text "$work/rec.txt" -- dotnet "$app"
check "record -t 50ms: the program unharmed" ct_same_run "$work" plain rec
"$ct" replay "$work/rec" >"$work/rec.replay" 2>&1
check "record -t 50ms: the binary trace replays to the live text (held-back events included)" \
    cmp "$work/rec.txt" "$work/rec.replay"
check_eq "record -t 50ms: the same calls as run -t 50ms" \
    "$(every_thread "$work/mintime.txt")" "$(every_thread "$work/rec.replay")"

# The same filters applied while reading a full recording.
ct_run "$work" full timeout -k 5 300 "$ct" record --profiler "$lib" -o "$work/full" -- dotnet "$app"
"$ct" replay -D 2 "$work/full" >"$work/full.depth.txt" 2>&1
check_eq "replay -D 2 of a full recording: the same trees as run -D 2" \
    "$(every_thread "$work/depth.txt")" "$(every_thread "$work/full.depth.txt")"
"$ct" replay --min-time 50ms "$work/full" >"$work/full.mintime.txt" 2>&1
check_eq "replay --min-time 50ms: the same calls as run -t 50ms" \
    "$(every_thread "$work/mintime.txt")" "$(every_thread "$work/full.mintime.txt")"
"$ct" report -T Filt.Gate.Run --sort calls "$work/full" >"$work/full.report.txt" 2>&1
check_eq "report -T Filt.Gate.Run: 2 Gate.Run and 2 Inner.Work calls (n=5, 6 and w=5, 6), 2 threads" \
    "# summary: 4 calls, 2 functions, 2 threads, 0 events dropped|2 Filt.Gate.Run|2 Filt.Inner.Work" \
    "$(awk '/^# summary/ { print; next } /^ +[0-9]/ { print $1, $NF }' "$work/full.report.txt" | paste -sd '|')"
"$ct" replay --after 3 "$work/full" >"$work/full.after.txt" 2>&1
check_eq "replay --after 3: the same trees as run --after 3" \
    "$(every_thread "$work/after.txt")" "$(every_thread "$work/full.after.txt")"
# Thread names (Program.cs names two kinds of threads): THREAD records with
# the OS thread id that the calls made on that thread carry.
"$ct" dump "$work/full" >"$work/full.dump" 2>&1
names() { # names THREAD-NAME: the TIDs of THREAD records with that name, sorted
    awk -v n="$1" '$2 == "THREAD" && $4 == n { sub(/^tid=/, "", $3); print $3 }' "$work/full.dump" | sort -n | paste -sd ' '
}
check_eq "thread names: two threads named gate-helper, each running Gate.Helper" \
    "$("$ct" replay "$work/full" | awk '/Filt.Gate.Helper\(\)/ { print $2 }' | sort -n | paste -sd ' ')" \
    "$(names gate-helper)"
check_eq "thread names: one thread named second-gate, running Program.Second" \
    "$("$ct" replay "$work/full" | awk '/Filt.Program.Second\(\) \{/ { print $2 }')" "$(names second-gate)"
check_eq "dump --folded -t 50ms: the stacks of Main, Slow and SlowChild only" \
    "Filt.Program.Main|Filt.Program.Main;Filt.Timing.Slow|Filt.Program.Main;Filt.Timing.Slow;Filt.Timing.SlowChild" \
    "$("$ct" dump --folded -t 50ms "$work/full" | awk '{ print $1 }' | paste -sd '|')"
check_eq "dump --chrome -T Filt.Gate.Run: 4 complete events (Run and Work, twice)" 4 \
    "$("$ct" dump --chrome -T Filt.Gate.Run "$work/full" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ev = d["traceEvents"] if isinstance(d, dict) else d
print(sum(1 for e in ev if e.get("ph") == "X"))')"
check_eq "thread names in the text log: '# thread TID: gate-helper' twice, second-gate once" \
    "$(names gate-helper) $(names second-gate)" \
    "$("$ct" replay "$work/full" | sed -n 's/^# thread \([0-9]*\): gate-helper$/\1/p' | sort -n | paste -sd ' ') $("$ct" replay "$work/full" | sed -n 's/^# thread \([0-9]*\): second-gate$/\1/p')"
"$ct" replay -D x "$work/full" >/dev/null 2>"$work/replay.err"
check_eq "replay -D x: usage error 2" 2 "$?"

# ------------------------------------------------------- bad values
for bad in "-D 0" "--depth 65537" "-t 0" "-t 5parsecs" "--min-time=" "--after 0" "--after x" \
           "--assembly a:b" "-T ''" "--all=1"; do
    eval "set -- $bad"
    "$ct" run --profiler "$lib" "$@" -- true >"$work/bad.out" 2>"$work/bad.err"
    rc=$?
    check "clrtrace run $bad: usage error 2 with one line on stderr" \
        test "$rc" -eq 2 -a "$(wc -l <"$work/bad.err")" -eq 1
done
for bad in CLRTRACE_DEPTH=x CLRTRACE_MIN_TIME=fast CLRTRACE_AFTER=-1 CLRTRACE_DEPTH=70000; do
    ct_run "$work" badenv env "${traced[@]}" "CLRTRACE_OUTPUT=$work/badenv.txt" "$bad" \
        timeout -k 5 300 dotnet "$app"
    check_eq "$bad: exit code unchanged" 51 "$(cat "$work/badenv.rc")"
    check_eq "$bad: stdout unchanged" "result 351" "$(cat "$work/badenv.out")"
    check "$bad: one line on stderr naming the variable" \
        bash -c "[[ \$(wc -l <'$work/badenv.err') -eq 1 ]] && grep -q '${bad%%=*}' '$work/badenv.err'"
done

ct_end run_tree_filters.sh
