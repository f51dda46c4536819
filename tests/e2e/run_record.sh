#!/usr/bin/env bash
# End-to-end test of the binary trace: `clrtrace record`, `replay`, `report`
# and `dump` on real dotnet programs.
#
# Usage: tests/e2e/run_record.sh [path/to/libclrtrace.so]   (clrtrace is found
# beside the build: ../../clrtrace from the library)
#
# Checks:
#   1. record -o DIR --text FILE: the program runs unchanged (stdout, exit
#      code); DIR is created (0700), DIR/trace.clrt is mode 0600; the replay of
#      the binary trace equals, byte for byte, the live text log the same run
#      wrote (Values: every kind of value, two threads; Workload: 8 threads
#      interleaved; the fast path; a lossy run); report equals the log's
#      summary; the log holds the calls expected from the C# sources; the
#      records are in zstd blocks, and with --no-compress are not and read
#      the same.
#   2. lossy mode with a tiny buffer: events are dropped, and counted: the
#      DROPPED records add up to the summary's "N events dropped", and the
#      events recorded plus the events dropped equal the events of a lossless
#      run of the same program.
#   3. Environment.Exit from 20 frames down: the trace is complete (END
#      record, summary, every call closed).
#   4. damaged traces: one stderr line with the offset, exit status 1 (a
#      damaged zstd block: with the block's file offset too).
#   5. usage errors: exit status 2.
# Checks 1 and 3-5 are the cases of cases/record.case; the lossy runs (2),
# compared with each other and made again on a starved machine, stay here.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup record "${1:-}" cli

same_file() { # same_file A B: byte for byte, or the first differences
    cmp -s "$1" "$2" && return 0
    echo "$(basename "$1") and $(basename "$2") differ ($(wc -l <"$1") and $(wc -l <"$2") lines):"
    diff "$1" "$2" | head -n 8
    return 1
}
same_run() { # same_run A B: stdout and exit code of runs A and B
    same_file "$work/$1.out" "$work/$2.out" &&
        [[ "$(cat "$work/$1.rc")" == "$(cat "$work/$2.rc")" ]] ||
        { echo "exit code $(cat "$work/$2.rc"), expected $(cat "$work/$1.rc")"; return 1; }
}
# The summary part of a text log: from "# summary:" to the end, after the
# first header line (what `clrtrace report` prints).
summary_of() {
    head -n 1 "$1"
    sed -n '/^# summary: /,$p' "$1"
}
# checksum FILE: Workload's output but its times and memory.
checksum() { sed -E 's/ns_per_call=[0-9.]+ //; s/ vmhwm_kib=[0-9]+//' "$1"; }
# Counts in a dump: events (ENTER/LEAVE/TAILCALL/UNWIND) and the sum of DROPPED.
dump_events() { "$ct" dump "$1" | awk '$2 ~ /^(ENTER|LEAVE|TAILCALL|UNWIND)$/ { n++ } END { print n + 0 }'; }
dump_dropped() { "$ct" dump "$1" | awk '$2 == "DROPPED" { split($4, a, "="); n += a[2] } END { print n + 0 }'; }
dump_end_events() { "$ct" dump "$1" | awk '$2 == "END" { split($4, a, "="); print a[2] }'; }
# damage: the damaged traces of cases/record.case, made from Values'
# traces: cut.clrt and zcut.clrt cut short (a killed program; the
# uncompressed trace and the compressed one), junk.clrt not a trace,
# flip.clrt with the first record's type byte made unknown (the first
# record follows the header: at offset $first), zflip.clrt with a byte
# changed inside the first zstd block's frame; afile, a file.
damage() {
    local trace="$work/v/nested/dir/trace.clrt"
    head -c $(($(stat -c %s "$work/vn/trace.clrt") - 5)) "$work/vn/trace.clrt" >"$work/cut.clrt"
    head -c $(($(stat -c %s "$trace") - 5)) "$trace" >"$work/zcut.clrt"
    printf 'NOT A TRACE AT ALL' >"$work/junk.clrt"
    first=$("$ct" dump "$trace" | sed -n '2p' | awk '{print $1}')
    cp "$trace" "$work/flip.clrt"
    printf '\x63' | dd of="$work/flip.clrt" bs=1 seek="$first" conv=notrunc status=none
    cp "$trace" "$work/zflip.clrt"
    printf '\x5a' | dd of="$work/zflip.clrt" bs=1 seek="$((first + 40))" conv=notrunc status=none
    printf 'x' >"$work/afile"
}

