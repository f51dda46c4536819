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
dotnet "$app" > "$work/plain.out"; plain_rc=$?
check "untraced: exit code 3" test "$plain_rc" -eq 3

run() { # run NAME OPTIONS...: traced with -F Shop.Orders.Place -F Shop.Cart.Add
  "$ct" run --profiler "$lib" -F 'Shop.Orders.Place' -F 'Shop.Cart.Add' -o "$work/$1.txt" "${@:2}" \
      -- dotnet "$app" > "$work/$1.out" 2> "$work/$1.err"
  local rc=$?
  check "$1: exit code unchanged" test "$rc" -eq "$plain_rc"
  check "$1: output unchanged" cmp -s "$work/plain.out" "$work/$1.out"
}

run paths -A 'Shop.Orders.Place@order.Total,order.Customer.Country,order.Customer.Name,order.Lines.Count,order.Codes.Length,order.Note' \
    -A 'Shop.Cart.Add@this.Owner,line.Qty' -R 'Shop.Cart.Add@return'
t=$work/paths.txt
check "paths: order 1" has "$t" 'Shop.Orders.Place(order.Total=1250.50, order.Customer.Country="PT", order.Customer.Name="Ana", order.Lines.Count=2, order.Codes.Length=3, order.Note=null) -> int 3'
check "paths: order 2" has "$t" 'Shop.Orders.Place(order.Total=99.99, order.Customer.Country="ES", order.Customer.Name="Bob", order.Lines.Count=0, order.Codes.Length=null, order.Note="gift") -> int 6'
check "paths: order 3 (no customer: null on the way)" has "$t" 'Shop.Orders.Place(order.Total=1000, order.Customer.Country=null, order.Customer.Name=null, order.Lines.Count=0, order.Codes.Length=0, order.Note=null) -> int 9'
check "paths: order 4" has "$t" 'Shop.Orders.Place(order.Total=5000, order.Customer.Country="PT", order.Customer.Name="Zé", order.Lines.Count=1, order.Codes.Length=null, order.Note=null) -> int 12'
check "paths: the return value kept (no -R on Place)" grep -qE 'order.Note=null\) -> int 12$' "$t"
check "paths: nothing else of the order" lacks "$t" 'Status'
check "paths: Ana's cart, Qty 1" has "$t" 'Shop.Cart.Add(this.Owner="Ana", line.Qty=1) -> return=1'
check "paths: Ana's cart, Qty 3" has "$t" 'Shop.Cart.Add(this.Owner="Ana", line.Qty=3) -> return=4'
check "paths: Bob's cart" has "$t" 'Shop.Cart.Add(this.Owner="Bob", line.Qty=4) -> return=4'
check "paths: nothing on stderr" test ! -s "$work/paths.err"

# Deeper than --object-depth: the customer object two levels down is shown
# by content with --object-depth 1 (the chosen value is the first level).
run deep --object-depth 1 -A 'Shop.Orders.Place@order.Customer,order.Status'
t=$work/deep.txt
check "deep: the customer by content" has "$t" 'Shop.Orders.Place(order.Customer=Shop.Customer{Name="Ana", Country="PT"}, order.Status=1) -> int 3'
check "deep: a null customer" has "$t" 'Shop.Orders.Place(order.Customer=null, order.Status=0) -> int 9'

# The binary trace replays the same lines (FUNCTION records carry the paths).
"$ct" record --profiler "$lib" -F 'Shop.Orders.Place' -o "$work/rec" \
    -A 'Shop.Orders.Place@order.Total,order.Customer.Name' -- dotnet "$app" > /dev/null 2>&1
"$ct" replay "$work/rec/trace.clrt" > "$work/replay.txt" 2>&1
check "replay: order 1" has "$work/replay.txt" 'Shop.Orders.Place(order.Total=1250.50, order.Customer.Name="Ana") -> int 3'
check "replay: order 3" has "$work/replay.txt" 'Shop.Orders.Place(order.Total=1000, order.Customer.Name=null) -> int 9'

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
