#!/usr/bin/env bash
# The tool as a user installs it, from a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr (Debian's multiarch LIBDIR):
#   1. `cmake --install BUILD --prefix P`: P/bin/clrtrace finds its profiler in
#      P/LIBDIR/clrtrace and traces tests/targets/Hello; the .pc files give
#      the directory the libraries are in; `man -l` renders clrtrace(1);
#   2. `cpack -G DEB`: the package depends on libc6, and extracted into a
#      temporary root, its CLI and profiler trace Hello too;
#   3. the .NET tool (`cmake --build BUILD --target nupkg`): `dotnet tool
#      install -g clrtrace --add-source BUILD/nupkg` into a fresh HOME, the
#      installed clrtrace traces Hello with the profiler beside it, and
#      `dotnet tool uninstall` removes it;
#   4. one version everywhere: project()'s in CMakeLists.txt is what
#      `clrtrace --version`, the .deb and the .NET tool's packages say.
# Usage: tests/install/run_tool.sh BUILD_DIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/tests/e2e/lib_checks.sh"
build=$(readlink -f "${1:?usage: run_tool.sh BUILD_DIR}")
work=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-install.XXXXXX")
trap '[[ $BASHPID != $$ ]] || { rm -rf "$work"; }' EXIT
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

echo "== building tests/targets/Hello"
app=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hello failed" >&2; exit 2; }
ct_run "$work" plain dotnet "$app"

# traces NAME CLI: CLI (and the profiler it finds itself) traces Hello: the
# program's output and exit code (3) unchanged, its calls in the log.
traces() {
    local name=$1 cli=$2
    ct_run "$work" "$name" "$cli" run -o "$work/$name.txt" -- dotnet "$app"
    check_eq "$name: Hello's output and exit code (3) unchanged" \
        "$(cat "$work/plain.rc") $(cat "$work/plain.out")" "$(cat "$work/$name.rc") $(cat "$work/$name.out")"
    check_eq "$name: the log holds Scale(1.5, 4.0) -> 6" 1 \
        "$(grep -c 'Demo\.MathOps\.Scale(double x=1\.5, double k=4) -> double 6$' "$work/$name.txt")"
}

echo "== cmake --install --prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; ct_fail "cmake --install"; }
profiler=$(cd "$work/prefix" && find . -path '*/clrtrace/libclrtrace.so' | head -n 1)
check_eq "the profiler is installed in LIBDIR/clrtrace" "./$(sed -n 's/^libdir=\${prefix}\///p' \
    "$(find "$work/prefix" -name clrsig.pc | head -n 1)")/clrtrace/libclrtrace.so" "$profiler"
traces prefix "$work/prefix/bin/clrtrace"
pc=$(dirname "$(find "$work/prefix" -name clrsig.pc | head -n 1)")
lib=$(dirname "$(find "$work/prefix" -name 'libclrsig.so.0' | head -n 1)")
check_eq "pkg-config: clrsig's libdir is where libclrsig.so is" "$(readlink -f "$lib")" \
    "$(readlink -f "$(PKG_CONFIG_PATH="$pc" pkg-config --variable=libdir clrsig)")"
check_eq "pkg-config: clrmeta's includedir holds clrmeta/clrmeta.h" yes \
    "$([[ -f "$(PKG_CONFIG_PATH="$pc" pkg-config --variable=includedir clrmeta)/clrmeta/clrmeta.h" ]] && echo yes)"
MANWIDTH=80 man -l "$work/prefix/share/man/man1/clrtrace.1" >"$work/man.txt" 2>"$work/man.err"
check_eq "man -l clrtrace.1: the sections, the commands, no roff warnings" "NAME SYNOPSIS COMMANDS EXIT STATUS|info|" \
    "$(grep -E '^(NAME|SYNOPSIS|COMMANDS|EXIT STATUS)$' "$work/man.txt" | paste -sd ' ')|$(grep -oE '^   info$' "$work/man.txt" | tr -d ' ')|$(cat "$work/man.err")"
check "the docs are installed" test -f "$work/prefix/share/doc/clrtrace/cli.md"

