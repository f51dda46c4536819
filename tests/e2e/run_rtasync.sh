#!/usr/bin/env bash
# End-to-end test: .NET 11 runtime-async methods (CorMethodImpl Async, no
# state machine) as logical calls (issue 36), tests/targets/RtAsync
# published self-contained on the 11.0.0 runtime pack with the C#
# compiler's runtime-async (a preview feature of the .NET 10 SDK). The
# expected lines are written by hand from the target's source (Program.cs):
# each call's arguments at its first entry, "(async: goes on)" where its
# chain suspends, one end with its result or its exception, resumptions not
# shown as calls.
#
# Usage: tests/e2e/run_rtasync.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. the methods are runtime-async (System.Reflection: MethodImplAttributes
#      Async), and the program prints and exits (5) as its source says;
#   2. the IL engine (the default): traced and untraced runs the same; the
#      main thread's tree as written below (a call that completes at once,
#      one that suspends and ends with its result, an awaited chain (Outer >
#      Inner) both suspending, a throw after resuming (FailLate), one
#      before any await (FailEarly), a Task (Pause), a ValueTask<long>
#      (Twice), an exception coming out of an awaited call (ChainFail), and
#      caught there (Catcher), a chain resumed on the thread pool (HopTwice >
#      Hop, their callees on the pool's threads); report counts each call
#      once; a call left out by --when leaves the rest of the tree as it is;
#   3. the ELT engine and the IL engine's --no-args: the runtime-async
#      methods are not traced (docs/tracer.md), the program is unchanged,
#      the rest traced.
# The checks are the cases of cases/rtasync.case (sections main and tree).
# Exits 77 (skipped) when the 11.0.0 runtime pack does not restore here.
# Ends with "run_rtasync.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup rtasync "${1:-}" cli
# Under tests/e2e/sanitized.sh: what preloads the sanitizers into a program
# started without `dotnet`.
sanit=(${CLRTRACE_SANITIZE_RUN:+"$CLRTRACE_SANITIZE_RUN"})

echo "== publishing tests/targets/RtAsync (net11, runtime-async)"
exe=$(CT_PUBLISH_QUIET=1 ct_dotnet_publish "$root/tests/targets/RtAsync" net11async "$work" -f net10.0 \
    -r linux-x64 --self-contained -p:RuntimeFrameworkVersion=11.0.0 \
    -p:Features=runtime-async=on -p:EnablePreviewFeatures=true) && [[ -n "$exe" ]] ||
    { echo "skip: the .NET 11.0.0 runtime pack does not restore here"; exit 77; }

# others FILE: the lines of the threads but the main one, as ct_calls gives
# them, without time and thread.
others() {
    local pid
    pid=$(ct_pid "$1")
    ct_calls "$1" | awk -v pid="$pid" '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        split(substr($0, 1, RLENGTH), h, " "); if (h[2] == pid) next
        t = substr($0, RLENGTH + 1); sub(/^ *[0-9.]+ [mun]?s  /, "", t); sub(/^ +/, "", t); print t }'
}

cf="$here/cases/rtasync.case"
ct_cases "$cf" main
t=il.txt label="IL: the main thread's calls, as Program.cs makes them" ct_cases "$cf" tree
t=replay.out label="replay: the same main thread" ct_cases "$cf" tree

ct_end run_rtasync.sh
