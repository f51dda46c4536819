#!/usr/bin/env bash
# Conditions: --when 'GLOB: EXPR' (CLRTRACE_WHEN) on tests/targets/Shop, whose
# Main places four orders in this order (values from its Program.cs):
#   1: Total 1250.50, Customer Ana (PT), Paid,    2 lines, Note null,   Codes [1,2,3]
#   2: Total 99.99,   Customer Bob (ES), New,     0 lines, Note "gift", Codes null
#   3: Total 1000,    Customer null,     New,     0 lines, Note null,   Codes []
#   4: Total 5000,    Customer Zé (PT),  Shipped, 1 line,  Note null,   Codes null
# then Check("abc", -5, true), Check("xyz", 7, false), Cart.Add on Ana's
# cart (Qty 1, then 3) and on Bob's (Qty 4), TryFind 2 and 9, and Ship of
# the four orders (two kinds of exceptions). Each condition's expected calls
# are worked out by hand from these values: a false condition shows none of
# its method's calls (their callees are traced as usual), a true one all; a
# malformed condition is refused (exit 2, one stderr line, nothing run).
# Usage: tests/e2e/run_when.sh [path/to/libclrtrace.so]
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup when "${1:-}" cli

has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -v '^#' "$1" | grep -F -- "$2" >/dev/null; }
# The ids of the orders whose Place call is in FILE, in order ("1 4").
places() { grep -o 'Shop\.Orders\.Place(Order order=Shop\.Order{Id=[0-9]*' "$1" | sed 's/.*Id=//' | tr '\n' ' ' | sed 's/ $//'; }

echo "== building tests/targets/Shop"
app=$(ct_dotnet_build "$root/tests/targets/Shop" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Shop failed" >&2; exit 2; }
dotnet "$app" > "$work/plain.out"; plain_rc=$?
check "untraced: exit code 3" test "$plain_rc" -eq 3

run() { # run NAME OPTIONS...: traced with -F Shop.Orders.* -F Shop.Cart.Add
  "$ct" run --profiler "$lib" -F 'Shop.Orders.*' -F 'Shop.Cart.Add' -o "$work/$1.txt" "${@:2}" \
      -- dotnet "$app" > "$work/$1.out" 2> "$work/$1.err"
  local rc=$?
  check "$1: exit code unchanged" test "$rc" -eq "$plain_rc"
  check "$1: output unchanged" cmp -s "$work/plain.out" "$work/$1.out"
}
# expect NAME IDS: the Place calls recorded are those of IDS.
expect() { check "$1: Place calls of orders ${2:-none}" test "$(places "$work/$1.txt")" = "$2"; }

# Decimals against an integer, a string two objects down, &&; with
# conditions on two other methods: primitives and `this`.
run total_pt --when 'Shop.Orders.Place: order.Total > 1000 && order.Customer.Country == "PT"' \
    --when 'Shop.Orders.Check: qty < 0 && urgent' \
    --when 'Shop.Cart.Add: this.Owner == "Ana" && line.Qty > 1'
expect total_pt "1 4"
t=$work/total_pt.txt
check "total_pt: order 1's call whole" has "$t" 'Shop.Orders.Place(Order order=Shop.Order{Id=1, Total=1250.50, Customer=Shop.Customer{Name="Ana", Country="PT"}, Status=Paid, Lines=List<Line>(2) {'
check "total_pt: order 1's return" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\} -> int 3$' "$t"
check "total_pt: order 4's return" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\} -> int 12$' "$t"
check "total_pt: Audit under order 1's Place" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {4}Shop\.Orders\.Audit\(int id=1\) -> int 2$' "$t"
check "total_pt: Audit of order 2 traced, at the top" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {2}Shop\.Orders\.Audit\(int id=2\) -> int 4$' "$t"
check "total_pt: Audit of order 3 traced, at the top" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {2}Shop\.Orders\.Audit\(int id=3\) -> int 6$' "$t"
check "total_pt: Check(qty -5, urgent) recorded" has "$t" 'Shop.Orders.Check(string code="abc", long qty=-5, bool urgent=true) -> bool true'
check "total_pt: Check(qty 7) not recorded" lacks "$t" 'Shop.Orders.Check(string code="xyz"'
check "total_pt: Ana's cart, Qty 3, recorded" has "$t" 'Line line=Shop.Line{Sku="B", Qty=3}) -> int 4'
check "total_pt: Ana's cart, Qty 1, not recorded" lacks "$t" 'Sku="A"'
check "total_pt: Bob's cart not recorded" lacks "$t" 'Sku="C"'
check "total_pt: no drops counted" grep -q ', 0 events dropped' "$t"
check "total_pt: nothing on stderr" test ! -s "$work/total_pt.err"