echo "== cpack -G DEB"
(cd "$build" && cpack -G DEB -B "$work/deb") >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log" >&2; ct_fail "cpack -G DEB"; }
deb=$(ls "$work"/deb/clrtrace_*.deb 2>/dev/null | head -n 1)
check "cpack made a .deb" test -n "$deb"
if [[ -n "$deb" ]]; then
    check_eq "the package depends on libc6, ncurses, libzstd1 and zlib1g (what the tool and the profiler link; ncurses: top and tui)" \
        "libc6, libncurses6, libtinfo6, libzstd1, zlib1g" "$(dpkg-deb -f "$deb" Depends | sed -E 's/ \([^)]*\)//g')"
    dpkg-deb -x "$deb" "$work/root"
    traces deb "$work/root/usr/bin/clrtrace"
fi

echo "== the .NET tool"
version=$(sed -nE 's/^project\(clrtrace VERSION ([0-9]+\.[0-9]+\.[0-9]+) .*/\1/p' "$root/CMakeLists.txt")
rid=linux-x64
[[ $(uname -m) == aarch64 ]] && rid=linux-arm64
cmake --build "$build" --target nupkg >"$work/nupkg.log" 2>&1 ||
    { cat "$work/nupkg.log" >&2; ct_fail "cmake --build --target nupkg"; }
feed=$build/nupkg
check_eq "the feed holds the tool's package and its $rid package" \
    "clrtrace.$version.nupkg clrtrace.$rid.$version.nupkg" "$(cd "$feed" && ls -- *.nupkg | LC_ALL=C sort | paste -sd ' ')"
check_eq "the $rid package: the settings, clrtrace and the profiler side by side" \
    "clrtrace.$rid.nuspec tools/any/$rid/DotnetToolSettings.xml tools/any/$rid/clrtrace tools/any/$rid/libclrtrace.so" \
    "$(unzip -Z1 "$feed/clrtrace.$rid.$version.nupkg" | LC_ALL=C sort | paste -sd ' ')"
# A fresh HOME, and no package source but the folder: nothing from elsewhere.
mkdir -p "$work/home"
printf '<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <clear />\n  </packageSources>\n</configuration>\n' \
    >"$work/nuget.config"
HOME=$work/home dotnet tool install -g clrtrace --add-source "$feed" --configfile "$work/nuget.config" \
    >"$work/tool-install.log" 2>&1
check_eq "dotnet tool install -g clrtrace --add-source BUILD/nupkg" 0 "$?"
check "... says it installed version $version" grep -q "^Tool 'clrtrace' (version '$version') was successfully installed" "$work/tool-install.log"
tool=$work/home/.dotnet/tools/clrtrace
check_eq "the command is ~/.dotnet/tools/clrtrace, into the tool store" \
    "$work/home/.dotnet/tools/.store/clrtrace/$version/clrtrace.$rid/$version/tools/any/$rid/clrtrace" \
    "$(readlink -f "$tool")"
traces tool "$tool"
# The profiler it used is the one beside it: without that file, it has none.
store_lib=$(dirname "$(readlink -f "$tool")")/libclrtrace.so
mv "$store_lib" "$store_lib.away"
HOME=$work/home "$tool" run -o /dev/null -- dotnet "$app" >/dev/null 2>"$work/tool-nolib.err"
check_eq "the tool's clrtrace uses the profiler beside it in the store (moved away: it has none)" \
    "clrtrace run: cannot find libclrtrace.so next to the clrtrace executable (use --profiler PATH)" \
    "$(cat "$work/tool-nolib.err")"
mv "$store_lib.away" "$store_lib"
HOME=$work/home dotnet tool uninstall -g clrtrace >"$work/tool-uninstall.log" 2>&1
check_eq "dotnet tool uninstall -g clrtrace: the command and the store gone" "0 no no" \
    "$? $([[ -e $tool ]] && echo yes || echo no) $([[ -e $work/home/.dotnet/tools/.store/clrtrace ]] && echo yes || echo no)"

echo "== one version: project() in CMakeLists.txt ($version)"
check_eq "clrtrace --version" "clrtrace $version" "$("$build/clrtrace" --version)"
[[ -n "$deb" ]] && check_eq "the .deb's Version" "$version" "$(dpkg-deb -f "$deb" Version)"
check_eq "the .NET tool's packages" "$version $version" \
    "$(for p in clrtrace clrtrace.$rid; do unzip -p "$feed/$p.$version.nupkg" "$p.nuspec" | sed -nE 's/.*<version>(.*)<\/version>.*/\1/p'; done | paste -sd ' ')"
ct_end run_tool.sh
