#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Values with libclrtrace.so and check
# that every kind of argument and return value is decoded.
#
# Usage: tests/e2e/run_values.sh [path/to/libclrtrace.so]
#
# Without an argument (or CLRTRACE_LIB), the profiler is built with CMake
# into a temporary directory. Checks:
#   1. traced and untraced runs print the same stdout and exit with the same
#      code (7); the traced run writes nothing to stderr;
#   2. the decoded call lines, written by hand from the target's C# source
#      (Kinds.cs, Abi.cs, Generics.cs, Program.cs), are in the trace;
#   3. the trace's shape: header, one timed line per call, balanced blocks,
#      a summary whose counts match the lines and whose times add up;
#   4. the limits (CLRTRACE_STRING_CHARS, CLRTRACE_ARRAY_ITEMS,
#      CLRTRACE_STRUCT_DEPTH) at their value and one past it, and
#      CLRTRACE_SUMMARY=0;
#   5. bad option values: one stderr line, an untraced run, same output and
#      exit code;
#   6. CLRTRACE_ALL=1 (every framework method planned too) runs unchanged.
# Checks 2 and 4-6 are the cases of cases/values.case (lib_cases.sh).
# Ends with "run_values.sh: N passed, M failed"; exits non-zero when a check
# failed (2 when the setup did).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
# The profiler (built when no library is given), the work directory.
ct_setup values "${1:-}"

# --------------------------------------------------------------- the target
echo "== building tests/targets/Values"
app=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }

# The settings that load the profiler, for run_traced (lib_checks.sh).

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 7" 7 "$(cat "$work/plain.rc")"
check "untraced stdout has simple=-111 (Abi.SimpleArgs)" grep -qx 'simple=-111' "$work/plain.out"
trace="$work/traced.txt"
run_traced traced --
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"
check "the traced run wrote a trace to $trace" test -s "$trace"
[[ -s "$trace" ]] || { echo "ERROR: the traced run wrote no trace (is the profiler loading?)" >&2; exit 2; }

# ----------------------------------------------------------- 3. its shape
echo "== trace shape"
ct_has_re "$trace" 1 '^# clrtrace: dotnet .*Values\.dll, pid [0-9]+, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z, filter: my code \(framework by public key token\)$'
ct_has "$trace" 1 '#  TIME(s)    TID   DURATION  CALL'
# The call lines: everything before the summary that is not a comment.
calls=$(sed '/^# summary: /,$d' "$trace" | grep -vE '^(#|$)' || true)
bad=$(grep -vE '^ *[0-9]+\.[0-9]{6} +[0-9]+ ' <<<"$calls" || true)
check_eq "every call line has a time and a thread" "" "$(head -n 3 <<<"$bad")"
others=$(grep -vE '^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mu]?s)? +((iterator )?Demo\.|\})' <<<"$calls" || true)
check_eq "no calls outside Demo with the default filter" "" "$(head -n 3 <<<"$others")"
# Two threads: Main's and the worker's (Program.cs starts one Thread).
main_tid=$(grep -F 'Demo.Program.Main(' "$trace" | awk '{print $2}')
worker_tid=$(grep -F 'Demo.Worker.Run(int n=12) -> int 144' "$trace" | awk '{print $2}')
check "Worker.Run runs on its own thread (main $main_tid, worker $worker_tid)" \
    test -n "$main_tid" -a -n "$worker_tid" -a "$main_tid" != "$worker_tid"
# Per thread, every "{" is closed by a "}".
for tid in $main_tid $worker_tid; do
    opens=$(awk -v t="$tid" '$2 == t && / \{$/' "$trace" | wc -l)
    closes=$(awk -v t="$tid" '$2 == t && / \}( |$)/' "$trace" | wc -l)
    check_eq "thread $tid: as many blocks closed as opened ($opens)" "$opens" "$closes"
done
# Every call ends on exactly one line with a duration: the summary's call
# count is the number of such lines; its function count the table's rows.
timed=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s ' "$trace" || true)
summary=$(grep -E '^# summary: ' "$trace" || true)
# (The match is made here, not inside `check`, which runs its command in a
# subshell: BASH_REMATCH is read below.)
if [[ "$summary" =~ ^#\ summary:\ ([0-9]+)\ calls,\ ([0-9]+)\ functions,\ 2\ threads,\ 0\ events\ dropped$ ]]; then
    ct_ok "summary line: N calls, M functions, 2 threads, 0 events dropped"
else
    ct_fail "summary line: N calls, M functions, 2 threads, 0 events dropped" "actual: '$summary'"
fi
check_eq "the summary's call count is the trace's timed lines" "$timed" "${BASH_REMATCH[1]:-?}"
# (Thrower's exception adds the EXCEPTIONS column after SELF.)
rows=$(sed -n '/^#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION$/,/^# clrtrace: shutdown/p' "$trace" | grep -cE '^ +[0-9]+ ' || true)
check_eq "the summary's function count is its table's rows" "$rows" "${BASH_REMATCH[2]:-?}"
# Per function: the calls in the table are the lines ending a call of it
# (Show is called once per result line of stdout).
shows=$(wc -l <"$work/plain.out")
ct_has_re "$trace" 1 "^ +$shows +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Program\.Show\$"
# Box<T>.Get: the shared code's two calls (string, Circle); the IL engine
# tells them apart (Box<string>.Get once).
if [[ ${CLRTRACE_ENGINE:-il} == il ]]; then
    ct_has_re "$trace" 1 '^ +1 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Box<string>\.Get$'
else
    ct_has_re "$trace" 1 '^ +2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Box<T>\.Get$'
fi
ct_has_re "$trace" 1 '^ +1 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +1  Demo\.Thrower\.Fail$'
# SELF adds up to the TOTAL of the two outermost calls (Main and the
# worker's lambda), within the table's rounding (0.05 us a row and 0.05 ms
# for rows printed in ms).
check "summary times add up (SELF never above TOTAL; SELF sums to the roots' TOTAL)" awk '
    function ns(v, u) { return u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
    /^#  CALLS/ { on = 1; next }
    /^# / { on = 0 }
    on && NF >= 7 {
        self += ns($4, $5); slack += ($5 == "us" ? 50 : $5 == "ms" ? 5e4 : 5e6)
        if ($7 == "Demo.Program.Main" || $7 ~ /^Demo\.Program\.<>c__DisplayClass[0-9_]+\.<Main>b__/)
            { roots += ns($2, $3); slack += ($3 == "us" ? 50 : $3 == "ms" ? 5e4 : 5e6) }
        if (ns($4, $5) > ns($2, $3) + 1e-9) bad = bad " " $7
    }
    END {
        if (bad != "") { print "SELF above TOTAL for" bad; exit 1 }
        d = self - roots; if (d < 0) d = -d
        if (d > slack) { printf "SELF sums to %.0f ns, roots TOTAL %.0f ns\n", self, roots; exit 1 }
    }' "$trace"

# ------------------------------------- 2, 4, 5, 6. the cases (cases/values.case)
# hunter2_utf16 FILE: 1 when FILE holds the UTF-16 bytes of "hunter2", else 0.
hunter2_utf16() { LC_ALL=C grep -q -a -P 'h\x00u\x00n\x00t\x00e\x00r\x002\x00' "$1" && echo 1 || echo 0; }
ct_cases "$here/cases/values.case"

if ((ct_fails)); then
    echo "---- trace (first 60 lines of $trace) ----"
    head -n 60 "$trace"
fi
ct_end run_values.sh
