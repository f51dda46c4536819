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
#   5. top -p of no such process: exit 1, record's line;
#   6. top's trace on disk (a program making megabytes of trace a second):
#      6 s on, the file's blocks hold at most half its length (what top read
#      is given back); top stopped until three times its --max-behind is not
#      read: continued, it stops (exit 1, one line), the program ends with
#      the session, the folder is removed; --max-behind's bounds.
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
ct_at_exit ct_tmux_end "$sock"

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

echo "== 6. top's trace on disk, and a top that falls behind"
# Inject's paced mode: Count in rounds of 1000 calls, a millisecond's sleep
# after each, for 60 s (top ends it sooner): the trace grows by megabytes a
# second. What top has read is given back to the file system (a hole
# punched, the length kept), so the file's blocks hold about the last
# second or two, not the whole length. Sampled every 0.25 s while top runs:
# "SECONDS-SINCE-TOP-BEGAN LENGTH BLOCKS" (bytes). Then top is stopped
# (SIGSTOP) until the trace grew by 24 MiB, three times its --max-behind
# 8M: continued, it finds more than that not read, stops (exit 1, one line),
# and ends the session as q does.
"$ct" top --batch 100 --max-behind 8M --max-overhead off -F 'Inject.*' -- dotnet "$app" paced 60 \
    >"$work/disk.out" 2>"$work/disk.err" &
tpid=$!
t0=$(date +%s.%N)
: >"$work/disk.samples"
# sample: one line into disk.samples; $len set.
sample() {
    local rpid
    rpid=$(pgrep -P "$tpid" | head -1)
    [[ -n "$rpid" ]] && dir=$(ct_record_dir "$rpid")
    len=$(stat -c %s "${dir:-/nonexistent}/trace.clrt" 2>/dev/null || echo 0)
    [[ -n "${dir:-}" ]] && stat -c '%s %b %B' "$dir/trace.clrt" 2>/dev/null |
        awk -v t="$(date +%s.%N)" -v t0="$t0" '{ print t - t0, $1, $2 * $3 }' >>"$work/disk.samples"
}
dir=
for ((i = 0; i < 40; i++)); do kill -0 "$tpid" 2>/dev/null && sample; sleep 0.25; done
check "disk: 6 s on, the trace (4 MiB or more) kept blocks for at most half its length" \
    awk '$1 >= 6 && $2 >= 4194304 && $3 * 2 <= $2 { ok = 1 } END { exit !ok }' "$work/disk.samples"
kill -STOP "$tpid"
sample
from=$len
for ((i = 0; i < 240 && len - from < 25165824; i++)); do sleep 0.25; sample; done
kill -CONT "$tpid"
for ((i = 0; i < 200; i++)); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
wait "$tpid"
check_eq "behind: top stopped (exit code 1)" 1 "$?"
check "behind: its line" grep -qE '^clrtrace top: stopped: [0-9]+ MiB of the trace not read yet, more than --max-behind \(8 MiB\): the program calls faster than top reads; narrow -F, or keep the budget on \(--max-overhead\)$' "$work/disk.err"
check "behind: the program ended with the session (no process left)" \
    bash -c "! pgrep -f '^dotnet $app paced 60\$'"
check "disk: top's folder removed" test ! -e "${dir:-/nonexistent}"

echo "== 5. no such process"
ct_run "$work" mb_low timeout -k 5 60 "$ct" top --batch 1 --max-behind 1048575 -p 999999
check_eq "--max-behind one byte under 1M: exit code 2, one line" \
    "2 clrtrace top: --max-behind takes a size from 1M to 1T (a number and K, M, G or T), not '1048575'" \
    "$(cat "$work/mb_low.rc") $(cat "$work/mb_low.err")"
ct_run "$work" mb_high timeout -k 5 60 "$ct" top --batch 1 --max-behind 1099511627777 -p 999999
check_eq "--max-behind one byte over 1T: exit code 2" 2 "$(cat "$work/mb_high.rc")"
ct_run "$work" mb_at timeout -k 5 60 "$ct" top --batch 1 --max-behind 1048576 --max-behind=1T -p 999999
check_eq "--max-behind 1M and 1T taken (then: no such process, exit code 1)" \
    "1 clrtrace record: no process with pid 999999" "$(cat "$work/mb_at.rc") $(cat "$work/mb_at.err")"
ct_run "$work" nopid timeout -k 5 60 "$ct" top --batch 1 -p 999999
check_eq "top -p of no such process: exit code 1, record's line" \
    "1 clrtrace record: no process with pid 999999" \
    "$(cat "$work/nopid.rc") $(cat "$work/nopid.err")"

ct_serve_done

ct_end run_top.sh
