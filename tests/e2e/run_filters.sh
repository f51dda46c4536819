#!/usr/bin/env bash
# Filters: -F/--include and -N/--exclude globs on full names (CLRTRACE_INCLUDE /
# CLRTRACE_EXCLUDE). Expected names come from examples/Demo/Program.cs and, for
# the framework case, from String.PadRight(int totalWidth), which Util.Pad calls.
# Usage: run_filters.sh PATH/TO/libclrtrace.so
set -uo pipefail
lib=$(readlink -f "${1:?usage: run_filters.sh libclrtrace.so}")
root=$(cd "$(dirname "$0")/../.." && pwd)
ct=$(readlink -f "$(dirname "$lib")/../../clrtrace")
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
tmp=$(mktemp -d)
trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
fails=0 passes=0
check() { if "${@:2}"; then echo "ok   $1"; passes=$((passes + 1)); else echo "FAIL $1"; fails=$((fails + 1)); fi; }
has() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -v '^#' "$1" | grep -qF -- "$2"; }  # call lines only: the header names the filter

dotnet build "$root/examples/Demo" -c Release -o "$tmp/demo" -v quiet -nologo >/dev/null
dotnet "$tmp/demo/Demo.dll" > "$tmp/plain.out"; plain_rc=$?
run() { # run NAME OPTIONS...
  "$ct" run --profiler "$lib" -o "$tmp/$1.txt" "${@:2}" -- dotnet "$tmp/demo/Demo.dll" > "$tmp/$1.out"
  local rc=$?
  check "$1: exit code unchanged" test "$rc" -eq "$plain_rc"
  check "$1: output unchanged" cmp -s "$tmp/plain.out" "$tmp/$1.out"
}

run include -F 'Demo.Util.*'
check "include: Util.Pad traced" has "$tmp/include.txt" 'Demo.Util.Pad(string s="run", int width=8) -> string "run     "'
check "include: Util.Sum traced" has "$tmp/include.txt" 'Demo.Util.Sum(int[] xs=int[3] {1, 2, 3}) -> int 6'
check "include: Shapes.Scale not traced" lacks "$tmp/include.txt" 'Demo.Shapes.Scale('
check "include: Main not traced" lacks "$tmp/include.txt" 'Demo.Program.Main('

run exclude -N 'Demo.Util.*' -N '*..ctor'
check "exclude: Main traced" has "$tmp/exclude.txt" 'Demo.Program.Main('
check "exclude: Shapes.Scale traced" has "$tmp/exclude.txt" 'Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}'
check "exclude: no Util calls" lacks "$tmp/exclude.txt" 'Demo.Util.'
check "exclude: no constructors" lacks "$tmp/exclude.txt" '..ctor('

run framework -F 'System.String.PadRight' -F 'Demo.Util.Pad'
check "framework by include: String.PadRight traced" has "$tmp/framework.txt" 'System.String.PadRight('
check "framework by include: its argument" has "$tmp/framework.txt" 'int totalWidth=8'
check "framework by include: nested under Util.Pad" grep -qE '^ +[0-9.]+ +[0-9]+ +Demo\.Util\.Pad\(string s="run", int width=8\) \{$' "$tmp/framework.txt"
check "framework by include: String.Trim not traced" lacks "$tmp/framework.txt" 'System.String.Trim('

"$ct" run --profiler "$lib" -F '' -- true 2>"$tmp/err"; rc=$?
check "empty pattern: usage error 2" test "$rc" -eq 2
CLRTRACE_INCLUDE="$(head -c 5000 /dev/zero | tr '\0' 'x')" CORECLR_ENABLE_PROFILING=1 \
  CORECLR_PROFILER='{8B4B2E65-C262-4FCC-BAE6-2A302612F038}' CORECLR_PROFILER_PATH="$lib" \
  CLRTRACE_OUTPUT="$tmp/long.txt" dotnet "$tmp/demo/Demo.dll" > "$tmp/long.out" 2> "$tmp/long.err"; rc=$?
check "over-long CLRTRACE_INCLUDE: program unharmed" test "$rc" -eq "$plain_rc"
check "over-long CLRTRACE_INCLUDE: one error line" test "$(wc -l < "$tmp/long.err")" -eq 1

echo "run_filters.sh: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
