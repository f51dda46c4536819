#!/usr/bin/env bash
# End-to-end test of the IL-probe engine (--engine=il): the traced methods'
# IL is rewritten to call the tracer; nothing else changes.
#
# Usage: tests/e2e/run_ilengine.sh [path/to/libclrtrace.so]
#
# Checks, on tests/targets/Hard:
#   1. each program runs as untraced (stdout, stderr, exit code) and its trace
#      is complete and balanced;
#   2. the call tree is the one the ELT engine's fast path (--no-args)
#      records for the same program (recursion, exceptions thrown through
#      traced frames, filters and finallies; ranking) — names, nesting,
#      order, and the exception lines;
#   3. only the traced methods are compiled from IL: the JIT compiles a small
#      part of what it compiles under the ELT engine (which makes the runtime
#      refuse every ReadyToRun image), counted by the traces' own jit lines;
#   4. 16 threads calling a traced method that takes fresh objects, strings
#      and arrays, and generic code shared by reference types, while another
#      thread forces collections: the same output, every call recorded (the
#      count from the C# source), the values and the instantiation read;
#   5. a `tail.` call: the caller ends (by tail call) before the callee starts;
#   6. the SDK's C# compiler with every Microsoft.CodeAnalysis.* method
#      rewritten writes the same assembly, byte for byte, as untraced, and
#      the calls inlined into untraced precompiled code are seen;
#   7. a method whose body is `jmp` (not rewritten): it runs as it was, and
#      the trace counts it;
#   8. the default engine (no --engine, no CLRTRACE_ENGINE): il, but elt with
#      -a, named by the header and `clrtrace info`; a bad --engine value:
#      usage error 2, nothing run.
# Ends with "run_ilengine.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup ilengine "${1:-}" cli

echo "== building tests/targets/Hard"
app=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hard failed" >&2; exit 2; }

# tree FILE: every call line, time, thread and duration dropped, the values
# of the fast path's "(...)" kept (neither engine records values here).
tree() { ct_calls "$1" | sed -E 's/^ *[0-9]+\.[0-9]+ +[0-9]+ (.{10})//'; }

for mode in recursion exceptions ranking; do
    echo "== $mode: the IL engine against the ELT engine's fast path"
    args=("$mode")
    [[ $mode == recursion ]] && args=(recursion 300)
    ct_run "$work" "plain-$mode" dotnet "$app" "${args[@]}"
    ct_run "$work" "il-$mode" "$ct" run --engine=il --no-args -o "$work/il-$mode.txt" --profiler "$lib" -- \
        dotnet "$app" "${args[@]}"
    ct_run "$work" "elt-$mode" "$ct" run --engine=elt --no-args -o "$work/elt-$mode.txt" --profiler "$lib" -- \
        dotnet "$app" "${args[@]}"
    check "$mode: the program runs as untraced" ct_same_run "$work" "plain-$mode" "il-$mode"
    check "$mode: the trace is balanced" ct_balance "$work/il-$mode.txt"
    check "$mode: the header names the IL engine, no arguments" \
        grep -qE '^# CoreCLR .*, engine il, no arguments$' "$work/il-$mode.txt"
    tree "$work/il-$mode.txt" >"$work/il-$mode.tree"
    tree "$work/elt-$mode.txt" >"$work/elt-$mode.tree"
    check "$mode: the same call tree as the ELT engine ($(wc -l <"$work/il-$mode.tree") lines)" \
        diff "$work/elt-$mode.tree" "$work/il-$mode.tree"
done
check "recursion: Recurse called 301 times" \
    grep -qE '^ +301 .* Hard\.Recursion\.Recurse$' "$work/il-recursion.txt"
check "exceptions: frames left by exceptions are closed with them" \
    grep -qE '\} exception System\.InvalidOperationException' "$work/il-exceptions.txt"

echo "== arguments read through the probes (Values: Kinds.cs; GcStress.cs)"
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }
ct_run "$work" plain-values dotnet "$values"
DOTNET_JitStdOutFile=$work/il-values.jit DOTNET_JitDisasmSummary=1 \
    ct_run "$work" il-values "$ct" run --engine=il -o "$work/il-values.txt" --profiler "$lib" -- dotnet "$values"
