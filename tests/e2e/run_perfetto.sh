#!/usr/bin/env bash
# clrtrace dump --perfetto: Perfetto's protobuf trace of recorded traces of
# tests/targets/Hello, Values and Hard (threads), of a trace the selection
# narrows, and of a damaged trace. Each output is decoded by protoc against
# tests/e2e/perfetto_subset.proto (the fields we write, with the numbers of
# Perfetto's own protos); check_perfetto.py reads protoc's text and checks
# the sequence rules, the tracks, that slices pair as stacks and that names
# are interned once.
#
# Every expected argument and return value below is written by hand from the
# targets' C# sources (the same values run_chrome.sh expects of --chrome):
# Hello's Main calls Add(2, 3), Scale(1.5, 4.0), Fib(5) (15 calls),
# new Greeter("Hello"), Greet("clrtrace", 3), Counter.Bump(4) and Bump(6),
# TryDivide(7, 2) and TryDivide(1, 0), whose Divide(1, 0) throws; Main
# returns 3. The slice counts are compared with `clrtrace info` and with
# --chrome's complete events of the same trace.
# The checks by hand are the cases of cases/perfetto.case; the script
# compares with info, --chrome and the times, and damages a trace.
# Usage: run_perfetto.sh PATH/TO/libclrtrace.so
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup perfetto "${1:-}" cli
command -v protoc >/dev/null || { echo "ERROR: no protoc (Debian: protobuf-compiler)" >&2; exit 2; }
chk() { python3 "$here/check_perfetto.py" "$@"; }
# decode TRACE TEXT: protoc's text of a --perfetto trace.
decode() {
    protoc --proto_path="$here" --decode=perfetto.protos.Trace perfetto_subset.proto \
        < "$1" > "$2" 2> "$2.err" || { cat "$2.err"; return 1; }
    [[ ! -s "$2.err" ]] || { cat "$2.err"; return 1; } # e.g. invalid UTF-8 in a string
}
calls_of() { chk calls "$1" | cut -d' ' -f2-; }
info_calls() { "$ct" info "$1" | sed -n 's/^calls *\([0-9]*\) ended.*/\1/p'; }
chrome_events() { python3 "$here/check_chrome.py" validate "$1" | sed -n 's/^events=\([0-9]*\) .*/\1/p'; }

echo "== building tests/targets/Hello, Values, Hard"
hello=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$hello" ]] &&
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] &&
hard=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$hard" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }

ct_cases "$here/cases/perfetto.case"

# ------------------------------------- against info, --chrome, the times
echo "== the slices against info, --chrome and the trace's times"
"$ct" dump --chrome "$work/hello" > "$work/hello.json"
n=$(info_calls "$work/hello")
check_eq "Hello: SLICE_BEGINs = SLICE_ENDs = the calls info counts = --chrome's events ($n)" \
    "$n $n $n" "$(grep -c 'type: TYPE_SLICE_BEGIN' "$work/hello.txt") $(grep -c 'type: TYPE_SLICE_END' "$work/hello.txt") $(chrome_events "$work/hello.json")"