# Strings (UTF-8 in the option, UTF-16 in the program), ordinal.
run string --when 'Shop.Orders.Place: order.Customer.Name == "Zé"'
expect string "4"
run string_ne --when 'Shop.Orders.Place: order.Customer.Country != "PT"'
expect string_ne "2"
run escapes --when 'Shop.Orders.Place: order.Customer.Name == "Z\u00e9" || order.Note == "gi\u0066t"'
expect escapes "2 4"

# Enums: by member name (bare or with its type), by order.
run enum --when 'Shop.Orders.Place: order.Status == Paid || order.Status == Shop.Status.Shipped'
expect enum "1 4"
run enum_lt --when 'Shop.Orders.Place: order.Status < Paid'
expect enum_lt "2 3"
run enum_int --when 'Shop.Orders.Place: order.Status == 2'
expect enum_int "4"

# null: a null field, a null object, a null on the way (unknown: false,
# and so is its negation).
run null --when 'Shop.Orders.Place: order.Note == null'
expect null "1 3 4"
run null_obj --when 'Shop.Orders.Place: order.Customer == null'
expect null_obj "3"
run null_not --when 'Shop.Orders.Place: order.Customer != null && !(order.Note != null)'
expect null_not "1 4"
run null_path --when 'Shop.Orders.Place: !(order.Customer.Country == "PT")'
expect null_path "2"

# Length and Count: a collection, arrays, a string.
run count --when 'Shop.Orders.Place: order.Lines.Count >= 2'
expect count "1"
run length --when 'Shop.Orders.Place: order.Codes.Length == 0 || order.Codes.Length > 2'
expect length "1 3"
run strlen --when 'Shop.Orders.Place: order.Customer.Name.Length == 3'
expect strlen "1 2"

# Decimals, exactly.
run dec_eq --when 'Shop.Orders.Place: order.Total == 99.99'
expect dec_eq "2"
run dec_le --when 'Shop.Orders.Place: order.Total <= 1000.00m'
expect dec_le "2 3"
run dec_int --when 'Shop.Orders.Place: order.Total == 1000 || order.Total == 1250.5'
expect dec_int "1 3"

# Primitives and a bare bool.
run prims --when 'Shop.Orders.Check: code == "xyz" && !urgent && qty == 7'
check "prims: Check(xyz) recorded" has "$work/prims.txt" 'Shop.Orders.Check(string code="xyz", long qty=7, bool urgent=false) -> bool true'
check "prims: Check(abc) not recorded" lacks "$work/prims.txt" 'code="abc"'

# -T on the same method: its subtree follows the choice.
run trigger -T 'Shop.Orders.Place' --when 'Shop.Orders.Place: order.Total > 1000 && order.Customer.Country == "PT"'
expect trigger "1 4"
check "trigger: Audit of order 1 shown" has "$work/trigger.txt" 'Shop.Orders.Audit(int id=1) -> int 2'
check "trigger: Audit of order 4 shown" has "$work/trigger.txt" 'Shop.Orders.Audit(int id=4) -> int 8'
check "trigger: Audit of order 2 hidden" lacks "$work/trigger.txt" 'Audit(int id=2)'
check "trigger: Check hidden" lacks "$work/trigger.txt" 'Shop.Orders.Check('

# Two conditions on one method: both must hold.
run both --when 'Shop.Orders.Place: order.Customer.Country == "PT"' --when 'Shop.Orders.Place: order.Lines.Count == 1'
expect both "4"