check "Values: the program runs as untraced" ct_same_run "$work" plain-values il-values
# Kinds.cs: Tally.Sum (a struct's) and Tallier.Sum (a class's), a loop of
# 100000: with `this` handed to the probe by the address of a copy, not its
# own (which the JIT's OSR cannot handle), each is compiled at tier 0 and
# replaced on the stack (OSR), not "switched to FullOpts" at once.
check_eq "Values: Tally.Sum and Tallier.Sum (1 + 4999950000, 2 + ...)" "tally=4999950001 4999950002" \
    "$(grep '^tally=' "$work/il-values.out")"
for cls in Tally Tallier; do
    check "Values: $cls.Sum, a loop, compiled at tier 0 then on-stack replaced (JIT summary)" \
        grep -qE "JIT compiled Demo\.$cls:Sum\(int\).* \[Tier1-OSR" "$work/il-values.jit"
    check "Values: $cls.Sum not switched to full optimization at once" \
        bash -c '! grep -E "JIT compiled Demo\.$1:Sum\(.*switched to FullOpts" "$0"' \
        "$work/il-values.jit" "$cls"
done
check "Values: Tally.Sum's this (a struct, by address) and result" \
    grep -qE '^.* Demo\.Tally\.Sum\(this=0x[0-9a-f]+ -> \{Start=1\}, int n=100000\) -> long 4999950001$' \
    "$work/il-values.txt"
check "Values: Tallier.Sum's this and result" \
    grep -qE '^.* Demo\.Tallier\.Sum\(this=Demo\.Tallier@0x[0-9a-f]+, int n=100000\) -> long 4999950002$' \
    "$work/il-values.txt"
check "Values: the header names the IL engine, with arguments" \
    grep -qE '^# CoreCLR .*, engine il, strings 64 chars' "$work/il-values.txt"
# The arguments as Kinds.cs passes them (run_values.sh checks the same text
# from the ELT engine).
for want in \
    'Demo.Kinds.Ints(sbyte sb=-8, byte b=200, short s=-300, ushort us=60000, int i=-70000, uint ui=4000000000, long l=-9000000000, ulong ul=18000000000000000000)' \
    "Demo.Kinds.Chars(bool yes=true, bool no=false, char c='x', char nl='\\n', char q='\\'')" \
    'Demo.Kinds.Floats(float f=-4.3, double d=1.5, float big=1E+10, double tiny=2.5E-07)' \
    'Demo.Kinds.Money(decimal price=19.99, decimal qty=-0.500)' \
    'Demo.Kinds.Simd(Vector128<int> a=<1, 2, 3, 4>, Vector2 p=<1.5, 2>, Vector3 q=<1, 2, 3>, Vector4 r=<1, 2, 3, 4>, Vector64<byte> b=<1, 2, 3, 4, 5, 6, 7, 8>, Vector256<double> d=<1, 2, 3, 4>)' \
    'Demo.Kinds.Strings(string s="Hello, test!", string empty="", string none=null, string esc="tab\there \"quoted\" back\\slash")' \
    'Demo.Kinds.Spans(ReadOnlySpan<char> text="hello", Span<int> ints=[3] {4, 5, 6}, ReadOnlySpan<double> none=[0] {}'; do
    check "Values: ${want%%(*}(...) arguments" grep -qF -- "$want" "$work/il-values.txt"
done

echo "== only the traced methods lose their precompiled code"
jit_of() { sed -nE 's/^# jit: ([0-9]+) methods? compiled in .*/\1/p' "$1"; }
il_jit=$(jit_of "$work/il-ranking.txt")
elt_jit=$(jit_of "$work/elt-ranking.txt")
echo "     JIT compilations: IL engine $il_jit, ELT engine $elt_jit"
check "the JIT compiles under a fifth of what it compiles under the ELT engine" \
    test -n "$il_jit" -a -n "$elt_jit" -a "$((il_jit * 5))" -lt "${elt_jit:-0}"
check "the closing line counts the 6 traced functions" \
    grep -qE '^# clrtrace: shutdown, [0-9]+ functions JIT-compiled, 6 traced$' "$work/il-ranking.txt"

echo "== 16 threads pass objects while collections run"
ct_run "$work" plain-gc dotnet "$app" gcstress 5000 16
ct_run "$work" il-gc "$ct" record --engine=il -o "$work/gc" --profiler "$lib" -- \
    dotnet "$app" gcstress 5000 16
