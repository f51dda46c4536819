#!/usr/bin/env bash
# clrtrace dump --otlp and --otlp-endpoint: recorded traces of
# tests/targets/Hello (values, an exception) and Hard threads (17 threads
# and the pool) as OpenTelemetry spans. Each output is decoded by protoc
# against tests/otlp/ (the subset of opentelemetry-proto we write, field
# numbers and names from the published files) as an
# ExportTraceServiceRequest; check_otlp.py reads protoc's text.
#
# Hello's calls, written by hand from its C# source (tests/targets/Hello):
# Main calls Add(2, 3), Scale(1.5, 4.0), Fib(5) (15 calls, the recursion
# below), new Greeter("Hello"), Greet("clrtrace", 3), new Counter(),
# Bump(4), Bump(6), TryDivide(7, 2) -> Divide(7, 2) and TryDivide(1, 0) ->
# Divide(1, 0), which throws ArgumentException("b must not be zero"); Main
# returns 3. The values are hello_calls.txt's (run_chrome.sh and
# run_perfetto.sh expect the same).
#
# --otlp-endpoint goes to otlp_receiver.py on 127.0.0.1 (an ephemeral
# port): requests of at most --otlp-max-spans spans, at the limit and one
# past it; an endpoint answering 500 and a port nobody listens on: one line,
# exit 1.
# The checks by hand are the cases of cases/otlp.case; the script compares
# with the trace's pid, times and info's counts, damages a trace and runs
# the receivers of the endpoint's checks.
# Usage: run_otlp.sh PATH/TO/libclrtrace.so
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup otlp "${1:-}" cli
command -v protoc >/dev/null || { echo "ERROR: no protoc (Debian: protobuf-compiler)" >&2; exit 2; }
chk() { python3 "$here/check_otlp.py" "$@"; }
# decode REQUEST TEXT: protoc's text of an ExportTraceServiceRequest.
decode() {
    protoc --proto_path="$root/tests/otlp" \
        --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        opentelemetry/proto/collector/trace/v1/trace_service.proto \
        < "$1" > "$2" 2> "$2.err" || { cat "$2.err"; return 1; }
    [[ ! -s "$2.err" ]] || { cat "$2.err"; return 1; } # e.g. invalid UTF-8 in a string
}
info_calls() { "$ct" info "$1" | sed -n 's/^calls *\([0-9]*\) ended.*/\1/p'; }
spans_of() { chk validate "$@" | sed -n 's/^spans=\([0-9]*\) .*/\1/p'; }
# receiver NAME STATUS: starts otlp_receiver.py answering STATUS into
# $work/NAME/; sets port.
receiver() {
    mkdir -p "$work/$1"
    python3 "$here/otlp_receiver.py" "$work/$1" "$2" 600 &
    local pid=$!
    ct_at_exit kill "$pid"
    for _ in $(seq 100); do [[ -s "$work/$1/port" ]] && break; sleep 0.1; done
    port=$(cat "$work/$1/port" 2>/dev/null)
    [[ -n "$port" ]] || { echo "ERROR: the receiver did not start" >&2; exit 2; }
}

echo "== building tests/targets/Hello, Hard"
hello=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$hello" ]] &&
hard=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$hard" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }

ct_cases "$here/cases/otlp.case"

# ---------------------------- against the trace's pid, times and counts
echo "== against the trace's pid, times and info's counts"
calls=$(chk calls "$work/hello.txt")
check "Hello: the same call tree and attributes in the two batches" \
    ct_diff_tree "$calls" "$(chk calls "$work/hello26.txt")"
