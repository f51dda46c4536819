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
has_line() { # has_line FILE FIXED-STRING
    grep -qF -- "$2" "$1" || { echo "no line with: $2"; return 1; }
}
mode_is() { # mode_is PATH OCTAL
    local m
    m=$(stat -c %a "$1") && [[ "$m" == "$2" ]] || { echo "$1 has mode ${m:-?}, expected $2"; return 1; }
}
# The summary part of a text log: from "# summary:" to the end, after the
# first header line (what `clrtrace report` prints).
summary_of() {
    head -n 1 "$1"
    sed -n '/^# summary: /,$p' "$1"
}
# Counts in a dump: events (ENTER/LEAVE/TAILCALL/UNWIND) and the sum of DROPPED.
dump_events() { "$ct" dump "$1" | awk '$2 ~ /^(ENTER|LEAVE|TAILCALL|UNWIND)$/ { n++ } END { print n + 0 }'; }
dump_dropped() { "$ct" dump "$1" | awk '$2 == "DROPPED" { split($4, a, "="); n += a[2] } END { print n + 0 }'; }
dump_end_events() { "$ct" dump "$1" | awk '$2 == "END" { split($4, a, "="); print a[2] }'; }

echo "== building the targets"
values=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$values" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }
workload=$(ct_dotnet_build "$root/bench/Workload" "$work") && [[ -n "$workload" ]] ||
    { echo "ERROR: dotnet build of bench/Workload failed" >&2; exit 2; }

same_run() { # same_run A B: stdout and exit code
    same_file "$work/$1.out" "$work/$2.out" &&
        [[ "$(cat "$work/$1.rc")" == "$(cat "$work/$2.rc")" ]] ||
        { echo "exit code $(cat "$work/$2.rc"), expected $(cat "$work/$1.rc")"; return 1; }
}

# ------------------------------------------------- 1. live log == replay
echo "== record, replay, report: Values"
ct_run "$work" plain dotnet "$values"
check "Values untraced exits 7" test "$(cat "$work/plain.rc")" = 7
ct_run "$work" rec "$ct" record --profiler "$lib" -o "$work/v/nested/dir" --text "$work/v.txt" -- dotnet "$values"
check "record: same stdout and exit code as untraced" same_run plain rec
check "record: nothing on stderr" test ! -s "$work/rec.err"
check "record: the trace directory is created, mode 700" mode_is "$work/v/nested/dir" 700
check "record: trace.clrt is mode 600" mode_is "$work/v/nested/dir/trace.clrt" 600
check "record: --text log is mode 600" mode_is "$work/v.txt" 600
"$ct" replay "$work/v/nested/dir" >"$work/v.replay" 2>"$work/v.replay.err"
check "replay exits 0, nothing on stderr" test $? = 0 -a ! -s "$work/v.replay.err"
check "replay equals the live text log of the same run" same_file "$work/v.txt" "$work/v.replay"
"$ct" replay "$work/v/nested/dir/trace.clrt" >"$work/v.replay2"
check "replay of the file path itself is the same" same_file "$work/v.txt" "$work/v.replay2"
"$ct" report "$work/v/nested/dir" >"$work/v.report"
summary_of "$work/v.txt" >"$work/v.summary"
check "report equals the header line and summary of the live log" same_file "$work/v.summary" "$work/v.report"
# The records are compressed by default (zstd blocks): the replay above read
# them; --no-compress writes them as they are, and reads the same.
check "record: the records are in zstd blocks (info)" bash -c '"$0" info "$1" |
    grep -qE "^size +[0-9]+ bytes \([0-9]+ uncompressed, in [1-9][0-9]* zstd blocks?\)"' "$ct" "$work/v/nested/dir"
ct_run "$work" recn "$ct" record --profiler "$lib" --no-compress -o "$work/vn" --text "$work/vn.txt" -- dotnet "$values"
check "record --no-compress: same stdout and exit code as untraced" same_run plain recn
"$ct" replay "$work/vn" >"$work/vn.replay" 2>&1
check "record --no-compress: replay equals its live text log" same_file "$work/vn.txt" "$work/vn.replay"
check "record --no-compress: no zstd block (info)" bash -c '"$0" info "$1" |
    grep -qE "^size +[0-9]+ bytes, [0-9.]+ bytes per call, format [0-9]+\.[0-9]+$"' "$ct" "$work/vn"
check "record --no-compress: the file is larger than the compressed one" \
    test "$(stat -c %s "$work/vn/trace.clrt")" -gt "$(stat -c %s "$work/v/nested/dir/trace.clrt")"
# Values from Kinds.cs / Abi.cs, as run_values.sh checks them in the live log.
check "replay: decoded struct argument and return value" \
    has_line "$work/v.replay" 'Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}'
