#!/usr/bin/env bash
# clrtrace run: the launcher. Exit codes pass through, signals are forwarded,
# usage errors are reported, and a real dotnet program is traced through it.
# Usage: tests/e2e/run_launcher.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup launcher "${1:-}" cli

"$ct" run --profiler "$lib" -- sh -c 'exit 7'; rc=$?
check "exit code passes through (7)" test "$rc" -eq 7
"$ct" run --profiler "$lib" -- sh -c 'kill -TERM $$'; rc=$?
check "death by SIGTERM is 128+15" test "$rc" -eq 143
# A child that waits; the launcher receives the signal and must forward it.
# (SIGINT cannot be used here: a background job of a script starts with SIGINT
# ignored, and a shell may not trap a signal ignored on entry.)
for sig in TERM USR1; do
  "$ct" run --profiler "$lib" -- sh -c "trap 'exit 42' $sig; sleep 5 & wait" & lp=$!
  sleep 0.5; kill -"$sig" "$lp"; wait "$lp"; rc=$?
  check "SIG$sig forwarded to the program (its trap exits 42)" test "$rc" -eq 42
done
"$ct" run --profiler "$lib" -- /no/such/program 2>"$work/err"; rc=$?
check "missing program: 127" test "$rc" -eq 127
check "missing program: one clear line" grep -q "cannot run '/no/such/program'" "$work/err"
"$ct" run --profiler "$lib" -s lots -- true 2>"$work/err"; rc=$?
check "bad -s value: usage error 2" test "$rc" -eq 2
check "bad -s value: says why" grep -q "whole number" "$work/err"
"$ct" run --bogus true 2>/dev/null; rc=$?
check "unknown option: 2" test "$rc" -eq 2
"$ct" run --profiler "$lib" -- env > "$work/env"
check "CORECLR_PROFILER is our CLSID" grep -qxF "CORECLR_PROFILER=$CLRTRACE_CLSID" "$work/env"
check "CORECLR_PROFILER_PATH is absolute" grep -qx "CORECLR_PROFILER_PATH=$lib" "$work/env"
# (through a file: grep -q closing the pipe early would kill the writer with
# SIGPIPE, failing the pipeline under pipefail)
"$ct" run --help >"$work/help.txt"
check "--help documents -o" grep -q -- "--output FILE" "$work/help.txt"

# A real program, with -o relative to the current directory.
echo "== building examples/Demo"
app=$(ct_dotnet_build "$root/examples/Demo" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of examples/Demo failed" >&2; exit 2; }
dotnet "$app" > "$work/plain.out"; plain_rc=$?
(cd "$work" && "$ct" run --profiler "$lib" -o trace.txt -- dotnet "${app#"$work"/}" > traced.out); rc=$?
check "traced exit code equals untraced ($plain_rc)" test "$rc" -eq "$plain_rc"
check "traced output equals untraced" cmp -s "$work/plain.out" "$work/traced.out"
check "-o relative path written" test -s "$work/trace.txt"
# Names from examples/Demo/Program.cs.
check "trace shows Demo.Shapes.Scale" grep -q "Demo.Shapes.Scale" "$work/trace.txt"
check "trace shows Demo.Util.Pad" grep -q "Demo.Util.Pad" "$work/trace.txt"

ct_end run_launcher.sh
