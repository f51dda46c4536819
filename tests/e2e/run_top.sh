#!/usr/bin/env bash
# End-to-end test of `clrtrace top` on a live service, as a person uses it:
# in a terminal (tmux: keys sent, the screen read back) and as text
# (--batch).
#
# Usage: tests/e2e/run_top.sh [path/to/libclrtrace.so]
#
# tests/targets/Inject's service mode calls Client.Send, Client.Count and
# Client.FetchAsync once every 20 ms (a wait of 20 ms between rounds) until
# "stop" comes on its stdin. By hand from that source: each of the three is
# called at most 50 times a second, the three as often as each other, and
# Count's only caller is the service loop (begun before the attach: <root>
# in the trace). Checks:
#   1. top --batch 3 -p PID -F 'Inject.*': three refreshes, each a status
#      line and the header; in the last, Send, Count and FetchAsync at 10
#      to 52 calls a second (a loaded machine makes rounds slower), within
#      one call of each other (a round the second's end cut);
#   2. without a terminal and without --batch: exit 2, one line;
#   3. in tmux (120 x 24): the status line, the header, Send's row; `s`
#      sorts by P50 (the status line says so); `/Count` Enter shows Count's
#      row alone; Enter shows its callers (<root>); the window resized, the
#      table is drawn to its new width; `q` ends top (exit 0),
#      the service runs on, and ends as it does untraced when told;
#   4. top -- PROGRAM (Inject's calls mode: 3 million calls of Count in a
#      loop) with --max-overhead 2: the status line says the budget stepped
#      a method down;
#   5. top -p of no such process: exit 1, record's line.
# Ends with "run_top.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup top "${1:-}" cli
command -v tmux >/dev/null || { echo "ERROR: no tmux (Debian: tmux)" >&2; exit 2; }

echo "== building tests/targets/Inject"
app=$(ct_dotnet_build "$root/tests/targets/Inject" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Inject failed" >&2; exit 2; }

ct_serve "$app"
check "the service is ready" test -n "$spid"
sock=$work/tmux.sock
ct_at_exit tmux -S "$sock" kill-server

echo "== 1. --batch"
ct_run "$work" batch timeout -k 5 120 "$ct" top --batch 3 -p "${spid:-0}" -F 'Inject.*'
check_eq "--batch 3: exit code 0" 0 "$(cat "$work/batch.rc")"
check_eq "--batch 3: three refreshes, each with its status line and the header" \
    "3 3" "$(grep -c "^# [123]: clrtrace top: pid ${spid:-0}, " "$work/batch.out") $(grep -c '^  CALLS/S        P50        P99        MAX   EXC/S  SELF%  FUNCTION$' "$work/batch.out")"
last=$(awk '/^# 3: /{ on = 1 } on' "$work/batch.out")
rate() { awk -v f="$1" '$NF == f && $(NF - 1) != "async" { print $1 }' <<<"$last"; }
send=$(rate Inject.Client.Send) count=$(rate Inject.Client.Count) fetch=$(rate Inject.Client.FetchAsync)
for pair in "Send:$send" "Count:$count" "FetchAsync:$fetch"; do
    check "--batch: ${pair%%:*} at 10 to 52 calls a second (${pair#*:})" \
        awk -v r="${pair#*:}" 'BEGIN { exit !(r >= 10 && r <= 52) }'
done
check "--batch: Send, Count and FetchAsync as often as each other ($send, $count, $fetch)" \
    awk -v a="${send:-0}" -v b="${count:-99}" -v c="${fetch:-99}" 'BEGIN {
        d1 = a - b; d2 = a - c; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
        exit !(a > 0 && d1 <= 1.5 && d2 <= 1.5) }'

echo "== 2. without a terminal"
ct_run "$work" noterm timeout -k 5 60 "$ct" top -p "${spid:-0}"
check_eq "no terminal, no --batch: exit code 2, one line" \
    "2 clrtrace top: no terminal: give --batch N (N refreshes as text)" \
    "$(cat "$work/noterm.rc") $(cat "$work/noterm.err")"

echo "== 3. in a terminal (tmux)"
screen() { tmux -S "$sock" capture-pane -p -t top; }
# wait_for TEXT: until the screen shows TEXT (at most 10 s).
wait_for() {
    local i
    for ((i = 0; i < 100; i++)); do screen | grep -qF -- "$1" && return 0; sleep 0.1; done
    screen
    return 1
}
tmux -S "$sock" new-session -d -s top -x 120 -y 24 \
    "'$ct' top -p ${spid:-0} -F 'Inject.*'; echo top-exit=\$?; sleep 60"
check "tmux: the status line" wait_for "clrtrace top: pid ${spid:-0}, "
check "tmux: Send's row" wait_for " Inject.Client.Send"
check "tmux: the header" wait_for "  CALLS/S        P50        P99        MAX   EXC/S  SELF%  FUNCTION"
tmux -S "$sock" send-keys -t top s
check "tmux: s sorts by P50" wait_for ", sort P50"
tmux -S "$sock" send-keys -t top / C o u n t Enter
check "tmux: /Count: the filter shown" wait_for "filter: Count  (/ to change)"
check "tmux: /Count: Count's row" wait_for " Inject.Client.Count"
check_eq "tmux: /Count: Count's row alone" 0 "$(screen | grep -c ' Inject.Client.\(Send\|FetchAsync\)$')"
tmux -S "$sock" send-keys -t top Enter
check "tmux: Enter: Count's callers and callees" \
    wait_for "Inject.Client.Count: callers and callees since the start"
check "tmux: its caller, the loop begun before the attach (<root>)" \
    bash -c "$(declare -f screen); sock='$sock'; screen | grep -A1 'CALLS  CALLERS' | grep -qE '^ +[0-9]+  <root>$'"
tmux -S "$sock" send-keys -t top Enter
tmux -S "$sock" resize-window -t top -x 70 -y 16
sleep 1.5
check "tmux: resized to 70 x 16: the table drawn to its width" \
    bash -c "$(declare -f screen); sock='$sock'; s=\$(screen); [[ \$(head -1 <<<\"\$s\") == 'clrtrace top: pid '* ]] && grep -q '  CALLS/S        P50        P99        MAX   EXC/S  SELF%' <<<\"\$s\" && [[ \$(wc -L <<<\"\$s\") -le 70 ]]"
tmux -S "$sock" send-keys -t top q
check "tmux: q ends top (exit 0)" wait_for "top-exit=0"
sleep 1
check "the service runs on after top" kill -0 "${spid:-0}"

echo "== 4. a program under a budget"
# Inject's calls mode calls Count 3 million times in a loop: with
# --max-overhead 2 the budget steps Count down, and the status line says so.
ct_run "$work" budget timeout -k 5 120 "$ct" top --batch 3 --max-overhead 2 -- dotnet "$app" calls 3000000
check_eq "a program: exit code 0" 0 "$(cat "$work/budget.rc")"
check "the status line says the budget stepped a method down" \
    grep -qE '^# 1: clrtrace top: a program, second [0-9]+, .*; the budget stepped [0-9]+ methods? down' \
    "$work/budget.out"

echo "== 5. no such process"
ct_run "$work" nopid timeout -k 5 60 "$ct" top --batch 1 -p 999999
check_eq "top -p of no such process: exit code 1, record's line" \
    "1 clrtrace record: no process with pid 999999" \
    "$(cat "$work/nopid.rc") $(cat "$work/nopid.err")"

ct_serve_done

ct_end run_top.sh
