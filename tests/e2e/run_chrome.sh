#!/usr/bin/env bash
# clrtrace dump --chrome: Chrome Trace Event Format JSON of recorded traces of
# tests/targets/Hello, Values and Hard (threads, exit, spin killed by SIGKILL)
# and of traces cut short. check_chrome.py parses the JSON strictly and checks
# that complete events nest on every thread and that every thread is named.
#
# Every expected argument and return value below is written by hand from the
# targets' C# sources: Hello's Main calls Add(2, 3), Scale(1.5, 4.0), Fib(5)
# (15 calls, n < 2 ? n : Fib(n - 1) + Fib(n - 2)), new Greeter("Hello"),
# Greet("clrtrace", 3), Counter.Bump(4) and Bump(6), TryDivide(7, 2) and
# TryDivide(1, 0), whose Divide(1, 0) throws; Main returns 3. The event
# counts are compared with the text log of the same trace (clrtrace replay).
# The checks by hand are the cases of cases/chrome.case; the script compares
# with the text log and the trace's pid and times, and cuts and kills.
# Usage: run_chrome.sh PATH/TO/libclrtrace.so
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup chrome "${1:-}" cli
chk() { python3 "$here/check_chrome.py" "$@"; }

echo "== building tests/targets/Hello, Values, Hard"
hello=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$hello" ]] &&
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] &&
hard=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$hard" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }

# calls_of JSON: "NAME ARGS" per complete event (the TID left out).
calls_of() { chk calls "$1" | cut -d' ' -f2-; }
# same_calls_as_replay DIR JSON: the text log and the JSON have the same
# calls: as many, and the same (thread, function) pairs.
same_calls_as_replay() {
    "$ct" replay "$1" > "$work/replay.txt" 2>/dev/null
    local a b
    a=$(ct_calls "$work/replay.txt" | awk '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          split(substr($0, 1, RLENGTH), h, " "); t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
          if (t ~ /^\}/) next; sub(/\(.*/, "", t); print h[2], t }' | sort)
    b=$(chk names "$2" | sort)
    if [[ "$a" != "$b" ]]; then
        echo "replay: $(wc -l <<<"$a") calls, JSON: $(wc -l <<<"$b") events"
        diff <(echo "$a") <(echo "$b") | head -n 8
        return 1
    fi
    [[ -n "$a" ]]
}

printf 'CLRTRACEgarbage' > "$work/bad.clrt"
ct_cases "$here/cases/chrome.case"

