#!/usr/bin/env bash
# Soak and fault tests of a live service (issue 42): tests/targets/Web (an
# ASP.NET Core app on 127.0.0.1) under a steady load of checked requests
# (load.py, two clients), while clrtrace attaches to it, over and over and in
# the ways a session can go wrong.
#
# Usage: tests/e2e/run_soak.sh [path/to/libclrtrace.so]
#   SOAK_ATTACHES  attaches of part 1 (default 10, the test command's short
#                  form; 100 by hand)
#   SOAK_STOP_S    seconds the text log's reader is stopped in part 3
#                  (default 4; 10 by hand)
#
#   1. Attach and detach SOAK_ATTACHES times, values on the handlers' callees
#      (-F 'Web.Shop.*'): each session's trace right (every Place, Total and
#      Receipt by the formulas of Program.cs); after the last detach the
#      service's RSS, threads and open descriptors within a bound of their
#      values after the first (below).
#   2. clrtrace killed (SIGKILL) mid-session: its trace is finished (END)
#      within CT_SOAK_RESTORE_S of the kill, which the profiler does after
#      it brought the original code back; a later attach works.
#   3. clrtrace's text log to a pipe whose reader is stopped (SIGSTOP, as a
#      pager or a terminal stopped by Ctrl-S): no request waits on it (the
#      attach is lossy: the writer falls behind, the hooks drop and count);
#      after SIGCONT the session finishes and says what was not recorded.
#      And clrtrace itself stopped: nothing waits on it either.
#   4. The service killed (SIGKILL) while attached: clrtrace ends with one
#      line, exit 0, and the trace reads, complete up to about a second
#      before the kill.
# Through it all: no failed or wrong answer, and the service's own output
# and exit code unchanged.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup soak "${1:-}" cli
attaches=${SOAK_ATTACHES:-10}
stop_s=${SOAK_STOP_S:-4}
# Seconds from clrtrace's SIGKILL to its trace finished by the profiler
# (the control thread polls its client each 100 ms, then reverts the methods
# and finishes the trace).
CT_SOAK_RESTORE_S=3

