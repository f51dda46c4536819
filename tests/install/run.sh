#!/usr/bin/env bash
# The libraries as a product: `cmake --install` into a fresh prefix, then build
# examples/libclrsig against the installed copy with pkg-config and with
# find_package (static and shared), and run each.
# Usage: tests/install/run.sh BUILD_DIR
set -euo pipefail
build=$(readlink -f "${1:?usage: run.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
# The text this blob must print: ECMA-335 II.23.2.1, DEFAULT, 2 params,
# returns I4, params STRING and SZARRAY STRING (docs/libclrsig.md example).
want="static int (string, string[])"
fails=0
check() { if [ "$2" = "$want" ]; then echo "ok   $1"; else echo "FAIL $1: got '$2'"; fails=$((fails + 1)); fi; }

export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
cc $(pkg-config --cflags clrsig) "$root/examples/libclrsig/main.c" -o "$tmp/pc_shared" $(pkg-config --libs clrsig)
check "pkg-config, shared" "$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/pc_shared")"
cc $(pkg-config --cflags clrsig) "$root/examples/libclrsig/main.c" -o "$tmp/pc_static" "$tmp/prefix/lib/libclrsig.a"
check "pkg-config cflags, static archive" "$("$tmp/pc_static")"

cmake -S "$root/examples/libclrsig" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
check "find_package, static" "$("$tmp/cm/example")"
check "find_package, shared" "$(LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/cm/example_shared")"
deps=$(ldd "$tmp/cm/example_shared")   # not piped into grep -q: pipefail + SIGPIPE
grep -q "libclrsig.so.0" <<<"$deps" && echo "ok   shared example links libclrsig.so.0" ||
  { echo "FAIL shared example does not link libclrsig.so"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "install: all checks passed"