echo "== building the targets"
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }
workload=$(ct_dotnet_build "$root/bench/Workload" "$work") && [[ -n "$workload" ]] ||
    { echo "ERROR: dotnet build of bench/Workload failed" >&2; exit 2; }

ct_cases "$here/cases/record.case"

# ---------------------------------------------------------- 2. lossy mode
echo "== lossy mode: dropped events are counted"
ct_run "$work" lless "$ct" record --profiler "$lib" -o "$work/lless" -- dotnet "$workload" threads 4 400000
total=$(dump_end_events "$work/lless")
check "lossless: the END record counts every event recorded" test "$total" = "$(dump_events "$work/lless")"
check "lossless: nothing dropped" test "$(dump_dropped "$work/lless")" = 0
ct_run "$work" lossy "$ct" record --profiler "$lib" --lossy --buffer-kb 16 -o "$work/lossy" --text "$work/lossy.txt" -- \
    dotnet "$workload" threads 4 400000
check "lossy: the program's checksum is unchanged" \
    test "$(checksum "$work/lless.out")" = "$(checksum "$work/lossy.out")"
recorded=$(dump_events "$work/lossy")
dropped=$(dump_dropped "$work/lossy")
echo "     lossless: $total events; lossy: $recorded recorded, $dropped dropped"
check "lossy: events were dropped with a 16 KiB buffer" test "$dropped" -gt 0
check "lossy: recorded + dropped = the lossless run's events ($total)" test $((recorded + dropped)) = "$total"
check "lossy: the summary says $dropped events dropped" test "$(summary_dropped "$work/lossy.txt")" = "$dropped"
"$ct" replay "$work/lossy" >"$work/lossy.replay"
check "lossy: replay equals the live text log" same_file "$work/lossy.txt" "$work/lossy.replay"
check "lossy: the header says lossy" grep -qE '^# CoreCLR .*, lossy$' "$work/lossy.replay"
# Objects by content need their classes' CLASS records, which the writer
# makes from the records that first name each class on a thread: with
# events dropped, every object still reads by its class and content
# (bench/Workload: Save(order), Sum(list of 0..99), Look(dict of k0..k19)).
# "busy": the objects first come right after a burst of other calls, when
# the buffer is often full and that first record dropped (a build that did
# not name the classes again after such a drop failed here in 3 of 6 runs).
# On a loaded machine the writer can be starved so long that nearly every
# call is dropped: the recording is made again (at most 3 times) until each
# method has more than 10 calls to look at.
for attempt in 1 2 3; do
    rm -rf "$work/lobj"
    ct_run "$work" lobj "$ct" record --profiler "$lib" --lossy --buffer-kb 16 -o "$work/lobj" \
        --text "$work/lobj.txt" -- dotnet "$workload" objects 30000 busy
    few=0
    for m in Save Sum Look; do
        (($(grep -cE " Bench\.Values\.$m\(" "$work/lobj.txt") > 10)) || few=1
    done
    ((few)) || break
    echo "     lossy objects: 10 calls or fewer of a method recorded (attempt $attempt), again"
done
check "lossy objects: events were dropped" test "$(dump_dropped "$work/lobj")" -gt 0
save='Bench\.Values\.Save\(Order o=Bench\.Order\{Id=5, Total=12\.5, Buyer=Bench\.Customer\{Name="Ada", Home=Bench\.Address@0x[0-9a-f]+\}\}\)( -> long 75006| \{)$'
sum='Bench\.Values\.Sum\(List<int> l=List<int>\(100\) \{0, 1, 2, 3, 4, 5, 6, 7, \.\.\.\}\)( -> int 100| \{)$'
look='Bench\.Values\.Look\(Dictionary<string, int> d=Dictionary<string, int>\(20\) \{\["k0"\]=0, \["k1"\]=1, \["k2"\]=2, \["k3"\]=3, \["k4"\]=4, \["k5"\]=5, \["k6"\]=6, \["k7"\]=7, \.\.\.\}\)( -> int 20| \{)$'
for m in Save Sum Look; do
    re=$save; [[ $m == Sum ]] && re=$sum; [[ $m == Look ]] && re=$look
    lines=$(grep -cE " Bench\.Values\.$m\(" "$work/lobj.txt")
    check "lossy objects: all $lines $m calls show their objects by class and content" \
        test "$lines" -gt 10 -a "$(grep -cE " $re" "$work/lobj.txt")" = "$lines"
done

ct_end run_record.sh