echo "== building tests/targets/Web"
app=$(ct_dotnet_build "$root/tests/targets/Web" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Web failed" >&2; exit 2; }

# serve NAME: the app serving, $port and $spid set; load on it (load_start).
serve() {
    local name=$1 i
    rm -f "$work/$name.port"
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 timeout -k 5 900 dotnet "$app" serve "$work/$name.port" \
        >"$work/$name.out" 2>"$work/$name.err"; echo $? >"$work/$name.rc" ) 2>/dev/null &
    for ((i = 0; i < 600; i++)); do [[ -s "$work/$name.port" ]] && break; sleep 0.1; done
    port=$(cat "$work/$name.port" 2>/dev/null)
    spid=$(pgrep -f -n "^dotnet $app serve $work/$name.port\$")
    [[ -n "$port" && -n "$spid" ]] || { echo "ERROR: the app did not serve" >&2; cat "$work/$name.err" >&2; exit 2; }
    ct_at_exit ct_kill_quiet "$spid"
    load_start "$name"
}
# load_start NAME: load.py on $port until NAME.stop exists ($loadpid).
load_start() {
    local name=$1 i
    rm -f "$work/$name.stop"
    python3 "$here/load.py" "$port" "$work/$name.stop" "$work/$name.load" 2 900 &
    loadpid=$!
    ct_at_exit touch "$work/$name.stop"
    for ((i = 0; i < 100; i++)); do [[ -s "$work/$name.load" ]] && break; sleep 0.1; done
}
# load_done NAME: the load stopped; its report checked (no failed request).
load_done() {
    local name=$1
    touch "$work/$name.stop"
    wait "$loadpid"
    check "$name: the load made requests, none failed or answered wrong" \
        bash -c 'grep -qE "^requests [1-9][0-9]* failed 0 " "$1" || { cat "$1"; exit 1; }' _ "$work/$name.load"
}
# quit NAME: GET /quit; the app ends as untraced (exit 0, nothing on stderr).
quit() {
    local name=$1 i
    timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET /quit HTTP/1.0\r\n\r\n" >&3 && cat <&3 >/dev/null' _ "$port"
    for ((i = 0; i < 300; i++)); do [[ -s "$work/$name.rc" ]] && break; sleep 0.1; done
    check_eq "$name: the app ends as untraced (exit 0, nothing on stderr)" "0|" \
        "$(cat "$work/$name.rc" 2>/dev/null)|$(cat "$work/$name.err")"
}
# right_calls TRACE-DIR: every Shop call of the trace by Program.cs's
# formulas (Place(i) = 2 i + 1, Total(q) = 250 q + 99, Receipt(q) =
# "qty q total T"); prints the wrong ones, or "no calls". A call shown
# without its arguments, "Place(?)", is right only after the trace's line
# "# budget at T: Web.Shop.Place values off" (the attach's 5 % budget, which
# a slow build such as ASan's reaches).
right_calls() {
    "$ct" replay "$1" 2>/dev/null | awk -v off=" " '
        # A call line: time, thread, [duration], then the call. A call
        # another thread interrupted is an opening line "X(...) {" and its
        # closing line "} -> ..." on the same thread (a stack per thread).
        function check(call, ret) {
            n++
            if (call ~ /^Web\.Shop\.Place\(int id=[0-9]+\)$/) {
                split(call, a, /[=)]/); want = "int " (2 * a[2] + 1)
            } else if (call ~ /^Web\.Shop\.Total\(int qty=[0-9]+\)$/) {
                split(call, a, /[=)]/); want = "int " (250 * a[2] + 99)
            } else if (call ~ /^Web\.Shop\.Receipt\(int qty=[0-9]+\)$/) {
                split(call, a, /[=)]/); want = "string \"qty " a[2] " total " (250 * a[2] + 99) "\""
            } else if (call ~ /^Web\.Shop\.[A-Za-z]+\(\?\)$/) {
                name = call; sub(/\(\?\)$/, "", name)
                if (index(off, " " name " ") == 0) print call " (values off, but no budget step before it)"
                return
            } else { print "unknown: " call; return }
            if (ret != want) print call " -> " ret " (wanted " want ")"
        }
        /^# budget at [0-9.]+: Web\.Shop\.[A-Za-z]+ values off / { off = off $5 " "; next }
        /^ *[0-9]+\.[0-9]+ +[0-9]+ / {
            tid = $2
            line = $0
            sub(/^ *[0-9]+\.[0-9]+ +[0-9]+ +([0-9.]+ [mun]?s)? +/, "", line)
            if (line ~ /^Web\.Shop\..* \{$/) { sub(/ \{$/, "", line); open[tid, ++depth[tid]] = line; next }
            if (line ~ /^\} -> /) { if (depth[tid] > 0) { sub(/^\} -> /, "", line); check(open[tid, depth[tid]--], line) }; next }
            if (line ~ /^Web\.Shop\./) { i = index(line, ") -> "); check(substr(line, 1, i), substr(line, i + 5)) }
        }
        END { if (!n) print "no calls" }'
}
# usage PID: "RSS-KB THREADS FDS OURS" of the process, OURS its threads
# named clrtrace-* (the profiler's).
usage() {
    echo "$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status") $(awk '/^Threads:/ { print $2 }' "/proc/$1/status") $(ls "/proc/$1/fd" | wc -l) $(cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^clrtrace')"
}

echo "== 1. attach and detach $attaches times under load"
serve s1
bad=0
for ((k = 1; k <= attaches; k++)); do
    timeout -k 5 120 "$ct" record -p "$spid" -d 0.4s -F 'Web.Shop.*' -o "$work/s1.$k" \
        >"$work/s1.$k.out" 2>"$work/s1.$k.err" || { bad=$((bad + 1)); echo "attach $k: exit $?"; cat "$work/s1.$k.err"; }
    wrong=$(right_calls "$work/s1.$k")
    [[ -z "$wrong" ]] || { bad=$((bad + 1)); echo "attach $k: $(head -n 3 <<<"$wrong")"; }
    [[ $k -eq 1 ]] && first=$(usage "$spid")
    [[ $k -eq 2 ]] && second=$(usage "$spid")