# Conditions at the call's end. Place returns Audit(id) + id = 3 * id: 3,
# 6, 9, 12. A call whose condition is false at its end is left out, its
# callees traced one level up; with -T on it, its subtree goes too.
run ret --when 'Shop.Orders.Place: return > 5'
expect ret "2 3 4"
check "ret: Audit of order 1 traced, at the top" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {2}Shop\.Orders\.Audit\(int id=1\) -> int 2$' "$work/ret.txt"
check "ret: Audit of order 2 under its Place" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {4}Shop\.Orders\.Audit\(int id=2\) -> int 4$' "$work/ret.txt"
check "ret: order 4's return" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\} -> int 12$' "$work/ret.txt"
check "ret: order 1's return left out" lacks "$work/ret.txt" '} -> int 3'
check "ret: nothing on stderr" test ! -s "$work/ret.err"
run ret_trigger -T 'Shop.Orders.Place' --when 'Shop.Orders.Place: return > 5'
expect ret_trigger "2 3 4"
check "ret_trigger: Audit of order 1 left out with its Place" lacks "$work/ret_trigger.txt" 'Audit(int id=1)'
check "ret_trigger: Audit of order 3 shown" has "$work/ret_trigger.txt" 'Shop.Orders.Audit(int id=3) -> int 6'
# One condition at the entry and one at the end: both must hold.
run ret_both --when 'Shop.Orders.Place: order.Customer.Country == "PT"' --when 'Shop.Orders.Place: return > 5'
expect ret_both "4"
# Cart.Add returns the cart's Count: 1, then 4 (Ana's); 4 (Bob's).
run ret_add --when 'Shop.Cart.Add: return == 4'
check "ret_add: Ana's Qty 1 (returns 1) left out" lacks "$work/ret_add.txt" 'Sku="A"'
check "ret_add: Ana's Qty 3 (returns 4) recorded" has "$work/ret_add.txt" 'Line line=Shop.Line{Sku="B", Qty=3}) -> int 4'
check "ret_add: Bob's Qty 4 (returns 4) recorded" has "$work/ret_add.txt" 'Line line=Shop.Line{Sku="C", Qty=4}) -> int 4'

# An out parameter, read at the end: TryFind(all, 2) finds Bob's order,
# TryFind(all, 9) none (found = null, returns false).
finds() { grep -o 'int id=[0-9]*, out Order found' "$1" | sed 's/int id=//; s/,.*//' | tr '\n' ' ' | sed 's/ $//'; }
run out_name --when 'Shop.Orders.TryFind: found.Customer.Name == "Bob"'
check "out_name: TryFind of 2 only" test "$(finds "$work/out_name.txt")" = "2"
check "out_name: its out value at return" has "$work/out_name.txt" '-> bool true  found=Shop.Order{Id=2, Total=99.99, Customer=Shop.Customer{Name="Bob", Country="ES"}'
run out_null --when 'Shop.Orders.TryFind: found == null'
check "out_null: TryFind of 9 only" test "$(finds "$work/out_null.txt")" = "9"
run out_ret --when 'Shop.Orders.TryFind: !return'
check "out_ret: TryFind of 9 only" test "$(finds "$work/out_ret.txt")" = "9"

# The exception that ended the call: Ship(order 1) returns 4; orders 2 and
# 3 throw InvalidOperationException("order N is not paid"), order 4
# ArgumentException("order 4 was shipped"); both messages are 19 long.
ships() { grep -o 'Shop\.Orders\.Ship(Order order=Shop\.Order{Id=[0-9]*' "$1" | sed 's/.*Id=//' | tr '\n' ' ' | sed 's/ $//'; }
run exc_type --when 'Shop.Orders.Ship: exception == "InvalidOperationException"'
check "exc_type: Ship of orders 2 and 3" test "$(ships "$work/exc_type.txt")" = "2 3"
check "exc_type: order 2's exception shown" has "$work/exc_type.txt" '-> exception System.InvalidOperationException: "order 2 is not paid"'
run exc_full --when 'Shop.Orders.Ship: exception == "System.ArgumentException"'
check "exc_full: Ship of order 4" test "$(ships "$work/exc_full.txt")" = "4"
run exc_msg --when 'Shop.Orders.Ship: exception.Message == "order 4 was shipped" || exception.Message == "order 2 is not paid"'
check "exc_msg: Ship of orders 2 and 4" test "$(ships "$work/exc_msg.txt")" = "2 4"
run exc_none --when 'Shop.Orders.Ship: exception == null'
check "exc_none: Ship of order 1" test "$(ships "$work/exc_none.txt")" = "1"
check "exc_none: its Audit under it" grep -qE '^ +[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {4}Shop\.Orders\.Audit\(int id=2\) -> int 4$' "$work/exc_none.txt"
run exc_len --when 'Shop.Orders.Ship: exception.Message.Length == 19 && exception != "ArgumentException"'
check "exc_len: Ship of orders 2 and 3" test "$(ships "$work/exc_len.txt")" = "2 3"

