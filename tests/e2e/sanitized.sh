#!/usr/bin/env bash
# The end-to-end suite with an ASan+UBSan build of the profiler loaded into
# real dotnet processes (issue 6, "Sanitizers"). dotnet itself is not built
# with ASan, so libasan is preloaded - only into the traced processes: a
# `dotnet` wrapper first in PATH adds LD_PRELOAD when CORECLR_ENABLE_PROFILING
# is set (the launcher and the scripts' own env runs both find it there), or
# CLRTRACE_PRELOAD_SANITIZERS=1 (a process that clrtrace -p will attach to:
# run_attach.sh sets it).
# Every sanitizer report goes to a log file; the run fails if there is one.
#
# ASAN_OPTIONS: detect_leaks=0 (the runtime's own allocations at exit are not
# ours to free, and LeakSanitizer cannot follow a process that exits from a
# signal handler), handle_segv=0 and allow_user_segv_handler=1 (CoreCLR turns
# SIGSEGV into NullReferenceException: ASan must leave it alone).
#
# Usage: tests/e2e/sanitized.sh BUILD-ASAN-DIR [SCRIPT...]
#   default: the e2e tests of BUILD-ASAN-DIR's ctest (every tests/e2e/run_*.sh
#   with that build's profiler) but e2e.valgrind_cli and the IL suite's
#   e2e.elt.*, run by `ctest -j2` as in the gcc build (the tests that measure
#   time alone: tests/e2e/CMakeLists.txt); with SCRIPTs, those, one by one.
#   The stress section runs small (HARD_STRESS_CALLS, default 200000 here).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "${1:?usage: sanitized.sh BUILD-ASAN-DIR [SCRIPT...]}" && pwd)
shift
lib="$build/src/agent/libclrtrace.so"
[[ -f "$lib" ]] || { echo "ERROR: no $lib (configure with -DCLRTRACE_SANITIZE=ON)" >&2; exit 2; }
asan=$(ldd "$lib" | awk '/libasan\.so/ { print $3 }')
ubsan=$(ldd "$lib" | awk '/libubsan\.so/ { print $3 }')
[[ -n "$asan" ]] || { echo "ERROR: $lib is not linked with libasan" >&2; exit 2; }
real_dotnet=$(command -v dotnet) || { echo "ERROR: no dotnet" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-sanitized.XXXXXX")
trap '[[ $BASHPID != $$ ]] || { rm -rf "$work"; }' EXIT
mkdir -p "$work/bin" "$work/logs"
cat >"$work/bin/dotnet" <<WRAP
#!/bin/bash
if [ "\${CORECLR_ENABLE_PROFILING:-}" = 1 ] || [ "\${CLRTRACE_PRELOAD_SANITIZERS:-}" = 1 ]; then
    LD_PRELOAD="$asan${ubsan:+:$ubsan}\${LD_PRELOAD:+:\$LD_PRELOAD}"
    ASAN_OPTIONS="detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:log_path=$work/logs/asan"
    UBSAN_OPTIONS="print_stacktrace=1:log_path=$work/logs/ubsan"
    export LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS
    echo x >>"$work/uses"
fi
exec -a dotnet "$real_dotnet" "\$@"
WRAP
chmod +x "$work/bin/dotnet"
# The same for a program started by its apphost (./App, not dotnet App.dll:
# tests/e2e/run_published.sh): CLRTRACE_SANITIZE_RUN PROGRAM ARGS...
sed -e 's|^exec -a dotnet .*|exec "\$@"|' "$work/bin/dotnet" >"$work/bin/ct-sanitize"
chmod +x "$work/bin/ct-sanitize"
export CLRTRACE_SANITIZE_RUN="$work/bin/ct-sanitize"
export PATH="$work/bin:$PATH"
export HARD_STRESS_CALLS=${HARD_STRESS_CALLS:-200000}

failed=0
if (($# == 0)); then
    # All but e2e.valgrind_cli: valgrind cannot run ASan-built programs; and
    # not the ELT suite, which runs the others again with the ELT engine: its
    # engine's code runs under the sanitizers in run_fastpath.sh and
    # run_ilengine.sh (both engines).
    ran=$(cd "$build" && ctest -N -L e2e -E '^e2e\.(elt\..*|valgrind_cli)$' | sed -n 's/^Total Tests: //p')
    (cd "$build" && ctest --output-on-failure -j2 -L e2e -E '^e2e\.(elt\..*|valgrind_cli)$') || failed=1
    what="$ran tests, ctest $( ((failed)) && echo failed || echo passed)"
else
    for s in "$@"; do
        echo "=== $(basename "$s") (ASan+UBSan profiler)"
        if ! bash "$s" "$lib" >"$work/out.txt" 2>&1; then
            failed=$((failed + 1))
            grep -E '^FAIL|ERROR' -A3 "$work/out.txt" | head -40
        fi
        tail -n 1 "$work/out.txt"
    done
    what="$# scripts, $failed failed"
fi
reports=$(find "$work/logs" -type f | wc -l)
if ((reports)); then
    echo "sanitizer reports: $reports"
    for f in "$work"/logs/*; do echo "--- $f"; head -n 40 "$f"; done
fi
# The wrapper really ran for traced processes (the profiler itself cannot
# load without libasan preloaded: ASan refuses to start when it is not the
# first library, and the traces the scripts check would be missing).
uses=$(cat "$work/uses" 2>/dev/null | wc -l)
echo "sanitized.sh: $what, $reports sanitizer reports," \
    "$uses traced dotnet processes under ASan"
((failed == 0 && reports == 0 && uses > 0))