done
last=$(usage "$spid")
check_eq "each of the $attaches sessions: exit 0, its Shop calls right by hand" 0 "$bad"
read -r rss1 thr1 fd1 ours1 <<<"$first"
read -r rss2 _ _ _ <<<"$second"
read -r rssn thrn fdn oursn <<<"$last"
echo "   after the 1st detach: RSS $rss1 KB, $thr1 threads ($ours1 clrtrace's), $fd1 fds; after the 2nd: RSS $rss2 KB; after the ${attaches}th: RSS $rssn KB, $thrn threads ($oursn clrtrace's), $fdn fds"
# The bound (issue 42; docs/tracer.md, "Attaching: memory"): 16 MB, and
# 64 KB a session after the first. After a session the profiler keeps the
# writer's buffers and zstd's context, allocated by the first session and
# reused, their pages given back to the system (before, each session
# allocated and freed them, and the process grew 1.2 MB a session); for
# each thread that ran a traced method its state (up to 170 KB), its ring
# and scratch given back. Measured on this machine: the first sessions add
# 2 to 8 MB (the states of pool threads new to tracing, the malloc arenas of
# the profiler's threads, the runtime's ReJIT tables), then 13 to 44 KB a
# session (the runtime's copy of each rewritten method: IL and code, which it
# never frees). Over 10 attaches that came to +10.4 to 12.2 MB in 18 runs,
# over 100 to +12.7 MB: growth that levels off. 12 MB, the bound before,
# failed once in 14 runs; 16 MB holds the most measured with a third to spare.
bound=$((16 * 1024 + 64 * (attaches - 1)))
# (Not under the sanitizers: ASan's quarantine and shadow memory grow with
# every allocation, the profiler's and the runtime's alike.)
[[ -n ${CLRTRACE_SANITIZE_RUN:-} ]] && echo "   (the RSS bound is not checked under the sanitizers)" ||
check "RSS after the ${attaches}th detach within $bound KB of the 1st's (16 MB + 64 KB a session): +$((rssn - rss1)) KB" \
    test "$((rssn - rss1))" -le "$bound"
# Threads: the profiler's own (named clrtrace-*) as after the first; the
# others are the runtime's thread pool, which adds threads when requests
# wait (a session's cost) and retires idle ones after a while: at most 8 more.
check_eq "open descriptors and clrtrace's own threads after the ${attaches}th detach: as after the 1st" \
    "$fd1 $ours1" "$fdn $oursn"
check "the process's threads after the ${attaches}th detach: at most 8 more than after the 1st (the thread pool's): $thr1 then $thrn" \
    test "$thrn" -le $((thr1 + 8))
load_done s1

echo "== 2. clrtrace killed mid-session"
load_start s2
"$ct" record -p "$spid" -F 'Web.Shop.*' -o "$work/killed" >"$work/killed.out" 2>"$work/killed.err" &
cli=$!
ct_wait_attached "$work/killed.err"
sleep 1
kill -KILL "$cli"
{ wait "$cli"; } 2>/dev/null
t_kill=$(date +%s%N)
done_ms=""
for ((i = 0; i < 100; i++)); do
    if "$ct" info "$work/killed" 2>/dev/null | grep -qE '^complete +yes'; then
        done_ms=$((($(date +%s%N) - t_kill) / 1000000)); break
    fi
    sleep 0.1
done
check "the profiler finished the trace (original code back first) within $CT_SOAK_RESTORE_S s of the kill (${done_ms:-never} ms)" \
    test -n "$done_ms" -a "${done_ms:-99999}" -le $((CT_SOAK_RESTORE_S * 1000))
