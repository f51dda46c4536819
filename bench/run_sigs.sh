#!/usr/bin/env bash
# bench/run_sigs.sh — `clrtrace sigs` vs an independent System.Reflection.Metadata
# implementation of the same output (tests/meta/srm) on System.Private.CoreLib,
# side by side in one run: whole processes, best of N each (N=${REPEATS:-7}),
# and the same work timed inside the SRM process after warm-up (--time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
build=${BUILD:-$root/build}
n=${REPEATS:-7}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target clrtrace -j2 >/dev/null
dotnet build "$root/tests/meta/srm" -c Release --artifacts-path "$build/srm-bench" -v quiet -nologo >/dev/null
srm=$(find "$build/srm-bench/bin" -name srmsigs.dll | head -n 1)
fw=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v }')
corelib="$fw/System.Private.CoreLib.dll"
best() { # best wall time in ms of N runs of a command (output discarded)
  local b=999999 t0 t1 ms
  for _ in $(seq "$n"); do
    t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 )); [ "$ms" -lt "$b" ] && b=$ms
  done
  echo "$b"
}
lines=$("$build/clrtrace" sigs "$corelib" | wc -l)
c_ms=$(best "$build/clrtrace" sigs "$corelib")
s_ms=$(best dotnet "$srm" sigs "$corelib")
echo "CoreLib: $lines MethodDefs"
echo "clrtrace sigs (whole process, best of $n): $c_ms ms"
echo "srmsigs sigs  (whole process, best of $n): $s_ms ms"
awk -v s="$s_ms" -v c="$c_ms" 'BEGIN { if (c < 1) c = 1; printf "ratio: clrtrace sigs is %.1fx faster end to end (goal >= 10x)\n", s / c }'
dotnet "$srm" sigs "$corelib" --time 2>&1 >/dev/null | tail -n 1 || true
