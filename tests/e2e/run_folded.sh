#!/usr/bin/env bash
# clrtrace dump --folded: folded stacks of a recorded trace of examples/Demo.
# The expected stacks are examples/Demo/Program.cs's call tree: Main calls
# Scale, the Shapes constructor, Describe (which calls Pad), Sum, First<T> and
# TryParse, once each. Time weights must add up to Main's own duration, taken
# from its raw ENTER/LEAVE records (clrtrace dump).
# Usage: run_folded.sh PATH/TO/libclrtrace.so
set -uo pipefail
lib=$(readlink -f "${1:?usage: run_folded.sh libclrtrace.so}")
root=$(cd "$(dirname "$0")/../.." && pwd)
ct=$(readlink -f "$(dirname "$lib")/../../clrtrace")
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
tmp=$(mktemp -d)
trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
fails=0 passes=0
check() { if "${@:2}"; then echo "ok   $1"; passes=$((passes + 1)); else echo "FAIL $1"; fails=$((fails + 1)); fi; }

dotnet build "$root/examples/Demo" -c Release -o "$tmp/demo" -v quiet -nologo >/dev/null
"$ct" record --profiler "$lib" -o "$tmp/rec" -- dotnet "$tmp/demo/Demo.dll" > /dev/null
cat > "$tmp/want.txt" <<'WANT'
Demo.Program.Main 1
Demo.Program.Main;Demo.Shapes..ctor 1
Demo.Program.Main;Demo.Shapes.Describe 1
Demo.Program.Main;Demo.Shapes.Describe;Demo.Util.Pad 1
Demo.Program.Main;Demo.Shapes.Scale 1
Demo.Program.Main;Demo.Util.First<T> 1
Demo.Program.Main;Demo.Util.Sum 1
Demo.Program.Main;Demo.Util.TryParse 1
WANT
"$ct" dump --folded --calls "$tmp/rec" > "$tmp/calls.txt"; rc=$?
check "--folded --calls: exit 0" test "$rc" -eq 0
check "--folded --calls: the program's call tree, one call per stack" diff "$tmp/want.txt" "$tmp/calls.txt"
"$ct" dump --folded "$tmp/rec" > "$tmp/time.txt"
check "--folded: the same stacks, weighted by time" \
  diff <(cut -d' ' -f1 "$tmp/want.txt") <(sed 's/ [0-9]*$//' "$tmp/time.txt")
# Main's duration from its raw records: the first ENTER and last LEAVE of its key.
key=$("$ct" dump "$tmp/rec" | awk '$2 == "FUNCTION" && $NF == "Demo.Program.Main" { sub("key=", "", $3); print $3; exit }')
main_ns=$("$ct" dump "$tmp/rec" | awk -v k="key=$key" '
  ($2 == "ENTER" || $2 == "LEAVE") && $5 == k { sub("t=", "", $3); if ($2 == "ENTER" && !s) s = $3; if ($2 == "LEAVE") e = $3 }
  END { print e - s }')
sum_ns=$(awk '{ s += $NF } END { print s }' "$tmp/time.txt")
check "--folded: self times add up to Main's duration ($main_ns ns)" test "$sum_ns" = "$main_ns"
"$ct" dump --calls "$tmp/rec" >/dev/null 2>&1; rc=$?
check "--calls without --folded: usage error 2" test "$rc" -eq 2
printf 'CLRTRACEgarbage' > "$tmp/bad.clrt"
"$ct" dump --folded "$tmp/bad.clrt" >/dev/null 2>"$tmp/bad.err"; rc=$?
check "damaged trace: exit 1, one line" test "$rc" -eq 1 -a "$(wc -l < "$tmp/bad.err")" -eq 1
echo "run_folded.sh: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
