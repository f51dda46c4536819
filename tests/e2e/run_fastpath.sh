#!/usr/bin/env bash
# End-to-end test of the fast-path mode (`--no-args`: SetEnterLeaveFunctionHooks3
# with the assembly stubs of src/agent/engines/elt/asm) on tests/targets/FastPath.
#
# Usage: tests/e2e/run_fastpath.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
#
# Checks:
#   1. the program's results (integer, floating-point, struct-returning and
#      many-argument methods, virtual and interface calls, exceptions,
#      generics; each result feeds the next calls) and exit code are the
#      untraced run's, under: the fast path (text log and binary trace), the
#      fast path with inlining allowed, the empty fast-path stubs
#      (--null=fast), the empty slow-path hooks (--null) and full capture;
#      a few results are also checked against values worked out from
#      Program.cs by hand;
#   2. the fast path's call tree is the slow path's (same calls, same nesting,
#      same endings), with the counts Program.cs implies;
#   3. the binary trace of the fast path replays to its live text log.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup fastpath "${1:-}" cli
# The ELT engine's own stubs: never the IL engine, whatever the suite runs.
export CLRTRACE_ENGINE=elt

echo "== building tests/targets/FastPath"
app=$(ct_dotnet_build "$root/tests/targets/FastPath" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/FastPath failed" >&2; exit 2; }

# ------------------------------------------------------------ 1. results
echo "== results"
ct_run "$work" plain dotnet "$app"
# Worked out from Program.cs: 40 + 2; 1 + 2*2 + 3*3 + ... + 9*9 + 10*big.A
# with big.A = 23156 % 1000 = 156 (so big = 156 24336 3796416 -156); Fib(6);
# Guarded(2) = 2 * 10, Guarded(5) = -"n=5".Length; Echo returns its argument.
for line in 'int 42' 'long -5185185138' 'pair -15555555414 35' 'big 156 24336 3796416 -156' \
    'manyints 1845' 'fib 8' 'guarded 20 -3' 'generic 17 text 2.5'; do
    check "untraced: prints '$line' (worked out by hand)" grep -qxF -- "$line" "$work/plain.out"
done
check "untraced: 19 result lines" test "$(wc -l <"$work/plain.out")" = 19

ct_run "$work" fast "$ct" run --profiler "$lib" --no-args -o "$work/fast.txt" -- dotnet "$app"
ct_same_as_plain -q fast "fast path (text log)"
ct_run "$work" fastrec "$ct" record --profiler "$lib" --no-args -o "$work/fastrec" --text "$work/fastrec.txt" -- dotnet "$app"
ct_same_as_plain -q fastrec "fast path (binary trace)"
ct_run "$work" fastinl "$ct" run --profiler "$lib" --no-args --inlining -o "$work/fastinl.txt" -- dotnet "$app"
ct_same_as_plain -q fastinl "fast path with inlining"
ct_run "$work" fastnull "$ct" run --profiler "$lib" --null=fast -- dotnet "$app"
ct_same_as_plain -q fastnull "empty fast-path stubs (--null=fast)"
ct_run "$work" slownull "$ct" run --profiler "$lib" --null -- dotnet "$app"
ct_same_as_plain -q slownull "empty slow-path hooks (--null)"
ct_run "$work" slow "$ct" run --profiler "$lib" -o "$work/slow.txt" -- dotnet "$app"
ct_same_as_plain -q slow "full capture"
ct_run "$work" fastall "$ct" run --profiler "$lib" --no-args --all -o "$work/fastall.txt" -- dotnet "$app"
ct_same_as_plain -q fastall "fast path, framework code traced too"
check "fast path, framework code traced too: System.* calls in the trace" \
    grep -qE '^ *[0-9.]+ +[0-9]+ .* System\.[A-Za-z.]+\(\.\.\.\)' "$work/fastall.txt"

# ------------------------------------------------------------ 2. call tree
echo "== call tree"
# The tree of a text log: per call line, its indentation and what the line
# is, without times, thread, values: "    Name {", "    Name", "    Name ->
# exception TYPE: MESSAGE", "  }", "  } exception TYPE: MESSAGE". Lines up to
# the summary.
tree() {
    sed '/^# summary: /,$d' "$1" | grep -vE '^(#|$)' | cut -c31- | awk '
        {
            match($0, /^ */); ind = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
            if (rest ~ /^\}/) { out = "}"; if (rest ~ /^\} exception/) out = rest; if (rest ~ / tailcall$/) out = out " tailcall" }
            else {
                out = rest; sub(/\(.*/, "", out)
                if (rest ~ / \{$/) out = out " {"
                else if (match(rest, /\) -> exception( .*)?$/)) out = out substr(rest, RSTART + 1)
                else if (rest ~ / -> tailcall$/) out = out " -> tailcall"
            }
            print ind out
        }'
}
tree "$work/fast.txt" >"$work/fast.tree"
tree "$work/slow.txt" >"$work/slow.tree"
check "the fast path's call tree is the slow path's" diff "$work/slow.tree" "$work/fast.tree"
check "the tree is not empty ($(wc -l <"$work/fast.tree") lines)" test "$(wc -l <"$work/fast.tree")" -gt 60
# Fib(6): 25 calls; those with n >= 2 (12) open a block, the 13 others fold.
check "Fib: 12 calls open a block" test "$(grep -cE '^ *FastPath\.Calc\.Fib \{$' "$work/fast.tree")" = 12
check "Fib: 13 leaves fold onto one line" test "$(grep -cE '^ *FastPath\.Calc\.Fib$' "$work/fast.tree")" = 13
# Main at depth 0, Fib(6) at 1, the deepest Fib(1)/Fib(0) at 6 (12 spaces).
check "Fib: the deepest calls are 6 levels down" \
    test "$(grep -E '^ *FastPath\.Calc\.Fib$' "$work/fast.tree" | awk '{ match($0, /^ */); if (RLENGTH > m) m = RLENGTH } END { print m }')" = 12
