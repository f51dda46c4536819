#!/usr/bin/env bash
# End-to-end test of the two promises (issue 11): no trace is lost or mixed
# up, and the launcher tells the truth (tests/targets/Tree).
#
# Usage: tests/e2e/run_trust.sh [path/to/libclrtrace.so]
#   1. process trees: a parent making 2N calls around four children (two in
#      sequence, two at once) making K calls each: record -o DIR keeps one
#      trace per process, each with exactly its own calls, and info counts
#      them; run -o FILE puts the children beside FILE; --no-follow traces
#      the parent only; `sh -c 'dotnet a; dotnet a'` keeps both; `dotnet
#      run` of a project: the program's own process keeps its calls;
#   2. a killed program: SIGKILL after seconds of tracing, at a low and a
#      high call rate: the trace reads as incomplete (exit 0, one stderr
#      line) and holds every call the program had counted one second before;
#   3. the default mode loses nothing behind a slow reader: eight threads
#      through `2>&1 | (sleep 5; cat)`, 0 dropped, every call there;
#   4. the launcher: not a .NET program, a profiler that cannot load, an
#      output that cannot be created, -a with --assembly.
# The checks of the kind "run this, expect these lines" are the cases of
# cases/trust.case (sections tree, text, launcher).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup trust "${1:-}" cli

echo "== building tests/targets/Tree"
app=$(ct_dotnet_build "$root/tests/targets/Tree" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Tree failed" >&2; exit 2; }

# work_calls FILE: how many calls of Tree.Program.Work FILE's text holds.
work_calls() { ct_calls "$1" | grep -c ' Tree\.Program\.Work(int i=' ; }

# ================================================================ 1. trees
echo "== process trees"
cf="$here/cases/trust.case"
ct_cases "$cf" tree
for pid in $(ls "$work/tree" | sed -n 's/^trace\.\([0-9]*\)\.clrt$/\1/p'); do
    "$ct" replay --pid "$pid" "$work/tree" >"$work/tree.$pid" 2>&1
    check_eq "record: child $pid's trace holds its 5 Work calls, and is its own" "5 $pid" \
        "$(work_calls "$work/tree.$pid") $(ct_pid "$work/tree.$pid")"
done
# info's table of the five processes: each child (Main, 5 Work) is the
# root's, every trace complete.
rootpid=$(sed -n 's/^process  *\([0-9]*\) .*/\1/p' "$work/tree-info.out")
check_eq "info: the table lists the root, then four children of it with 6 calls each" \
    "$rootpid 19 yes|$rootpid 6 yes|$rootpid 6 yes|$rootpid 6 yes|$rootpid 6 yes|" \
    "$(awk '/^5 traced processes:$/ { t = 1; next } t && $1 != "PID" { printf "%s %s %s|", ($1 == "'"$rootpid"'" ? $1 : $2), $3, $4 }' "$work/tree-info.out")"

# dotnet run of a project (built beforehand, so dotnet run only checks it is
# up to date and starts it): the program runs in a child of the dotnet CLI,
# and that child's trace holds its own calls (Main and 5 Work).
cp -r "$root/tests/targets/Tree" "$work/proj"
dotnet build "$work/proj" -c Release >"$work/proj.build.log" 2>&1 ||
    { cat "$work/proj.build.log" >&2; ct_fail "dotnet build of the copied project"; }
ct_run "$work" drun "$ct" record --profiler "$lib" -o "$work/drun" -- dotnet run --project "$work/proj" -c Release -- child 5
"$ct" info "$work/drun" >"$work/drun.info" 2>&1
check_eq "dotnet run: the program's output and exit code" "0 child: calls=5" "$(cat "$work/drun.rc") $(cat "$work/drun.out")"
check_eq "dotnet run: the root is the dotnet CLI" "dotnet run --project $work/proj -c Release -- child 5" \
    "$(sed -n 's/^command line  *//p' "$work/drun.info")"
clipid=$(sed -n 's/^process  *\([0-9]*\) .*/\1/p' "$work/drun.info")
# The table's rows "  PID PARENT CALLS COMPLETE COMMAND" of the CLI's children
# running the program (the apphost or dotnet Tree.dll, "child 5").
app_row() { awk -v cli="$clipid" '/^  [0-9]/ && $2 == cli && $(NF - 1) == "child" && $NF == "5"' "$work/drun.info"; }
check_eq "dotnet run: the program's process holds its 6 calls (Main, 5 Work), as the CLI's child" \
    "$clipid 6 yes" "$(app_row | awk '{ print $2, $3, $4 }')"
apppid=$(app_row | awk '{ print $1 }')
check_eq "dotnet run: 5 Work calls in the program's replay" 5 \
    "$("$ct" replay --pid "${apppid:-0}" "$work/drun" 2>/dev/null | work_calls /dev/stdin)"
check_eq "dotnet run: every process's trace is complete" "" \
    "$(awk '/traced processes:$/ { t = 1; next } t && $1 != "PID" && $4 != "yes"' "$work/drun.info")"

ct_cases "$cf" text
n=0
for f in "$work"/t.txt.*; do
    [[ "$(work_calls "$f")" == 5 ]] && n=$((n + 1))
done
check_eq "run -o FILE: four FILE.PID logs, 5 calls each" 4 "$n"
ct_run "$work" seq "$ct" record --profiler "$lib" -o "$work/seq" -- sh -c "dotnet '$app' child 3; dotnet '$app' child 4"
check_eq "sh -c 'dotnet a; dotnet a': both traces kept" "3 4" \
    "$(for p in $(ls "$work/seq" | sed -n 's/^trace\.\([0-9]*\)\.clrt$/\1/p;s/^trace\.clrt$/root/p'); do
        if [[ $p == root ]]; then "$ct" replay "$work/seq"; else "$ct" replay --pid "$p" "$work/seq"; fi 2>/dev/null | work_calls /dev/stdin
    done | sort | tr '\n' ' ' | sed 's/ $//')"

