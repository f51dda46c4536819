#!/usr/bin/env bash
# The libraries as a product: `cmake --install` into a fresh prefix, then build
# examples/libclrsig against the installed copy with pkg-config and with
# find_package (static and shared), and run each; check that each library's
# version functions agree with its header and its pkg-config Version, and
# that each libNAME.so exports exactly the functions its header declares
# (NAME_API) and nothing internal.
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

libdir=$(dirname "$(find "$tmp/prefix" -name libclrsig.so.0 | head -n 1)")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc $(pkg-config --cflags clrsig) "$root/examples/libclrsig/main.c" -o "$tmp/pc_shared" $(pkg-config --libs clrsig)
check "pkg-config, shared" "$(LD_LIBRARY_PATH="$libdir" "$tmp/pc_shared")"
cc $(pkg-config --cflags clrsig) "$root/examples/libclrsig/main.c" -o "$tmp/pc_static" "$libdir/libclrsig.a"
check "pkg-config cflags, static archive" "$("$tmp/pc_static")"

cmake -S "$root/examples/libclrsig" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
check "find_package, static" "$("$tmp/cm/example")"
check "find_package, shared" "$(LD_LIBRARY_PATH="$libdir" "$tmp/cm/example_shared")"
deps=$(ldd "$tmp/cm/example_shared")   # not piped into grep -q: pipefail + SIGPIPE
grep -q "libclrsig.so.0" <<<"$deps" && echo "ok   shared example links libclrsig.so.0" ||
  { echo "FAIL shared example does not link libclrsig.so"; fails=$((fails + 1)); }

pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; fails=$((fails + 1)); }

# Versions: tests/install/versions.c prints "NAME STRING NUMBER" for each
# library from its version functions (and fails when they are not its
# header's macros); STRING must be pkg-config's Version and NUMBER
# MAJOR*10000 + MINOR*100 + PATCH of it. Shared and static.
want_versions=$(for lib in clrsig clrmeta clril; do
  v=$(pkg-config --modversion $lib)
  IFS=. read -r major minor patch <<<"$v"
  echo "$lib $v $((major * 10000 + minor * 100 + patch))"
done)
cc -Wall -Wextra -Werror $(pkg-config --cflags clrsig clrmeta clril) "$root/tests/install/versions.c" \
  -o "$tmp/ver_shared" $(pkg-config --libs clrsig clrmeta clril)
cc -Wall -Wextra -Werror $(pkg-config --cflags clrsig clrmeta clril) "$root/tests/install/versions.c" \
  -o "$tmp/ver_static" "$libdir/libclrmeta.a" "$libdir/libclril.a" "$libdir/libclrsig.a"
for variant in shared static; do
  if got=$(LD_LIBRARY_PATH="$libdir" "$tmp/ver_$variant") && [ "$got" = "$want_versions" ]; then
    pass "version functions = header macros = pkg-config Version ($variant): $(echo $got)"
  else
    fail "versions ($variant): got '$(echo $got)', want '$(echo $want_versions)'"
  fi
done

# Exports: the functions each installed header declares with NAME_API are the
# API; libNAME.so must define those dynamic symbols and no other (internal
# helpers such as sig_arena_alloc or meta_string stay hidden), and in
# libNAME.a every other global symbol must have hidden visibility.
for lib in clrsig clrmeta clril; do
  header="$(pkg-config --variable=includedir $lib)/$lib/$lib.h"
  grep -oE "^${lib^^}_API [^(]*[ *]${lib}_[a-z0-9_]+\(" "$header" |
    grep -oE "${lib}_[a-z0-9_]+\(\$" | tr -d '(' | sort -u >"$tmp/$lib.api"
  nm -D --defined-only "$libdir/lib$lib.so" | awk '{ print $NF }' | sort -u >"$tmp/$lib.so.syms"
  readelf -sW "$libdir/lib$lib.a" |
    awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" { print $8 }' |
    sort -u >"$tmp/$lib.a.syms"
  extra=$(comm -13 "$tmp/$lib.api" "$tmp/$lib.so.syms" | paste -sd ' ')
  missing=$(comm -23 "$tmp/$lib.api" "$tmp/$lib.so.syms" | paste -sd ' ')
  extra_a=$(comm -13 "$tmp/$lib.api" "$tmp/$lib.a.syms" | paste -sd ' ')
  n=$(wc -l <"$tmp/$lib.api")
  if [ "$n" -gt 0 ] && [ -z "$extra$missing" ]; then
    pass "lib$lib.so exports exactly the $n functions ${lib^^}_API declares"
  else
    fail "lib$lib.so: exported but not API: '$extra'; API not exported: '$missing' ($n API names)"
  fi
  [ -z "$extra_a" ] && pass "lib$lib.a: every global symbol outside the API is hidden" ||
    fail "lib$lib.a: visible symbols outside the API: '$extra_a'"
done
[ "$fails" -eq 0 ] && echo "install: all checks passed"
