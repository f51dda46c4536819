#!/usr/bin/env bash
# The cross build for 64-bit Arm Linux (docs/arm64.md): the profiler, the
# CLI and the libraries built by Debian's gcc-aarch64-linux-gnu into
# build-aarch64/ (cmake/aarch64-linux-gnu.cmake), with the arm64 libraries
# from Debian's multiarch packages; with --test, the unit tests run under
# qemu-user, then tests/e2e/run_arm64.sh traces a self-contained arm64 .NET
# program under qemu-user (it needs the x86-64 build in build/).
#
#   usage: scripts/cross-aarch64.sh [--test]
#   exit:  0 built (and tested), 1 a build or test failed, 77 the cross
#          packages are missing and could not be installed (said on stderr:
#          nothing was built)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
build=${CLRTRACE_AARCH64_BUILD:-$root/build-aarch64}
test=0
[[ ${1:-} == --test ]] && test=1

# The cross compiler, qemu-user, and the arm64 builds of the libraries the
# profiler and the CLI link (zstd, zlib, ncurses) and the unit tests use
# (cmocka).
pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
      libzstd-dev:arm64 zlib1g-dev:arm64 libncurses-dev:arm64 libcmocka-dev:arm64)
need=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  echo "cross-aarch64: installing ${need[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  log=$(mktemp)
  if ! { dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64; } >"$log" 2>&1 ||
     ! $sudo apt-get update -qq >>"$log" 2>&1 ||
     ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >>"$log" 2>&1; then
    echo "cross-aarch64: SKIPPED: the arm64 cross packages (${need[*]}) could not be installed; apt said:" >&2
    tail -n 5 "$log" >&2
    rm -f "$log"
    exit 77
  fi
  rm -f "$log"
fi

cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null || exit 1
cmake --build "$build" -j2 || exit 1
cmake --build "$build" --target nupkg >/dev/null || exit 1
echo "cross-aarch64: $build/clrtrace, $build/src/agent/libclrtrace.so and the .NET tool in $build/nupkg/ (ARM aarch64)"
((test)) || exit 0
(cd "$build" && ctest --output-on-failure -j2 -L 'unit|asm') || exit 1
bash tests/e2e/run_arm64.sh "$root/build/src/agent/libclrtrace.so" "$build"