# The variable itself, without the launcher: one condition a line.
env "${traced[@]}" CLRTRACE_INCLUDE='Shop.Orders.*' CLRTRACE_OUTPUT="$work/env.txt" \
    CLRTRACE_WHEN=$'Shop.Orders.Place: order.Id == 2 || order.Id == 3\nShop.Orders.Check: urgent' \
    dotnet "$app" > "$work/env.out" 2> "$work/env.err"
check "CLRTRACE_WHEN: output unchanged" cmp -s "$work/plain.out" "$work/env.out"
expect env "2 3"
check "CLRTRACE_WHEN: second line holds too" lacks "$work/env.txt" 'code="xyz"'

# A path that names no parameter, set without the launcher: the profiler
# says which method and which name, and records none of its calls. (Through
# the launcher it is refused, below.)
env "${traced[@]}" CLRTRACE_INCLUDE='Shop.Orders.*' CLRTRACE_OUTPUT="$work/noparam.txt" \
    CLRTRACE_WHEN='Shop.Orders.Place: ordr.Total > 1000' \
    dotnet "$app" > "$work/noparam.out" 2> "$work/noparam.err"
check "noparam: output unchanged" cmp -s "$work/plain.out" "$work/noparam.out"
expect noparam ""
check "noparam: one stderr line naming the method and the name" \
    grep -qx "clrtrace: --when 'Shop.Orders.Place: ordr.Total > 1000': Shop.Orders.Place has no parameter 'ordr': its calls are not recorded" "$work/noparam.err"
check "noparam: Audit traced" has "$work/noparam.txt" 'Shop.Orders.Audit(int id=1) -> int 2'

# Refused: one line naming the text and the offset, exit 2, nothing run.
refused() { # refused NAME LINE OPTIONS...
  "$ct" run --profiler "$lib" -o "$work/$1.txt" "${@:3}" -- dotnet "$app" > "$work/$1.out" 2> "$work/$1.err"
  local rc=$?
  check "$1: exit 2" test "$rc" -eq 2
  check "$1: the program did not run" test ! -s "$work/$1.out" -a ! -e "$work/$1.txt"
  check "$1: one stderr line" test "$(wc -l < "$work/$1.err")" -eq 1
  check "$1: it says '$2'" grep -qF -- "$2" "$work/$1.err"
}
refused malformed "clrtrace run: --when 'Shop.Orders.Place: order.Total > && x': expected a literal after '>', not '&&' at offset 33" \
    --when 'Shop.Orders.Place: order.Total > && x'
refused nocolon "expected 'GLOB: EXPR'" --when 'order.Total > 5'
refused unclosed "expected ')' for the '(' at offset 3" --when 'F: (a == 1'
refused badstring "unknown escape" --when 'F: a == "x\q"'
refused assign "write '=='" --when 'F: a = 1'
refused at_end_this "'this' is read at entry, a condition naming return or exception at the return: test 'this' in a --when of its own at offset 15" \
    --when 'Shop.Cart.Add: this.Owner == "Ana" && return > 1'
refused exc_path "an exception offers its type" --when 'Shop.Orders.Ship: exception.HResult == 1'
refused noargs "--when reads argument values" --no-args --when 'F: a == 1'
# Names checked in the program's assembly (Shop.dll) before it runs.
refused noparam_cli "clrtrace run: --when 'Shop.Orders.Place: ordr.Total > 1000': Shop.Orders.Place has no parameter 'ordr' at offset 19" \
    --when 'Shop.Orders.Place: ordr.Total > 1000'
refused static_this "Shop.Orders.Check is static: no 'this' at offset 19" --when 'Shop.Orders.Check: this.Id > 1'
refused second_cond "Shop.Cart.Add has no parameter 'item'" \
    --when 'Shop.Orders.Place: order.Id > 1' --when 'Shop.Cart.Add: item.Qty > 1 || this.Count > 0'
