#!/usr/bin/env bash
# End-to-end test: async methods that fail (issue 35), tests/targets/Failures.
# An async method's body (its state machine's MoveNext, shown as `async
# NAME(...)`) whose task its builder faults or cancels (SetException) ends by
# that exception, as a throw would end it: type, message, on the body's own
# line; each awaiting body that rethrows it ends by it too; one that catches
# it does not. The expected ends are written by hand from the target's
# source (Program.cs).
#
# Usage: tests/e2e/run_failures.sh [path/to/libclrtrace.so]
#
# Checks (CLRTRACE_ENGINE picks the engine: e2e.failures and
# e2e.elt.failures):
#   1. traced and untraced runs print the same and exit with the same code
#      (9); nothing on stderr;
#   2. every async body that ends by an exception, with it: a chain three
#      deep (Checkout > Charge > Authorize, thrown after an await), the same
#      caught in the middle (SafeCheckout ends normally), a throw before the
#      first await (Validate), a ValueTask<T> (Stock), Task.WhenAll of two
#      failures (each Fail, and Both by the first), an IAsyncEnumerable
#      throwing after its first item (the iterator, and Sum awaiting it), a
#      cancellation (Wait: TaskCanceledException); no other body ends by one;
#   3. each async call (the method's stub, with its arguments) ends when
#      its task does: its result or its exception, on a line of its own;
#      report counts it once;
#   4. report's EXCEPTIONS column counts them; replay --failed shows them;
#      --when '...: exception == "T"' chooses them; dump --chrome carries
#      each exception.
# Ends with "run_failures.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup failures "${1:-}" cli

