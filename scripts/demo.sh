#!/usr/bin/env bash
# The main job: build clrtrace, build a sample C# program, trace it with
# `clrtrace run`, and show the trace.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
bash scripts/install-deps.sh
echo "== building clrtrace"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 >/dev/null
echo "== building the sample program (examples/Demo)"
dotnet build examples/Demo -c Release -o build/demo -v quiet -nologo >/dev/null
echo "== clrtrace run -o build/demo-trace.txt -- dotnet build/demo/Demo.dll"
build/clrtrace run -o build/demo-trace.txt -- dotnet build/demo/Demo.dll
echo "== the trace (build/demo-trace.txt)"
cat build/demo-trace.txt
echo
echo "== one signature blob, decoded: clrtrace decode --both 00 02 08 0E 1D 0E"
build/clrtrace decode --both 00 02 08 0E 1D 0E
