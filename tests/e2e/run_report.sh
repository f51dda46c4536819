#!/usr/bin/env bash
# clrtrace report --sort / --top / --percent on a recorded trace of
# tests/targets/Hello. From its source: Fib(5) makes 15 calls (the most of any
# function), Counter.Bump and TryDivide 2 each, everything else 1.
# Usage: run_report.sh PATH/TO/libclrtrace.so
set -uo pipefail
lib=$(readlink -f "${1:?usage: run_report.sh libclrtrace.so}")
root=$(cd "$(dirname "$0")/../.." && pwd)
ct=$(readlink -f "$(dirname "$lib")/../../clrtrace")
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
tmp=$(mktemp -d)
trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
fails=0 passes=0
check() { if "${@:2}"; then echo "ok   $1"; passes=$((passes + 1)); else echo "FAIL $1"; fails=$((fails + 1)); fi; }
rows() { grep -vE '^#' "$1"; }
# A row's column N as nanoseconds ("20.4 us" spans two fields).
to_ns='function ns(v, u) { return v * (u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1) }'

dotnet build "$root/tests/targets/Hello" -c Release -o "$tmp/app" -v quiet -nologo >/dev/null
"$ct" record --profiler "$lib" -o "$tmp/rec" -- dotnet "$tmp/app/Hello.dll" > /dev/null

"$ct" report --sort calls -n 1 "$tmp/rec" > "$tmp/calls.txt"
check "--sort calls -n 1: Fib with its 15 calls" \
  grep -qE '^ +15 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s  Demo\.MathOps\.Fib$' "$tmp/calls.txt"
check "--sort calls -n 1: one row" test "$(rows "$tmp/calls.txt" | wc -l)" -eq 1
"$ct" report --sort calls "$tmp/rec" > "$tmp/calls_all.txt"
check "--sort calls: call counts never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "NR > 1 && \$1 > prev { bad = 1 } { prev = \$1 } END { exit bad }"' "$tmp/calls_all.txt"
check "--sort calls: ten functions (the summary's count)" test "$(rows "$tmp/calls_all.txt" | wc -l)" -eq 10

"$ct" report --sort self "$tmp/rec" > "$tmp/self.txt"
check "--sort self: self times never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "$1 { s = ns(\$4, \$5) } NR > 1 && s > prev { bad = 1 } { prev = s } END { exit bad }"' \
  "$tmp/self.txt" "$to_ns"
"$ct" report "$tmp/rec" > "$tmp/total.txt"
check "default (total): total times never increase down the table" \
  bash -c 'grep -vE "^#" "$0" | awk "$1 { t = ns(\$2, \$3) } NR > 1 && t > prev { bad = 1 } { prev = t } END { exit bad }"' \
  "$tmp/total.txt" "$to_ns"
check "default: same rows as replay's summary" \
  diff <(rows "$tmp/total.txt") <("$ct" replay "$tmp/rec" | sed -n '/^# summary:/,$p' | grep -vE '^#')

"$ct" report --percent "$tmp/rec" > "$tmp/pct.txt"
check "--percent: SELF% adds up to 100 (within rounding)" \
  bash -c 'grep -vE "^#" "$0" | awk "{ gsub(\"%\", \"\", \$7); s += \$7 } END { exit !(s > 99.4 && s < 100.6) }"' "$tmp/pct.txt"
check "--percent: the outermost call (Main) has TOTAL% 100.0" \
  grep -qE ' 100\.0% .*Demo\.Program\.Main$' "$tmp/pct.txt"

"$ct" report --sort size "$tmp/rec" 2>/dev/null; rc=$?
check "--sort size: usage error 2" test "$rc" -eq 2
"$ct" report -n 0 "$tmp/rec" 2>/dev/null; rc=$?
check "-n 0: usage error 2" test "$rc" -eq 2
echo "run_report.sh: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
