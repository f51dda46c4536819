#!/usr/bin/env bash
# End-to-end test: one request's calls by its W3C trace id (issue 28).
#
# Usage: tests/e2e/run_requests.sh [path/to/libclrtrace.so]
#
# tests/targets/Requests (ASP.NET Core, an ActivityListener on
# "Microsoft.AspNetCore": hosting starts an Activity per request, continuing
# its traceparent) is recorded (`record -F 'Requests.*'`) while a client
# (bash's /dev/tcp, one request at a time) sends GET /checkout/11, /22 and /33
# with traceparent 00-T_k-P_k-01, then GET /quit. Each request's handler
# awaits (Task.Delay), then runs Price on a thread of its own. Checks:
#   1. the app answers what its source says ("bill 3N total 300N+7") and
#      exits 0;
#   2. `replay --trace-id T_k --ids` shows exactly request k's calls of
#      Requests.Orders (Quantity, Price, Bill) with their values, worked out
#      by hand from Program.cs: Quantity(id) = 3 id, Price(qty) = 100 qty + 7,
#      Bill(qty, price) = "bill qty total price"; none of another request's;
#   3. every call line it shows carries trace id T_k (the traceparent's), and
#      they come from at least two threads (the pricer thread is not the
#      one that began the request);
#   4. `report --trace-id` counts those calls; an unknown trace id selects
#      nothing; a malformed one is a usage error (exit 2);
#   5. `report --by-trace` lists the three trace ids with 3 calls each,
#      and their wall times' P50 (the middle one's), P90, P99 (the slowest
#      one's; `info` the same)
#      (Quantity, Price, Bill), slowest first, and the calls under no
#      Activity in a last row `-`;
#   6. `dump --chrome` and `dump --perfetto` (decoded by protoc) carry each
#      of those calls' trace id (T_k) and span id as args/annotations.
#   7. attached (`record -p PID`, the IL engine) to the service started
#      untraced, while two more requests arrive: checks 2, 3, 5 and the
#      OTLP spans for them; the request served before the attach is not in
#      the trace; the app answers and exits as untraced.
# With CLRTRACE_ENGINE=elt (eltsuite.list, ctest e2e.elt.requests) checks 1-6
# run on the ELT engine (7 attaches, with the IL engine always, and runs in
# the IL run only).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup requests "${1:-}" cli

echo "== building tests/targets/Requests"
app=$(ct_dotnet_build "$root/tests/targets/Requests" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Requests failed" >&2; exit 2; }

ids=(11 22 33)
traces=(0af7651916cd43dd8448eb211c80319c 4bf92f3577b34da6a3ce929d0e0e4736 a1b2c3d4e5f60718293a4b5c6d7e8f90)
parents=(b7ad6b7169203331 00f067aa0ba902b7 1122334455667788)

# req PORT PATH TRACEPARENT: the body of GET PATH (HTTP/1.0, 10 s at most).
req() {
    timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\ntraceparent: %s\r\n\r\n" "$2" "$3" >&3
        sed "1,/^\r\?$/d" <&3' _ "$1" "$2" "$3"
}

echo "== recorded while serving three requests"
( timeout -k 5 300 "$ct" record --profiler "$lib" -F 'Requests.*' -o "$work/tr" -- \
    dotnet "$app" serve "$work/port" >"$work/serve.out" 2>"$work/serve.err"
  echo $? >"$work/serve.rc" ) 2>/dev/null &
for ((i = 0; i < 600; i++)); do [[ -s "$work/port" ]] && break; sleep 0.1; done
port=$(cat "$work/port" 2>/dev/null)
check "the app serves (a port)" test -n "$port"
answers=""
for k in 0 1 2; do
    answers+="$(req "$port" "/checkout/${ids[k]}" "00-${traces[k]}-${parents[k]}-01")"$'\n'
done
answers+="$(req "$port" /quit "")"
wait
check_eq "the answers are what Program.cs says" "bill 33 total 3307
bill 66 total 6607
bill 99 total 9907
bye" "$answers"
check_eq "the app exits 0" 0 "$(cat "$work/serve.rc" 2>/dev/null)"

# calls TRACE-DIR TRACE-ID: the call lines of Requests.Orders' Quantity,
# Price and Bill under the trace id, as "TID [IDS] CALL" (time and duration
# left out).
calls() {
    "$ct" replay --ids --no-summary --trace-id "$2" "$1" |
        awk '$0 !~ /^#/ && /Requests\.Orders\.(Quantity|Price|Bill)\(/ {
                 tid = $2; sub(/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mun]?s)? +/, ""); print tid " " $0 }'
}