check "Hello: the same calls and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/hello.json")" "$(chk calls "$work/hello.txt")"
header=$("$ct" dump "$work/hello" | head -n 1)
pid=$(sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p' <<<"$header")
start=$(sed -n 's/^header .* start=\([0-9]*\) .*/\1/p' <<<"$header")
check_eq "Hello: the process track (pid, the command line) and the main thread's (pid, tid, \"thread $pid\")" \
    "$pid dotnet $hello|$pid $pid thread $pid" "$(chk process "$work/hello.txt" | paste -sd '|')"
check_eq "Hello: every slice names its function by name_iid (no inline names)" \
    "$n 0" "$(grep -c '^    name_iid: ' "$work/hello.txt") $(grep -c '^    name: ' "$work/hello.txt")"
# Main's begin is the header's start plus its raw ENTER time, its end the
# LEAVE's: --chrome's ts and dur to the nanosecond.
key=$("$ct" dump "$work/hello" | awk '$2 == "FUNCTION" && $NF == "Demo.Program.Main" { sub("key=", "", $3); print $3; exit }')
raw=$("$ct" dump "$work/hello" | awk -v k="key=$key" '
    ($2 == "ENTER" || $2 == "LEAVE") && $5 == k { sub("t=", "", $3); if ($2 == "ENTER" && s == "") s = $3; if ($2 == "LEAVE") e = $3 }
    END { print s, e - s }')
check_eq "Hello: Main's timestamps are the start ($start ns) plus its ENTER and LEAVE times" \
    "$raw" "$(chk event "$work/hello.txt" Demo.Program.Main "$start")"
check_eq "Hello: --chrome's ts and dur for Main are the same times" \
    "$raw" "$(python3 "$here/check_chrome.py" event "$work/hello.json" Demo.Program.Main)"
"$ct" dump --chrome "$work/values" > "$work/values.json"
check "Values: the same calls and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/values.json")" "$(chk calls "$work/values.txt")"
"$ct" dump --chrome --max-calls 0 "$work/threads" > "$work/threads.json"
n=$(info_calls "$work/threads")
check_eq "threads: SLICE_BEGINs = SLICE_ENDs = info's calls = --chrome's events ($n)" "$n $n $n" \
    "$(grep -c 'type: TYPE_SLICE_BEGIN' "$work/threads.txt") $(grep -c 'type: TYPE_SLICE_END' "$work/threads.txt") $(chrome_events "$work/threads.json")"
check "threads: the same calls, threads and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/threads.json" | sort)" "$(chk calls "$work/threads.txt" | sort)"
pb=$(stat -c %s "$work/threads.out") js=$(stat -c %s "$work/threads.json")
echo "     sizes: --perfetto $pb bytes, --chrome $js bytes ($n calls)"
# Both carry the same argument text; the protobuf saves the repeated names,
# keys and JSON syntax (about 80 bytes a call against 160 here).
check "threads: the protobuf is well under the JSON's size ($pb < 0.6 * $js)" test $((pb * 10)) -lt $((js * 6))
check_eq "-F Demo.MathOps.* -N Demo.MathOps.Fib: only those calls, as --chrome writes them" \
    "$("$ct" dump --chrome -F 'Demo.MathOps.*' -N 'Demo.MathOps.Fib' "$work/hello" > "$work/sel.json"; python3 "$here/check_chrome.py" calls "$work/sel.json" | cut -d' ' -f2- | sort)" \
    "$(calls_of "$work/sel.txt" | sort)"

# ------------------------------------------------------ a damaged trace
# The type byte of a record in the middle of an uncompressed trace of Hard
# threads made unknown (in a compressed one the damage would spoil the whole
# 1 MiB zstd block, here likely all of it): the reader stops there.
ct_run "$work" rec.raw "$ct" record -o "$work/raw" --no-compress --profiler "$lib" -- dotnet "$hard" threads
check_eq "Hard threads recorded uncompressed (exit 0)" 0 "$(cat "$work/rec.raw.rc")"
cp "$work/raw/trace.clrt" "$work/bad.clrt"
size=$(stat -c %s "$work/bad.clrt")
# A CLASS, FUNCTION or THREAD record (a record of its own, not an event of an EVENTS
# block) at or past the middle; without one, the last one.
at=$("$ct" dump "$work/raw" | awk -v half=$((size / 2)) '($2 == "CLASS" || $2 == "FUNCTION" || $2 == "THREAD") { last = $1; if ($1 >= half) { print $1; found = 1; exit } }
    END { if (!found) print last }')
printf '\143' | dd of="$work/bad.clrt" bs=1 seek="$at" conv=notrunc 2>/dev/null
ct_run "$work" bad "$ct" dump --perfetto "$work/bad.clrt"
cp "$work/bad.out" "$work/bad.pftrace"
check_eq "damaged: exit 1, one line on stderr" "1 1" "$(cat "$work/bad.rc") $(wc -l < "$work/bad.err")"
check "damaged: what came before still decodes" decode "$work/bad.pftrace" "$work/bad.txt"
check "damaged: slices paired on every thread (the open calls closed), names interned once" \
    chk validate "$work/bad.txt"
check "damaged: some calls written, the ones open at the damage unfinished" bash -c \
    '[[ "$(python3 "$1" validate "$2")" =~ begins=([0-9]+).*unfinished=([1-9][0-9]*) && ${BASH_REMATCH[1]} -gt 100 ]]' \
    _ "$here/check_perfetto.py" "$work/bad.txt"

ct_end run_perfetto.sh
