#!/usr/bin/env bash
# clrtrace dump --folded: folded stacks of a recorded trace of examples/Demo.
# The expected stacks are examples/Demo/Program.cs's call tree: Main calls
# Scale, the Shapes constructor, Describe (which calls Pad), Sum, First<T> and
# TryParse, once each. Time weights must add up to Main's own duration, taken
# from its raw ENTER/LEAVE records (clrtrace dump).
# Usage: tests/e2e/run_folded.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup folded "${1:-}" cli

echo "== building examples/Demo"
app=$(ct_dotnet_build "$root/examples/Demo" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of examples/Demo failed" >&2; exit 2; }
"$ct" record --profiler "$lib" -o "$work/rec" -- dotnet "$app" > /dev/null
# First<T> is called with a string: the IL engine names shared generic code
# by the instantiation that runs (docs/tracer.md, "Where the engines differ").
first=$([[ ${CLRTRACE_ENGINE:-il} == il ]] && echo 'First<string>' || echo 'First<T>')
cat > "$work/want.txt" <<WANT
Demo.Program.Main 1
Demo.Program.Main;Demo.Shapes..ctor 1
Demo.Program.Main;Demo.Shapes.Describe 1
Demo.Program.Main;Demo.Shapes.Describe;Demo.Util.Pad 1
Demo.Program.Main;Demo.Shapes.Scale 1
Demo.Program.Main;Demo.Util.$first 1
Demo.Program.Main;Demo.Util.Sum 1
Demo.Program.Main;Demo.Util.TryParse 1
WANT
"$ct" dump --folded --calls "$work/rec" > "$work/calls.txt"; rc=$?
check "--folded --calls: exit 0" test "$rc" -eq 0
check "--folded --calls: the program's call tree, one call per stack" diff "$work/want.txt" "$work/calls.txt"
"$ct" dump --folded "$work/rec" > "$work/time.txt"
check "--folded: the same stacks, weighted by time" \
  diff <(cut -d' ' -f1 "$work/want.txt") <(sed 's/ [0-9]*$//' "$work/time.txt")
# Main's duration from its raw records: the first ENTER and last LEAVE of its key,
# each at its time less the tracer's held time then (2.7: "held=" last).
key=$("$ct" dump "$work/rec" | awk '$2 == "FUNCTION" && $NF == "Demo.Program.Main" { sub("key=", "", $3); print $3; exit }')
main_ns=$("$ct" dump "$work/rec" | awk -v k="key=$key" '
  ($2 == "ENTER" || $2 == "LEAVE") && $5 == k { sub("t=", "", $3); h = $NF; sub("held=", "", h); p = $3 - h
                                                  if ($2 == "ENTER" && !s) s = p; if ($2 == "LEAVE") e = p }
  END { print e - s }')
sum_ns=$(awk '{ s += $NF } END { print s }' "$work/time.txt")
check "--folded: self times add up to Main's duration ($main_ns ns)" test "$sum_ns" = "$main_ns"
"$ct" dump --calls "$work/rec" >/dev/null 2>&1; rc=$?
check "--calls without --folded: usage error 2" test "$rc" -eq 2
printf 'CLRTRACEgarbage' > "$work/bad.clrt"
"$ct" dump --folded "$work/bad.clrt" >/dev/null 2>"$work/bad.err"; rc=$?
check "damaged trace: exit 1, one line" test "$rc" -eq 1 -a "$(wc -l < "$work/bad.err")" -eq 1

ct_end run_folded.sh