# check_request LABEL CALLS TRACE-ID N: CALLS (calls' output) are exactly
# request N's (id N: quantity 3N, price 300N + 7), each line with the
# traceparent's trace id, from two threads or more.
check_request() {
    local label=$1 out=$2 trace=$3 n=$4 q=$((3 * $4)) p=$((300 * $4 + 7))
    check_eq "${label}trace $trace: exactly request $n's calls, with their values" \
        "Requests.Orders.Quantity(int id=$n) -> int $q
Requests.Orders.Price(int qty=$q) -> int $p
Requests.Orders.Bill(int qty=$q, int price=$p) -> string \"bill $q total $p\"" \
        "$(sed 's/^[0-9]* \[[^]]*\] //' <<<"$out")"
    check_eq "${label}trace $trace: each call line carries the traceparent's trace id" 3 \
        "$(grep -c "^[0-9]* \[$trace-[0-9a-f]\{16\}\] " <<<"$out")"
    check "${label}trace $trace: the calls come from two threads or more" \
        test "$(awk '{print $1}' <<<"$out" | sort -u | wc -l)" -ge 2
}

for k in 0 1 2; do
    out=$(calls "$work/tr" "${traces[k]}")
    echo "$out" >"$work/calls.$k"
    check_request "" "$out" "${traces[k]}" "${ids[k]}"
done

out=$("$ct" report --trace-id "${traces[1]}" -F 'Requests.Orders.*' "$work/tr" 2>&1)
check "report --trace-id: one call of Price" \
    grep -Eq '^ +1 +.*Requests\.Orders\.Price$' <<<"$out"
check_eq "an unknown trace id selects no call" "" \
    "$("$ct" replay --no-summary --trace-id ffffffffffffffffffffffffffffffff "$work/tr" | grep -v '^#')"
"$ct" replay --trace-id 12345 "$work/tr" >/dev/null 2>&1
check_eq "a malformed trace id is a usage error" 2 "$?"

# report --by-trace (issue 28): one row per trace id, slowest first, the
# calls under no Activity last. Kept to Quantity, Price and Bill, each
# request's row has exactly its three calls, on two threads or more (Price
# runs on the pricer thread), and a wall time (Quantity's enter to Bill's
# end) of 10 ms or more (Checkout awaits Task.Delay(10) between them) that
# holds its outermost calls' time (the three, one after the other).
orders=(-F Requests.Orders.Quantity -F Requests.Orders.Price -F Requests.Orders.Bill)
# ns DURATION-TEXT: "14.3 ms" -> 14300000.
ns() { awk -v v="$1" -v u="$2" 'BEGIN { m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1
                                       printf "%.0f\n", v * m }'; }
"$ct" report --by-trace "${orders[@]}" "$work/tr" >"$work/bytrace.orders" 2>&1
rows=$(grep -v '^#' "$work/bytrace.orders")
check_eq "report --by-trace: the three requests' trace ids, 3 calls each, none under no Activity" \
    "$(printf '%s 3\n' "${traces[@]}" | sort)" "$(awk '{print $1, $2}' <<<"$rows" | sort)"
check "report --by-trace: its count line" \
    grep -qx '# by trace: 3 trace ids, 9 calls under them, 0 under no Activity' "$work/bytrace.orders"
