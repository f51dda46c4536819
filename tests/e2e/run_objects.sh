#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Objects and check objects field by
# field, collections by element, boxed values and well-known structs, with
# the expected text written by hand from the target's C# source (Program.cs).
#
# Usage: tests/e2e/run_objects.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. traced and untraced runs print the same stdout and exit with the same
#      code (5); the traced run writes nothing to stderr;
#   2. the decoded calls (Program.cs);
#   3. replay of a recorded trace reads byte for byte as that run's live log,
#      and as the first traced run (addresses aside); dump --chrome
#      carries the same values;
#   3b. the offline selection (-F, -N, --tid, --since/--until) on the recorded
#      trace, by arithmetic over the full report;
#   4. the limits --object-depth, --object-fields, --value-bytes at their
#      value and one past it; bad values: one stderr line, an untraced run;
#   5. CLRTRACE_ALL=1: every framework object the program passes is shown by
#      content, the program unchanged, nothing damaged.
# Ends with "run_objects.sh: N passed, M failed"; exits non-zero when a check
# failed (2 when the setup did).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup objects "${1:-}" cli

echo "== building tests/targets/Objects"
app=$(ct_dotnet_build "$root/tests/targets/Objects" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Objects failed" >&2; exit 2; }

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 5" 5 "$(cat "$work/plain.rc")"
trace="$work/traced.txt"
run_traced traced --
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"
[[ -s "$trace" ]] || { echo "ERROR: the traced run wrote no trace" >&2; exit 2; }

# ------------------------------------------------------ 2. decoded calls
echo "== objects and collections"
# Base-class fields first (Entity.Id), auto-properties by their name, the
# nested object by content; 5 + 36 = 41.
ct_has "$trace" 1 'Demo.Calls.Save(Order o=Demo.Order{Id=5, Sku="x-1", Customer=Demo.Customer{Name="Ada", Age=36}, Total=12.50}) -> long 41'
# A record's positional properties.
ct_has "$trace" 1 'Demo.Calls.Pay(Money m=Demo.Money{Amount=9.99, Currency="EUR"}) {'
# a -> b -> a: the cycle is shown once.
ct_has "$trace" 1 'Demo.Calls.Walk(Node head=Demo.Node{Value=1, Next=Demo.Node{Value=2, Next=Demo.Node{<cycle>}}}) -> int 10'
# One object in three places: each argument is its own value; inside one
# value the second sight says so.
ct_has "$trace" 1 'Demo.Calls.Pair(Customer a=Demo.Customer{Name="Bob", Age=7}, Customer b=Demo.Customer{Name="Bob", Age=7}, object[] both=object[2] {Demo.Customer{Name="Bob", Age=7}, int 3}) -> int 16'
# Boxed values: a primitive, a struct behind an interface, an enum, a string;
# an object with no field by class and address.
ct_has_re "$trace" 1 '^.* Demo\.Calls\.Boxes\(object i=int 5, IComparable<Point> p=Demo\.Point\{X=1, Y=2\}, object c=Demo\.Color Blue, object s="str", object e=Demo\.Empty@0x[0-9a-f]+\) -> int 4$'
ct_has "$trace" 1 'Demo.Calls.Fields(Wide w=Demo.Wide{F1=1, F2=2, F3=3, F4=4, F5=5}) -> int 5'
# Two levels of objects by default (--object-depth 2), the third by class.
ct_has_re "$trace" 1 '^.* Demo\.Calls\.Nest\(Deep d=Demo\.Deep\{Level=1, Inner=Demo\.Deep\{Level=2, Inner=Demo\.Deep@0x[0-9a-f]+\}\}\) -> int 1$'
ct_has_re "$trace" 1 '^.* Demo\.Calls\.Nothing\(Empty e=Demo\.Empty@0x[0-9a-f]+\) -> int 0$'
# `this` stays class and address.
ct_has_re "$trace" 1 '^.* Demo\.Customer\.set_Name\(this=Demo\.Customer@0x[0-9a-f]+, string value="Ada"\)$'
# Collections: count and elements; the collection's name without namespaces
# in its type arguments too, as the parameter's type (List<Customer>).
ct_has "$trace" 1 'Demo.Calls.Lists(List<int> ints=List<int>(3) {1, 2, 3}, List<string> names=List<string>(2) {"a", null}, List<Customer> people=List<Customer>(1) {Demo.Customer{Name="Ada", Age=36}}) -> int 6'
# "y" was removed: its entry is free and not shown; 2 + 3 = 5.
ct_has "$trace" 1 'Demo.Calls.Maps(Dictionary<string, int> ages=Dictionary<string, int>(2) {["x"]=1, ["z"]=3}, HashSet<int> primes=HashSet<int>(3) {2, 3, 5}) -> int 5'
# A queue from its head ("drop" dequeued), a stack from its top.
ct_has "$trace" 1 'Demo.Calls.Lines(Queue<string> q=Queue<string>(2) {"one", "two"}, Stack<int> s=Stack<int>(3) {3, 2, 1}) -> int 5'
# Views of arrays and strings: ImmutableArray, ArraySegment(backing, 1, 3),
# Memory(backing, 3, 2), "hello world".AsMemory(6, 5); 3 + 3 + 2 + 5 = 13.
ct_has "$trace" 1 'Demo.Calls.Views(ImmutableArray<int> ia=ImmutableArray<int>(3) {7, 8, 9}, ArraySegment<int> seg=ArraySegment<int>(3) {20, 30, 40}, Memory<int> mem=Memory<int>(2) {40, 50}, ReadOnlyMemory<char> text=ReadOnlyMemory<char>(5) "world") -> int 13'
# A 2x3 grid row by row, a jagged array, an array of structs, an object[].
ct_has "$trace" 1 'Demo.Calls.Grids(int[,] grid=int[2,3] {{1, 0, 0}, {0, 0, 6}}, int[][] jagged=int[2][] {int[2] {1, 2}, int[1] {3}}, Point[] points=Point[2] {{X=1, Y=2}, {X=3, Y=4}}, object[] mixed=object[4] {int 1, "two", null, double 3.5}) -> int 14'
# DateTimeOffset at its offset (.NET's "o" format), Rune as a char.
ct_has "$trace" 1 "Demo.Calls.Times(DateTimeOffset at=2024-05-06T09:08:07.1234567+02:00, Nullable<DateTimeOffset> maybe=null, Rune r='A', Rune emoji='"$'\U0001F600'"') -> int 65"
# A returned collection; 100 elements, 8 shown (--array-items); an array in
# an object slot.
ct_has "$trace" 1 'Demo.Calls.Make(int n=4) -> List<int> List<int>(4) {0, 1, 4, 9}'
ct_has "$trace" 1 'Demo.Calls.Big(List<int> many=List<int>(100) {0, 1, 2, 3, 4, 5, 6, 7, ...}) -> int 100'
ct_has "$trace" 1 'Demo.Calls.Holder(object anything=int[2] {1, 2}) -> int 1'
# BigInteger in decimal: 42, 2^100, -(10^30); 2^400 takes 13 words, more
# than --array-items (8) copies: shown by its size.
ct_has "$trace" 1 'Demo.Calls.Bigs(BigInteger small=42, BigInteger large=1267650600228229401496703205376, BigInteger negative=-1000000000000000000000000000000, BigInteger huge=<BigInteger of 416 bits>) -> int 1'
ct_has "$trace" 0 '<damaged>'

# --------------------------------------------------- 3. replay and chrome
echo "== record, replay, dump --chrome"
ct_run "$work" rec "$ct" record -o "$work/rec" --text "$work/live.txt" -- dotnet "$app"
check_eq "record: exit code 5" 5 "$(cat "$work/rec.rc")"
ct_run "$work" replay "$ct" replay "$work/rec"
check "replay: byte for byte the live text log of the same run" cmp "$work/live.txt" "$work/replay.out"
calls() { grep -E '^ *[0-9]+\.[0-9]{6} .*Demo\.Calls\.[A-Za-z]+\(' "$1" | sed -E 's/^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mun]?s +)?//; s/@0x[0-9a-f]+/@ADDR/g'; }
check "the recorded run shows the calls as the first traced run" diff <(calls "$trace") <(calls "$work/replay.out")
ct_run "$work" chrome "$ct" dump --chrome "$work/rec"
check "dump --chrome carries the values" grep -qF 'Demo.Customer{Name=\"Ada\", Age=36}' "$work/chrome.out"

# ------------------------------------------------ the selection offline
echo "== selection: -F, -N, --tid, --since"
"$ct" report "$work/rec" >"$work/full.report"
"$ct" report -F 'Demo.Calls.*' "$work/rec" >"$work/F.report"
"$ct" report -N 'Demo.Calls.*' "$work/rec" >"$work/N.report"
rows() { sed -nE 's/^ *([0-9]+) +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +(\S+)$/\2 \1/p' "$1" | sort; }
check "report -F 'Demo.Calls.*': exactly the Demo.Calls rows of the full report, same calls" \
    diff <(rows "$work/full.report" | grep '^Demo\.Calls\.') <(rows "$work/F.report")
check "report -N 'Demo.Calls.*': the other rows' calls as in the full report" \
    diff <(rows "$work/full.report" | grep -v '^Demo\.Calls\.') <(rows "$work/N.report")
# Main's total is its own call's whole time, whatever is left out under it.
main_total() { sed -nE 's/^ *1 +([0-9.]+ [mun]?s) .* Demo\.Program\.Main$/\1/p' "$1"; }
check_eq "report -N: Main's total unchanged" "$(main_total "$work/full.report")" "$(main_total "$work/N.report")"
tid=$("$ct" dump "$work/rec" | sed -nE 's/.* ENTER t=[0-9]+ tid=([0-9]+) .*/\1/p' | head -n 1)
check_eq "info --tid $tid: one thread" "threads       1" "$("$ct" info --tid "$tid" "$work/rec" | grep '^threads')"
check_eq "info --tid 1 (no such thread): no call" \
    "calls         0 ended (0 returned, 0 by exception, 0 by tail call); 0 entered" \
    "$("$ct" info --tid 1 "$work/rec" | grep '^calls')"
check_eq "info --since 3600s (after the end): no call" \
    "calls         0 ended (0 returned, 0 by exception, 0 by tail call); 0 entered" \
    "$("$ct" info --since 3600s "$work/rec" | grep '^calls')"
full_calls=$("$ct" info "$work/rec" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')
check_eq "info --since 0 --until 1h: every call" "$full_calls" \
    "$("$ct" info --since 0 --until 3600s "$work/rec" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')"

# Overloads get a row each, named by their parameter types; --params names
# every row; --stats: each row's MIN <= AVG <= MAX, and for a function
# called once, AVG = MIN = MAX = TOTAL.
ct_has_re "$work/full.report" 1 '^ +2 +.*  Demo\.Calls\.Twice\(int\)$'
ct_has_re "$work/full.report" 1 '^ +1 +.*  Demo\.Calls\.Twice\(string\)$'
"$ct" report --params --stats "$work/rec" >"$work/stats.report"
ct_has_re "$work/stats.report" 1 '  Demo\.Calls\.Save\(Order\)$'
check "report --stats: MIN <= AVG <= MAX; called once: TOTAL = AVG = MIN = MAX" awk '
    function ns(v, u) { return (u == "ns") ? v : (u == "us") ? v * 1e3 : (u == "ms") ? v * 1e6 : v * 1e9 }
    /^#  CALLS/ { on = 1; next }
    /^# / { on = 0 }
    # CALLS, TOTAL, SELF, AVG, MIN, MAX (each a number and a unit), FUNCTION
    on && NF >= 12 {
        a = ns($6, $7); lo = ns($8, $9); hi = ns($10, $11)
        if (lo > a || a > hi) { print "bad: " $0; bad = 1 }
        if ($1 == 1 && ($2 $3 != $6 $7 || $2 $3 != $8 $9 || $2 $3 != $10 $11)) { print "once: " $0; bad = 1 }
        rows++
    }
    END { if (!rows) print "no rows"; exit bad || !rows }' "$work/stats.report"

# ------------------------------------------------------------ 4. limits
echo "== limits"
run_traced d3 CLRTRACE_OBJECT_DEPTH=3 --
ct_same_as_plain d3
ct_has_re "$work/d3.txt" 1 '^.* Demo\.Calls\.Nest\(Deep d=Demo\.Deep\{Level=1, Inner=Demo\.Deep\{Level=2, Inner=Demo\.Deep\{Level=3, Inner=Demo\.Deep@0x[0-9a-f]+\}\}\}\) -> int 1$'
run_traced d4 CLRTRACE_OBJECT_DEPTH=4 --
ct_has "$work/d4.txt" 1 'Demo.Calls.Nest(Deep d=Demo.Deep{Level=1, Inner=Demo.Deep{Level=2, Inner=Demo.Deep{Level=3, Inner=Demo.Deep{Level=4, Inner=null}}}}) -> int 1'
run_traced d0 CLRTRACE_OBJECT_DEPTH=0 --
ct_same_as_plain d0
ct_has_re "$work/d0.txt" 1 '^.* Demo\.Calls\.Save\(Order o=Demo\.Order@0x[0-9a-f]+\) -> long 41$'
run_traced f5 CLRTRACE_OBJECT_FIELDS=5 --
ct_has "$work/f5.txt" 1 'Demo.Calls.Fields(Wide w=Demo.Wide{F1=1, F2=2, F3=3, F4=4, F5=5}) -> int 5'
run_traced f4 CLRTRACE_OBJECT_FIELDS=4 --
ct_same_as_plain f4
ct_has "$work/f4.txt" 1 'Demo.Calls.Fields(Wide w=Demo.Wide{F1=1, F2=2, F3=3, F4=4, ...}) -> int 5'
# --value-bytes: an object met once the value's bytes reach the limit is
# shown by class. The list of ten customers: its address and class (16),
# count and n (8), then the first customer by content (16 + the name's 8 + 4
# + 4 + 4 + Age's 4 = 40): 64 bytes; the second customer's address takes it
# to 72. At 72 the next seven are shown by class; at 73 the second by content.
ct_has "$trace" 1 'Demo.Calls.Crowd(List<Customer> people=List<Customer>(10) {Demo.Customer{Name="c0", Age=0}, Demo.Customer{Name="c1", Age=1}, Demo.Customer{Name="c2", Age=2}, Demo.Customer{Name="c3", Age=3}, Demo.Customer{Name="c4", Age=4}, Demo.Customer{Name="c5", Age=5}, Demo.Customer{Name="c6", Age=6}, Demo.Customer{Name="c7", Age=7}, ...}) -> int 10'
run_traced b72 CLRTRACE_VALUE_BYTES=72 --
ct_same_as_plain b72
ct_has_re "$work/b72.txt" 1 '^.* Demo\.Calls\.Crowd\(List<Customer> people=List<Customer>\(10\) \{Demo\.Customer\{Name="c0", Age=0\}(, Demo\.Customer@0x[0-9a-f]+){7}, \.\.\.\}\) -> int 10$'
run_traced b73 CLRTRACE_VALUE_BYTES=73 --
ct_has_re "$work/b73.txt" 1 '^.* Demo\.Calls\.Crowd\(List<Customer> people=List<Customer>\(10\) \{Demo\.Customer\{Name="c0", Age=0\}, Demo\.Customer\{Name="c1", Age=1\}(, Demo\.Customer@0x[0-9a-f]+){6}, \.\.\.\}\) -> int 10$'
ct_bad_option baddepth CLRTRACE_OBJECT_DEPTH=7 \
    'clrtrace: CLRTRACE_OBJECT_DEPTH=7 is not valid (use a whole number from 0 to 6); the program runs untraced'
ct_bad_option badfields CLRTRACE_OBJECT_FIELDS=0 \
    'clrtrace: CLRTRACE_OBJECT_FIELDS=0 is not valid (use a whole number from 1 to 256); the program runs untraced'
ct_bad_option badbytes CLRTRACE_VALUE_BYTES=63 \
    'clrtrace: CLRTRACE_VALUE_BYTES=63 is not valid (use a whole number from 64 to 1048576); the program runs untraced'

# ------------------------------------------------------ 5. CLRTRACE_ALL
echo "== CLRTRACE_ALL=1"
run_traced all CLRTRACE_ALL=1 --
ct_same_as_plain all
check "CLRTRACE_ALL=1 writes nothing to stderr" ct_empty "$work/all.err"
ct_has "$work/all.txt" 0 '<damaged>'
ct_has "$work/all.txt" 1 'Demo.Calls.Save(Order o=Demo.Order{Id=5, Sku="x-1", Customer=Demo.Customer{Name="Ada", Age=36}, Total=12.50}) -> long 41'

ct_end run_objects.sh
