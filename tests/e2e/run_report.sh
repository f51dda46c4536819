#!/usr/bin/env bash
# clrtrace report --sort / --top / --percent on a recorded trace of
# tests/targets/Hello. From its source: Fib(5) makes 15 calls (the most of any
# function), Counter.Bump and TryDivide 2 each, everything else 1.
# Usage: tests/e2e/run_report.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup report "${1:-}" cli

rows() { grep -vE '^#' "$1"; }
# A row's column N as nanoseconds ("20.4 us" spans two fields).
to_ns='function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }'

echo "== building tests/targets/Hello"
app=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hello failed" >&2; exit 2; }
"$ct" record --profiler "$lib" -o "$work/rec" -- dotnet "$app" > /dev/null

"$ct" report --sort calls -n 1 "$work/rec" > "$work/calls.txt"
# The EXCEPTIONS column (the second Divide ends by an exception): Fib 0.
check "--sort calls -n 1: Fib with its 15 calls, none ended by an exception" \
  grep -qE '^ +15 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.MathOps\.Fib$' "$work/calls.txt"
check "--sort calls -n 1: one row" test "$(rows "$work/calls.txt" | wc -l)" -eq 1
"$ct" report --sort calls "$work/rec" > "$work/calls_all.txt"
check "--sort calls: call counts never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "NR > 1 && \$1 > prev { bad = 1 } { prev = \$1 } END { exit bad }"' "$work/calls_all.txt"
check "--sort calls: ten functions (the summary's count)" test "$(rows "$work/calls_all.txt" | wc -l)" -eq 10
check_eq "EXCEPTIONS: Divide's 2 calls, 1 ended by its exception" "2 1" \
  "$(awk '$NF == "Demo.MathOps.Divide" { print $1, $(NF - 1) }' "$work/calls_all.txt")"
check_eq "EXCEPTIONS: the header" "#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION" \
  "$(grep '^#  CALLS' "$work/calls_all.txt")"

"$ct" report --sort self "$work/rec" > "$work/self.txt"
check "--sort self: self times never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "$1 { s = ns(\$4, \$5) } NR > 1 && s > prev { bad = 1 } { prev = s } END { exit bad }"' \
  "$work/self.txt" "$to_ns"
"$ct" report "$work/rec" > "$work/total.txt"
check "default (total): total times never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "$1 { t = ns(\$2, \$3) } NR > 1 && t > prev { bad = 1 } { prev = t } END { exit bad }"' \
  "$work/total.txt" "$to_ns"
check "default: same rows as replay's summary" \
  diff <(rows "$work/total.txt") <("$ct" replay "$work/rec" | sed -n '/^# summary:/,$p' | grep -vE '^#')

"$ct" report --percent "$work/rec" > "$work/pct.txt"
check "--percent: SELF% adds up to 100 (within rounding)" \
  bash -c 'grep -vE "^#" "$0" | awk "{ gsub(\"%\", \"\", \$7); s += \$7 } END { exit !(s > 99.4 && s < 100.6) }"' "$work/pct.txt"
check "--percent: the outermost call (Main) has TOTAL% 100.0" \
  grep -qE ' 100\.0% .*Demo\.Program\.Main$' "$work/pct.txt"

"$ct" report --sort size "$work/rec" 2>/dev/null; rc=$?
check "--sort size: usage error 2" test "$rc" -eq 2
"$ct" report -n 0 "$work/rec" 2>/dev/null; rc=$?
check "-n 0: usage error 2" test "$rc" -eq 2

ct_end run_report.sh