refused at_end_param "clrtrace run: --when 'Shop.Orders.Place: return > 5 && order.Id == 2': 'order' of Shop.Orders.Place is read at the call's entry, and this condition decides at its end (it names return, exception or an out parameter): test 'order' in a --when of its own at offset 33" \
    --when 'Shop.Orders.Place: return > 5 && order.Id == 2'
refused at_end_out "'all' of Shop.Orders.TryFind is read at the call's entry" \
    --when 'Shop.Orders.TryFind: found != null && all.Length == 4'
refused void_return "Shop.Cart..ctor returns nothing (void) at offset 17" --when 'Shop.Cart..ctor: return == 1'

# Attached (-p): the service places the four orders every 5 ms; the
# condition is parsed by the CLI and sent with the session's settings.
ct_serve_shop "$app"
"$ct" record --profiler "$lib" -o "$work/attached" -p "$spid" -d 2s -F 'Shop.Orders.*' \
    --when 'Shop.Orders.Place: order.Total > 1000 && order.Customer.Country == "PT"' \
    > "$work/attach.out" 2> "$work/attach.err"; rc=$?
check "attach: exit 0" test "$rc" -eq 0
"$ct" replay "$work/attached" > "$work/attach.txt" 2>&1
ids=$(places "$work/attach.txt" | tr ' ' '\n' | LC_ALL=C sort -u | tr '\n' ' ')
check "attach: only orders 1 and 4 placed in the trace" test "$ids" = "1 4 "
check "attach: Audit of order 2 traced" has "$work/attach.txt" 'Shop.Orders.Audit(int id=2) -> int 4'
"$ct" record --profiler "$lib" -o "$work/attached2" -p "$spid" -d 1s \
    --when 'Shop.Orders.Place: order.Total >' > "$work/attach2.out" 2> "$work/attach2.err"; rc=$?
check "attach, malformed: exit 2" test "$rc" -eq 2
check "attach, malformed: one line with the offset" grep -qx "clrtrace record: --when 'Shop.Orders.Place: order.Total >': expected a literal after '>', not the end at offset 32" "$work/attach2.err"
check "attach, malformed: nothing recorded" test ! -e "$work/attached2/trace.clrt"
# A name no matching method has, under -p (the CLI cannot read the running
# program's assembly): the profiler's note goes to clrtrace, after its
# detach line, not to the service's stderr (the process is left untouched).
"$ct" record --profiler "$lib" -o "$work/attached3" -p "$spid" -d 1s -F 'Shop.Orders.*' \
    --when 'Shop.Orders.Place: ordr.Total > 1' > "$work/attach3.out" 2> "$work/attach3.err"; rc=$?
check "attach, a name Place lacks: exit 0" test "$rc" -eq 0
check "attach, a name Place lacks: clrtrace says so after its detach line" grep -qx \
    "clrtrace record: --when 'Shop.Orders.Place: ordr.Total > 1': Shop.Orders.Place has no parameter 'ordr': its calls are not recorded" \
    "$work/attach3.err"
# A condition at the end, attached: Place returns 12 for order 4 only.
"$ct" record --profiler "$lib" -o "$work/attached4" -p "$spid" -d 1s -F 'Shop.Orders.*' \
    --when 'Shop.Orders.Place: return == 12' > "$work/attach4.out" 2> "$work/attach4.err"; rc=$?
check "attach, at the end: exit 0" test "$rc" -eq 0
"$ct" replay "$work/attached4" > "$work/attach4.txt" 2>&1
ids=$(places "$work/attach4.txt" | tr ' ' '\n' | LC_ALL=C sort -u | tr '\n' ' ')
check "attach, at the end: only order 4 placed in the trace" test "$ids" = "4 "
check "attach, at the end: its return" grep -qE '\} -> int 12$' "$work/attach4.txt"
check "attach, at the end: Audit of order 1 traced" has "$work/attach4.txt" 'Shop.Orders.Audit(int id=1) -> int 2'
# The trace's file system (a 4 KiB tmpfs) full while attached: the writer's failure line
# goes to clrtrace, after its detach line, not to the service's stderr.
mkdir -p "$work/small"
if mount -t tmpfs -o size=4k tmpfs "$work/small" 2>/dev/null; then
    umount_quiet() { umount "$@" 2>/dev/null; }
    ct_at_exit umount_quiet "$work/small"
    # One page: the trace's first second of Shop's calls (about 800 a
    # second with their values) cannot fit.
    "$ct" record --profiler "$lib" -o "$work/small/t" -p "$spid" -d 1s -F 'Shop.Orders.*' \
        > "$work/full.out" 2> "$work/full.err"; rc=$?
    check "attach, disk full: exit 0 (the process runs on)" test "$rc" -eq 0
    check "attach, disk full: clrtrace says the trace is cut" grep -qx \
        "clrtrace record: writing the trace failed (No space left on device); the rest of the trace is lost" \
        "$work/full.err"
    umount "$work/small"
