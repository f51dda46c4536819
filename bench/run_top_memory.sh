#!/usr/bin/env bash
# bench/run_top_memory.sh — what `clrtrace top -p PID` holds over a long
# attach (docs/performance.md, "top over a long attach").
#
# tests/targets/Web (ASP.NET Core on 127.0.0.1) serves a steady load of
# checked requests (tests/e2e/load.py, two clients) while `clrtrace top
# --batch N -p PID -F ...` watches it for TOP_SECONDS. Every
# TOP_SAMPLE_S seconds it prints, side by side in one run:
#   top     top's own resident memory (VmRSS) and its peak (VmHWM)
#   record  the `clrtrace record` top runs, the same
#   trace   the disk space of top's trace file in /tmp (du: blocks, not
#           length), and the file's length
#   calls   the calls top has counted so far (the sum of its rows' calls/s)
# then the service's RSS, and at the end the load's report (no failed
# request) and top's exit code.
#
# Usage: bench/run_top_memory.sh [path/to/libclrtrace.so]
#   TOP_SECONDS (600), TOP_SAMPLE_S (60), TOP_GLOBS (the -F patterns, blank
#   between them: 'Web.* Microsoft.AspNetCore.Routing.*')
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
. "$root/tests/e2e/lib_checks.sh"
ct_setup bench-top "${1:-}" cli
secs=${TOP_SECONDS:-600}
sample=${TOP_SAMPLE_S:-60}
fs=()
read -r -a globs <<<"${TOP_GLOBS:-Web.* Microsoft.AspNetCore.Routing.*}"
for g in "${globs[@]}"; do fs+=(-F "$g"); done

echo "== building tests/targets/Web"
app=$(ct_dotnet_build "$root/tests/targets/Web" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }

( timeout -k 5 $((secs + 120)) dotnet "$app" serve "$work/port" $((secs + 60)) >"$work/app.out" 2>"$work/app.err" ) &
for ((i = 0; i < 600; i++)); do [[ -s "$work/port" ]] && break; sleep 0.1; done
port=$(cat "$work/port" 2>/dev/null)
spid=$(pgrep -f -n "^dotnet $app serve $work/port ")
[[ -n "$port" && -n "$spid" ]] || { echo "ERROR: the app did not serve" >&2; exit 2; }
ct_at_exit ct_kill_quiet "$spid"
python3 "$root/tests/e2e/load.py" "$port" "$work/stop" "$work/load" 2 $((secs + 60)) &
loadpid=$!
ct_at_exit touch "$work/stop"
sleep 3

# (a few refreshes more than the samples: the last sample at TOP_SECONDS)
"$ct" top --batch $((secs + 2 * sample)) -p "$spid" "${fs[@]}" >"$work/top.out" 2>"$work/top.err" &
tpid=$!
kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }
printf '%6s  %10s %10s  %10s %10s  %12s %12s  %10s  %12s\n' \
    s top_kb top_hwm rec_kb rec_hwm trace_du_kb trace_len_kb app_kb calls
t0=$SECONDS
while kill -0 "$tpid" 2>/dev/null && ((SECONDS - t0 + sample <= secs + sample / 2)); do
    sleep "$sample"
    kill -0 "$tpid" 2>/dev/null || break
    rpid=$(pgrep -P "$tpid" | head -1)
    dir=$(ct_record_dir "${rpid:-0}")
    du_kb=$(du -k "$dir/trace.clrt" 2>/dev/null | cut -f1)
    len_kb=$(( $(stat -c %s "$dir/trace.clrt" 2>/dev/null || echo 0) / 1024 ))
    calls=$(awk '/^# [0-9]+: clrtrace top/ { on = 1; next } on && $1 ~ /^[0-9.]+$/ { c += $1 } END { printf "%.0f", c }' "$work/top.out")
    printf '%6d  %10s %10s  %10s %10s  %12s %12s  %10s  %12s\n' $((SECONDS - t0)) \
        "$(kb "$tpid" VmRSS)" "$(kb "$tpid" VmHWM)" "$(kb "$rpid" VmRSS)" "$(kb "$rpid" VmHWM)" \
        "${du_kb:-?}" "$len_kb" "$(kb "$spid" VmRSS)" "$calls"
done
kill -INT "$tpid" 2>/dev/null   # (as q does)
wait "$tpid"
echo "top: exit code $?; $(grep -c '^# [0-9]*: clrtrace top' "$work/top.out") refreshes; its folder $([[ -e "$dir" ]] && echo "left: $dir" || echo removed)"
tail -3 "$work/top.out"
cat "$work/top.err"
touch "$work/stop"
wait "$loadpid"
cat "$work/load"
timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET /quit HTTP/1.0\r\n\r\n" >&3 && cat <&3 >/dev/null' _ "$port"
wait
