#!/usr/bin/env bash
# bench/run.sh — libclrsig vs System.Reflection.Metadata on every MethodDef
# signature of System.Private.CoreLib, same machine, same run. Prints both
# figures and the ratio.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
build=${BUILD:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target bench_sigs -j2 >/dev/null
dotnet build "$root/tests/oracle" -c Release -o "$build/oracle" >/dev/null
fw=$(dirname "$(dotnet --list-runtimes | awk '/Microsoft.NETCore.App/{v=$2; p=$3} END{gsub(/[\[\]]/,"",p); print p "/" v "/x"}')")
corelib="$fw/System.Private.CoreLib.dll"
dump="$build/corelib-methoddef-sigs.bin"
srm=$(dotnet "$build/oracle/oracle.dll" bench "$corelib" --dump "$dump")
c=$("$build/bench/bench_sigs" "$dump")
echo "$srm"
echo "$c"
s_ns=$(sed -E 's/.* ([0-9.]+) ns\/signature.*/\1/' <<<"$srm")
c_ns=$(sed -E 's/.* ([0-9.]+) ns\/signature.*/\1/' <<<"$c")
awk -v s="$s_ns" -v c="$c_ns" 'BEGIN { printf "ratio: libclrsig is %.1fx faster than System.Reflection.Metadata (goal >= 10x)\n", s / c }'