# ------------------------------ against the text log, the pid and times
echo "== against the text log, the trace's pid and times"
check "Hello: one complete event per call of the text log" same_calls_as_replay "$work/hello" "$work/hello.out"
pid=$("$ct" dump "$work/hello" | sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p')
check "Hello: the process named by its command line" \
    grep -qF "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":$pid,\"tid\":$pid,\"args\":{\"name\":\"dotnet $hello\"}}" "$work/hello.out"
check "Hello: the main thread named \"thread $pid\" (the trace has no thread names)" \
    grep -qF "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":$pid,\"tid\":$pid,\"args\":{\"name\":\"thread $pid\"}}" "$work/hello.out"
# Main's ts and dur are its raw ENTER and LEAVE times (ns) to the nanosecond.
key=$("$ct" dump "$work/hello" | awk '$2 == "FUNCTION" && $NF == "Demo.Program.Main" { sub("key=", "", $3); print $3; exit }')
raw=$("$ct" dump "$work/hello" | awk -v k="key=$key" '
    ($2 == "ENTER" || $2 == "LEAVE") && $5 == k { sub("t=", "", $3); if ($2 == "ENTER" && s == "") s = $3; if ($2 == "LEAVE") e = $3 }
    END { print s, e - s }')
check_eq "Hello: Main's ts and dur are its ENTER time and duration in ns (sub-microsecond digits kept)" \
    "$raw" "$(chk event "$work/hello.out" Demo.Program.Main)"
check "Values: one complete event per call of the text log" same_calls_as_replay "$work/values" "$work/values.out"
check "threads: one complete event per call of the text log, on the same thread" \
    same_calls_as_replay "$work/threads" "$work/threads.out"
check "threads: Work(tid, i) events are on thread tid (the program passes its gettid())" \
    python3 -c 'import json, sys
bad = [l for l in open(sys.argv[1]) if l.split(" ", 2)[1] == "Hard.Threads.Work"
       and json.loads(l.split(" ", 2)[2])["tid"] != l.split(" ", 1)[0]]
print("".join(bad[:5])); sys.exit(1 if bad else 0)' <(chk calls "$work/threads.out")
end=$("$ct" dump "$work/exit" | awk '$2 == "END" { sub("t=", "", $3); print $3 }')
check "exit: the unfinished events end at the END record's time ($end ns)" python3 -c '
import decimal, json, sys
evs = [e for e in json.load(open(sys.argv[1]), parse_float=decimal.Decimal)["traceEvents"] if e["ph"] == "X"]
ends = {int((e["ts"] + e["dur"]) * 1000) for e in evs}
print(ends); sys.exit(ends != {int(sys.argv[2])})' "$work/exit.out" "$end"

# ------------------------------------------------------ a trace cut short
# Cut at byte offsets of an uncompressed trace (a cut in a compressed one
# loses its whole zstd block: run_record.sh checks that case).
ct_run "$work" rec.threadsraw "$ct" record -o "$work/threadsraw" --no-compress --profiler "$lib" -- \
    dotnet "$hard" threads
check_eq "Hard threads recorded uncompressed (exit 0)" 0 "$(cat "$work/rec.threadsraw.rc")"
size=$(stat -c %s "$work/threadsraw/trace.clrt")
for part in 4 2 1; do
    cut=$((size * part / 5))
    head -c "$cut" "$work/threadsraw/trace.clrt" > "$work/cut$part.clrt"
    ct_run "$work" cut$part "$ct" dump --chrome "$work/cut$part.clrt"
    cp "$work/cut$part.out" "$work/cut$part.json"
    check_eq "cut at $cut of $size bytes: exit 0, one line on stderr (an incomplete trace)" "0 1 1" \
        "$(cat "$work/cut$part.rc") $(wc -l < "$work/cut$part.err") $(grep -c '^clrtrace dump: incomplete trace: ' "$work/cut$part.err")"
    check "cut at $cut bytes: valid JSON, nested, threads named" chk validate "$work/cut$part.json"
    check "cut at $cut bytes: the calls the text log shows, open ones included" \
        same_calls_as_replay "$work/cut$part.clrt" "$work/cut$part.json"
    calls_of "$work/cut$part.json" > "$work/cut$part.calls"
    check "cut at $cut bytes: Main and Threads.Run unfinished" bash -c '
        grep -qxF "Hard.Program.Main {\"args\": \"string[1] {\\\"threads\\\"}\", \"unfinished\": true}" "$1" &&
        grep -qxF "Hard.Threads.Run {\"unfinished\": true}" "$1"' _ "$work/cut$part.calls"
done
head -c $((size - 3)) "$work/threadsraw/trace.clrt" > "$work/cutend.clrt"
"$ct" dump --chrome "$work/cutend.clrt" > "$work/cutend.json" 2>/dev/null
check "cut inside the END record: valid JSON, every event finished" bash -c \
    '[[ "$(python3 "$1" validate "$2")" == *" unfinished=0" ]]' _ "$here/check_chrome.py" "$work/cutend.json"

# ----------------------------------------------- a process killed mid-run
# Hard spin N calls Step(i, "spinning") (= i + 8) N times; it is killed
# with SIGKILL once its trace passes 2 MB: no END record, the last write may
# be cut anywhere.
mkdir -p "$work/kill"
env "${traced[@]}" "CLRTRACE_TRACE=$work/kill/trace.clrt" dotnet "$hard" spin 500000000 \
    > "$work/kill.prog.out" 2>&1 &
kpid=$!
for ((i = 0; i < 600; i++)); do
    [[ $(stat -c %s "$work/kill/trace.clrt" 2>/dev/null || echo 0) -gt 2000000 ]] && break
    sleep 0.1
done
kill -KILL "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
ct_run "$work" kill "$ct" dump --chrome "$work/kill"
cp "$work/kill.out" "$work/kill.json"
check "SIGKILL: dump exit 0 or 1 (the file may end inside a record)" \
    test "$(cat "$work/kill.rc")" -le 1
check "SIGKILL: valid JSON, nested" chk validate "$work/kill.json"
chk calls "$work/kill.json" | cut -d' ' -f2- > "$work/kill.calls"
check "SIGKILL: Main and Spin unfinished" bash -c '
    grep -qxF "Hard.Program.Main {\"args\": \"string[2] {\\\"spin\\\", \\\"500000000\\\"}\", \"unfinished\": true}" "$1" &&
    grep -qxF "Hard.Ending.Spin {\"n\": \"500000000\", \"unfinished\": true}" "$1"' _ "$work/kill.calls"
check "SIGKILL: Step(i, \"spinning\") for i = 0, 1, 2, ... each returning i + 8 (all but an unfinished last)" \
    python3 -c 'import json, sys
steps = [json.loads(l.split(" ", 1)[1]) for l in open(sys.argv[1]) if l.startswith("Hard.Ending.Step ")]
done = [a for a in steps if "return" in a]
ok = len(done) > 1000 and all(a["i"] == str(k) and a["label"] == "\"spinning\"" and a["return"] == str(k + 8)
                              for k, a in enumerate(done))
ok = ok and len(steps) - len(done) <= 1 and all("unfinished" in a for a in steps[len(done):])
print(len(done), "complete steps"); sys.exit(0 if ok else 1)' "$work/kill.calls"

ct_end run_chrome.sh