check "replay: strings, enums, nullables" \
    has_line "$work/v.replay" 'Demo.Kinds.Enums(Color c=Green, Tiny t=Two, Wide w=Low, Access a=Read | Write, Access none=None, Color odd=7) -> Access Read | Write | Exec'
check "replay: object arguments shown by the content plans of CLASS records" \
    grep -qE '^.* Demo\.Kinds\.Describe\(Shape shape=Demo\.Circle\{R=2\}\) -> string "circle"$' "$work/v.replay"
check "replay: elided struct levels" \
    has_line "$work/v.replay" 'Demo.Kinds.Deep(Level1 v={A=1, Inner={B=2, Inner={C=3, Inner={D=4, Inner={...}}}}}) -> int 6'
check "replay: two threads, 0 events dropped" \
    grep -qE '^# summary: [0-9]+ calls, [0-9]+ functions, 2 threads, 0 events dropped$' "$work/v.replay"
check "replay: the closing line" grep -qE '^# clrtrace: shutdown, [0-9]+ functions JIT-compiled, [0-9]+ traced$' "$work/v.replay"
"$ct" replay --no-summary "$work/v/nested/dir" >"$work/v.nosum"
check "replay --no-summary leaves out the table only" \
    bash -c "! grep -q '^# summary' '$work/v.nosum' && grep -q '^# clrtrace: shutdown' '$work/v.nosum'"

echo "== record, replay: 8 threads, the fast path"
ct_run "$work" wplain dotnet "$workload" threads 8 40000
ct_run "$work" wrec "$ct" record --profiler "$lib" -o "$work/w" --text "$work/w.txt" -- dotnet "$workload" threads 8 40000
check "8 threads: the program's checksum is unchanged" \
    test "$(sed -E 's/ns_per_call=[0-9.]+ //; s/ vmhwm_kib=[0-9]+//' "$work/wplain.out")" = \
         "$(sed -E 's/ns_per_call=[0-9.]+ //; s/ vmhwm_kib=[0-9]+//' "$work/wrec.out")"
"$ct" replay "$work/w" >"$work/w.replay"
check "8 threads: replay equals the live text log" same_file "$work/w.txt" "$work/w.replay"
check "8 threads: 9 threads in the summary, nothing dropped" \
    grep -qE '^# summary: [0-9]+ calls, [0-9]+ functions, 9 threads, 0 events dropped$' "$work/w.replay"
# Each thread makes 40000 / 19 = 2105 steps of 19 calls (Program.cs).
check "8 threads: Step called 8 x 2105 times" grep -qE '^ +16840 .* Bench\.Program\.Step$' "$work/w.replay"
check "8 threads: Fib called 8 x 2105 x 9 times" grep -qE '^ +151560 .* Bench\.Ops\.Fib$' "$work/w.replay"
ct_run "$work" frec "$ct" record --profiler "$lib" --no-args -o "$work/f" --text "$work/f.txt" -- dotnet "$workload" threads 2 20000
"$ct" replay "$work/f" >"$work/f.replay"
check "fast path: replay equals the live text log" same_file "$work/f.txt" "$work/f.replay"
check "fast path: calls without values" has_line "$work/f.replay" 'Bench.Ops.Add(...)'

