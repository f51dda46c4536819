#!/usr/bin/env bash
# End-to-end test of `clrtrace tui`, the trace browser, as a person uses it:
# in tmux, keys sent and the screen read back.
#
# Usage: tests/e2e/run_tui.sh [path/to/libclrtrace.so]
#
# The trace: tests/targets/Inject's retry loop (6 requests) under --inject
# 'Inject.Client.Send: throw HttpRequestException every 2'. By hand from
# its source: one thread; Main, the Client's constructor, Retry, then 11
# calls of Send (req0 once; req1 to req5 twice, the first of each
# injected): 14 calls, in this order. Checks:
#   1. the status line (the thread, "call 1 of 14") and Main's line, chosen,
#      with its arguments and result, Retry's with callees shown ('-');
#   2. Down, Down, Space folds Retry ('+'): no Send line shown; Space
#      unfolds it;
#   3. on the first Send, f goes to the next call of Send (call 5), F back
#      (call 4); G to the last call (14), g to the first; f on Main, called
#      once, stays;
#   4. /req3 Enter finds the first call with req3 (call 9, the injected
#      one, its exception); n the next (call 10, its result);
#   5. v shows that call's values, a line each (message="req3", the
#      result);
#   6. r shows the summary table (Send's 11 calls), s sorts it by self
#      time; r goes back; q ends tui (exit 0);
#   7. without a terminal: exit 2, one line;
#   8. threads: Tree's burst (two threads calling Burst(j, i), i = 0..2):
#      three threads, Main's first; t shows each thread's calls in turn,
#      and back to the first.
# Ends with "run_tui.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup tui "${1:-}" cli
command -v tmux >/dev/null || { echo "ERROR: no tmux (Debian: tmux)" >&2; exit 2; }