# ================================================================ 2. killed
echo "== a killed program"
for pause in 20 0; do
    name=kill$pause
    "$ct" record --profiler "$lib" -o "$work/$name" -- dotnet "$app" ticker "$pause" >"$work/$name.out" 2>"$work/$name.err" &
    for ((i = 0; i < 300; i++)); do
        grep -q '^t=2[0-9][0-9][0-9] ' "$work/$name.out" 2>/dev/null && break
        sleep 0.1
    done
    # The program only: its launcher survives, says what it saw and cleans up.
    pkill -KILL -f "^dotnet .*Tree\.dll ticker $pause\$"
    wait 2>/dev/null
    rm -f "$work/$name.err"
    last=$(tail -n 1 "$work/$name.out" | sed -n 's/^t=\([0-9]*\) .*/\1/p')
    # The count the program printed one second before its last line.
    before=$(awk -v lim=$((last - 1000)) -F'[= ]' '$2 <= lim { c = $4 } END { print c + 0 }' "$work/$name.out")
    rc=0
    "$ct" replay "$work/$name" >"$work/$name.replay" 2>"$work/$name.replay.err" || rc=$?
    check_eq "SIGKILL (pause ${pause} ms): replay exits 0 and says the trace is incomplete" \
        "0 1" "$rc $(grep -c '^clrtrace replay: incomplete trace: .* ends at offset [0-9]* (the program was killed or crashed?)$' "$work/$name.replay.err")"
    got=$(ct_calls "$work/$name.replay" | grep -c ' Tree\.Program\.Tick(long i=')
    rc=0
    "$ct" info "$work/$name" >"$work/$name.info" 2>&1 || rc=$?
    check_eq "SIGKILL (pause ${pause} ms): info exits 0 and says the trace is incomplete" "0 1" \
        "$rc $(grep -c '^complete  *no: ends at offset [0-9]* (the program was killed or crashed?)$' "$work/$name.info")"
    check "SIGKILL (pause ${pause} ms): the trace holds every call made 1 s before the end ($before <= $got)" \
        test "$before" -gt 0 -a "$got" -ge "$before"
done

# ================================================================ 3. slow reader
echo "== a slow reader"
( "$ct" run --profiler "$lib" --buffer-kb 64 -- dotnet "$app" burst 8 20000 2>&1 | (sleep 5; cat) ) >"$work/slow.txt"
check_eq "slow reader: the program finished" "burst: calls=160000" "$(grep '^burst:' "$work/slow.txt")"
check_eq "slow reader: 0 events dropped" 0 "$(summary_dropped "$work/slow.txt")"
check_eq "slow reader: every call in the log" 160000 "$(grep -c ' Tree\.Program\.Burst(int thread=' "$work/slow.txt")"

# ================================================================ 4. launcher
echo "== the launcher"
ct_cases "$cf" launcher

ct_end run_trust.sh