# Values of thousands of calls, most read at the locations the first calls
# learned (argmap.c), checked against what Program.cs computes from them.
echo "== values of repeated calls (learned argument locations)"
ct_run "$work" crec "$ct" record --profiler "$lib" -o "$work/c" -- dotnet "$workload" calls 100000
"$ct" replay "$work/c" >"$work/c.replay"
check_values() { # the replayed lines of Workload's Step, against Program.cs
    python3 - "$1" <<'PY'
import re, sys
n = {}
bad = []
rules = [
    ("add", r" Bench\.Ops\.Add\(int a=(-?\d+), int b=3\) -> int (-?\d+)$", lambda m: int(m[2]) == int(m[1]) + 3),
    ("mul", r" Bench\.Ops\.Mul\(double a=(\S+), double b=0\.5\) -> double (\S+)$", lambda m: float(m[2]) == float(m[1]) * 0.5),
    ("len", r' Bench\.Ops\.Len\(string s="([a-z]+)"\) -> int (\d+)$', lambda m: int(m[2]) == len(m[1])),
    ("scale", r" Bench\.Ops\.Scale\(Vec v=\{X=(\S+), Y=1\}, double k=2\) -> Vec \{X=(\S+), Y=2\}$", lambda m: float(m[2]) == 2 * float(m[1])),
    ("mix", r' Bench\.Ops\.Mix\(int a=(-?\d+), long b=7, double c=1\.5, string d="([a-z]+)", Vec e=\{X=(\S+), Y=2\}\) -> long (-?\d+)$',
     lambda m: int(m[4]) == int(m[1]) + 8 + len(m[2]) + int(float(m[3]))),
    ("square", r" Bench\.Square\.Area\(this=Bench\.Square@0x[0-9a-f]+, double scale=(\d+)\) -> double (\S+)$", lambda m: float(m[2]) == 4 * int(m[1])),
    ("circle", r" Bench\.Circle\.Area\(this=Bench\.Circle@0x[0-9a-f]+, double scale=(\d+)\) -> double (\S+)$", lambda m: abs(float(m[2]) - 3.14159 * int(m[1])) < 1e-9),
    ("sides4", r" Bench\.Square\.Sides\(this=Bench\.Square@0x[0-9a-f]+\) -> int 4$", lambda m: True),
    ("sides0", r" Bench\.Shape\.Sides\(this=Bench\.Circle@0x[0-9a-f]+\) -> int 0$", lambda m: True),
    ("fibleaf", r" Bench\.Ops\.Fib\(int n=([01])\) -> int (\d+)$", lambda m: m[1] == m[2]),
    # Loop: shapes = { new Square(2), new Circle(1) }, ishapes the same two.
    ("step", r" Bench\.Program\.Step\(int i=\d+, Shape\[\] shapes=Shape\[2\] \{Bench\.Square\{side=2\}, Bench\.Circle\{radius=1\}\}, IShape\[\] ishapes=IShape\[2\] \{Bench\.Square\{side=2\}, Bench\.Circle\{radius=1\}\}\) \{$", lambda m: True),
]
rules = [(k, re.compile(r), f) for k, r, f in rules]
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    for k, r, f in rules:
        m = r.search(line)
        if m:
            n[k] = n.get(k, 0) + 1
            if not f(m):
                bad.append(line)
            break
# Program.cs: a warm-up loop of min(100000 / 19, 20000) = 5263 steps, then 5263 more;
# Fib(4) has 5 leaves.
want = 2 * 5263
for k, _, _ in rules:
    expect = want * 5 if k == "fibleaf" else want
    if n.get(k, 0) != expect:
        bad.append(f"{k}: {n.get(k, 0)} lines, expected {expect}")
if bad:
    print("\n".join(bad[:10]))
    sys.exit(1)
PY
}
check "calls: every value agrees with what Program.cs computes from the arguments" check_values "$work/c.replay"

# ---------------------------------------------------------- 2. lossy mode
echo "== lossy mode: dropped events are counted"
ct_run "$work" lless "$ct" record --profiler "$lib" -o "$work/lless" -- dotnet "$workload" threads 4 400000
total=$(dump_end_events "$work/lless")
check "lossless: the END record counts every event recorded" test "$total" = "$(dump_events "$work/lless")"
check "lossless: nothing dropped" test "$(dump_dropped "$work/lless")" = 0
ct_run "$work" lossy "$ct" record --profiler "$lib" --lossy --buffer-kb 16 -o "$work/lossy" --text "$work/lossy.txt" -- \
    dotnet "$workload" threads 4 400000
check "lossy: the program's checksum is unchanged" \
    test "$(sed -E 's/ns_per_call=[0-9.]+ //; s/ vmhwm_kib=[0-9]+//' "$work/lless.out")" = \
         "$(sed -E 's/ns_per_call=[0-9.]+ //; s/ vmhwm_kib=[0-9]+//' "$work/lossy.out")"
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

# --------------------------------------------------- 3. Environment.Exit
echo "== Environment.Exit from 20 frames down"
ct_run "$work" eplain dotnet "$workload" exit 20
ct_run "$work" erec "$ct" record --profiler "$lib" -o "$work/e" -- dotnet "$workload" exit 20
check "exit: same stdout and exit code (5)" same_run eplain erec
check "exit: untraced exit code is 5" test "$(cat "$work/eplain.rc")" = 5
"$ct" replay "$work/e" >"$work/e.replay"
check "exit: the trace has its END record" grep -qE '^# clrtrace: shutdown, ' "$work/e.replay"
check "exit: the 21 calls of Down, open when the process ended, are written as open blocks" \
    test "$(grep -cE ' Bench\.Program\.Down\(int n=[0-9]+\) \{$' "$work/e.replay")" = 21
check "exit: the innermost Down is recorded" grep -qE ' Bench\.Program\.Down\(int n=0\) \{$' "$work/e.replay"

