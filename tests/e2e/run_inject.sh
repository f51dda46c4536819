#!/usr/bin/env bash
# End-to-end test of --inject: faults injected on purpose into the calls
# it names, at start-up and under attach (docs/cli.md, "Injecting faults").
#
# Usage: tests/e2e/run_inject.sh [path/to/libclrtrace.so]
#
# tests/targets/Inject has a client whose Send a retry loop repeats (up to
# three attempts a request), methods of every return type, async methods a
# caller awaits, Charge(decimal amount), a method whose delay it measures,
# and a service mode (Send in a loop) for the attach; tests/targets/
# InjectTests holds xunit tests of the client. Every expectation below is
# written by hand from their source. Checks:
#   1. the retry loop: `throw HttpRequestException every 2` fails Send's
#      2nd, 4th, ... calls: each request after the first recovers at its
#      second attempt (the program's own output), exit code 0; the trace
#      marks exactly those calls [injected] with the exception, counts them
#      ("# injected:"), and info counts them; every call not chosen ran its
#      original code (its reply); `every 1`: nothing recovers, and the exit
#      code is the program's (3);
#   2. return VALUE for each return type (int, bool, string, decimal, enum
#      member, struct default, Nullable null, double, long, char, void,
#      Task<int>, Task<string>, Task, ValueTask<int>): the program prints
#      the values injected and every other method's own;
#   3. an async method: `throw TimeoutException("slow") every 2` faults the
#      task it returns (the caller gets its task, then the exception at its
#      await), exit code the program's (2 failures);
#   4. `when amount > 100`: only the charges above 100 time out, the trace
#      line of one of them as the issue writes it;
#   5. `delay 250ms`: the call returns its own value, at least 200 ms later;
#   6. selectors on 20 calls: after 17, 3..5, every 3 after 10, and
#      probability 0.3 with --inject-seed (the same calls fail twice; a run
#      without a seed tells its seed on stderr, and that seed repeats it);
#   7. refusals, each one line with its offset, exit 2, the program not
#      run: a malformed spec, --engine=elt, more than CT_INJECT_MAX (8)
#      specs, --inject-seed alone; checked against the program's assembly
#      before it runs: a value the method cannot return (a string for an
#      int, out of range, no such enum member), a type that is not an
#      exception, an abstract one, none of that name, a constructor; the
#      profiler alone (CLRTRACE_INJECT) checks the same: one note, and the
#      program runs as without it;
#   8. exports: Chrome's args.injected, Perfetto's "injected" annotation
#      (check_perfetto.py), OTLP's clrtrace.injected attribute (protoc);
#   9. `dotnet test` of the xunit tests under --inject: the test of Send sees
#      the fault and fails, the others pass, exit code 1 (the untraced run:
#      all 3 pass);
#  10. under attach (-p) to the service mode: a spec its assembly refuses
#      refuses the attach (exit 2, one line, no profiler in the process, no
#      trace folder); then Send's calls fail every 10th,
#      Count returns -1 and FetchAsync's task 7 every 5th, during the
#      session only: the service's own counts of each equal the trace's
#      injected calls, none after the detach, nothing else it prints
#      changes, and it ends as it does untraced.
# Ends with "run_inject.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup inject "${1:-}" cli

