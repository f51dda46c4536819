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

# ------------------------------------------------------------------ Hello
ct_run "$work" rec.hello "$ct" record -o "$work/hello" --profiler "$lib" -- dotnet "$hello"
check_eq "Hello recorded (its exit code 3)" 3 "$(cat "$work/rec.hello.rc")"
ct_run "$work" hello "$ct" dump --perfetto "$work/hello"
check_eq "Hello: exit 0, nothing on stderr" "0 0" "$(cat "$work/hello.rc") $(wc -c < "$work/hello.err")"
cp "$work/hello.out" "$work/hello.pftrace"
check "Hello: protoc decodes it as a perfetto.protos.Trace" decode "$work/hello.pftrace" "$work/hello.txt"
check "Hello: sequence flags, tracks, slices paired per thread, names interned once" \
    chk validate "$work/hello.txt"
"$ct" dump --chrome "$work/hello" > "$work/hello.json"
n=$(info_calls "$work/hello")
check_eq "Hello: SLICE_BEGINs = SLICE_ENDs = the calls info counts = --chrome's events ($n)" \
    "$n $n $n" "$(grep -c 'type: TYPE_SLICE_BEGIN' "$work/hello.txt") $(grep -c 'type: TYPE_SLICE_END' "$work/hello.txt") $(chrome_events "$work/hello.json")"
# Hello's calls as its C# source makes them (tests/targets/Hello), written by
# hand; --chrome and --perfetto must both show exactly these.
want=$(cat "$here/hello_calls.txt")
check "Hello: every call in order with its arguments and return value (or exception) as annotations" \
    ct_diff_tree "$want" "$(calls_of "$work/hello.txt")"
check "Hello: the same calls and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/hello.json")" "$(chk calls "$work/hello.txt")"
header=$("$ct" dump "$work/hello" | head -n 1)
pid=$(sed -n 's/^header .* pid=\([0-9]*\) .*/\1/p' <<<"$header")
start=$(sed -n 's/^header .* start=\([0-9]*\) .*/\1/p' <<<"$header")
check_eq "Hello: the process track (pid, the command line) and the main thread's (pid, tid, \"thread $pid\")" \
    "$pid dotnet $hello|$pid $pid thread $pid" "$(chk process "$work/hello.txt" | paste -sd '|')"
check_eq "Hello: each name interned once: \"Demo.MathOps.Fib\" (15 calls) and the key \"return\" once in the file" \
    "1 1" "$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); print(d.count(b"Demo.MathOps.Fib"), d.count(b"return"))' "$work/hello.pftrace")"
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

# ----------------------------------------------------------------- Values
ct_run "$work" rec.values "$ct" record -o "$work/values" --profiler "$lib" -- dotnet "$values"
check_eq "Values recorded (its exit code 7)" 7 "$(cat "$work/rec.values.rc")"
"$ct" dump --perfetto "$work/values" > "$work/values.pftrace"
check "Values: protoc decodes it (strings valid UTF-8)" decode "$work/values.pftrace" "$work/values.txt"
check "Values: sequence, tracks, slices paired, names interned once" chk validate "$work/values.txt"
want=$(cat <<'EOF'
Demo.Kinds.Chars {"c": "'x'", "nl": "'\\n'", "no": "false", "q": "'\\''", "return": "'y'", "yes": "true"}
Demo.Kinds.Strings {"empty": "\"\"", "esc": "\"tab\\there \\\"quoted\\\" back\\\\slash\"", "none": "null", "return": "12", "s": "\"Hello, test!\""}
Demo.Kinds.Unicode {"return": "7", "s": "\"héllo ✓\""}
Demo.Worker.Run {"n": "12", "return": "144"}
EOF
)
check "Values: chars, escaped strings, Unicode, the second thread's call" ct_diff_tree "$want" \
    "$(calls_of "$work/values.txt" | grep -E '^Demo\.(Kinds\.(Chars|Strings|Unicode)|Worker\.Run) ')"
check_eq "Values: TryGet returns true, its out v at return is 12" '"at return": "v=12"|"return": "true"' \
    "$(calls_of "$work/values.txt" | grep '^Demo\.Kinds\.TryGet ' | grep -o '"at return": "[^"]*"\|"return": "[^"]*"' | paste -sd '|')"
check_eq "Values: two thread tracks" 2 \
    "$(chk validate "$work/values.txt" | sed -n 's/.* threads=\([0-9]*\) .*/\1/p')"