for k in 0 1 2; do
    row=$(grep "^${traces[k]} " <<<"$rows")
    read -r _ _ wv wu ov ou tids <<<"$row"
    check "report --by-trace: ${traces[k]} ran on two threads or more" \
        test "$(wc -w <<<"$tids")" -ge 2
    # Task.Delay(10) between Quantity and Price: its timer may fire a
    # little early (a coarse clock) and the column leaves the tracer's held
    # time out: at least half of it, 5 ms.
    check "report --by-trace: ${traces[k]}'s wall time spans the await's delay (>= 5 ms): $wv $wu" \
        test "$(ns "$wv" "$wu")" -ge 5000000
    check "report --by-trace: ${traces[k]}'s outermost calls' time ($ov $ou) within its wall time" \
        test "$(ns "$ov" "$ou")" -gt 0 -a "$(ns "$ov" "$ou")" -le "$(ns "$wv" "$wu")"
done
walls=$(while read -r _ _ wv wu _; do ns "$wv" "$wu"; done <<<"$rows")
check "report --by-trace: three rows, slowest first" \
    test "$(grep -c . <<<"$walls")" = 3 -a "$(sort -rn <<<"$walls")" = "$walls"
# The requests' percentiles (issue 40) of those three walls, by hand: P50
# is the 2nd of 3 (rank ceil(1.5)), P90 and P99 the 3rd, the slowest (the
# last rank: exactly the longest, as MAX).
lat=$(sed -n "s/^# requests' wall time: //p" "$work/bytrace.orders")
read -r _ p50v p50u _ p90v p90u _ p99v p99u _ maxv maxu <<<"${lat//,/}"
read -r _ _ w1v w1u _ <<<"$(sed -n 1p <<<"$rows")"
read -r _ _ w2v w2u _ <<<"$(sed -n 2p <<<"$rows")"
check_eq "report --by-trace: P90, P99 and MAX are the slowest request's wall time" \
    "$w1v $w1u $w1v $w1u $w1v $w1u" "${p90v:-} ${p90u:-} ${p99v:-} ${p99u:-} ${maxv:-} ${maxu:-}"
check "report --by-trace: P50 ($p50v $p50u) within 4 % of the middle request's ($w2v $w2u)" \
    awk -v a="$(ns "${p50v:-0}" "${p50u:-s}")" -v b="$(ns "$w2v" "$w2u")" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.04) }'
"$ct" report --by-trace "$work/tr" >"$work/bytrace.all" 2>&1
all=$(grep -v '^#' "$work/bytrace.all")
check "report --by-trace: the calls under no Activity (Main, the host's) are the last row" \
    awk 'END { exit !($1 == "-" && $2 > 0) }' <<<"$all"
for k in 0 1 2; do
    check_eq "report --by-trace: ${traces[k]}'s calls = report --trace-id's" \
        "$("$ct" report --trace-id "${traces[k]}" "$work/tr" | sed -n 's/^# summary: \([0-9]*\) call.*/\1/p')" \
        "$(awk -v t="${traces[k]}" '$1 == t { print $2 }' <<<"$all")"
