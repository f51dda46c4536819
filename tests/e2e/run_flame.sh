#!/usr/bin/env bash
# clrtrace dump --flame: the SVG flame graph of a recorded trace of
# tests/targets/Hello, checked by check_flame.py against dump --folded of the
# same trace: well-formed XML, every frame as wide as the weight of its
# stack's folded lines, siblings in name order, nothing missing or extra.
#
# From Hello's source: Main makes 27 calls in all, counting itself (Add, Scale,
# Fib(5) with its 14 recursive calls, the Greeter and Counter constructors,
# Greet, Bump twice, TryDivide twice, each calling Divide). Fib's rule
# (n < 2 ? n : Fib(n - 1) + Fib(n - 2)) gives the calls at each recursion
# depth below Fib(5), worked out from that rule. The checks are the cases
# of cases/flame.case.
# Usage: run_flame.sh PATH/TO/libclrtrace.so
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup flame "${1:-}" cli
flame_check() { python3 "$here/check_flame.py" "$@"; }
# title STACK FRAMES: the title of STACK's frame in check_flame.py's FRAMES.
title() { awk -F'\t' -v s="$1" 'NR > 1 && $1 == s { print $3 }' "$2"; }
# line NAME: what flame_browser.js said of NAME (its line "NAME: ...").
line() { sed -n "s/^$1: //p" "$work/browser.out"; }

echo "== building tests/targets/Hello"
hello=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$hello" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }
# The browser's screenshots of the zoom and of the search stay in the build
# tree (tests/artifacts).
art=$(dirname "$lib")/../../tests/artifacts
mkdir -p "$art" && art=$(cd "$art" && pwd)
shot=$art/flame${CLRTRACE_ENGINE:+-$CLRTRACE_ENGINE}
rm -f "$shot.png" "$shot-zoom.png"
printf 'CLRTRACEgarbage' >"$work/bad.clrt"
ct_cases "$here/cases/flame.case"

ct_end run_flame.sh