echo "== building tests/targets/Inject and tests/targets/InjectTests"
app=$(ct_dotnet_build "$root/tests/targets/Inject" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Inject failed" >&2; exit 2; }
tests=$(ct_dotnet_build "$root/tests/targets/InjectTests" "$work") && [[ -n "$tests" ]] ||
    { echo "ERROR: dotnet build of tests/targets/InjectTests failed" >&2; exit 2; }

# inj NAME ARGS... -- PROGRAM-ARGS...: `clrtrace run ARGS -o NAME.txt --
# dotnet Inject.dll PROGRAM-ARGS` into NAME.out, .err, .rc.
inj() {
    local name=$1 args=()
    shift
    while [[ $# -gt 0 && "$1" != -- ]]; do args+=("$1"); shift; done
    shift
    ct_run "$work" "$name" timeout -k 5 300 "$ct" run -o "$work/$name.txt" "${args[@]}" -- \
        dotnet "$app" "$@"
}
# call lines of NAME's trace without the time, thread and duration columns
calls_of() {
    ct_calls "$work/$1.txt" | sed -E 's/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [um]?s +)?//; s/@0x[0-9a-f]+/@ADDR/g'
}

echo "== 1. the retry loop"
ct_run "$work" plain timeout -k 5 300 dotnet "$app" retry 6
check_eq "untraced: every request at its first attempt" \
    "$(for i in 0 1 2 3 4 5; do echo "req$i: ok:req$i after 1 attempt"; done; echo "recovered 6 of 6")" \
    "$(cat "$work/plain.out")"
inj retry --inject 'Inject.Client.Send: throw HttpRequestException every 2' -- retry 6
want="req0: ok:req0 after 1 attempt"
for i in 1 2 3 4 5; do
    want+=$'\n'"req$i: attempt 1 failed: injected by clrtrace"$'\n'"req$i: ok:req$i after 2 attempts"
done
want+=$'\n'"recovered 6 of 6"
check_eq "every 2: calls 2, 4, ... of Send fail; each request recovers at its second attempt" \
    "$want" "$(cat "$work/retry.out")"
check_eq "every 2: exit code 0 (the program's)" 0 "$(cat "$work/retry.rc")"
want='Inject.Client.Send(this=Inject.Client@ADDR, string message="req0") -> string "ok:req0"'
for i in 1 2 3 4 5; do
    want+=$'\n''Inject.Client.Send(this=Inject.Client@ADDR, string message="req'$i'") -> exception System.Net.Http.HttpRequestException: "injected by clrtrace"  [injected]'
    want+=$'\n''Inject.Client.Send(this=Inject.Client@ADDR, string message="req'$i'") -> string "ok:req'$i'"'
done
check_eq "every 2: the trace marks exactly the injected calls, the others return their own value" \
    "$want" "$(calls_of retry | sed -n 's/^ *\(Inject.Client.Send(.*\)/\1/p')"
check "every 2: '# injected: 5 calls: Inject.Client.Send 5 (5 throw)'" \
    grep -qx '# injected: 5 calls: Inject.Client.Send 5 (5 throw)' "$work/retry.txt"
"$ct" record -o "$work/retry.d" --inject 'Inject.Client.Send: throw HttpRequestException every 2' \
    -- dotnet "$app" retry 6 >/dev/null 2>&1
check "info: 'injected  5 calls had a fault injected (--inject): 5 threw, ...'" \
    grep -qx 'injected      5 calls had a fault injected (--inject): 5 threw, 0 returned at once, 0 were delayed' \
    <("$ct" info "$work/retry.d")
check "report: the injected line" grep -qx '# injected: 5 calls: Inject.Client.Send 5 (5 throw)' \
    <("$ct" report "$work/retry.d")
inj always --inject 'Inject.Client.Send: throw HttpRequestException' -- retry 2
check_eq "every call: no request recovers; exit code 3 (the program's)" \
    "3 recovered 0 of 2" "$(cat "$work/always.rc") $(tail -n 1 "$work/always.out")"

# A type whose assembly is not loaded when the method is compiled (Count
# is compiled before anything loads System.Net.Http): the launcher read it
# from the runtime's folder, so the profiler may name it.
inj unloaded --inject 'Inject.Client.Count: throw HttpRequestException 2..2' -- calls 3
check_eq "a type of an assembly not loaded yet: the program ends as an unhandled one ends it" \
    "134 Unhandled exception. System.Net.Http.HttpRequestException: injected by clrtrace" \
    "$(cat "$work/unloaded.rc") $(grep -m1 '^Unhandled' "$work/unloaded.err")"
check "a type of an assembly not loaded yet: the second call is the one" grep -qF \
    'Inject.Client.Count(this=Inject.Client@ADDR, int n=2) -> exception System.Net.Http.HttpRequestException: "injected by clrtrace"  [injected]' \
    <(calls_of unloaded)

echo "== 2. return VALUE, every return type"
inj values1 --inject 'Inject.Client.Count: return 7' --inject 'Inject.Client.Ready: return false' \
    --inject 'Inject.Client.Name: return "fake"' --inject 'Inject.Client.Price: return 9.99' \
    --inject 'Inject.Client.State: return Broken' --inject 'Inject.Client.Where: return default' \
    --inject 'Inject.Client.Maybe: return null' --inject 'Inject.Client.FetchAsync: return 99' \
    -- values
check_eq "values (1): the values injected; every other method its own" \
    "Count: 7
Ready: False
Name: fake
Price: 9.99
State: Broken
Ratio: 0.5
Big: 1
Grade: A
Where: (0, 0)
Maybe: <null>
log: hello
Fetch: 99
Load: loaded:k
saved s
Peek: 101" "$(cat "$work/values1.out")"
check "values (1): Count's line in the trace" grep -qF \
    'Inject.Client.Count(this=Inject.Client@ADDR, int n=41) -> int 7  [injected]' <(calls_of values1)
check "values (1): Price's (a decimal)" grep -qF \
    'Inject.Client.Price(this=Inject.Client@ADDR, decimal amount=2.50) -> decimal 9.99  [injected]' \
    <(calls_of values1)
check "values (1): 8 calls injected" grep -q '^# injected: 8 calls: ' "$work/values1.txt"
inj values2 --inject 'Inject.Client.Ratio: return -1.25' --inject 'Inject.Client.Big: return 9000000000' \
    --inject 'Inject.Client.Grade: return "Z"' --inject 'Inject.Client.Log: return default' \
    --inject 'Inject.Client.LoadAsync: return "cached"' --inject 'Inject.Client.SaveAsync: return default' \
    --inject 'Inject.Client.PeekAsync: return 5' -- values
check_eq "values (2): the values injected (void Log and Task SaveAsync print nothing)" \
    "Count: 42
Ready: True
Name: real
Price: 5.00
State: Open
Ratio: -1.25
Big: 9000000000
Grade: Z
Where: (1, 2)
Maybe: 5
Fetch: 40
Load: cached
Peek: 5" "$(cat "$work/values2.out")"
check_eq "values: exit codes 0" "0 0" "$(cat "$work/values1.rc") $(cat "$work/values2.rc")"

echo "== 3. an async method's task faults"
inj async --inject 'Inject.Client.FetchAsync: throw TimeoutException("slow") every 2' -- async
check_eq "async: the caller gets the task, then the exception at its await" \
    "fetch 1 returned a task
fetch 1: 10
fetch 2 returned a task
fetch 2 failed: TimeoutException: slow
fetch 3 returned a task
fetch 3: 30
fetch 4 returned a task
fetch 4 failed: TimeoutException: slow" "$(cat "$work/async.out")"
check_eq "async: exit code 2 (the program's: two failures)" 2 "$(cat "$work/async.rc")"

echo "== 4. a condition on the arguments"
inj charges --inject 'Inject.Client.Charge: throw TimeoutException when amount > 100' -- charges
check_eq "when amount > 100: the charges of 150 and 300 time out" \
    "charged 50
charge 150 timed out: injected by clrtrace
charged 80
charge 300 timed out: injected by clrtrace" "$(cat "$work/charges.out")"
check "when: the trace line of the call of 150" grep -qxF \
    'Inject.Client.Charge(this=Inject.Client@ADDR, decimal amount=150) -> exception System.TimeoutException: "injected by clrtrace"  [injected]' \
    <(calls_of charges)

echo "== 5. delay"
inj delay --inject 'Inject.Client.Slow: delay 250ms' -- delay
check_eq "delay 250ms: the call returns its own value, at least 200 ms later" \
    "slow returned 7 after at least 200 ms" "$(cat "$work/delay.out")"
check "delay: the call is marked and took 250 ms or more" awk '
    /Inject.Client.Slow\(.*\[injected\]$/ { d = $3; u = $4; ms = u == "ms" ? d : u == "s" ? d * 1000 : 0
                                            if (ms >= 250) ok = 1 }
    END { exit !ok }' "$work/delay.txt"

echo "== 6. which calls"
failed() { sed -n 's/^call \([0-9]*\) failed$/\1/p' "$work/$1.out" | tr '\n' ' '; }
inj after --inject 'Inject.Client.Count: throw InvalidOperationException after 17' -- calls 20
check_eq "after 17: calls 18, 19, 20" "18 19 20 " "$(failed after)"
inj range --inject 'Inject.Client.Count: throw InvalidOperationException 3..5' -- calls 20
check_eq "3..5: calls 3, 4, 5" "3 4 5 " "$(failed range)"
inj both --inject 'Inject.Client.Count: throw InvalidOperationException every 3 after 10' -- calls 20
check_eq "every 3 after 10: calls 12, 15, 18" "12 15 18 " "$(failed both)"
inj p1 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed 7 -- calls 20
inj p2 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed 7 -- calls 20
check "probability 0.3, --inject-seed 7: some calls fail, not all" \
    test -n "$(failed p1)" -a "$(failed p1)" != "$(seq -s ' ' 1 20) "
check_eq "probability: the same seed fails the same calls" "$(failed p1)" "$(failed p2)"
inj p3 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' -- calls 20
seed=$(sed -n "s/^clrtrace: --inject: probability's seed is \([0-9]*\) .*/\1/p" "$work/p3.err")
check "no seed: stderr tells the seed" test -n "$seed"
inj p4 --inject 'Inject.Client.Count: throw InvalidOperationException probability 0.3' \
    --inject-seed "${seed:-0}" -- calls 20
check_eq "that seed repeats the run" "$(failed p3)" "$(failed p4)"

echo "== 7. refusals"
refused() { # NAME MESSAGE-REGEX: exit 2, one stderr line matching, the program not run
    check_eq "$1: exit code 2" 2 "$(cat "$work/$1.rc")"
    check_eq "$1: one stderr line" 1 "$(wc -l <"$work/$1.err")"
    check "$1: it says why" grep -qE -e "$2" "$work/$1.err"
    check "$1: the program did not run" ct_empty "$work/$1.out"
}
inj bad1 --inject 'Inject.Client.Send: explode' -- retry 1
refused bad1 "--inject 'Inject.Client.Send: explode': expected throw, return or delay after ':' at offset 20$"
inj bad2 --inject 'Inject.Client.Send: throw' -- retry 1
refused bad2 "expected an exception type's name after 'throw' .* at offset 25$"
inj bad3 --inject 'Inject.Client.Slow: delay 5' -- retry 1
refused bad3 "expected a time with its unit after 'delay' .* at offset 26$"
inj bad4 --inject 'Inject.Client.Count: return 1 every 0' -- retry 1
refused bad4 "every takes a whole number from 1 to 1000000000 at offset 36$"
inj bad5 --inject 'Inject.Client.Count: return 1 when return > 1' -- retry 1
refused bad5 "cannot name return or exception at offset 35$"
inj elt --engine=elt --inject 'Inject.Client.Send: throw HttpRequestException' -- retry 1
refused elt "--inject rewrites the IL of the methods it names \(the IL engine\): not with --engine=elt"
nine=()
for i in 1 2 3 4 5 6 7 8 9; do nine+=(--inject "Inject.Client.Count: return $i"); done
inj nine "${nine[@]}" -- retry 1
refused nine "at most 8 --inject options"
inj noargs --no-args --inject 'Inject.Client.Charge: throw TimeoutException when amount > 100' -- charges
refused noargs "--inject's 'when CONDITION' reads argument values: not with --no-args"
inj noargs2 --no-args --inject 'Inject.Client.Send: throw HttpRequestException every 2' -- retry 2
check_eq "--no-args: a fault without a condition still acts" \
    "req0: ok:req0 after 1 attempt
req1: attempt 1 failed: injected by clrtrace
req1: ok:req1 after 2 attempts
recovered 2 of 2" "$(cat "$work/noargs2.out")"
inj seedonly --inject-seed 3 -- retry 1
refused seedonly "--inject-seed goes with --inject"
inj notint --inject 'Inject.Client.Count: return "x"' -- values
refused notint "^clrtrace run: --inject 'Inject.Client.Count: return \"x\"': Inject.Client.Count: the method returns an integer: a whole number or default at offset 28$"
inj toobig --inject 'Inject.Client.Count: return 3000000000' -- values
refused toobig "Inject.Client.Count: the value is out of the range of the method's integer type at offset 28$"
inj nomember --inject 'Inject.Client.State: return Nope' -- values
refused nomember "Inject.Client.State: the enum has no member of that name at offset 28$"
inj notexc --inject 'Inject.Client.Count: throw Inject.Status' -- values
refused notexc "Inject.Status has no public constructor taking a string at offset 27$"
inj abstract --inject 'Inject.Client.Count: throw System.IO.Stream' -- values
refused abstract "System.IO.Stream is abstract at offset 27$"
inj notype --inject 'Inject.Client.Count: throw NoSuchException' -- values
refused notype "no type NoSuchException is named by the program's assembly, defined in it or in CoreLib's .* at offset 27$"
inj ctor --inject 'Inject.Client..ctor: throw TimeoutException' -- values
refused ctor "Inject.Client..ctor is a constructor: --inject changes no constructor at offset 0$"
inj pattern --inject 'Inject.Client.*: throw InvalidOperationException after 1000' -- calls 2
check_eq "a pattern that covers the constructor: it is left out, one note, the program runs" \
    "0 clrtrace: --inject 'Inject.Client.*: throw InvalidOperationException after 1000': Inject.Client..ctor: a constructor is not injected" \
    "$(cat "$work/pattern.rc") $(grep '^clrtrace: --inject' "$work/pattern.err")"
# The profiler checks too (CLRTRACE_INJECT without the CLI's check): one
# note, and the program runs as without it.
ct_run "$work" vplain timeout -k 5 300 dotnet "$app" values
ct_run "$work" envint env "${traced[@]}" "CLRTRACE_OUTPUT=$work/envint.txt" \
    'CLRTRACE_INJECT=Inject.Client.Count: return "x"' timeout -k 5 300 dotnet "$app" values
check_eq "the profiler alone, a string for an int: one note" \
    "clrtrace: --inject 'Inject.Client.Count: return \"x\"': Inject.Client.Count: the method returns an integer: a whole number or default: not injected" \
    "$(cat "$work/envint.err")"
check "the profiler alone: the program's output as without it" cmp -s "$work/vplain.out" "$work/envint.out"
check_eq "the profiler alone: exit code 0" 0 "$(cat "$work/envint.rc")"
ct_run "$work" envexc env "${traced[@]}" "CLRTRACE_OUTPUT=$work/envexc.txt" \
    'CLRTRACE_INJECT=Inject.Client.Count: throw Inject.Status' timeout -k 5 300 dotnet "$app" values
check_eq "the profiler alone, a type that is no exception: one note" \
    "clrtrace: --inject 'Inject.Client.Count: throw Inject.Status': Inject.Client.Count: Inject.Status has no public constructor taking a string: not injected" \
    "$(cat "$work/envexc.err")"
check "the profiler alone: the program's output as without it" cmp -s "$work/vplain.out" "$work/envexc.out"

echo "== 8. exports"
"$ct" dump --chrome "$work/retry.d" >"$work/retry.json" 2>"$work/chrome.err"
check_eq "Chrome: the 5 injected calls' args.injected" "5 throw" "$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("args", {}).get("injected")]
print(len(ev), " ".join(sorted(set(e["args"]["injected"] for e in ev))))' "$work/retry.json")"
if command -v protoc >/dev/null; then
    "$ct" dump --perfetto "$work/retry.d" >"$work/retry.pftrace" 2>/dev/null
    protoc --proto_path="$here" --decode=perfetto.protos.Trace perfetto_subset.proto \
        <"$work/retry.pftrace" >"$work/retry.pf.txt" 2>"$work/protoc.err"
    check_eq "Perfetto (protoc): 5 slices annotated injected=throw" 5 \
        "$(python3 "$here/check_perfetto.py" calls "$work/retry.pf.txt" | grep -c '"injected": "throw"')"
    "$ct" dump --otlp "$work/retry.d" >"$work/retry.pb" 2>/dev/null
    protoc --proto_path="$root/tests/otlp" \
        --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        opentelemetry/proto/collector/trace/v1/trace_service.proto \
        <"$work/retry.pb" >"$work/retry.otlp.txt" 2>"$work/protoc.err"
    check_eq "OTLP (protoc): 5 spans with clrtrace.injected" 5 \
        "$(grep -A2 'key: "clrtrace.injected"' "$work/retry.otlp.txt" | grep -c 'string_value: "throw"')"
else
    ct_fail "OTLP: no protoc (Debian: protobuf-compiler)"
fi

echo "== 9. dotnet test under --inject"
ct_run "$work" xplain timeout -k 5 300 dotnet test "$tests"
check_eq "dotnet test, untraced: exit code 0" 0 "$(cat "$work/xplain.rc")"
ct_run "$work" xunit timeout -k 5 300 "$ct" run -o "$work/xunit.txt" \
    --inject 'Inject.Client.Send: throw HttpRequestException' -- dotnet test "$tests"
check_eq "dotnet test --inject: exit code 1 (a test failed)" 1 "$(cat "$work/xunit.rc")"
check "dotnet test --inject: Send_answers failed" grep -q 'Failed InjectTests.ClientTests.Send_answers' \
    "$work/xunit.out"
check "dotnet test --inject: with the fault" \
    grep -q 'System.Net.Http.HttpRequestException : injected by clrtrace' "$work/xunit.out"
check "dotnet test --inject: the other two passed" grep -qE 'Failed: +1, Passed: +2, ' "$work/xunit.out"
check "dotnet test --inject: the test host's trace counts the 2 calls of Send injected" \
    grep -qx '# injected: 2 calls: Inject.Client.Send 2 (2 throw)' <(cat "$work"/xunit.txt.*)

echo "== 10. under attach"
ct_serve "$app"
check "the service is ready" test -n "$spid"
sleep 0.5
# A spec the service's assembly refuses: the attach is refused before it
# begins, the process untouched (no profiler in it, no trace folder).
ct_run "$work" attachbad timeout -k 5 120 "$ct" record -p "${spid:-0}" -d 1s -o "$work/attachbad.d" \
    --inject 'Inject.Client.Count: return "x"'
check_eq "under attach, a value Count cannot return: exit code 2" 2 "$(cat "$work/attachbad.rc")"
check_eq "under attach, a value Count cannot return: one line with its offset" \
    "clrtrace record: --inject 'Inject.Client.Count: return \"x\"': Inject.Client.Count: the method returns an integer: a whole number or default at offset 28" \
    "$(cat "$work/attachbad.err")"
check "under attach, refused: the process untouched (no profiler loaded in it)" \
    bash -c "! grep -q libclrtrace /proc/${spid:-0}/maps"
check "under attach, refused: no trace folder made" test ! -e "$work/attachbad.d"
ct_run "$work" attach timeout -k 5 120 "$ct" record -p "${spid:-0}" -d 2s -o "$work/attach.d" \
    --inject 'Inject.Client.Send: throw HttpRequestException every 10' \
    --inject 'Inject.Client.Count: return -1 every 5' \
    --inject 'Inject.Client.FetchAsync: return 7 every 5'
check_eq "record -p --inject: exit code 0" 0 "$(cat "$work/attach.rc")"
sleep 1 # the service runs on, its original code restored
ct_serve_done
nfail=$(grep -c '^live[0-9]* failed: injected by clrtrace$' "$work/svc.out")
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.Send \([0-9]*\) (.*/\1/p')
check "under attach: calls failed (every 10th)" test "${nfail:-0}" -gt 0
check_eq "under attach: the service's failures are the trace's injected calls, none after the detach" \
    "$nfail" "${ninj:-none}"
check "under attach: every 10th call of the session" awk '
    /^live[0-9]* failed/ { n = substr($1, 5) + 0; if (prev && n - prev != 10) bad = 1; prev = n }
    END { exit bad }' "$work/svc.out"
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.Count \([0-9]*\) (.*/\1/p')
check_eq "under attach: Count returned -1 (every 5th) as often as the trace says" \
    "$(grep -c '^live[0-9]* count -1$' "$work/svc.out")" "${ninj:-none}"
ninj=$("$ct" report "$work/attach.d" | sed -n 's/^# injected: .*Inject.Client.FetchAsync \([0-9]*\) (.*/\1/p')
check_eq "under attach: FetchAsync's task gave 7 (every 5th) as often as the trace says" \
    "$(grep -c '^live[0-9]* fetch 7$' "$work/svc.out")" "${ninj:-none}"
check "under attach: nothing else changed (only those lines)" \
    test -z "$(grep -vE '^(ready [0-9]+|served [0-9]+|live[0-9]+ (failed: injected by clrtrace|count -1|fetch 7))$' "$work/svc.out")"
check "under attach: the trace dropped nothing" \
    grep -qx 'dropped       0 events' <("$ct" info "$work/attach.d")

ct_end run_inject.sh