else
    echo "skip: no tmpfs mount (not root?)"
fi
check_eq "attach: nothing of clrtrace's on the service's stderr" "" "$(cat "$work/serve.err")"
kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null

# A real program no one here wrote: the SDK's C# compiler (csc.dll) on a
# small file; its lexer asks SyntaxFacts.GetKeywordKind(string text) about
# the identifiers and keywords it meets. Only the texts of one character or
# "foreach" are recorded: those of the source below are P, l, x and foreach
# (whatever the lexer's cache repeats, no other text passes).
if ct_csc; then
    printf '%s\n%s\n%s' 'using System;' 'using System.Collections.Generic;' \
        'class P { static void Main() { var l = new List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }' \
        > "$work/a.cs"
    mkdir -p "$work/cc"
    kw=Microsoft.CodeAnalysis.CSharp.SyntaxFacts
    (cd "$work/cc" && "$ct" run --profiler "$lib" -o "$work/csc.txt" -F "$kw.GetKeywordKind" \
        -F "$kw.GetContextualKeywordKind" \
        --when "$kw.GetKeywordKind: text.Length == 1 || text == \"foreach\"" \
        --when "$kw.GetContextualKeywordKind: text == \"var\"" \
        -- dotnet "$csc" "${cc_args[@]}") > "$work/csc.out" 2>&1; rc=$?
    check "csc: compiles (exit 0)" test "$rc" -eq 0
    got=$(grep -o 'GetKeywordKind(string text="[^"]*")' "$work/csc.txt" | sed 's/.*text="//; s/")$//' | LC_ALL=C sort -u | tr '\n' ' ')
    check "csc: GetKeywordKind recorded for P, foreach, l, x only" test "$got" = "P foreach l x "
    check "csc: foreach is ForEachKeyword" has "$work/csc.txt" 'GetKeywordKind(string text="foreach") -> SyntaxKind ForEachKeyword'
    got=$(grep -o 'GetContextualKeywordKind(string text="[^"]*")' "$work/csc.txt" | sed 's/.*text="//; s/")$//' | LC_ALL=C sort -u | tr '\n' ' ')
    check "csc: GetContextualKeywordKind recorded for var only" test "$got" = "var "
    check "csc: var is VarKeyword" has "$work/csc.txt" 'GetContextualKeywordKind(string text="var") -> SyntaxKind VarKeyword'
    # At the end: the texts whose kind is ForEachKeyword or ClassKeyword,
    # of the source's words: class and foreach.
    (cd "$work/cc" && "$ct" run --profiler "$lib" -o "$work/csc_ret.txt" -F "$kw.GetKeywordKind" \
        --when "$kw.GetKeywordKind: return == ForEachKeyword || return == SyntaxKind.ClassKeyword" \
        -- dotnet "$csc" "${cc_args[@]}") > "$work/csc_ret.out" 2>&1; rc=$?
    check "csc, at the end: compiles (exit 0)" test "$rc" -eq 0
    got=$(grep -o 'GetKeywordKind(string text="[^"]*") -> SyntaxKind [A-Za-z]*' "$work/csc_ret.txt" | sed 's/.*text="//; s/") -> SyntaxKind / /' | LC_ALL=C sort -u | tr '\n' ',')
    check "csc, at the end: class and foreach only" test "$got" = "class ClassKeyword,foreach ForEachKeyword,"
else
    echo "skip: no csc.dll ($csc) or reference assemblies ($refdir)"
fi

ct_end run_when.sh
