# A cross build for 64-bit Arm Linux on a Debian x86_64 machine
# (scripts/cross-aarch64.sh): Debian's gcc-aarch64-linux-gnu compiles, and
# the libraries come from its multiarch arm64 packages (libzstd-dev:arm64,
# zlib1g-dev:arm64, libncurses-dev:arm64, libcmocka-dev:arm64), which install
# in /usr/lib/aarch64-linux-gnu. The unit tests run under qemu-user.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Look for libraries and headers in the multiarch folders only, never in the
# x86_64 ones; programs (python3, protoc) are the build machine's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# ctest runs the aarch64 test programs through qemu-user. LD_LIBRARY_PATH as
# ../shared notes: with libc6:arm64 beside the cross toolchain's libc, -L alone
# can hang.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu
  -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:/usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu)