# Chain(1.0, 5) recurses to depth 0: 6 calls, the last a leaf.
check "Chain: 5 blocks and 1 leaf" \
    test "$(grep -cE '^ *FastPath\.Calc\.Chain \{$' "$work/fast.tree") $(grep -cE '^ *FastPath\.Calc\.Chain$' "$work/fast.tree")" = "5 1"
# Guarded(5): Throws(5) leaves by an exception, Guarded returns normally.
check "Throws(5) ends by an exception, with its type and message" \
    test "$(grep -cE '^ *FastPath\.Calc\.Throws -> exception System\.InvalidOperationException: "n=5"$' "$work/fast.tree")" = 1
check "Throws(2) returns" test "$(grep -cE '^ *FastPath\.Calc\.Throws$' "$work/fast.tree")" = 1
# Tripler's constructor calls Doubler's.
check "Tripler..ctor opens a block around Doubler..ctor" \
    grep -qzE 'FastPath\.Tripler\.\.ctor \{'$'\n''  +FastPath\.Doubler\.\.ctor'$'\n' "$work/fast.tree"
summary_row() { # summary_row FILE CALLS NAME
    # (Throws(5)'s exception adds the EXCEPTIONS column after SELF.)
    grep -qE "^ +$2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +[0-9]+  $3\$" "$1" || { echo "no summary row: $2 calls of $3"; return 1; }
}
check "summary: Fib 25 calls" summary_row "$work/fast.txt" 25 'FastPath\.Calc\.Fib'
check "summary: Chain 6 calls" summary_row "$work/fast.txt" 6 'FastPath\.Calc\.Chain'
check "summary: Guarded 2 calls" summary_row "$work/fast.txt" 2 'FastPath\.Calc\.Guarded'
check "summary: Throws 2 calls" summary_row "$work/fast.txt" 2 'FastPath\.Calc\.Throws'
check_eq "summary: EXCEPTIONS of Throws 1 (Throws(5)), of Guarded 0" "1 0" \
    "$(awk '/^#  CALLS/ { on = 1 } on && $NF == "FastPath.Calc.Throws" { t = $(NF - 1) }
            on && $NF == "FastPath.Calc.Guarded" { g = $(NF - 1) } END { print t, g }' "$work/fast.txt")"
check "summary: Everything 1 call" summary_row "$work/fast.txt" 1 'FastPath\.Calc\.Everything'
check "summary: Main 1 call" summary_row "$work/fast.txt" 1 'FastPath\.Program\.Main'
check "summary: the same calls and functions as the slow path" \
    test "$(grep '^# summary: ' "$work/fast.txt")" = "$(grep '^# summary: ' "$work/slow.txt")"
check "summary: one thread, nothing dropped" \
    grep -qE '^# summary: [0-9]+ calls, [0-9]+ functions, 1 thread, 0 events dropped$' "$work/fast.txt"
check "header: the fast path is named" grep -qE '^# CoreCLR .*, no arguments \(fast path\)$' "$work/fast.txt"

# -------------------------------------------------------- 3. binary trace
echo "== binary trace"
"$ct" replay "$work/fastrec" >"$work/fastrec.replay"
check "fast path: replay equals the live text log" cmp "$work/fastrec.txt" "$work/fastrec.replay"
tree "$work/fastrec.replay" >"$work/fastrec.tree"
check "fast path: the recorded tree is the same tree" diff "$work/fast.tree" "$work/fastrec.tree"

ct_end run_fastpath.sh