check_eq "the killed session's trace: its Shop calls right" "" "$(right_calls "$work/killed")"
timeout -k 5 120 "$ct" record -p "$spid" -d 0.4s -F 'Web.Shop.*' -o "$work/after" >/dev/null 2>"$work/after.err"
check_eq "a later attach works (exit 0), its calls right" "0|" "$?|$(right_calls "$work/after")"
load_done s2

echo "== 3. the text log's reader stopped for $stop_s s; clrtrace stopped"
mkfifo "$work/pipe"
cat "$work/pipe" >"$work/piped.txt" &
reader=$!
"$ct" run -p "$spid" -d $((stop_s + 3))s -F 'Web.Shop.*' 2>"$work/pipe" &
cli=$!
sleep 1
kill -STOP "$reader"
load_start s3
sleep "$stop_s"
touch "$work/s3.stop"
wait "$loadpid"
kill -CONT "$reader"
wait "$cli"
rc=$?
wait "$reader"
check_eq "the session finishes after SIGCONT (exit 0)" 0 "$rc"
check "while the reader was stopped, requests were answered, none failed, none waited a second" \
    bash -c 'grep -qE "^requests [1-9][0-9]* failed 0 slowest [0-9]{1,3}$" "$1" || { cat "$1"; exit 1; }' _ "$work/s3.load"
check "the log says what was not recorded, counted (the writer fell behind; the attach is lossy)" \
    grep -qE '^# summary: .*[1-9][0-9]* events? dropped$|^clrtrace run: .*[1-9][0-9]* calls not recorded' "$work/piped.txt"
"$ct" run -p "$spid" -d $((stop_s + 2))s -F 'Web.Shop.*' -o "$work/stopped.txt" 2>"$work/stopped.err" &
cli=$!
ct_wait_attached "$work/stopped.err"
kill -STOP "$cli"
load_start s3b
sleep "$stop_s"
touch "$work/s3b.stop"
wait "$loadpid"
kill -CONT "$cli"
wait "$cli"
check_eq "clrtrace itself stopped for $stop_s s: the session ends after SIGCONT (exit 0)" 0 "$?"
check "... no request failed or waited a second meanwhile" \
    bash -c 'grep -qE "^requests [1-9][0-9]* failed 0 slowest [0-9]{1,3}$" "$1" || { cat "$1"; exit 1; }' _ "$work/s3b.load"
check "... and the log holds its calls" grep -q 'Web\.Shop\.Place(int id=' "$work/stopped.txt"
quit s1

echo "== 4. the service killed while attached"
serve s4
"$ct" record -p "$spid" -F 'Web.Shop.*' -o "$work/died" >"$work/died.out" 2>"$work/died.err" &
cli=$!
ct_wait_attached "$work/died.err"
t_attach=$(date +%s%N)
sleep 2
kill -KILL "$spid"
t_kill=$(date +%s%N)
wait "$cli"
rc=$?
touch "$work/s4.stop"
wait "$loadpid"
check_eq "clrtrace ends (exit 0) with one line after the attach line" \
    "0|clrtrace record: pid $spid ended while traced; its trace ends with it" \
    "$rc|$(grep -v 'attached to pid' "$work/died.err")"
"$ct" info "$work/died" >"$work/died.info" 2>&1
check "the trace reads: info says it is incomplete (the process was killed)" grep -qE '^complete +no' "$work/died.info"
check_eq "its calls read right" "" "$(right_calls "$work/died")"
# The last call's time, against the kill's, both from the attach (the
# trace's clock starts at the attach; ours a little after it).
last_s=$("$ct" replay "$work/died" 2>/dev/null | sed -nE 's/^ *([0-9]+\.[0-9]+) +[0-9]+ .*Web\.Shop\..*/\1/p' | tail -n 1)
kill_s=$(awk -v a="$t_attach" -v k="$t_kill" 'BEGIN { printf "%.3f", (k - a) / 1e9 }')
check "it holds calls up to about a second before the kill (last at ${last_s:-none} s, kill at ~$kill_s s after the attach)" \
    awk -v l="${last_s:-0}" -v k="$kill_s" 'BEGIN { exit !(l > 0 && l >= k - 1.5) }'

ct_end run_soak.sh
