#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, only when missing.
set -euo pipefail
need=()
for pkg in cmake gcc clang-14 libcmocka-dev libzstd-dev zlib1g-dev protobuf-compiler libclang-rt-14-dev python3 \
           qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross valgrind \
           dpkg-dev man-db groff-base chromium libncurses-dev tmux unzip file; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
command -v pkg-config >/dev/null || need+=(pkgconf)
if [ ${#need[@]} -gt 0 ]; then
  echo "install-deps: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v dotnet >/dev/null || { echo "install-deps: the .NET SDK (dotnet) is required" >&2; exit 1; }
