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
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup vectors "${1:-}" cli

echo "== building tests/targets/Vectors"
app=$(ct_dotnet_build "$root/tests/targets/Vectors" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Vectors failed" >&2; exit 2; }

# What Program.cs prints, worked out by hand:
#   v128   (i + 100) ^ 0x5A for i = 1..16
#   v256   (2i) * 3 - 7 for i = 1..8
#   v512   (i ^ 0x100) + 1 for i = 1..8
#   scale  (f + f) * 2 for f = 1.5, -2, 3.25, 8
#   many   Many(10, 9, ..., 1) = sum (k + 1) * (10 - k), k = 0..9 = 220
#   pair   MakePair(5, 3) = {7.5, 2.75}; MakePairF(1.25, 9, 41) = {2.5, 4.5, 42}
#   search "lazy" at 35, first of '0'/'z' at 37 ('z' in "lazy"), last 'o'
#          at 125, Contains and SequenceEqual true
#   bits   0x0123456789ABCDEF: 32 ones, 7 leading zeros, rotl 7 & 7 = 0;
#          >> 13: 22 ones, 20 leading zeros, rotl 7 & 7 = 0
text="The quick brown fox jumps over the lazy dog; THE QUICK BROWN FOX 0123456789 and then some more text, long enough for the vectorised search paths."
expected="v128 <63, 60, 61, 50, 51, 48, 49, 54, 55, 52, 53, 42, 43, 40, 41, 46>
v256 <-1, 5, 11, 17, 23, 29, 35, 41>
v512 <258, 259, 260, 261, 262, 263, 264, 265>
scale <6, -8, 13, 32>
many 220
pair 7.5 2.75 2.5 4.5 42
search 35 37 125 True True
upper ${text^^}
ascii True brown fox jumps over the lazy 
bits 32070 22200
every round the same: True"

modes=("default" "-a" "--no-args" "--null" "--null=fast" "--jit-tail-calls")
for tiering in optimised tiered; do
    if [[ $tiering == optimised ]]; then jit=(DOTNET_TieredCompilation=0); secs=0
    else jit=(DOTNET_TieredCompilation=1); secs=1.5; fi
    echo "== $tiering code (${jit[*]})"
    ct_run "$work" "plain-$tiering" env "${jit[@]}" timeout -k 5 300 dotnet "$app" "$secs"
    check_eq "untraced, $tiering: the program printed what its source says" \
        "$expected" "$(cat "$work/plain-$tiering.out")"
    for mode in "${modes[@]}"; do
        name="${tiering}_${mode//[-=]/}"
        opt=()
        [[ $mode != default ]] && opt=("$mode")
        out="$work/$name.txt"
        [[ $mode == -a ]] && out=/dev/null # the framework's calls: only the program matters here
        ct_run "$work" "$name" env "${jit[@]}" timeout -k 5 900 \
            "$ct" run --profiler "$lib" "${opt[@]}" -o "$out" -- dotnet "$app" "$secs"
        check "traced ($mode), $tiering: stdout, stderr and exit code equal the untraced run's" \
            ct_same_run "$work" "plain-$tiering" "$name"
    done
    # Loaded by the environment alone, as a user might without the launcher.
    ct_run "$work" "$tiering-env" env "${jit[@]}" CORECLR_ENABLE_PROFILING=1 \
        "CORECLR_PROFILER=$CLRTRACE_CLSID" "CORECLR_PROFILER_PATH=$lib" \
        "CLRTRACE_OUTPUT=$work/$tiering-env.txt" timeout -k 5 900 dotnet "$app" "$secs"
    check "traced (CORECLR_* variables only), $tiering: stdout, stderr and exit code equal the untraced run's" \
        ct_same_run "$work" "plain-$tiering" "$tiering-env"
done

echo "== the default trace of optimised code"
t="$work/optimised_default.txt"
first=$(ct_subtree "$(ct_tree "$t")" "Vectors.Program.Round(int round=0)")
want_line() { # DESCRIPTION TEXT: a line of Round(0)'s subtree holds TEXT
    check "$1" grep -qF -- "$2" <<<"$first"
}
want_line "more than 8 double arguments, each decoded" \
    "Vectors.Vec.Many(double d0=10, double d1=9, double d2=8, double d3=7, double d4=6, double d5=5, double d6=4, double d7=3, double d8=2, double d9=1) -> double 220"
want_line "a struct returned in xmm0:xmm1" "Vectors.Vec.MakePair(double a=5, double b=3) -> Pair {A=7.5, B=2.75}"
want_line "a struct of floats and an int returned in xmm0 and rax" \
    "Vectors.Vec.MakePairF(float x=1.25, float y=9, int n=41) -> PairF {X=2.5, Y=4.5, N=42}"
want_line "BitOperations input and result" "Vectors.Vec.Bits(ulong x=81985529216486895) -> int 32070"
outer_fix() { # TREE: Outer's and Fix's lines of Round(0), names and shape only
    grep -E 'Vectors\.Vec\.(Outer|Fix)\(' <<<"$1" | sed -E 's/^( *Vectors\.Vec\.(Outer|Fix)\().*( -> tailcall)$/\1\3/; s/^( *Vectors\.Vec\.Outer\().* \{$/\1/; s/^( *Vectors\.Vec\.Fix\().*/\1/' | ct_dedent
}
# Outer(a, b) => Fix(a + b) is an opportunistic tail call, which the
# launcher's DOTNET_TailCallOpt=0 makes an ordinary call: Fix inside Outer.
check_eq "an opportunistic tail call under the launcher: an ordinary call, Fix inside Outer" \
    "$(printf 'Vectors.Vec.Outer(\n  Vectors.Vec.Fix(')" "$(outer_fix "$first")"
# With --jit-tail-calls it is a fast tail call in optimised code: Outer's
# frame ends as Fix enters, Fix runs at Outer's depth.
# The IL engine's leave probe stands between the call and the ret: the JIT
# makes no tail call of it, Fix runs inside Outer (docs/tracer.md).
if [[ ${CLRTRACE_ENGINE:-il} == il ]]; then
    fast_tail=$(printf 'Vectors.Vec.Outer(\n  Vectors.Vec.Fix(')
else
    fast_tail=$(printf 'Vectors.Vec.Outer( -> tailcall\nVectors.Vec.Fix(')
fi
check_eq "a fast tail call (--jit-tail-calls): Outer ends by the tail call, Fix at its depth (IL engine: Fix inside Outer)" \
    "$fast_tail" \
    "$(outer_fix "$(ct_subtree "$(ct_tree "$work/optimised_jittailcalls.txt")" "Vectors.Program.Round(int round=0)")")"
check "the trace is balanced" ct_balance "$t"
check_eq "no events dropped" 0 "$(summary_dropped "$t")"

ct_end run_vectors.sh
