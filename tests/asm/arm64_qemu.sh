#!/bin/sh
# Builds the stub harness for aarch64 with a cross compiler and runs it under
# qemu user-mode emulation, so the arm64 stubs are exercised on an x86_64
# machine. Needs Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross and
# qemu-user (tests/asm/CMakeLists.txt registers it only when they are there).
#   usage: arm64_qemu.sh SOURCE_DIR OUTPUT_BINARY
set -eu
src=$1
out=$2
cc=${AARCH64_CC:-aarch64-linux-gnu-gcc}
sysroot=${AARCH64_SYSROOT:-/usr/aarch64-linux-gnu}
"$cc" -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
  -I"$src/src/agent/engines/elt/asm" "$src/tests/asm/test_stubs.c" "$src/tests/asm/clobber_arm64.S" \
  "$src/src/agent/engines/elt/asm/elt_arm64.S" -o "$out"
# With Debian's libc6:arm64 installed beside the cross toolchain's libc (the
# cross build's multiarch packages, scripts/cross-aarch64.sh), -L alone can
# leave the program hanging in its loader: the library path names both.
exec qemu-aarch64 -L "$sysroot" \
  -E LD_LIBRARY_PATH="$sysroot/lib:/usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu" "$out"
