#!/usr/bin/env bash
# The main job: build clrtrace, build a sample C# program, trace it with
# `clrtrace record`, show the trace and its report, and draw it as a flame
# graph (SVG) and a Chrome trace (JSON).
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
echo "== clrtrace record -o build/demo-trace --text build/demo-trace.txt -- dotnet build/demo/Demo.dll"
build/clrtrace record -o build/demo-trace --text build/demo-trace.txt -- dotnet build/demo/Demo.dll
echo "== the trace (build/demo-trace.txt; the same text as: clrtrace replay build/demo-trace)"
cat build/demo-trace.txt
echo
echo "== clrtrace report --sort self --percent build/demo-trace"
build/clrtrace report --sort self --percent build/demo-trace
echo
echo "== pictures"
build/clrtrace dump --flame --title "examples/Demo" build/demo-trace > build/demo-flame.svg
echo "flame graph (open in a browser):          build/demo-flame.svg"
build/clrtrace dump --chrome build/demo-trace > build/demo-trace.json
echo "Chrome trace (ui.perfetto.dev, chrome://tracing): build/demo-trace.json"
echo
echo "== one signature blob, decoded: clrtrace decode --both 00 02 08 0E 1D 0E"
build/clrtrace decode --both 00 02 08 0E 1D 0E
