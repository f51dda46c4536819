#!/usr/bin/env bash
# Where ASan does not go: the clrtrace command's readers (replay, report,
# dump, the tree filters, sigs) run under valgrind memcheck on a real trace
# and a real assembly; any memcheck error fails the script. (The profiler
# inside dotnet is checked with ASan+UBSan instead: tests/e2e/sanitized.sh -
# valgrind cannot follow CoreCLR's JIT-compiled code usefully.)
# Usage: tests/e2e/run_valgrind_cli.sh [path/to/libclrtrace.so]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
command -v valgrind >/dev/null || { echo "ERROR: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 2; }
ct_setup valgrind "${1:-}" cli

app=$(ct_dotnet_build "$root/tests/targets/Filters" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }
"$ct" record --profiler "$lib" -o "$work/t" -- dotnet "$app" >/dev/null 2>&1
[[ -s "$work/t/trace.clrt" ]] || { echo "ERROR: no trace recorded" >&2; exit 2; }
# A trace cut in the middle of a record (a killed process).
head -c $(( $(stat -c %s "$work/t/trace.clrt") * 2 / 3 + 3 )) "$work/t/trace.clrt" >"$work/cut.clrt"

vg() { # vg NAME ARGS...: clrtrace ARGS under memcheck; errors make it fail
    local name=$1
    shift
    valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        "$ct" "$@" >"$work/$name.out" 2>"$work/$name.err"
    local rc=$?
    if ((rc == 99)) || grep -q '^==[0-9]*== ' "$work/$name.err"; then
        head -n 30 "$work/$name.err"
        return 1
    fi
    return 0
}
check "valgrind: replay" vg replay replay "$work/t"
check "valgrind: report --sort self --percent" vg report report --sort self --percent "$work/t"
check "valgrind: dump" vg dump dump "$work/t"
check "valgrind: dump --folded" vg folded dump --folded "$work/t"
check "valgrind: replay -t 50ms -D 3 -T 'Filt.*' --after 2" vg filt replay -t 50ms -D 3 -T 'Filt.*' --after 2 "$work/t"
check "valgrind: replay of a cut trace (exit 0: incomplete, no memcheck error)" vg cut replay "$work/cut.clrt"
check "valgrind: sigs --members of the traced assembly" vg sigs sigs --members "$app"
check "valgrind: decode" vg decode decode "20 02 08 1d 0e 15 12 08 01 1e 00"
check_eq "valgrind: replay printed the program's calls" 1 \
    "$(grep -c 'Filt.Program.Main(string\[\] args=string\[0\] {}) {' "$work/replay.out")"
ct_end run_valgrind_cli.sh
