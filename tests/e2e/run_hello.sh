#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Hello with libclrtrace.so in a real
# `dotnet` process.
#
# Usage: tests/e2e/run_hello.sh [path/to/libclrtrace.so]
#
# Without an argument (or CLRTRACE_LIB), the profiler is built with CMake
# into a temporary directory. Checks:
#   1. the traced run prints the same stdout and exits with the same code (3)
#      as the untraced run, and writes nothing to stderr;
#   2. the trace holds the calls expected from Program.cs, with their counts,
#      decoded arguments and return values, and its blocks are balanced;
#   3. the default filter keeps framework code out; CLRTRACE_ALL=1 lets it in;
#   4. an unwritable CLRTRACE_OUTPUT gives exactly one stderr line and an
#      untouched run.
# Ends with "run_hello.sh: N passed, M failed"; exits non-zero when a check
# failed (2 when the setup did).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
# The profiler (built when no library is given), the work directory.
ct_setup hello "${1:-}"

# --------------------------------------------------------------- the target
echo "== building tests/targets/Hello"
# --artifacts-path keeps bin/ and obj/ out of the source tree.
app=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hello failed" >&2; exit 2; }

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 3" 3 "$(cat "$work/plain.rc")"
expected_stdout=$'sum=5\nscaled=6\nfib=5\nHello, clrtrace!!\nbumped=10\ndivide=3; error: b must not be zero'
check_eq "untraced stdout is what Program.cs prints" "$expected_stdout" "$(cat "$work/plain.out")"

trace="$work/traced.txt"
run_traced traced --
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"
check "the traced run wrote a trace to $trace" test -s "$trace"
[[ -s "$trace" ]] || { echo "ERROR: the traced run wrote no trace to $trace (is the profiler loading?)" >&2; exit 2; }

# The "run this, expect these lines" checks: cases/hello.case (lib_cases.sh).
ct_cases "$here/cases/hello.case"
# Every call line belongs to Demo (the filter); blocks open and close in
# pairs; 27 calls end on a line with a duration (Main 1, Add 1, Scale 1,
# Fib 15, Greeter..ctor 1, Greet 1, Counter..ctor 1, Bump 2, TryDivide 2,
# Divide 2).
calls=$(sed '/^# summary: /,$d' "$trace" | grep -vE '^(#|$)' || true)
others=$(grep -vE '^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mu]?s)? +(Demo\.|\})' <<<"$calls" || true)
check_eq "trace: no calls outside Demo with the default filter" "" "$(head -n 3 <<<"$others")"
opens=$(grep -cE ' \{$' <<<"$calls" || true)
closes=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\}' <<<"$calls" || true)
check_eq "trace: as many blocks closed as opened ($opens)" "$opens" "$closes"
timed=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s ' <<<"$calls" || true)
check_eq "trace: 27 calls end on a line with a duration" 27 "$timed"

if ((ct_fails)); then
    echo "---- trace ($trace) ----"
    head -n 80 "$trace"
fi
ct_end run_hello.sh