# ------------------------------------------------------ 4. damaged traces
echo "== damaged traces"
damaged() { # damaged NAME: replay of $work/NAME exits 1 with one line naming an offset
    local rc=0
    "$ct" replay "$work/$1" >/dev/null 2>"$work/$1.err" || rc=$?
    [[ $rc == 1 ]] || { echo "exit status $rc"; return 1; }
    [[ $(wc -l <"$work/$1.err") == 1 ]] || { echo "stderr: $(cat "$work/$1.err")"; return 1; }
    grep -qE "^clrtrace replay: .*$1.* at offset [0-9]+$" "$work/$1.err" || { echo "stderr: $(cat "$work/$1.err")"; return 1; }
}
trace="$work/v/nested/dir/trace.clrt"
size=$(stat -c %s "$trace")
# A trace cut short (a killed program): what is there, then one line saying
# so, exit 0. (The uncompressed trace: a compressed one loses the whole zstd
# block that was cut, here all of its calls.)
head -c $(($(stat -c %s "$work/vn/trace.clrt") - 5)) "$work/vn/trace.clrt" >"$work/cut.clrt"
head -c $((size - 5)) "$trace" >"$work/zcut.clrt"
rc=0
"$ct" replay "$work/zcut.clrt" >/dev/null 2>"$work/zcut.err" || rc=$?
check "a cut compressed trace: exit 0, one line saying it is incomplete" \
    bash -c '[[ $0 == 0 && $(wc -l <"$1") == 1 ]] && grep -qE "^clrtrace replay: incomplete trace: .*zcut.clrt ends at offset [0-9]+ \(the program was killed or crashed\?\)$" "$1"' "$rc" "$work/zcut.err"
rc=0
"$ct" replay "$work/cut.clrt" >"$work/cut.out" 2>"$work/cut.clrt.err" || rc=$?
check "a cut trace: exit 0, one line saying it is incomplete, with the offset" \
    bash -c '[[ $0 == 0 && $(wc -l <"$1") == 1 ]] && grep -qE "^clrtrace replay: incomplete trace: .*cut.clrt ends at offset [0-9]+ \(the program was killed or crashed\?\)$" "$1"' "$rc" "$work/cut.clrt.err"
check "a cut trace: the calls before the cut are printed" grep -qE '^ +[0-9]+\.[0-9]{6} +[0-9]+ ' "$work/cut.out"
printf 'NOT A TRACE AT ALL' >"$work/junk.clrt"
check "not a trace: one line with the offset, exit 1" damaged junk.clrt
# A record's type byte made unknown: the first record follows the header.
cp "$trace" "$work/flip.clrt"
first=$("$ct" dump "$trace" | sed -n '2p' | awk '{print $1}')
printf '\x63' | dd of="$work/flip.clrt" bs=1 seek="$first" conv=notrunc status=none
check "an unknown record type: one line with the offset, exit 1" damaged flip.clrt
check "an unknown record type: the offset is $first" \
    bash -c 'grep -q "at offset $0\$" "$1" || { cat "$1"; exit 1; }' "$first" "$work/flip.clrt.err"
# A byte changed inside the first zstd block's frame: its checksum (or its
# decoding) fails; the error names the block's file offset.
cp "$trace" "$work/zflip.clrt"
printf '\x5a' | dd of="$work/zflip.clrt" bs=1 seek="$((first + 40))" conv=notrunc status=none
rc=0
"$ct" replay "$work/zflip.clrt" >/dev/null 2>"$work/zflip.err" || rc=$?
check "a damaged zstd block: exit 1, one line naming the block's file offset" \
    bash -c '[[ $0 == 1 && $(wc -l <"$1") == 1 ]] && grep -qE "^clrtrace replay: .*zflip.clrt: malformed record at offset [0-9]+ \(in the zstd block at file offset $2\)$" "$1" || { cat "$1"; exit 1; }' \
    "$rc" "$work/zflip.err" "$first"
"$ct" report "$work/junk.clrt" >/dev/null 2>&1
check "report of a damaged trace exits 1" test $? = 1
"$ct" replay "$work/no-such-dir" >/dev/null 2>"$work/missing.err"
check "a missing trace exits 1 with one line" test $? = 1 -a "$(wc -l <"$work/missing.err")" = 1

# ---------------------------------------------------------- 5. usage
echo "== usage"
"$ct" record --profiler "$lib" -- true 2>/dev/null
check "record without -o: usage error 2" test $? = 2
"$ct" replay 2>/dev/null
check "replay without a trace: usage error 2" test $? = 2
"$ct" replay --bogus x 2>/dev/null
check "replay with an unknown option: usage error 2" test $? = 2
"$ct" record --profiler "$lib" --buffer-kb 8 -o "$work/x" -- true 2>/dev/null
check "record --buffer-kb below 16: usage error 2" test $? = 2
printf 'x' >"$work/afile"
"$ct" record --profiler "$lib" -o "$work/afile" -- true 2>"$work/afile.err"
check "record -o onto a file: usage error 2 with one line" test $? = 2 -a "$(wc -l <"$work/afile.err")" = 1

ct_end run_record.sh