echo "== building tests/targets/Failures"
app=$(ct_dotnet_build "$root/tests/targets/Failures" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Failures failed" >&2; exit 2; }

echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 9" 9 "$(cat "$work/plain.rc")"
# (-N '*Open*': Program.Open, the helper that starts each chain and awaits
# it, rethrows what the chain throws; left out, each body above is an
# untraced frame's: not taken for it. RunOnce, which runs the chains, is
# left out likewise.)
ct_run "$work" traced timeout -k 5 300 "$ct" record -o "$work/rec" --text "$work/traced.txt" \
    -F 'Shop.*' -N '*Open*' -N '*RunOnce*' -- dotnet "$app"
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"

# ends FILE: "CALL => END" for each async body of every thread (a call
# written as an opening line and its closing line, or as one line).
ends() {
    local tid
    for tid in $(ct_calls "$1" | awk 'match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /) { split(substr($0, 1, RLENGTH), h, " "); if (!seen[h[2]]++) print h[2] }'); do
        ct_tree "$1" "$tid"
        echo "@@"
    done | awk '
        $0 == "@@" { n = 0; next }
        { i = match($0, /[^ ]/); t = substr($0, i) }
        t ~ /^}/ { if (n) { c = open[n--]; e = substr(t, 2); sub(/^ (-> )?/, "", e); if (c ~ /^async /) print c " => " e } next }
        t ~ / \{$/ { open[++n] = substr(t, 1, length(t) - 2); next }
        t ~ /^async / {
            k = index(t, " -> ")
            if (k) print substr(t, 1, k - 1) " => " substr(t, k + 4); else print t " => "
        }' | LC_ALL=C sort
}
ends "$work/traced.txt" >"$work/ends.txt"
# (Awaits are numbered from 0 by the compiler: a body resumed after its
# first await has <>1__state=0; Both's await of WhenAll rethrows the first
# of the two; Sum's await of the iterator's MoveNextAsync rethrows its
# exception.)
check_eq "the async bodies ended by an exception, each with it (Program.cs)" \
"async Shop.Orders.Authorize(int amount=300, <>1__state=0) => exception Shop.PaymentException: \"declined: 300\"
async Shop.Orders.Authorize(int amount=500, <>1__state=0) => exception Shop.PaymentException: \"declined: 500\"
async Shop.Orders.Both(<>1__state=0) => exception System.InvalidOperationException: \"first\"
async Shop.Orders.Charge(int amount=300, <>1__state=0) => exception Shop.PaymentException: \"declined: 300\"
async Shop.Orders.Charge(int amount=500, <>1__state=0) => exception Shop.PaymentException: \"declined: 500\"
async Shop.Orders.Checkout(int amount=500, <>1__state=0) => exception Shop.PaymentException: \"declined: 500\"
async Shop.Orders.Fail(string what=\"first\", <>1__state=0) => exception System.InvalidOperationException: \"first\"
async Shop.Orders.Fail(string what=\"second\", <>1__state=0) => exception System.InvalidOperationException: \"second\"
async Shop.Orders.Stock(int id=7, <>1__state=0) => exception System.InvalidOperationException: \"no stock for 7\"
async Shop.Orders.Sum(<>1__state=0) => exception System.FormatException: \"mid-stream\"
async Shop.Orders.Validate(string sku=\"\", <>1__state=-1) => exception System.ArgumentException: \"empty sku\"
async Shop.Orders.Wait(CancellationToken token={IsCancellationRequested=true}, <>1__state=0) => exception System.Threading.Tasks.TaskCanceledException: \"A task was canceled.\"
async iterator Shop.Orders.Numbers(<>1__state=0) => exception System.FormatException: \"mid-stream\"" \
    "$(grep ' => exception ' "$work/ends.txt")"
check_eq "the body that catches (SafeCheckout resumed) ends normally, as does every Main body" \
    "1 0" "$(grep -c '^async Shop\.Orders\.SafeCheckout(int amount=300, <>1__state=0) => $' "$work/ends.txt") $(grep -c '^async Shop\.Program\.Main(.* => exception' "$work/ends.txt")"

# The async calls (each method's stub, the frame with its arguments) end
# when their task completes, with the result or the exception, on the line
# "NAME(ARGS) -> END  (async: task ended)": values from Program.cs
# (Authorize returns the amount, Charge one more, Checkout twice that:
# Checkout(20) is 42; Main returns 9). Validate's task faults before it
# returns (its first body throws before an await): its end is recorded
# then, and told right after its return line.
want_ends="Shop.Orders.Authorize(int amount=20) -> int 20
Shop.Orders.Authorize(int amount=300) -> exception Shop.PaymentException: \"declined: 300\"
Shop.Orders.Authorize(int amount=500) -> exception Shop.PaymentException: \"declined: 500\"
Shop.Orders.Both() -> exception System.InvalidOperationException: \"first\"
Shop.Orders.Charge(int amount=20) -> int 21
Shop.Orders.Charge(int amount=300) -> exception Shop.PaymentException: \"declined: 300\"
Shop.Orders.Charge(int amount=500) -> exception Shop.PaymentException: \"declined: 500\"
Shop.Orders.Checkout(int amount=20) -> int 42
Shop.Orders.Checkout(int amount=500) -> exception Shop.PaymentException: \"declined: 500\"
Shop.Orders.Fail(string what=\"first\") -> exception System.InvalidOperationException: \"first\"
Shop.Orders.Fail(string what=\"second\") -> exception System.InvalidOperationException: \"second\"
Shop.Orders.SafeCheckout(int amount=300) -> string \"refused (declined: 300)\"
Shop.Orders.Stock(int id=7) -> exception System.InvalidOperationException: \"no stock for 7\"
Shop.Orders.Sum() -> exception System.FormatException: \"mid-stream\"
Shop.Orders.Validate(string sku=\"\") -> exception System.ArgumentException: \"empty sku\"
Shop.Orders.Wait(CancellationToken token={IsCancellationRequested=false}) -> exception System.Threading.Tasks.TaskCanceledException: \"A task was canceled.\"
Shop.Program.Main() -> int 9"
check_eq "the async calls end when their task does, with its result or exception" \
    "$want_ends" \
    "$(sed -n 's/^ *[0-9.]* *[0-9]* *[0-9.]* [mun]*s *\(.*\)  (async: task ended)$/\1/p' "$work/traced.txt" | LC_ALL=C sort)"
# A faulted task shows its exception as a value (2.9): Validate's, which
# its call returns already faulted.
check "a returned faulted task shows its exception" grep -q \
    '} -> Task System\.Threading\.Tasks\.Task<System\.Threading\.Tasks\.VoidTaskResult>{Status=Faulted, Exception=System\.ArgumentException{Message="empty sku"}}$' \
    "$work/traced.txt"
# Every such call's return but Validate's says that it goes on (one per
# line above), its task (Stock's in its ValueTask) waiting.
check_eq "each of those calls' returns says it goes on" "16 16" \
    "$(grep -c '{Status=WaitingForActivation}}*  (async: goes on)$' "$work/traced.txt") $(grep -c '(async: goes on)$' "$work/traced.txt")"

echo "== report and --failed"
"$ct" report "$work/rec" >"$work/report.txt" 2>&1
# EXCEPTIONS by function: Authorize and Charge failed twice (500, 300),
# Fail twice (first, second), Checkout, Both, Sum, Validate, Stock, Wait and
# the iterator Numbers once; SafeCheckout and Main never.
check_eq "report: the EXCEPTIONS column" \
"2 async Shop.Orders.Authorize
1 async Shop.Orders.Both
2 async Shop.Orders.Charge
1 async Shop.Orders.Checkout
2 async Shop.Orders.Fail
0 async Shop.Orders.SafeCheckout
1 async Shop.Orders.Stock
1 async Shop.Orders.Sum
1 async Shop.Orders.Validate
1 async Shop.Orders.Wait
0 async Shop.Program.Main
1 async iterator" \
    "$(awk '$7 == "async" { print $6, $7, $8 }' "$work/report.txt" | LC_ALL=C sort -k3)"
# The calls counted once each, at their task's end: Checkout twice (one
# failed), Charge and Authorize three times (two failed), Main once.
check_eq "report: async calls counted once, their failures in EXCEPTIONS" \
"3 2 Shop.Orders.Authorize
3 2 Shop.Orders.Charge
2 1 Shop.Orders.Checkout
1 0 Shop.Program.Main" \
    "$(awk '$7 ~ /^Shop\.(Orders\.(Authorize|Charge|Checkout)|Program\.Main)$/ { print $1, $6, $7 }' "$work/report.txt" | LC_ALL=C sort -k3)"
"$ct" replay --failed "$work/rec" >"$work/failed.txt" 2>&1
# The 13 bodies, and the one synchronous call of ours that throws: the
# iterator's IValueTaskSource<bool>.GetResult, which Sum's await calls and
# which rethrows the iterator's exception; and Validate's call, shown as
# the caller of its failed first body, whose end (its task faulted before
# it returned) comes with it. (The other async calls' ends come when their
# task does, after a return --failed does not show.)
check_eq "replay --failed: the calls that ended by an exception (13 bodies, GetResult, Validate)" 15 \
    "$(grep -cE '(-> |\} )exception ' "$work/failed.txt")"
"$ct" dump --chrome "$work/rec" >"$work/trace.json" 2>/dev/null
check_eq "dump --chrome: the 13 failed bodies carry their exception" 13 \
    "$(grep '"name":"async ' "$work/trace.json" | grep -c '"exception":')"
# Each async call is a pair of async events, from its enter to its task's
# end, which carries its result or exception: 17 calls, 12 of them failed.
check_eq "dump --chrome: each async call's span ends at its task's end (17, 12 failed)" "17 17 12" \
    "$(grep -c '"cat":"async","ph":"b"' "$work/trace.json") $(grep -c '"cat":"async","ph":"e"' "$work/trace.json") $(grep '"cat":"async","ph":"e"' "$work/trace.json" | grep -c '"exception":')"
check_eq "dump --chrome: Checkout(20)'s span returns 42" 1 \
    "$(grep -c '"name":"Shop.Orders.Checkout","cat":"async","ph":"e".*"args":{"return":"42"}' "$work/trace.json")"
# The Perfetto export: each async call a slice of its own track, to its
# task's end, with its result or exception (decoded by protoc with the
# subset of Perfetto's messages, tests/e2e/perfetto_subset.proto).
if command -v protoc >/dev/null && command -v python3 >/dev/null; then
    "$ct" dump --perfetto "$work/rec" >"$work/trace.pftrace" 2>/dev/null
    protoc -I "$here" --decode=perfetto.protos.Trace "$here/perfetto_subset.proto" \
        <"$work/trace.pftrace" >"$work/pftrace.txt" 2>&1
    check "dump --perfetto: valid, with the async calls' tracks" \
        grep -q ' async=17$' <(python3 "$here/check_perfetto.py" validate "$work/pftrace.txt")
    check_eq "dump --perfetto: Checkout's two calls' slices end with 42 and with the exception" \
"Shop.Orders.Checkout {\"exception\": \"Shop.PaymentException: \\\"declined: 500\\\"\"}
Shop.Orders.Checkout {\"return\": \"42\"}" \
        "$(python3 "$here/check_perfetto.py" async "$work/pftrace.txt" | grep '^Shop\.Orders\.Checkout ')"
fi
# The OTLP export (decoded by protoc with opentelemetry-proto's messages):
# each async call's span ends at its task's end, status ERROR with the
# exception event when it failed; valid as the other spans are.
if command -v protoc >/dev/null && command -v python3 >/dev/null; then
    "$ct" dump --otlp "$work/rec" >"$work/otlp.bin" 2>/dev/null
    protoc -I "$root/tests/otlp" --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        "$root/tests/otlp/opentelemetry/proto/collector/trace/v1/trace_service.proto" \
        <"$work/otlp.bin" >"$work/otlp.txt" 2>&1
    check "dump --otlp: the spans are valid (async calls' spans end after their caller)" \
        python3 "$here/check_otlp.py" validate "$work/otlp.txt"
    check_eq "dump --otlp: Checkout(500)'s span ends by its task's exception" \
"status=STATUS_CODE_ERROR|Shop.PaymentException: \"declined: 500\"
type=Shop.PaymentException
message=declined: 500
at_end=0" \
        "$(python3 "$here/check_otlp.py" exception "$work/otlp.txt" Shop.Orders.Checkout)"
else
    echo "skip dump --otlp checks: no protoc or python3"
fi
# --when on how a body ended: Charge's bodies that end by a PaymentException
# are the two resumed ones (500, 300); the filters see the state machine's
# metadata name.
ct_run "$work" when timeout -k 5 300 "$ct" run -o "$work/when.txt" -F 'Shop.*' -N '*Open*' -N '*RunOnce*' \
    --when '*<Charge>*.MoveNext: exception == "PaymentException"' -- dotnet "$app"
check_eq "--when '...: exception == \"PaymentException\"': Charge's two failed bodies" \
"async Shop.Orders.Charge(int amount=300, <>1__state=0)
async Shop.Orders.Charge(int amount=500, <>1__state=0)" \
    "$(grep -oE 'async Shop\.Orders\.Charge\([^)]*\)' "$work/when.txt" | LC_ALL=C sort)"
# --when at an async call's end decides on its task's outcome (the writer
# holds the thread's events until then): return > 40 keeps Checkout(20)
# (42) alone of the two calls of Checkout; exception == "PaymentException"
# keeps Checkout(500) alone. (Their bodies have no condition: shown.)
ct_run "$work" wret timeout -k 5 300 "$ct" run -o "$work/wret.txt" -F 'Shop.*' -N '*Open*' \
    -N '*RunOnce*' --when 'Shop.Orders.Checkout: return > 40' -- dotnet "$app"
ct_run "$work" wexc timeout -k 5 300 "$ct" run -o "$work/wexc.txt" -F 'Shop.*' -N '*Open*' \
    -N '*RunOnce*' --when 'Shop.Orders.Checkout: exception == "PaymentException"' -- dotnet "$app"
# checkouts FILE: the Checkout calls' opening lines and their ends.
checkouts() {
    sed -n 's/^ *[0-9.]* *[0-9]* *\([0-9.]* [mun]*s\)\{0,1\} *\(Shop\.Orders\.Checkout(.*\)$/\2/p' "$1" |
        sed 's/ {$//; s/  (async: task ended)$/ (end)/' | LC_ALL=C sort
}
check_eq "--when '...Checkout: return > 40': Checkout(20)'s call alone, ended with 42" \
"Shop.Orders.Checkout(int amount=20)
Shop.Orders.Checkout(int amount=20) -> int 42 (end)" "$(checkouts "$work/wret.txt")"
check_eq "--when '...Checkout: exception == \"PaymentException\"': Checkout(500)'s call alone" \
"Shop.Orders.Checkout(int amount=500)
Shop.Orders.Checkout(int amount=500) -> exception Shop.PaymentException: \"declined: 500\" (end)" \
    "$(checkouts "$work/wexc.txt")"
ct_same_as_plain wret
ct_same_as_plain wexc

# Under attach (the IL engine's only way; run with it, e2e.failures): the
# builders are not rewritten after an attach, so an async body's own return
# looks at its task: a call that returned during the session ends when its
# task does, with its result or the exception its task holds.
if [[ "${CLRTRACE_ENGINE:-il}" == il ]]; then
    echo "== attached"
    # (CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime
    # the profiler it will load needs; lib_checks.sh, ct_serve_shop.)
    env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$app" serve 5 >"$work/serve.out" 2>"$work/serve.err" &
    spid=$!
    ct_at_exit ct_kill_quiet "$spid"
    if ct_ready_pid "$work/serve.out"; then
        ct_run "$work" att timeout -k 5 120 "$ct" record -p "$spid" -d 2s -o "$work/att" \
            -F 'Shop.*' -N '*Open*' -N '*RunOnce*'
        check_eq "attach: record -p exits with 0" 0 "$(cat "$work/att.rc")"
        "$ct" replay "$work/att" >"$work/att.txt" 2>&1
        # (The same calls, but Main, whose task ends after the detach.)
        check_eq "attach: the async calls end when their task does, with its result or exception" \
            "$(grep -v '^Shop\.Program\.Main(' <<<"$want_ends")" \
            "$(sed -n 's/^ *[0-9.]* *[0-9]* *[0-9.]* [mun]*s *\(.*\)  (async: task ended)$/\1/p' "$work/att.txt" | LC_ALL=C sort -u)"
        # The bodies that completed their task faulted end by its exception
        # too, as at start-up (the same as above, but the async iterator's:
        # its promise is no task, and is not looked at under attach).
        ends "$work/att.txt" | grep ' => exception ' | LC_ALL=C sort -u >"$work/att-ends.txt"
        check_eq "attach: the async bodies that faulted their task end by its exception" \
            "$(grep ' => exception ' "$work/ends.txt" | grep -v '^async iterator ')" \
            "$(cat "$work/att-ends.txt")"
        wait "$spid"
        check_eq "attach: the service served on and exited with 0" "0 served" \
            "$? $(tail -n 1 "$work/serve.out")"
    else
        check "attach: the service is ready" false
    fi
fi
ct_end run_failures.sh