"$ct" dump --chrome "$work/values" > "$work/values.json"
check "Values: the same calls and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/values.json")" "$(chk calls "$work/values.txt")"

# ---------------------------------------------------------- Hard threads
ct_run "$work" rec.threads "$ct" record -o "$work/threads" --profiler "$lib" -- dotnet "$hard" threads
check_eq "Hard threads recorded (exit 0)" 0 "$(cat "$work/rec.threads.rc")"
ct_run "$work" threads "$ct" dump --perfetto "$work/threads"
cp "$work/threads.out" "$work/threads.pftrace"
check_eq "threads: exit 0" 0 "$(cat "$work/threads.rc")"
check "threads: protoc decodes it" decode "$work/threads.pftrace" "$work/threads.txt"
check "threads: sequence, tracks, slices paired on every thread, names interned once" \
    chk validate "$work/threads.txt"
"$ct" dump --chrome --max-calls 0 "$work/threads" > "$work/threads.json"
n=$(info_calls "$work/threads")
check_eq "threads: SLICE_BEGINs = SLICE_ENDs = info's calls = --chrome's events ($n)" "$n $n $n" \
    "$(grep -c 'type: TYPE_SLICE_BEGIN' "$work/threads.txt") $(grep -c 'type: TYPE_SLICE_END' "$work/threads.txt") $(chrome_events "$work/threads.json")"
# Threads.cs: 16 threads x 2000, 64 pool items x 100, Parallel.For 4000.
check_eq "threads: Work called 16*2000 + 64*100 + 4000 times" 42400 \
    "$(calls_of "$work/threads.txt" | grep -c '^Hard\.Threads\.Work ')"
check_eq "threads: \"Hard.Threads.Work\" interned once in the file (42400 calls)" 1 \
    "$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().count(b"Hard.Threads.Work"))' "$work/threads.pftrace")"
check "threads: the same calls, threads and args as --chrome's JSON" \
    ct_diff_tree "$(python3 "$here/check_chrome.py" calls "$work/threads.json" | sort)" "$(chk calls "$work/threads.txt" | sort)"
pb=$(stat -c %s "$work/threads.pftrace") js=$(stat -c %s "$work/threads.json")
echo "     sizes: --perfetto $pb bytes, --chrome $js bytes ($n calls)"
# Both carry the same argument text; the protobuf saves the repeated names,
# keys and JSON syntax (about 80 bytes a call against 160 here).
check "threads: the protobuf is well under the JSON's size ($pb < 0.6 * $js)" test $((pb * 10)) -lt $((js * 6))

# --------------------------------------------------- the selection applies
ct_run "$work" sel "$ct" dump --perfetto -F 'Demo.MathOps.*' -N 'Demo.MathOps.Fib' "$work/hello"
cp "$work/sel.out" "$work/sel.pftrace"
decode "$work/sel.pftrace" "$work/sel.txt"
check_eq "-F Demo.MathOps.* -N Demo.MathOps.Fib: only those calls, as --chrome writes them" \
    "$("$ct" dump --chrome -F 'Demo.MathOps.*' -N 'Demo.MathOps.Fib' "$work/hello" > "$work/sel.json"; python3 "$here/check_chrome.py" calls "$work/sel.json" | cut -d' ' -f2- | sort)" \
    "$(calls_of "$work/sel.txt" | sort)"
check_eq "-F/-N: Add, Scale, TryDivide x2, Divide x2" \
    "Demo.MathOps.Add Demo.MathOps.Divide Demo.MathOps.Divide Demo.MathOps.Scale Demo.MathOps.TryDivide Demo.MathOps.TryDivide" \
    "$(calls_of "$work/sel.txt" | cut -d' ' -f1 | sort | paste -sd ' ')"

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

# ------------------------------------------------------------------ usage
ct_run "$work" u1 "$ct" dump --perfetto --chrome "$work/hello"
ct_run "$work" u2 "$ct" dump --perfetto --max-calls 10 "$work/hello"
ct_run "$work" u3 "$ct" dump --perfetto --calls "$work/hello"
check_eq "--perfetto with --chrome, --max-calls or --calls: usage error 2" "2 2 2" \
    "$(cat "$work/u1.rc") $(cat "$work/u2.rc") $(cat "$work/u3.rc")"
check "dump --help documents --perfetto" bash -c '"$1" dump --help | grep -q -- "--perfetto"' _ "$ct"

ct_end run_perfetto.sh
