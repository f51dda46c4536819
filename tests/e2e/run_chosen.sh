#!/usr/bin/env bash
# Chosen values: -A 'GLOB@PATH,...' (CLRTRACE_ARGS_CHOSEN) and -R 'GLOB@return...'
# (CLRTRACE_RET_CHOSEN) on tests/targets/Shop, whose Main places four orders
# in this order (values from its Program.cs):
#   1: Total 1250.50, Customer Ana (PT), Paid (1),    2 lines, Note null,   Codes [1,2,3]
#   2: Total 99.99,   Customer Bob (ES), New (0),     0 lines, Note "gift", Codes null
#   3: Total 1000,    Customer null,     New (0),     0 lines, Note null,   Codes []
#   4: Total 5000,    Customer Zé (PT),  Shipped (2), 1 line,  Note null,   Codes null
# then Cart.Add on Ana's cart (Qty 1, then 3; returns the count 1, then 4)
# and on Bob's (Qty 4; returns 4). Each chosen call's line is written by hand
# from these values: exactly the paths asked for, in their order, a null on
# the way reading null; a malformed -A/-R or a path no method has is refused
# (exit 2, one stderr line, nothing run). Then the SDK's C# compiler.
# Usage: tests/e2e/run_chosen.sh [path/to/libclrtrace.so]
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup chosen "${1:-}" cli

has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -v '^#' "$1" | grep -F -- "$2" >/dev/null; }

echo "== building tests/targets/Shop"
app=$(ct_dotnet_build "$root/tests/targets/Shop" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Shop failed" >&2; exit 2; }
run_plain plain
check "untraced: exit code 3" test "$(cat "$work/plain.rc")" -eq 3

# chosen NAME OPTIONS...: traced with -F Shop.Orders.Place -F Shop.Cart.Add,
# the trace in NAME.txt (the cases run it with `$ NAME chosen NAME ...`).
chosen() { "$ct" run --profiler "$lib" -F 'Shop.Orders.Place' -F 'Shop.Cart.Add' -o "$work/$1.txt" "${@:2}" -- dotnet "$app"; }
ct_cases "$here/cases/chosen.case"

# Refused: malformed, or a parameter no matching method has.
refuse() { # refuse NAME LINE OPTIONS...
  "$ct" run --profiler "$lib" -F 'Shop.*' -o "$work/$1.txt" "${@:3}" -- dotnet "$app" \
      > "$work/$1.out" 2> "$work/$1.err"
  local rc=$?
  check "$1: exit 2" test "$rc" -eq 2
  check "$1: one line" test "$(wc -l < "$work/$1.err")" -eq 1
  check "$1: the line" grep -qxF -- "$2" "$work/$1.err"
  check "$1: nothing run" test ! -s "$work/$1.out"
}
refuse no_at "clrtrace run: -A 'Shop.Orders.Place': expected 'GLOB@PATH[,PATH...]' (a method pattern, '@', then the values' paths) at offset 0" \
    -A 'Shop.Orders.Place'
refuse trailing "clrtrace run: -A 'Shop.Orders.Place@order.Total,': expected a path (a parameter's name, this, NAME.FIELD...), not the end at offset 30" \
    -A 'Shop.Orders.Place@order.Total,'
refuse ret_root "clrtrace run: -R 'Shop.Cart.Add@line': -R chooses from the return value: a path that begins with 'return' at offset 14" \
    -R 'Shop.Cart.Add@line'
refuse no_param "clrtrace run: -A 'Shop.Orders.Place@ordr.Total': Shop.Orders.Place has no parameter 'ordr' at offset 18" \
    -A 'Shop.Orders.Place@ordr.Total'

# Attached (-p): Shop's service places the four orders every 5 ms; the
# chosen values are sent with the session's settings and read by the IL
# engine's probes (attach always rewrites).
ct_serve_shop "$app"
"$ct" record --profiler "$lib" -o "$work/attached" -p "$spid" -d 1s -F 'Shop.Orders.Place' \
    -A 'Shop.Orders.Place@order.Customer.Name,order.Lines.Count' -R 'Shop.Orders.Place@return' \
    > "$work/attach.out" 2> "$work/attach.err"; rc=$?
check "attach: exit 0" test "$rc" -eq 0
"$ct" replay "$work/attached" > "$work/attach.txt" 2>&1
check "attach: order 1's chosen values" has "$work/attach.txt" 'Shop.Orders.Place(order.Customer.Name="Ana", order.Lines.Count=2) -> return=3'
check "attach: order 3's (no customer)" has "$work/attach.txt" 'Shop.Orders.Place(order.Customer.Name=null, order.Lines.Count=0) -> return=9'
check "attach: order 4's" has "$work/attach.txt" 'Shop.Orders.Place(order.Customer.Name="Zé", order.Lines.Count=1) -> return=12'
check "attach: nothing else of the order" lacks "$work/attach.txt" 'Total'
check_eq "attach: nothing of clrtrace's on the service's stderr" "" "$(cat "$work/serve.err")"
kill -TERM "$spid" 2>/dev/null; wait "$spid" 2>/dev/null

# A real program no one here wrote: the SDK's C# compiler (csc.dll) on a
# small file; its lexer asks SyntaxFacts.GetKeywordKind(string text) about
# the identifiers and keywords it meets: chosen, the text's length and the
# text, and the return value (SyntaxKind) by -R.
if ct_csc; then
    printf '%s\n%s\n%s' 'using System;' 'using System.Collections.Generic;' \
        'class P { static void Main() { var l = new List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }' \
        > "$work/a.cs"
    mkdir -p "$work/cc"
    kw=Microsoft.CodeAnalysis.CSharp.SyntaxFacts
    (cd "$work/cc" && "$ct" run --profiler "$lib" -o "$work/csc.txt" -F "$kw.GetKeywordKind" \
        -A "$kw.GetKeywordKind@text.Length,text" -R "$kw.GetKeywordKind@return" \
        -- dotnet "$csc" "${cc_args[@]}") > "$work/csc.out" 2>&1; rc=$?
    check "csc: compiles (exit 0)" test "$rc" -eq 0
    check "csc: foreach chosen" has "$work/csc.txt" 'GetKeywordKind(text.Length=7, text="foreach") -> return=ForEachKeyword'
    check "csc: class chosen" has "$work/csc.txt" 'GetKeywordKind(text.Length=5, text="class") -> return=ClassKeyword'
    check "csc: the identifier P" has "$work/csc.txt" 'GetKeywordKind(text.Length=1, text="P") -> return=None'
else
    echo "skip: no csc.dll ($csc) or reference assemblies ($refdir)"
fi

ct_end run_chosen.sh
