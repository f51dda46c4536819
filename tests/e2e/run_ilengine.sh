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
# The checks but the compiler's are the cases of cases/ilengine.case
# (sections mode, for each of the three, main, and csc after the
# compiler's runs).
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

# jit_of FILE: the count of the trace's JIT compilations (its jit line).
jit_of() { sed -nE 's/^# jit: ([0-9]+) methods? compiled in .*/\1/p' "$1"; }

echo "== building tests/targets/Values"
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }

cf="$here/cases/ilengine.case"
for mode in recursion exceptions ranking; do
    args=("$mode")
    [[ $mode == recursion ]] && args=(recursion 300)
    echo "== $mode: the IL engine against the ELT engine's fast path"
    ct_cases "$cf" mode
done
ct_cases "$cf" main

echo "== a real program no one here wrote: the SDK's C# compiler"
# Every method of Microsoft.CodeAnalysis.* rewritten: the compile writes the
# same assembly, byte for byte (-deterministic), as untraced.
ct_csc
printf '%s\n' 'using System;' 'class P { static void Main() { var l = new System.Collections.Generic.List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }' >"$work/a.cs"
mkdir -p "$work/cplain" "$work/cil"
(cd "$work/cplain" && dotnet "$csc" "${cc_args[@]}") >"$work/cplain.out" 2>&1
(cd "$work/cil" && "$ct" record --engine=il -o "$work/crec" -F 'Microsoft.CodeAnalysis.*' --profiler "$lib" -- \
    dotnet "$csc" "${cc_args[@]}") >"$work/cil.out" 2>&1
echo $? >"$work/cil.rc"
ct_cases "$cf" csc

ct_end run_ilengine.sh
