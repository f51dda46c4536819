#!/usr/bin/env bash
# clrtrace run: the launcher. Exit codes pass through, signals are forwarded,
# usage errors are reported, and a real dotnet program is traced through it.
# Usage: run_launcher.sh PATH/TO/libclrtrace.so   (clrtrace is found beside the build)
set -uo pipefail
lib=$(readlink -f "${1:?usage: run_launcher.sh libclrtrace.so}")
root=$(cd "$(dirname "$0")/../.." && pwd)
ct=$(readlink -f "$(dirname "$lib")/../../clrtrace")
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
tmp=$(mktemp -d)
trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
fails=0
check() { # check DESCRIPTION CONDITION...
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}

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
"$ct" run --profiler "$lib" -- /no/such/program 2>"$tmp/err"; rc=$?
check "missing program: 127" test "$rc" -eq 127
check "missing program: one clear line" grep -q "cannot run '/no/such/program'" "$tmp/err"
"$ct" run --profiler "$lib" -s lots -- true 2>"$tmp/err"; rc=$?
check "bad -s value: usage error 2" test "$rc" -eq 2
check "bad -s value: says why" grep -q "whole number" "$tmp/err"
"$ct" run --bogus true 2>/dev/null; rc=$?
check "unknown option: 2" test "$rc" -eq 2
"$ct" run --profiler "$lib" -- env > "$tmp/env"
check "CORECLR_PROFILER is our CLSID" grep -qx 'CORECLR_PROFILER={8B4B2E65-C262-4FCC-BAE6-2A302612F038}' "$tmp/env"
check "CORECLR_PROFILER_PATH is absolute" grep -qx "CORECLR_PROFILER_PATH=$lib" "$tmp/env"
"$ct" run --help | grep -q -- "--output FILE"
check "--help documents -o" test $? -eq 0

# A real program, with -o relative to the current directory.
dotnet build "$root/examples/Demo" -c Release -o "$tmp/demo" -v quiet -nologo >/dev/null
dotnet "$tmp/demo/Demo.dll" > "$tmp/plain.out"; plain_rc=$?
(cd "$tmp" && "$ct" run --profiler "$lib" -o trace.txt -- dotnet demo/Demo.dll > traced.out); rc=$?
check "traced exit code equals untraced ($plain_rc)" test "$rc" -eq "$plain_rc"
check "traced output equals untraced" cmp -s "$tmp/plain.out" "$tmp/traced.out"
check "-o relative path written" test -s "$tmp/trace.txt"
# Names from examples/Demo/Program.cs.
check "trace shows Demo.Shapes.Scale" grep -q "Demo.Shapes.Scale" "$tmp/trace.txt"
check "trace shows Demo.Util.Pad" grep -q "Demo.Util.Pad" "$tmp/trace.txt"

if [ "$fails" -ne 0 ]; then echo "run_launcher.sh: $fails check(s) failed"; exit 1; fi
echo "run_launcher.sh: all checks passed"
