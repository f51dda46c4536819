#!/usr/bin/env bash
# End-to-end test of the fast-path mode (`--no-args`: SetEnterLeaveFunctionHooks3
# with the assembly stubs of src/agent/engines/elt/asm) on tests/targets/FastPath.
#
# Usage: tests/e2e/run_fastpath.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
#
# Checks:
#   1. the program's results (integer, floating-point, struct-returning and
#      many-argument methods, virtual and interface calls, exceptions,
#      generics; each result feeds the next calls) and exit code are the
#      untraced run's, under: the fast path (text log and binary trace), the
#      fast path with inlining allowed, the empty fast-path stubs
#      (--null=fast), the empty slow-path hooks (--null) and full capture;
#      a few results are also checked against values worked out from
#      Program.cs by hand;
#   2. the fast path's call tree is the slow path's (same calls, same nesting,
#      same endings), with the counts Program.cs implies;
#   3. the binary trace of the fast path replays to its live text log.
# The checks are the cases of cases/fastpath.case.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup fastpath "${1:-}" cli
# The ELT engine's own stubs: never the IL engine, whatever the suite runs.
export CLRTRACE_ENGINE=elt

echo "== building tests/targets/FastPath"
app=$(ct_dotnet_build "$root/tests/targets/FastPath" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/FastPath failed" >&2; exit 2; }

# The tree of a text log: per call line, its indentation and what the line
# is, without times, thread, values: "    Name {", "    Name", "    Name ->
# exception TYPE: MESSAGE", "  }", "  } exception TYPE: MESSAGE". Lines up to
# the summary.
tree() {
    sed '/^# summary: /,$d' "$1" | grep -vE '^(#|$)' | cut -c31- | awk '
        {
            match($0, /^ */); ind = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
            if (rest ~ /^\}/) { out = "}"; if (rest ~ /^\} exception/) out = rest; if (rest ~ / tailcall$/) out = out " tailcall" }
            else {
                out = rest; sub(/\(.*/, "", out)
                if (rest ~ / \{$/) out = out " {"
                else if (match(rest, /\) -> exception( .*)?$/)) out = out substr(rest, RSTART + 1)
                else if (rest ~ / -> tailcall$/) out = out " -> tailcall"
            }
            print ind out
        }'
}
summary_row() { # summary_row FILE CALLS NAME
    # (Throws(5)'s exception adds the EXCEPTIONS column after SELF.)
    grep -qE "^ +$2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +[0-9]+  $3\$" "$1" || { echo "no summary row: $2 calls of $3"; return 1; }
}

ct_cases "$here/cases/fastpath.case"

ct_end run_fastpath.sh