check "gcstress: the program runs as untraced" ct_same_run "$work" plain-gc il-gc
check_eq "gcstress: the untraced output (GcStress.cs)" "gcstress: calls=80000" \
    "$(cut -d' ' -f1-2 <"$work/plain-gc.out")"
"$ct" report "$work/gc" >"$work/gc.report" 2>&1
# GcStress.cs: each of 16 threads calls Work and new Box 5000 times.
check "gcstress: Work recorded 80000 times" \
    grep -qE '^ +80000 .* Hard\.GcStress\.Work$' "$work/gc.report"
check "gcstress: Box's constructor recorded 80000 times" \
    grep -qE '^ +80000 .* Hard\.Box\.\.ctor$' "$work/gc.report"
# GcStress.cs: and Count<T> (code shared by reference types) with a Box,
# Count(box, new[] { box, box }): the same box twice in the array.
check "gcstress: Count<Box> (shared generic code) recorded 80000 times" \
    grep -qE '^ +80000 .* Hard\.GcStress\.Count<Box>$' "$work/gc.report"
check "gcstress: the trace is complete" grep -qE '^complete +yes$' <("$ct" info "$work/gc")
"$ct" replay "$work/gc" >"$work/gc.replay" 2>&1
# GcStress.cs: Work("call " + i, new[] { i, t, 3 }, box) on thread t, while
# collections run: the last call of each thread shows i = 4999.
check "gcstress: Work's string and array arguments, read while collections run" \
    grep -qE 'Hard\.GcStress\.Work\(string text="call 4999", int\[\] numbers=int\[3\] \{4999, [0-9]+, 3\}, Box box=' \
    "$work/gc.replay"
check "gcstress: Count<Box>'s arguments and result, read while collections run" \
    grep -qE 'Hard\.GcStress\.Count<Box>\(Box first=Hard\.Box\{Value=[0-6], Name="box[0-9]"\}, Box\[\] all=Box\[2\] \{Hard\.Box\{Value=[0-6], Name="box[0-9]"\}, Hard\.Box\{<shown above>\}\}\) -> int 3$' \
    "$work/gc.replay"

echo "== tail. calls"
ct_run "$work" plain-tail dotnet "$app" tailcalls
ct_run "$work" il-tail "$ct" run --engine=il --no-args -o "$work/il-tail.txt" --profiler "$lib" -- \
    dotnet "$app" tailcalls
check "tailcalls: the program runs as untraced" ct_same_run "$work" plain-tail il-tail
check "tailcalls: the trace is balanced" ct_balance "$work/il-tail.txt"
# TailCalls.cs: Wide(n) does `tail. call Many(...)`: Wide's frame ends by the
# tail call, and Many runs in its place, at the same depth.
check "tailcalls: Wide ends by its tail call; Many follows at Wide's depth" bash -c '
    tree=$(sed -E "s/^ *[0-9]+\.[0-9]+ +[0-9]+ (.{10})//" "$0")
    w=$(grep -nF "Emitted.Tails.Wide(...)" <<<"$tree" | head -n 1 | cut -d: -f1)
    [[ -n $w ]] || exit 1
    a=$(sed -n "${w}p" <<<"$tree"); b=$(sed -n "$((w + 1))p" <<<"$tree")
    [[ $a == *"Wide(...) -> tailcall" && $b == *"Emitted.Tails.Many(...)"* ]] &&
        [[ ${a%%E*} == "${b%%E*}" ]]' "$work/il-tail.txt"

echo "== a body it does not rewrite (jmp): left as it was, and counted"
ct_run "$work" plain-jmp dotnet "$app" jmp "$work"
ct_run "$work" il-jmp "$ct" record --engine=il -o "$work/jrec" --profiler "$lib" -- dotnet "$app" jmp "$work"
check "jmp: the program runs as untraced" ct_same_run "$work" plain-jmp il-jmp
check_eq "jmp: the untraced output (Jumps.cs)" "jmp: Jump(-7)=7" "$(cat "$work/plain-jmp.out")"
"$ct" replay "$work/jrec" >"$work/jrec.txt" 2>&1
"$ct" info "$work/jrec" >"$work/jrec.info" 2>&1
# Jumps.cs: Run (traced) and Jump (traced, but its body is `jmp`).
check "jmp: the closing line counts the one body left as it was" \
    grep -qE '^# clrtrace: shutdown, [0-9]+ functions JIT-compiled, [0-9]+ traced, 1 of them left as they were' "$work/jrec.txt"