done
nids=$(sed -n 's/^# by trace: \([0-9]*\) trace ids\{0,1\},.*/\1/p' "$work/bytrace.all")
check_eq "info: the requests' percentiles, as report --by-trace's, of as many requests" \
    "$(sed -n "s/^# requests' wall time: \(.*\), MAX \(.*\)$/\1, MAX \2/p" "$work/bytrace.all") ($nids requests)" \
    "$("$ct" info "$work/tr" | sed -n "s/^requests *\(.*\) (each trace id's wall time, \([0-9]*\) requests)$/\1 (\2 requests)/p")"
check_eq "report --by-trace -n 2: two trace ids, then the row of no Activity" \
    "$(awk 'NR <= 2 { print $1 } END { print "-" }' <<<"$all")" \
    "$("$ct" report --by-trace -n 2 "$work/tr" | grep -v '^#' | awk '{ print $1 }')"
"$ct" report --by-trace --sort calls "$work/tr" >/dev/null 2>"$work/bytrace.err"
check_eq "report --by-trace --sort: a usage error" \
    "2 clrtrace report: --sort does not go with --by-trace (try --help)" "$? $(cat "$work/bytrace.err")"

# dump --chrome and --perfetto (issue 28): each call of Quantity, Price and
# Bill carries its request's trace id (and a span id) as an arg/annotation.
# ids_of: "NAME RETURN TRACE-ID SPAN-ID-DIGITS" of check_chrome.py's or
# check_perfetto.py's "TID NAME ARGS" lines, sorted.
ids_of() {
    python3 -c '
import json, sys
for line in sys.stdin:
    tid, name, args = line.rstrip("\n").split(" ", 2)
    a = json.loads(args)
    print(name.rsplit(".", 1)[1], a.get("return", "?").strip("\""), a.get("trace_id", "-"),
          len(a.get("span_id", "")))' | sort
}
expected_ids=$(for k in 0 1 2; do
    n=${ids[k]} q=$((3 * ${ids[k]})) p=$((300 * ${ids[k]} + 7))
    echo "Quantity $q ${traces[k]} 16"
    echo "Price $p ${traces[k]} 16"
    echo "Bill bill $q total $p ${traces[k]} 16"
done | sort)
"$ct" dump --chrome "${orders[@]}" "$work/tr" >"$work/orders.json" 2>"$work/orders.json.err"
check "dump --chrome: valid JSON, with trace_id args" \
    bash -c 'python3 "$1" validate "$2" && grep -q "\"trace_id\":" "$2"' _ "$here/check_chrome.py" "$work/orders.json"
check_eq "dump --chrome: each call's args carry its request's trace_id and a span_id" \
    "$expected_ids" "$(python3 "$here/check_chrome.py" calls "$work/orders.json" | ids_of)"
check "dump --chrome: no trace_id on a call under no Activity (Main), one on the requests'" \
    python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
sys.exit(not (any(e["name"] == "Requests.Program.Main" and "trace_id" not in e["args"] for e in ev)
              and any("trace_id" in e["args"] for e in ev)))' <("$ct" dump --chrome "$work/tr")

# The OTLP export (issue 28): each request's Quantity, Price and Bill spans
# carry its traceparent's trace id, under the request's Activity (a parent
# span id that is not the traceparent's: the server span ASP.NET Core made).
if command -v protoc >/dev/null; then
    "$ct" dump --otlp "$work/tr" >"$work/spans.pb"
    protoc --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        -I "$root/tests/otlp" opentelemetry/proto/collector/trace/v1/trace_service.proto \
        <"$work/spans.pb" >"$work/spans.txt" 2>"$work/protoc.err"
    python3 "$here/check_otlp.py" ids "$work/spans.txt" >"$work/spans.ids"
    for k in 0 1 2; do
        check_eq "OTLP: request ${ids[k]}'s three spans in its trace ${traces[k]}" 3 \
            "$(grep -cE "^Requests\.Orders\.(Quantity|Price|Bill) ${traces[k]} [0-9a-f]{16}$" "$work/spans.ids")"
    done
    check_eq "OTLP: no span of the requests under the traceparent's own span id" 0 \
        "$(grep -cE " (${parents[0]}|${parents[1]}|${parents[2]})$" "$work/spans.ids")"

    "$ct" dump --perfetto "${orders[@]}" "$work/tr" >"$work/orders.pftrace"
    protoc --proto_path="$here" --decode=perfetto.protos.Trace perfetto_subset.proto \
        <"$work/orders.pftrace" >"$work/orders.pf.txt" 2>"$work/orders.pf.err"
    check "dump --perfetto: protoc decodes it, slices paired, trace_id annotations" \
        bash -c 'python3 "$1" validate "$2" && grep -q "name: \"trace_id\"" "$2"' _ \
        "$here/check_perfetto.py" "$work/orders.pf.txt"
    check_eq "dump --perfetto: each call's annotations carry its request's trace_id and a span_id" \
        "$expected_ids" "$(python3 "$here/check_perfetto.py" calls "$work/orders.pf.txt" | ids_of)"
fi

# Attached (issue 28): the service runs untraced and has served a request;
# `record -p PID -F 'Requests.*'` attaches (the IL engine, always), two more
# requests arrive with known traceparents, Ctrl-C detaches. Each request's
# calls are found by its trace id as at start-up; the request served before
# the attach is not in the trace; the service answers and exits as it would
# untraced. Run once, in the IL run: the ELT suite's run would repeat it.
if [[ "${CLRTRACE_ENGINE:-il}" == il ]]; then
    echo "== attached (record -p) while serving two requests"
    att_ids=(44 55)
    att_traces=(5be1a0c1d2e3f405162738495a6b7c8d 9e8d7c6b5a4f30211203f4e5d6c7b8a9)
    att_parents=(a0a1a2a3a4a5a6a7 b0b1b2b3b4b5b6b7)
    before=c0ffee00c0ffee00c0ffee00c0ffee00
    # CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime
    # for the profiler the service will load. The service ends at GET /quit
    # (or after 300 s, Program.cs).
    CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$app" serve "$work/port2" >"$work/att.out" 2>"$work/att.err" &
    spid=$!
    kill_service() { kill -KILL "$spid" 2>/dev/null; }
    ct_at_exit kill_service
    for ((i = 0; i < 600; i++)); do [[ -s "$work/port2" ]] && break; sleep 0.1; done
    port2=$(cat "$work/port2" 2>/dev/null)
    check "attached: the app serves (a port)" test -n "$port2"
    answers="$(req "$port2" /checkout/7 "00-$before-0102030405060708-01")"$'\n'
    "$ct" record -p "$spid" -F 'Requests.*' -o "$work/att" 2>"$work/rec.err" &
    rpid=$!
    for ((i = 0; i < 600; i++)); do
        grep -q "^clrtrace record: attached to pid $spid " "$work/rec.err" 2>/dev/null && break
        kill -0 "$rpid" 2>/dev/null || break
        sleep 0.1
    done
    check "attached: record -p says it attached" grep -q "^clrtrace record: attached to pid $spid " "$work/rec.err"
    for k in 0 1; do
        answers+="$(req "$port2" "/checkout/${att_ids[k]}" "00-${att_traces[k]}-${att_parents[k]}-01")"$'\n'
    done
    kill -INT "$rpid"
    wait "$rpid"
    check_eq "attached: record -p ended by Ctrl-C, exit code 0" 0 "$?"
    answers+="$(req "$port2" /quit "")"
    wait "$spid"
    check_eq "attached: the app exits 0" 0 "$?"
    check_eq "attached: the answers are what Program.cs says" "bill 21 total 2107
bill 132 total 13207
bill 165 total 16507
bye" "$answers"
    check_eq "attached: nothing on the app's stderr" "" "$(cat "$work/att.err")"
    for k in 0 1; do
        check_request "attached: " "$(calls "$work/att" "${att_traces[k]}")" "${att_traces[k]}" \
            "${att_ids[k]}"
    done
    check_eq "attached: the request served before the attach is not in the trace" "" \
        "$("$ct" replay --no-summary --trace-id "$before" "$work/att" | grep -v '^#')"
    "$ct" report --by-trace "${orders[@]}" "$work/att" >"$work/att.bytrace" 2>&1
    check_eq "attached: report --by-trace: the two requests' trace ids, 3 calls each" \
        "$(printf '%s 3\n' "${att_traces[@]}" | sort)" \
        "$(grep -v '^#' "$work/att.bytrace" | awk '{print $1, $2}' | sort)"
    if command -v protoc >/dev/null; then
        "$ct" dump --otlp "$work/att" |
            protoc --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
                -I "$root/tests/otlp" opentelemetry/proto/collector/trace/v1/trace_service.proto \
                >"$work/att.spans.txt" 2>"$work/att.protoc.err"
        python3 "$here/check_otlp.py" ids "$work/att.spans.txt" >"$work/att.spans.ids"
        for k in 0 1; do
            check_eq "attached: OTLP: request ${att_ids[k]}'s three spans in its trace ${att_traces[k]}" 3 \
                "$(grep -cE "^Requests\.Orders\.(Quantity|Price|Bill) ${att_traces[k]} [0-9a-f]{16}$" "$work/att.spans.ids")"
        done
    fi
fi

ct_end run_requests.sh
