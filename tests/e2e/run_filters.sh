#!/usr/bin/env bash
# Filters: -F/--include and -N/--exclude globs on full names (CLRTRACE_INCLUDE /
# CLRTRACE_EXCLUDE). Expected names come from examples/Demo/Program.cs and, for
# the framework case, from String.PadRight(int totalWidth), which Util.Pad calls.
# Usage: tests/e2e/run_filters.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup filters "${1:-}" cli

has() { grep -qF -- "$2" "$1"; }
# lacks FILE TEXT: no call line (the header names the filter) holds TEXT. No
# grep -q: its early exit would kill grep -v with SIGPIPE, which pipefail counts.
lacks() { ! grep -v '^#' "$1" | grep -F -- "$2" >/dev/null; }

echo "== building examples/Demo"
app=$(ct_dotnet_build "$root/examples/Demo" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of examples/Demo failed" >&2; exit 2; }
dotnet "$app" > "$work/plain.out"; plain_rc=$?
run() { # run NAME OPTIONS...
  "$ct" run --profiler "$lib" -o "$work/$1.txt" "${@:2}" -- dotnet "$app" > "$work/$1.out"
  local rc=$?
  check "$1: exit code unchanged" test "$rc" -eq "$plain_rc"
  check "$1: output unchanged" cmp -s "$work/plain.out" "$work/$1.out"
}

run include -F 'Demo.Util.*'
check "include: Util.Pad traced" has "$work/include.txt" 'Demo.Util.Pad(string s="run", int width=8) -> string "run     "'
check "include: Util.Sum traced" has "$work/include.txt" 'Demo.Util.Sum(int[] xs=int[3] {1, 2, 3}) -> int 6'
check "include: Shapes.Scale not traced" lacks "$work/include.txt" 'Demo.Shapes.Scale('
check "include: Main not traced" lacks "$work/include.txt" 'Demo.Program.Main('

run exclude -N 'Demo.Util.*' -N '*..ctor'
check "exclude: Main traced" has "$work/exclude.txt" 'Demo.Program.Main('
check "exclude: Shapes.Scale traced" has "$work/exclude.txt" 'Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}'
check "exclude: no Util calls" lacks "$work/exclude.txt" 'Demo.Util.'
check "exclude: no constructors" lacks "$work/exclude.txt" '..ctor('

run framework -F 'System.String.PadRight' -F 'Demo.Util.Pad'
check "framework by include: String.PadRight traced" has "$work/framework.txt" 'System.String.PadRight('
check "framework by include: its argument" has "$work/framework.txt" 'int totalWidth=8'
check "framework by include: nested under Util.Pad" grep -qE '^ +[0-9.]+ +[0-9]+ +Demo\.Util\.Pad\(string s="run", int width=8\) \{$' "$work/framework.txt"
check "framework by include: String.Trim not traced" lacks "$work/framework.txt" 'System.String.Trim('

"$ct" run --profiler "$lib" -F '' -- true 2>"$work/err"; rc=$?
check "empty pattern: usage error 2" test "$rc" -eq 2
CLRTRACE_INCLUDE="$(head -c 5000 /dev/zero | tr '\0' 'x')" CORECLR_ENABLE_PROFILING=1 \
  CORECLR_PROFILER="$CLRTRACE_CLSID" CORECLR_PROFILER_PATH="$lib" \
  CLRTRACE_OUTPUT="$work/long.txt" dotnet "$app" > "$work/long.out" 2> "$work/long.err"; rc=$?
check "over-long CLRTRACE_INCLUDE: program unharmed" test "$rc" -eq "$plain_rc"
check "over-long CLRTRACE_INCLUDE: one error line" test "$(wc -l < "$work/long.err")" -eq 1

ct_end run_filters.sh
