#!/usr/bin/env bash
# End-to-end test: struct fields of objects (issue 35), tests/targets/Fields.
# Each struct a field of an object holds reads as the same struct reads as a
# parameter: Nullable<T> (a value and null; an int? as an object's last
# field), DateTimeOffset, a record struct with a decimal and a string, a
# struct of ours, one with an enum field, Memory<T>, ReadOnlyMemory<char>,
# ArraySegment<T>, KeyValuePair<K,V>, a ValueTuple. The expected text is
# written by hand from the target's source (Program.cs).
#
# Usage: tests/e2e/run_fields.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. traced and untraced runs print the same and exit with the same code
#      (7); the traced run writes nothing to stderr;
#   2. the decoded calls, at start-up (CLRTRACE_ENGINE picks the engine:
#      e2e.fields and e2e.elt.fields);
#   3. attached (`record -p`) to the target making the same calls in a loop,
#      every type loaded before the attach: the same values;
#   3b. the methods with no call since the attach: each named after the
#      detach line, none said to be inlined; past 20, the whole list in
#      uncalled-methods.txt beside the trace;
#   3c. 8 threads calling at once: the live log and the replay in time
#      order (the writer's watermark);
#   4. conditions (--when) over struct fields of objects decide as the
#      values read (Nullable<T> against null, a record struct's decimal, an
#      enum field of a struct field); a path that cannot be read says so in
#      one line at the end, with its count;
#   5. redaction: secrets' names whole or as their last words (password,
#      apiKey, access_token) read <redacted>; the near misses (short token,
#      maxTokens, tokenizer, a CancellationToken field) are shown.
# Checks 1, 2, 3c, 4 and 5 are the cases of cases/fields.case (sections
# start and calls: the calls of 2 again for 3).
# Ends with "run_fields.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup fields "${1:-}" cli

echo "== building tests/targets/Fields"
app=$(ct_dotnet_build "$root/tests/targets/Fields" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Fields failed" >&2; exit 2; }

# when NAME CONDITION: the traced run with -F 'Shop.Calls.*' and --when.
when() {
    ct_run "$work" "$1" timeout -k 5 300 "$ct" run -o "$work/$1.txt" -F 'Shop.Calls.*' \
        --when "$2" -- dotnet "$app"
}
in_order() { # FILE: the event lines' times never go back
    awk '/^ *[0-9]+\.[0-9]+ +[0-9]+ / { if ($1 + 0 < last) { print NR ": " $1 " after " last; bad++; if (bad > 5) exit 1 } last = $1 + 0 }
         END { exit bad > 0 }' "$1"
}
ct_cases "$here/cases/fields.case" start
calls_in=$work/traced.txt
ct_cases "$here/cases/fields.case" calls

echo "== attached: every type loaded before the attach"
flag=$work/stop
# CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime
# the profiler it will load needs.
( env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$app" serve "$flag" >"$work/serve.out" \
    2>"$work/serve.err"; echo $? >"$work/serve.rc" ) 2>/dev/null &
ct_ready_pid "$work/serve.out" || { echo "ERROR: the target did not start" >&2; cat "$work/serve.err" >&2; exit 2; }
stop_serving() { touch "$flag"; [[ -s "$work/serve.rc" ]] || sleep 1; pkill -KILL -f "$flag" 2>/dev/null; }
ct_at_exit stop_serving
sleep 0.5 # a few rounds before the attach
timeout -k 5 120 "$ct" record -o "$work/attached" -p "$spid" -d 1s -F 'Shop.Calls.*' \
    >"$work/attach.out" 2>"$work/attach.err"
check_eq "record -p exits 0" 0 "$?"
# The methods with no call since the attach (issue 35, 3.): every one named,
# none said to be inlined. -F 'Shop.*' chooses the record struct Money's
# generated members (C# 10's record structs: the property accessors,
# ToString, PrintMembers, GetHashCode, both Equals, == and !=, Deconstruct),
# none of which the program calls, Main, running since before the attach,
# and the closure of Main's threads mode (its constructor and lambda, run
# only in that mode); every other method of Shop is called in each round.
uncalled_line='clrtrace record: 15 chosen methods had 0 calls since the attach (not called since, or called only from code compiled before it that the runtime cannot recompile: dynamic methods such as serializers, dependency injection and request delegates; trace the program from its start to see them): Shop.Money.Deconstruct; Shop.Money.Equals; Shop.Money.Equals; Shop.Money.GetHashCode; Shop.Money.PrintMembers; Shop.Money.ToString; Shop.Money.get_Amount; Shop.Money.get_Currency; Shop.Money.op_Equality; Shop.Money.op_Inequality; Shop.Money.set_Amount; Shop.Money.set_Currency; Shop.Program.<>c__DisplayClass0_0..ctor; Shop.Program.<>c__DisplayClass0_0.<Main>b__0; Shop.Program.Main'
timeout -k 5 120 "$ct" record -o "$work/all" -p "$spid" -d 1s -F 'Shop.*' \
    >"$work/all.out" 2>"$work/all.err"
check_eq "-F 'Shop.*': the methods with no call since the attach, each named, after the detach line" \
    "$uncalled_line" "$(ct_after_detach "$work/all.err")"
# More than 20: 20 named, the whole list in a file beside the trace.
timeout -k 5 120 "$ct" record -o "$work/many" -p "$spid" -d 1s -F 'Shop.*' \
    -F 'System.Text.StringBuilder.*' >"$work/many.out" 2>"$work/many.err"
many=$(ct_after_detach "$work/many.err")
total=$(sed -nE 's/^clrtrace record: ([0-9]+) chosen methods had 0 calls since the attach .*/\1/p' <<<"$many")
check "more than 20: 20 named, then 'and N more (the whole list: DIR/uncalled-methods.txt)'" \
    grep -qE "^clrtrace record: [0-9]+ chosen .*\): ([^;]+; ){19}[^;]+; and $((total - 20)) more \(the whole list: $work/many/uncalled-methods.txt\)\$" <<<"$many"
check_eq "the file holds every one, a line each, Money's and Main among them" \
    "$total 15" "$(wc -l <"$work/many/uncalled-methods.txt") $(grep -c '^Shop\.' "$work/many/uncalled-methods.txt")"
touch "$flag"
for ((i = 0; i < 600; i++)); do [[ -s "$work/serve.rc" ]] && break; sleep 0.1; done
check_eq "the target ends as untraced (7)" 7 "$(cat "$work/serve.rc" 2>/dev/null)"
check_eq "the target prints its last round as untraced" "$(cat "$work/plain.out")" \
    "$(grep -v '^ready ' "$work/serve.out")"
"$ct" replay "$work/attached" >"$work/attached.txt" 2>"$work/replay.err"
# Calls in flight at the attach or the detach are left out; each value
# line is counted once.
grep -F -- ' -> ' "$work/attached.txt" | sed -E 's/^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mun]?s +//' |
    sort -u >"$work/attached.calls"
calls_in=$work/attached.calls
ct_cases "$here/cases/fields.case" calls

ct_end run_fields.sh