check "jmp: info says so" grep -qE '^functions +[0-9]+ traced \([0-9]+ the runtime mapped; 1 left as they were' "$work/jrec.info"
check "jmp: Run recorded, Jump not" bash -c 'grep -q "Hard.Jumps.Run(" "$0" && ! grep -q "Emitted.Jumps.Jump(" "$0"' "$work/jrec.txt"

echo "== a real program no one here wrote: the SDK's C# compiler"
# Every method of Microsoft.CodeAnalysis.* rewritten: the compile writes the
# same assembly, byte for byte (-deterministic), as untraced.
ct_csc
printf '%s\n' 'using System;' 'class P { static void Main() { var l = new System.Collections.Generic.List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }' >"$work/a.cs"
mkdir -p "$work/cplain" "$work/cil"
(cd "$work/cplain" && dotnet "$csc" "${cc_args[@]}") >"$work/cplain.out" 2>&1
(cd "$work/cil" && "$ct" record --engine=il -o "$work/crec" -F 'Microsoft.CodeAnalysis.*' --profiler "$lib" -- \
    dotnet "$csc" "${cc_args[@]}") >"$work/cil.out" 2>&1
check_eq "csc: traced with the IL engine, exit code 0" 0 "$?"
check "csc: the same assembly, byte for byte" cmp "$work/cplain/a.dll" "$work/cil/a.dll"
check "csc: the trace is complete, with over a million calls" bash -c '
    "$0" info "$1" >"$1.info" && grep -qE "^complete +yes$" "$1.info" &&
    [[ $(sed -nE "s/^calls +([0-9]+) ended.*/\1/p" "$1.info") -gt 1000000 ]]' "$ct" "$work/crec"

# Roslyn.Utilities.StringTable (not traced: not Microsoft.CodeAnalysis.*)
# reads SegmentedArray<StringTable.Entry> items (traced) some 13 000 times
# compiling a.cs; its ReadyToRun code has them inlined, so that code is
# refused too (EnumNgenModuleMethodsInliningThisMethod) and the calls are
# seen: the ELT engine, which refuses every precompiled method, sees 12 927.
"$ct" report "$work/crec" >"$work/crec.report" 2>&1
check "csc: calls inlined into untraced precompiled code are seen (SegmentedArray get_Item over 10000 times)" \
    awk '$NF ~ /^Microsoft\.CodeAnalysis\.Collections\.SegmentedArray<StringTable\.Entry>\.get_Item$/ && $1 > 10000 { ok = 1 } END { exit !ok }' \
    "$work/crec.report"

echo "== the default engine: il, but elt with -a"
# No CLRTRACE_ENGINE: the launcher's and the profiler's own default (auto).
for m in "default::il" "all:-a:elt" "elt:--engine=elt:elt" "il-all:--engine=il -a:il" "auto-all:--engine=auto -a:elt"; do
    name=${m%%:*} rest=${m#*:} opts=${rest%%:*} want=${m##*:}
    # shellcheck disable=SC2086
    env -u CLRTRACE_ENGINE "$ct" record $opts --no-args -o "$work/dflt-$name" --profiler "$lib" -- \
        dotnet "$app" ranking >"$work/dflt-$name.out" 2>&1
    check "default engine, ${opts:-no option}: the header says engine $want" \
        grep -qE "^settings +CoreCLR .*, engine $want, " <("$ct" info "$work/dflt-$name")
    check "default engine, ${opts:-no option}: clrtrace info names it" \
        grep -qE "^engine +$want \(" <("$ct" info "$work/dflt-$name")
done
check_eq "default engine: the same calls as --engine=elt (ranking)" \
    "$(ct_calls <("$ct" replay "$work/dflt-default") | wc -l)" "$(ct_calls <("$ct" replay "$work/dflt-elt") | wc -l)"

echo "== usage"
"$ct" run --engine=jit -- true >"$work/bad.out" 2>"$work/bad.err"
check_eq "--engine=jit: usage error 2" 2 "$?"
check "--engine=jit: one line naming the values" grep -q "il, elt or auto" "$work/bad.err"

ct_end run_ilengine.sh
