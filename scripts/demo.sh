#!/usr/bin/env bash
# The main job: build clrtrace and show what it decodes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 >/dev/null
ct=build/clrtrace
show() { echo "\$ clrtrace decode $*"; "$ct" decode "$@" || true; echo; }
show --both 00 02 08 0E 1D 0E
show --both --kind locals 07 04 20 45 20 69 08 0F 03 09 0F 20 55 03
show --both --kind typespec 1B 01 01 01 08
show --both --kind typespec 14 08 02 00 02 00 00
show 00 02 08 0E
