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

# ------------------------------------------------------------- 2. the trace
echo "== trace contents"
# count|extended regex, one line of the trace each. Written from Program.cs:
# Fib(5) makes 15 calls (Fib(1) five times and Fib(0) three times are
# leaves, folded onto one line; Fib(2) three times, Fib(3) twice, Fib(4) and
# Fib(5) have children and open blocks); Bump, TryDivide and Divide run
# twice; the second Divide leaves by an exception, an ArgumentException("b
# must not be zero"), which the summary's EXCEPTIONS column counts. Values are shown as
# `type name=value`, returns as `-> type value`, objects as Class@address.
a='0x[0-9a-f]+'
expect=(
    '1|^# clrtrace: dotnet .*Hello\.dll, pid [0-9]+, [0-9-]+T[0-9:]+Z, filter: my code \(framework by public key token\)$'
    '1|^#  TIME\(s\)    TID   DURATION  CALL$'
    '1|^ *[0-9.]+ +[0-9]+ {13}Demo\.Program\.Main\(string\[\] args=string\[0\] \{\}\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {4}Demo\.MathOps\.Add\(int a=2, int b=3\) -> int 5$'
    '1| Demo\.MathOps\.Scale\(double x=1\.5, double k=4\) -> double 6$'
    '1| Demo\.MathOps\.Fib\(int n=5\) \{$'
    '1| Demo\.MathOps\.Fib\(int n=4\) \{$'
    '2| Demo\.MathOps\.Fib\(int n=3\) \{$'
    '3| Demo\.MathOps\.Fib\(int n=2\) \{$'
    '5| Demo\.MathOps\.Fib\(int n=1\) -> int 1$'
    '3| Demo\.MathOps\.Fib\(int n=0\) -> int 0$'
    '1| \} -> int 5$'
    '2| \} -> int 3$'
    '2| \} -> int 2$'
    '3| \} -> int 1$'
    "1| Demo\\.Greeter\\.\\.ctor\\(this=Demo\\.Greeter@$a, string greeting=\"Hello\"\\)\$"
    "1| Demo\\.Greeter\\.Greet\\(this=Demo\\.Greeter@$a, string name=\"clrtrace\", int times=3\\) -> string \"Hello, clrtrace!!\"\$"
    "1| Demo\\.Greeter\\.Counter\\.\\.ctor\\(this=Demo\\.Greeter\\.Counter@$a\\)\$"
    "1| Demo\\.Greeter\\.Counter\\.Bump\\(this=Demo\\.Greeter\\.Counter@$a, int by=4\\) -> int 4\$"
    "1| Demo\\.Greeter\\.Counter\\.Bump\\(this=Demo\\.Greeter\\.Counter@$a, int by=6\\) -> int 10\$"
    '1| Demo\.MathOps\.TryDivide\(int a=7, int b=2\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {6}Demo\.MathOps\.Divide\(int a=7, int b=2\) -> int 3$'
    '1| \} -> string "3"$'
    '1| Demo\.MathOps\.TryDivide\(int a=1, int b=0\) \{$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s {6}Demo\.MathOps\.Divide\(int a=1, int b=0\) -> exception System\.ArgumentException: "b must not be zero"$'
    '1| \} -> string "error: b must not be zero"$'
    '1|^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s  \} -> int 3$'
    '1|^# summary: 27 calls, 10 functions, 1 thread, 0 events dropped$'
    '1|^#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION$'
    '1|^ +15 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.MathOps\.Fib$'
    '1|^ +2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +1  Demo\.MathOps\.Divide$'
    '1|^# clrtrace: shutdown, [0-9]+ functions JIT-compiled, 10 traced$'
)
for e in "${expect[@]}"; do
    want=${e%%|*}
    re=${e#*|}
    check_eq "trace: $want line(s) matching /$re/" "$want" "$(grep -cE -- "$re" "$trace")"
done

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

# --------------------------------------------------- 3. CLRTRACE_ALL=1
echo "== CLRTRACE_ALL=1"
run_traced all CLRTRACE_ALL=1 --
ct_same_as_plain all
check "CLRTRACE_ALL=1: framework (System.*) calls in the trace" \
    grep -qE '^ *[0-9.]+ +[0-9]+ .* System\.' "$work/all.txt"
check "CLRTRACE_ALL=1: Demo.MathOps.Add in the trace" \
    grep -qE ' Demo\.MathOps\.Add\(int a=2, int b=3\) -> int 5$' "$work/all.txt"

# ------------------------------------------- 4. unwritable CLRTRACE_OUTPUT
echo "== unwritable CLRTRACE_OUTPUT"
bad="$work/no-such-dir/trace.txt"
run_traced badout "CLRTRACE_OUTPUT=$bad" --
ct_same_as_plain badout
check_eq "unwritable output: 1 stderr line" 1 "$(wc -l <"$work/badout.err")"
check "unwritable output: the message says why and that the program runs untraced" \
    grep -qE '^clrtrace: cannot write the trace to CLRTRACE_OUTPUT=.*no-such-dir/trace\.txt \(No such file or directory\); the program runs untraced$' \
    "$work/badout.err"
check "unwritable output: $bad does not exist" test ! -e "$bad"

if ((ct_fails)); then
    echo "---- trace ($trace) ----"
    head -n 80 "$trace"
fi
ct_end run_hello.sh
