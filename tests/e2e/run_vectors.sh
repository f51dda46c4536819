#!/usr/bin/env bash
# End-to-end test: tracing never changes what a program computes, with
# vectors, many floating-point arguments, struct returns in xmm0:xmm1 and
# the framework's vectorised span and string code (tests/targets/Vectors).
#
# Usage: tests/e2e/run_vectors.sh [path/to/libclrtrace.so]
#
# The runtime's tail-call profiler helper zeroes the upper half of vector
# registers (docs/tracer.md, "Tail calls"); a fast tail call with Vector128
# arguments then computed other numbers under every slow-path mode. Checks:
#   1. untraced, the program prints what its source says (written by hand
#      from Program.cs), with fully optimised code from the start
#      (DOTNET_TieredCompilation=0) and with tiering (1.5 s of rounds, so
#      that tier-1 code is installed while it runs);
#   2. traced in every mode (default, -a, --no-args, --null, --null=fast,
#      --jit-tail-calls, and the profiler loaded by the CORECLR_* variables
#      alone), both ways: the same stdout, stderr and exit code (the
#      launcher sets DOTNET_TailCallOpt=0, so the fast tail calls with
#      vector arguments run under the hooks with --jit-tail-calls and with
#      the CORECLR_* variables alone);
#   3. the default trace decodes the values of those calls (by hand from
#      Program.cs), shows Outer's call to Fix as an ordinary call, and is
#      balanced; the --jit-tail-calls trace shows it as a fast tail call.
# The checks are the cases of cases/vectors.case (sections tiering, for
# each, and trace).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup vectors "${1:-}" cli

echo "== building tests/targets/Vectors"
app=$(ct_dotnet_build "$root/tests/targets/Vectors" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Vectors failed" >&2; exit 2; }

# round0 FILE: Round(0)'s calls in the trace's tree.
round0() { ct_subtree "$(ct_tree "$1")" "Vectors.Program.Round(int round=0)"; }
outer_fix() { # TREE: Outer's and Fix's lines of Round(0), names and shape only
    grep -E 'Vectors\.Vec\.(Outer|Fix)\(' <<<"$1" | sed -E 's/^( *Vectors\.Vec\.(Outer|Fix)\().*( -> tailcall)$/\1\3/; s/^( *Vectors\.Vec\.Outer\().* \{$/\1/; s/^( *Vectors\.Vec\.Fix\().*/\1/' | ct_dedent
}

cf="$here/cases/vectors.case"
for tiering in optimised tiered; do
    if [[ $tiering == optimised ]]; then jit=(DOTNET_TieredCompilation=0); secs=0
    else jit=(DOTNET_TieredCompilation=1); secs=1.5; fi
    echo "== $tiering code (${jit[*]})"
    ct_cases "$cf" tiering
done
ct_cases "$cf" trace

ct_end run_vectors.sh
