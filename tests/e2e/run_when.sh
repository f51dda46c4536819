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
run_plain plain
check "untraced: exit code 3" test "$(cat "$work/plain.rc")" -eq 3

# shop NAME OPTIONS...: traced with -F Shop.Orders.* -F Shop.Cart.Add, the
# trace in NAME.txt (the cases run it with `$ NAME shop NAME ...`).
shop() { "$ct" run --profiler "$lib" -F 'Shop.Orders.*' -F 'Shop.Cart.Add' -o "$work/$1.txt" "${@:2}" -- dotnet "$app"; }
# finds FILE / ships FILE: the ids of the TryFind / Ship calls in FILE.
finds() { grep -o 'int id=[0-9]*, out Order found' "$1" | sed 's/int id=//; s/,.*//' | tr '\n' ' ' | sed 's/ $//'; }
ships() { grep -o 'Shop\.Orders\.Ship(Order order=Shop\.Order{Id=[0-9]*' "$1" | sed 's/.*Id=//' | tr '\n' ' ' | sed 's/ $//'; }

# The conditions on the launched program, each run checked against the
# values of Program.cs: cases/when.case.
ct_cases "$here/cases/when.case"

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