header=$("$ct" dump "$work/hello" | head -n 1)
pid=$(sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p' <<<"$header")
start=$(sed -n 's/^header .* start=\([0-9]*\) .*/\1/p' <<<"$header")
check_eq "Hello: the resource: service.name Hello, process.pid, process.command_line" \
    "service.name=Hello|process.pid=$pid|process.command_line=dotnet $hello" \
    "$(chk resource "$work/hello.txt" | paste -sd '|')"
check_eq "Hello: Main's thread.id is the pid (the main thread)" 27 \
    "$(grep -A3 'key: "thread.id"' "$work/hello.txt" | grep -c "int_value: $pid\$")"
# Main's start is the header's start plus its raw ENTER time, its end the LEAVE's.
key=$("$ct" dump "$work/hello" | awk '$2 == "FUNCTION" && $NF == "Demo.Program.Main" { sub("key=", "", $3); print $3; exit }')
read -r s e < <("$ct" dump "$work/hello" | awk -v k="key=$key" '
    ($2 == "ENTER" || $2 == "LEAVE") && $5 == k { sub("t=", "", $3); if ($2 == "ENTER" && s == "") s = $3; if ($2 == "LEAVE") e = $3 }
    END { print s, e }')
check_eq "Hello: Main's span is the header's start ($start ns) plus its ENTER and LEAVE times ($s, $e)" \
    "$((start + s)) $((start + e))" "$(chk span "$work/hello.txt" Demo.Program.Main)"
n=$(info_calls "$work/threads")
check_eq "threads: spans = the calls info counts ($n)" "$n" "$(spans_of "$work/threads.txt")"
check_eq "threads: batches of $((512)) spans (the default), the last one the rest" \
    "$(( (n + 511) / 512 )) 512 $(( n - (n + 511) / 512 * 512 + 512 ))" \
    "$(chk batches "$work/threads.txt" | awk 'NR == 1 { f = $1 } { c++; l = $1 } END { print c, f, l }')"
size=$(wc -c < "$work/threads.out")
echo "     size: threads $size bytes for $n spans: $((size / n)) bytes a span; Hello $(wc -c < "$work/hello.out") bytes for 27"

# ------------------------------------------------------ a damaged trace
# As run_perfetto.sh: the type byte of a record in the middle of an
# uncompressed trace of Hard threads made unknown; the reader stops there.
ct_run "$work" rec.raw "$ct" record -o "$work/raw" --no-compress --profiler "$lib" -- dotnet "$hard" threads
check_eq "Hard threads recorded uncompressed (exit 0)" 0 "$(cat "$work/rec.raw.rc")"
cp "$work/raw/trace.clrt" "$work/bad.clrt"
size=$(stat -c %s "$work/bad.clrt")
at=$("$ct" dump "$work/raw" | awk -v half=$((size / 2)) '($2 == "CLASS" || $2 == "FUNCTION" || $2 == "THREAD") { last = $1; if ($1 >= half) { print $1; found = 1; exit } }
    END { if (!found) print last }')
printf '\143' | dd of="$work/bad.clrt" bs=1 seek="$at" conv=notrunc 2>/dev/null
ct_run "$work" bad "$ct" dump --otlp "$work/bad.clrt"
check_eq "damaged: exit 1, one line on stderr" "1 1" "$(cat "$work/bad.rc") $(wc -l < "$work/bad.err")"
check "damaged: what came before still decodes" decode "$work/bad.out" "$work/bad.txt"
check "damaged: parents consistent, the calls open at the damage closed as unfinished" bash -c \
    '[[ "$(python3 "$1" validate "$2")" =~ spans=([0-9]+) ]] && ((BASH_REMATCH[1] > 100)) && grep -q "key: \"clrtrace.unfinished\"" "$2"' \
    _ "$here/check_otlp.py" "$work/bad.txt"

# ------------------------------------------------------------- endpoint
receiver ok 200
ct_run "$work" ep27 "$ct" dump --otlp-endpoint "http://127.0.0.1:$port" --otlp-max-spans 27 "$work/hello"
check_eq "endpoint, --otlp-max-spans 27 (the limit): exit 0, one line saying what went" \
    "0|clrtrace dump: 27 spans sent to http://127.0.0.1:$port/v1/traces in 1 request" \
    "$(cat "$work/ep27.rc")|$(cat "$work/ep27.err")"
check_eq "endpoint: one POST to /v1/traces, Content-Type application/x-protobuf, the bytes --otlp writes" \
    "1 /v1/traces application/x-protobuf $(wc -c < "$work/hello.out")" "$(cat "$work/ok/log")"
check "endpoint: the request is --otlp's output" cmp "$work/ok/req-1.pb" "$work/hello.out"
ct_run "$work" ep26 "$ct" dump --otlp-endpoint "http://127.0.0.1:$port/" --otlp-max-spans 26 "$work/hello"
check_eq "endpoint, --otlp-max-spans 26 (one past): 2 requests, of 26 and 1 spans" \
    "0|clrtrace dump: 27 spans sent to http://127.0.0.1:$port/v1/traces in 2 requests|26|1" \
    "$(cat "$work/ep26.rc")|$(cat "$work/ep26.err")|$(decode "$work/ok/req-2.pb" "$work/r2.txt" && chk batches "$work/r2.txt")|$(decode "$work/ok/req-3.pb" "$work/r3.txt" && chk batches "$work/r3.txt")"
check "endpoint: the two requests decode to the same call tree and attributes" \
    ct_diff_tree "$calls" "$(chk calls "$work/r2.txt" "$work/r3.txt")"
ct_run "$work" ept "$ct" dump --otlp-endpoint "http://127.0.0.1:$port/custom/path" --otlp-max-spans 1000 "$work/threads"
reqs=$(( (n + 999) / 1000 ))
check_eq "endpoint: threads in $reqs requests of 1000 to the URL's own path" \
    "0|$reqs /custom/path" \
    "$(cat "$work/ept.rc")|$(awk 'NR > 3 { c++; p = $2 } END { print c, p }' "$work/ok/log")"
set --
for i in $(seq 4 $((reqs + 3))); do
    decode "$work/ok/req-$i.pb" "$work/t$i.txt" || break
    set -- "$@" "$work/t$i.txt"
done
check_eq "endpoint: the requests decode, together the spans of --otlp ($n), one call tree" \
    "spans=$n" "$(chk validate "$@" | cut -d' ' -f1)"

receiver refuse 500
ct_run "$work" ep500 "$ct" dump --otlp-endpoint "http://127.0.0.1:$port" "$work/hello"
check_eq "refusing endpoint (500): exit 1, one line with its status line" \
    "1|clrtrace dump: http://127.0.0.1:$port/v1/traces refused the spans: HTTP/1.0 500 Internal Server Error" \
    "$(cat "$work/ep500.rc")|$(cat "$work/ep500.err")"
check_eq "refusing endpoint: one request made, nothing on stdout" "1 0" \
    "$(wc -l < "$work/refuse/log") $(wc -c < "$work/ep500.out")"
ct_run "$work" ep500t "$ct" dump --otlp-endpoint "http://127.0.0.1:$port" --otlp-max-spans 100 "$work/threads"
check_eq "refusing endpoint: the first refusal stops the export (exit 1, one line, 2 requests in all)" \
    "1 1 2" "$(cat "$work/ep500t.rc") $(wc -l < "$work/ep500t.err") $(wc -l < "$work/refuse/log")"
# A port nobody listens on: bound, then closed.
free=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
ct_run "$work" epdown "$ct" dump --otlp-endpoint "http://127.0.0.1:$free" "$work/hello"
check_eq "unreachable endpoint: exit 1, one line" \
    "1|clrtrace dump: cannot reach http://127.0.0.1:$free/v1/traces: Connection refused" \
    "$(cat "$work/epdown.rc")|$(cat "$work/epdown.err")"

ct_end run_otlp.sh