echo "== building tests/targets/Inject"
app=$(ct_dotnet_build "$root/tests/targets/Inject" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Inject failed" >&2; exit 2; }
ct_run "$work" rec timeout -k 5 300 "$ct" record -o "$work/t" \
    --inject 'Inject.Client.Send: throw HttpRequestException every 2' -- dotnet "$app" retry 6
check_eq "recorded: the program's exit code" 0 "$(cat "$work/rec.rc")"

sock=$work/tmux.sock
ct_at_exit ct_tmux_end "$sock"
screen() { tmux -S "$sock" capture-pane -p -t tui; }
wait_for() { # TEXT: until the screen shows it (at most 10 s)
    local i
    for ((i = 0; i < 100; i++)); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
    screen
    return 1
}
keys() { tmux -S "$sock" send-keys -t tui "$@"; sleep 0.3; }
chosen() { screen | grep '^>' | sed -E 's/^> +[0-9.]+ [mun]?s +//'; }

tmux -S "$sock" new-session -d -s tui -x 220 -y 24 "'$ct' tui '$work/t'; echo tui-exit=\$?; sleep 60"
check "1. the status line: one thread, call 1 of 14" wait_for ", call 1 of 14"
check "1. the thread" bash -c "$(declare -f screen); sock='$sock'; screen | head -1 | grep -qE 'thread [0-9]+ 1/1, '"
check_eq "1. Main's line, chosen, with its callees shown" \
    '-Inject.Program.Main(args=string[2] {"retry", "6"}) -> int 0' "$(chosen)"
keys Down Down Space
check_eq "2. Retry folded" "+Inject.Program.Retry(client=Inject.Client{Sent=0}, requests=6) -> int 0" \
    "$(chosen)"
check_eq "2. no Send line shown" 0 "$(screen | grep -c 'Inject.Client.Send(')"
keys Space Down
check_eq "2. unfolded: the first Send chosen (req0)" \
    "Inject.Client.Send(this=Inject.Client@ADDR, message=\"req0\") -> string \"ok:req0\"" \
    "$(chosen | sed -E 's/@0x[0-9a-f]+/@ADDR/')"
keys f
check "3. f: the next call of Send (call 5)" wait_for ", call 5 of 14"
keys F
check "3. F: the previous call of Send (call 4)" wait_for ", call 4 of 14"
keys G
check "3. G: the last call (call 14)" wait_for ", call 14 of 14"
keys g
check "3. g: the first call (call 1)" wait_for ", call 1 of 14"
keys f
check "3. f on Main: Main's only call, still call 1" wait_for ", call 1 of 14"
keys Down Down Down f
keys / r e q 3 Enter
check "4. /req3: call 9" wait_for ", call 9 of 14"
check_eq "4. /req3: the first call with req3, the injected one" \
    "Inject.Client.Send(this=Inject.Client@ADDR, message=\"req3\") -> exception System.Net.Http.HttpRequestException: \"injected by clrtrace\"" \
    "$(chosen | sed -E 's/@0x[0-9a-f]+/@ADDR/')"
keys n
check "4. n: the next match, call 10" wait_for ", call 10 of 14"
keys v
check "5. v: the call's values, a line each" wait_for '  message="req3"'
check "5. v: its result" wait_for '  -> string "ok:req3"'
keys x r
check "6. r: the summary table" wait_for "#  CALLS      TOTAL       SELF  FUNCTION   (sorted by total"
check "6. r: Send's 11 calls" bash -c "$(declare -f screen); sock='$sock'; screen | grep -qE '^ +11 .* Inject.Client.Send$'"
keys s
check "6. s: sorted by self time" wait_for "(sorted by self;"
keys r q
check "6. q ends tui (exit 0)" wait_for "tui-exit=0"

# threads: Tree's burst 2 3 starts two threads, each calling Burst(j, i)
# for i = 0, 1, 2 (j its number, 0 or 1; Burst returns j ^ i), and joins
# them: three threads, Main's first.
echo "== building tests/targets/Tree"
tree=$(ct_dotnet_build "$root/tests/targets/Tree" "$work") && [[ -n "$tree" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Tree failed" >&2; exit 2; }
ct_run "$work" burst timeout -k 5 300 "$ct" record -o "$work/b" -F 'Tree.*' -- dotnet "$tree" burst 2 3
check_eq "8. recorded: the program's exit code" 0 "$(cat "$work/burst.rc")"
# bursts: the Burst lines on the screen, "j i result" each.
bursts() { screen | sed -nE 's/.*Tree\.Program\.Burst\(thread=([0-9]+), i=([0-9]+)\) -> int ([0-9]+)$/\1 \2 \3/p' | tr '\n' ' '; }
# (a tmux server of its own: one told to end may still answer a new
# session on its socket, and take it down with it)
tmux -S "$sock" kill-server 2>/dev/null
sock=$work/tmux2.sock
ct_at_exit ct_tmux_end "$sock"
tmux -S "$sock" new-session -d -s tui -x 220 -y 24 "'$ct' tui '$work/b'; echo tui-exit=\$?; sleep 60"
check "8. three threads, the first Main's" wait_for " 1/3, call 1 of "
check_eq "8. Main's line, chosen" '-Tree.Program.Main(args=string[3] {"burst", "2", "3"}) -> int 0' "$(chosen)"
keys t
check "8. t: the second thread" wait_for " 2/3, call 1 of 4"
one=$(bursts)
keys t
check "8. t: the third thread" wait_for " 3/3, call 1 of 4"
two=$(bursts)
check_eq "8. the two threads' calls: Burst(j, 0..2) -> j ^ i, j = 0 on one and 1 on the other" \
    "0 0 0 0 1 1 0 2 2 |1 0 1 1 1 0 1 2 3 " "$(printf '%s\n%s\n' "$one" "$two" | sort | paste -sd'|')"
keys t
check "8. t: back to the first thread" wait_for " 1/3, call 1 of "
keys q
check "8. q ends tui (exit 0)" wait_for "tui-exit=0"

ct_run "$work" noterm "$ct" tui "$work/t"
check_eq "7. without a terminal: exit 2, one line" \
    "2 clrtrace tui: no terminal (replay prints the calls as text)" \
    "$(cat "$work/noterm.rc") $(cat "$work/noterm.err")"

ct_end run_tui.sh
