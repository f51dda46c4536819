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

echo "== building examples/Demo"
app=$(ct_dotnet_build "$root/examples/Demo" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of examples/Demo failed" >&2; exit 2; }
run_plain plain
plain_rc=$(cat "$work/plain.rc")
demo() { "$ct" run --profiler "$lib" -o "$work/$1.txt" "${@:2}" -- dotnet "$app"; }
ct_cases "$here/cases/filters.case"

"$ct" run --profiler "$lib" -F '' -- true 2>"$work/err"; rc=$?
check "empty pattern: usage error 2" test "$rc" -eq 2
CLRTRACE_INCLUDE="$(head -c 5000 /dev/zero | tr '\0' 'x')" CORECLR_ENABLE_PROFILING=1 \
  CORECLR_PROFILER="$CLRTRACE_CLSID" CORECLR_PROFILER_PATH="$lib" \
  CLRTRACE_OUTPUT="$work/long.txt" dotnet "$app" > "$work/long.out" 2> "$work/long.err"; rc=$?
check "over-long CLRTRACE_INCLUDE: program unharmed" test "$rc" -eq "$plain_rc"
check "over-long CLRTRACE_INCLUDE: one error line" test "$(wc -l < "$work/long.err")" -eq 1

ct_end run_filters.sh
