#!/usr/bin/env bash
# End-to-end test of --srcline: each traced function's file:line from its
# Portable PDB, in the live log, in a recorded trace and under attach.
#
# Usage: tests/e2e/run_srcline.sh [path/to/libclrtrace.so]
#
# The expected lines are read from the C# sources with grep (the line that
# declares an expression-bodied method, the first statement of a block
# method in a release build), never from clrtrace's output. Checks:
#   1. tests/targets/Hello traced with --srcline under the IL engine and
#      the ELT engine: the same stdout and exit code as untraced; each call
#      line ends with " at Program.cs:LINE" (the sources' common folder left
#      out); a block that opens says it after its "{";
#   2. recorded with --srcline: replay --srcline shows the same, replay
#      --srcline=full the whole path, replay without it nothing; a trace
#      recorded without --srcline has no locations; report --srcline's
#      SOURCE column and its count of functions without a line; the
#      exports' code.file.path and code.line.number (Chrome's args, OTLP's
#      attributes read back with protoc --decode_raw, with
#      code.function.name) and the flame graph's tooltips;
#   3. the same program built with an embedded PDB (-p:DebugType=embedded):
#      the same locations;
#   3b. another build's PDB beside the assembly: one line, no locations,
#      the program as untraced;
#   4. an async method's stub (no lines of its own) gets its MoveNext's
#      first line (tests/targets/Failures);
#   4b. tests/targets/Lines, both engines and replayed (also through a tree
#      filter): the line an exception was thrown at and the line of each
#      frame it left, equal to the runtime's own (the program prints its
#      exceptions' StackTrace lines) and, for the throws, to the throw
#      statements' lines by hand: a chain of calls, a null dereference, an
#      async method's body; 40 frames deep, the innermost CT_EXC_LINES (32)
#      with a line and the 8 beyond without;
#   5. under attach (-p) to tests/targets/Service: Handle's line, and the
#      line Validate's exceptions are thrown at;
#   6. clrtrace sigs --lines: the same lines, from either PDB; an assembly
#      without one: one line, exit 1;
#   7. a bad --srcline value: one line, exit 2, nothing run.
# Ends with "run_srcline.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup srcline "${1:-}" cli

echo "== building tests/targets/Hello (standalone and embedded PDB) and Service"
app=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hello failed" >&2; exit 2; }
emb=$(ct_dotnet_build "$root/tests/targets/Hello" "$work" embedded -p:DebugType=embedded) &&
    [[ -n "$emb" ]] || { echo "ERROR: the embedded-PDB build of Hello failed" >&2; exit 2; }
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }

src="$root/tests/targets/Hello/Program.cs"
add=$(ct_src_line "$src" 'public static int Add\(int a, int b\) =>')
fib=$(ct_src_line "$src" 'public static int Fib\(int n\) =>')
divide=$(ct_src_line "$src" 'if \(b == 0\)')          # Divide's first statement
trydivide=$(ct_src_line "$src" 'return Divide\(a, b\)') # TryDivide's, inside its try
main=$(sed -n '/static int Main(/,$p' "$src" | grep -nE '^ +[A-Za-z].*;' | head -n 1 | cut -d: -f1)
main=$(( $(ct_src_line "$src" 'static int Main\(') + main - 1 ))
echo "Program.cs: Add $add, Fib $fib, Divide $divide, Main's first statement $main"

# expect_lines LOG PREFIX: the calls of LOG end with their lines.
expect_lines() {
    local log=$1 p=$2
    check "$p: Add(2, 3) folded, ' at Program.cs:$add'" grep -qE \
        "Demo\.MathOps\.Add\(int a=2, int b=3\) -> int 5 at Program\.cs:$add\$" "$log"
    check "$p: every Fib leaf call ends with ' at Program.cs:$fib'" awk -v l="$fib" '
        /Demo\.MathOps\.Fib\(int n=[01]\) -> int [01]/ { n++; if ($0 !~ (" at Program\\.cs:" l "$")) bad++ }
        END { exit !(n == 8 && !bad) }' "$log"
    check "$p: an opening Fib line says it after '{'" grep -qE \
        "Demo\.MathOps\.Fib\(int n=5\) \{ at Program\.cs:$fib\$" "$log"
    check "$p: Divide (a block method) at its first statement, line $divide" grep -qE \
        "Demo\.MathOps\.Divide\(int a=[0-9]+, int b=[1-9]\) -> int [0-9]+ at Program\.cs:$divide\$" "$log"
    check "$p: Main opens with its first statement's line $main" grep -qE \
        "Demo\.Program\.Main\(.*\) \{ at Program\.cs:$main\$" "$log"
    check "$p: closing lines carry no location" bash -c "! grep -E '^ .* } .* at [A-Za-z]+\.cs:[0-9]+\$' '$log'"
}

echo "== 1. the live log, both engines"
run_plain plain
for engine in il elt; do
    run_traced "$engine" CLRTRACE_SRCLINE=1 CLRTRACE_ENGINE="$engine" --
    ct_same_as_plain "$engine"
    expect_lines "$work/$engine.txt" "run --srcline --engine=$engine"
done

echo "== 2. a recorded trace"
ct_run "$work" rec "$ct" record --srcline -o "$work/rec" -- dotnet "$app"
check_eq "record --srcline: the program's exit code" 3 "$(cat "$work/rec.rc")"
"$ct" replay --srcline "$work/rec" >"$work/replay.txt" 2>"$work/replay.err"
expect_lines "$work/replay.txt" "replay --srcline"
"$ct" replay --srcline=full "$work/rec" >"$work/full.txt" 2>&1
check "replay --srcline=full: the whole path" grep -qF -e \
    "-> int 5 at $src:$add" "$work/full.txt"
"$ct" replay "$work/rec" >"$work/plainreplay.txt" 2>&1
check "replay without --srcline: no locations" bash -c "! grep -qE ' at [A-Za-z/]+\.cs:[0-9]+\$' '$work/plainreplay.txt'"
ct_run "$work" norec "$ct" record -o "$work/norec" -- dotnet "$app"
"$ct" replay --srcline "$work/norec" >"$work/noreplay.txt" 2>&1
check "a trace recorded without --srcline: replay --srcline shows no locations" \
    bash -c "! grep -qE ' at [A-Za-z/]+\.cs:[0-9]+\$' '$work/noreplay.txt' && grep -q 'MathOps.Add' '$work/noreplay.txt'"

echo "== 2b. report and the exports"
"$ct" report --srcline "$work/rec" >"$work/report.txt" 2>&1
check "report --srcline: a SOURCE column: Add's row says Program.cs:$add" grep -qE \
    "^ +1 +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9]+  Program\.cs:$add +Demo\.MathOps\.Add\$" "$work/report.txt"
check "report --srcline: the functions without a line are counted (Counter's made constructor)" \
    grep -qE '^# source lines: 1 of [0-9]+ functions have none' "$work/report.txt"
"$ct" report "$work/rec" >"$work/report-plain.txt" 2>&1
check "report without --srcline: no SOURCE column" bash -c "! grep -q SOURCE '$work/report-plain.txt'"
"$ct" dump --chrome "$work/rec" >"$work/chrome.json" 2>&1
check "dump --chrome: Add's args carry code.file.path and code.line.number" python3 -c "
import json, sys
ev = [e for e in json.load(open('$work/chrome.json'))['traceEvents'] if e.get('name') == 'Demo.MathOps.Add']
a = ev[0]['args']
sys.exit(not (a['code.file.path'] == '$src' and a['code.line.number'] == $add))"
"$ct" dump --otlp "$work/rec" >"$work/otlp.pb" 2>&1
protoc --decode_raw <"$work/otlp.pb" >"$work/otlp.txt" 2>&1
check "dump --otlp: spans carry code.file.path, code.line.number, code.function.name" python3 -c "
import re, sys
t = open('$work/otlp.txt').read()
# protoc --decode_raw: a KeyValue is 1: \"key\" 2 { 1: \"string\" } or 2 { 3: int }.
ok = re.search(r'1: \"code\.file\.path\"\s*2 \{\s*1: \"' + re.escape('$src') + r'\"', t) and \
     re.search(r'1: \"code\.line\.number\"\s*2 \{\s*3: $add\s*\}', t) and \
     re.search(r'1: \"code\.function\.name\"\s*2 \{\s*1: \"Demo\.MathOps\.Add\"', t)
sys.exit(not ok)"
"$ct" dump --flame "$work/rec" >"$work/flame.svg" 2>&1
check "dump --flame: a frame's tooltip says where its function is" grep -qF \
    "<title>Demo.MathOps.TryDivide at Program.cs:$trydivide" "$work/flame.svg"

echo "== 3. an embedded PDB"
ct_run "$work" emb "$ct" run --srcline -o "$work/emb.txt" -- dotnet "$emb"
check_eq "embedded: the program's exit code" 3 "$(cat "$work/emb.rc")"
check "embedded: no .pdb file beside the assembly" bash -c "! ls '$(dirname "$emb")'/*.pdb"
expect_lines "$work/emb.txt" "embedded PDB"

echo "== 3b. another build's PDB beside the assembly"
mkdir -p "$work/mismatch" && cp "$(dirname "$app")"/* "$work/mismatch/" &&
    cp "$(dirname "$(ct_dotnet_build "$root/tests/targets/Lines" "$work")")/Lines.pdb" "$work/mismatch/Hello.pdb"
ct_run "$work" mism "$ct" run --srcline -o "$work/mism.txt" -- dotnet "$work/mismatch/Hello.dll"
check_eq "another build's PDB: the program's exit code" 3 "$(cat "$work/mism.rc")"
check "another build's PDB: the program's output unchanged" cmp -s "$work/plain.out" "$work/mism.out"
check "another build's PDB: one line saying so" bash -c \
    "[ \$(wc -l < '$work/mism.err') = 1 ] && grep -qE '^clrtrace: no source lines for Hello: .*/mismatch/Hello\.pdb: PDB does not match the assembly' '$work/mism.err'"
check "another build's PDB: no locations" bash -c "! grep -q ' at Program.cs' '$work/mism.txt' && grep -q 'MathOps.Add' '$work/mism.txt'"

echo "== 4. an async method"
fapp=$(ct_dotnet_build "$root/tests/targets/Failures" "$work") && [[ -n "$fapp" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Failures failed" >&2; exit 2; }
fsrc="$root/tests/targets/Failures/Program.cs"
# The first async method declared, and its body's first statement's line.
amethod=$(grep -oE 'async Task(<[a-z]+>)? [A-Za-z]+\(' "$fsrc" | head -n 1 | sed -E 's/.* ([A-Za-z]+)\($/\1/')
adecl=$(ct_src_line "$fsrc" "async Task(<[a-z]+>)? $amethod\\(")
afirst=$(awk -v d="$adecl" 'NR > d && /^ +[A-Za-z_].*;/ { print NR; exit }' "$fsrc")
ct_run "$work" async "$ct" run --srcline -F "*.$amethod" -o "$work/async.txt" -- dotnet "$fapp"
check "async $amethod: its stub's call at its first statement, line $afirst" grep -qE \
    "\\.$amethod\\(.* at Program\\.cs:$afirst\$" "$work/async.txt"

echo "== 4b. where exceptions were thrown, and each frame's line (tests/targets/Lines)"
lapp=$(ct_dotnet_build "$root/tests/targets/Lines" "$work") && [[ -n "$lapp" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Lines failed" >&2; exit 2; }
lsrc="$root/tests/targets/Lines/Program.cs"
ct_run "$work" lplain dotnet "$lapp"
check_eq "Lines untraced: exit code 0" 0 "$(cat "$work/lplain.rc")"
# The runtime's own lines (its StackTrace over the PDB), as the program printed them.
rt() { awk -v c="$1:" -v m="$2" '$1 == c { on = 1; next } /^[a-z]+:/ { on = 0 } on && $1 == m { print $2; exit }' "$work/lplain.out"; }
inner=$(rt chain Lines.Chain.Inner) middle=$(rt chain Lines.Chain.Middle) outer=$(rt chain Lines.Chain.Outer)
deref=$(rt deref Lines.Chain.Deref) movenext=$(rt async 'Lines.Later+<FetchAsync>d__0.MoveNext')
echo "the runtime's lines: Inner $inner, Middle $middle, Outer $outer, Deref $deref, MoveNext $movenext"
check_eq "Inner's line is its throw statement's (by hand)" "$(ct_src_line "$lsrc" 'throw new ArgumentOutOfRangeException')" "$inner"
check_eq "the async method's line is its throw statement's (by hand)" "$(ct_src_line "$lsrc" 'throw new InvalidOperationException\("no such id')" "$movenext"
expect_exc_lines() { # LOG PREFIX
    local log=$1 p=$2
    check "$p: Inner thrown at Program.cs:$inner" grep -qE \
        "Lines\.Chain\.Inner\(int n=20\) -> exception System\.ArgumentOutOfRangeException: \"too big\" thrown at Program\.cs:$inner\$" "$log"
    check "$p: Middle left at Program.cs:$middle, Outer at $outer (as the runtime says)" bash -c "
        grep -E '} exception System\.ArgumentOutOfRangeException: \"too big\" at Program\.cs:[0-9]+\$' '$log' |
            sed -E 's/.* at Program\.cs:([0-9]+)\$/\1/' | tr '\n' ' ' | grep -qx '$middle $outer '"
    check "$p: a null dereference thrown at Program.cs:$deref" grep -qE \
        "Lines\.Chain\.Deref\(string s=null\) -> exception System\.NullReferenceException: .* thrown at Program\.cs:$deref\$" "$log"
    # The body's end: folded, or "} exception" when its task's end came first.
    local dthrow drec
    dthrow=$(ct_src_line "$lsrc" 'throw new InvalidOperationException\("deep"\)')
    drec=$(ct_src_line "$lsrc" 'return Deep\(n - 1\) \+ 1;')
    check "$p: 40 frames deep: the innermost thrown at $dthrow, the next 31 at $drec, the 8 beyond CT_EXC_LINES (32) none" awk \
        -v t="$dthrow" -v r="$drec" '
        /Lines\.Chain\.Deep\(int n=0\) -> exception/ { if ($0 ~ (" thrown at Program\\.cs:" t "$")) thrown++; else bad++ }
        /\} exception System\.InvalidOperationException: "deep"/ {
            if ($0 ~ (" at Program\\.cs:" r "$")) at++; else if ($0 ~ /"deep"$/) none++; else bad++ }
        END { if (thrown != 1 || at != 31 || none != 8 || bad) { print thrown + 0, at + 0, none + 0, bad + 0; exit 1 } }' "$log"
    check "$p: the async method's body thrown at Program.cs:$movenext" grep -qE \
        "(async Lines\.Later\.FetchAsync\(.*\) ->|^ +[0-9.]+ +[0-9]+ .*\}) exception System\.InvalidOperationException: \"no such id: -5\" thrown at Program\.cs:$movenext\$" "$log"
}
for engine in il elt; do
    ct_run "$work" "lines-$engine" "$ct" run --srcline --engine="$engine" -o "$work/lines-$engine.txt" -- dotnet "$lapp"
    check "Lines --engine=$engine: the program's output and exit code unchanged" \
        bash -c "cmp -s '$work/lplain.out' '$work/lines-$engine.out' && [ \"\$(cat '$work/lines-$engine.rc')\" = 0 ]"
    expect_exc_lines "$work/lines-$engine.txt" "run --srcline --engine=$engine"
done
ct_run "$work" lrec "$ct" record --srcline -o "$work/lrec" -- dotnet "$lapp"
"$ct" replay --srcline "$work/lrec" >"$work/lreplay.txt" 2>&1
expect_exc_lines "$work/lreplay.txt" "replay --srcline"
"$ct" replay --srcline -t 1us "$work/lrec" >"$work/lfilter.txt" 2>&1
check "replay --srcline -t 1us (a tree filter holding events back): Inner still thrown at $inner" grep -qE \
    "Lines\.Chain\.Inner\(int n=20\) -> exception .* thrown at Program\.cs:$inner\$" "$work/lfilter.txt"
"$ct" replay "$work/lrec" >"$work/lnosrc.txt" 2>&1
check "replay without --srcline: no exception lines" bash -c "! grep -q ' at Program.cs' '$work/lnosrc.txt'"

echo "== 5. under attach"
ssrc="$root/tests/targets/Service/Program.cs"
# Handle's first statement (a release build has no sequence point on its "{").
shandle=$(( $(ct_src_line "$ssrc" 'public static long Handle\(') + 2 ))
ct_service_run "$svc"
if [[ -n "$spid" ]]; then
    ct_run "$work" att "$ct" run -p "$spid" --max-overhead off --srcline -F 'Svc.Handlers.Handle' -F 'Svc.Handlers.Validate' -d 2s -o "$work/att.txt"
    check_eq "run -p --srcline: exit code 0" 0 "$(cat "$work/att.rc")"
    check "run -p --srcline: Handle's calls at Program.cs:$shandle" awk -v l="$shandle" '
        /Svc\.Handlers\.Handle\(int worker=/ && / -> long / { n++; if ($0 !~ (" at Program\\.cs:" l "$")) { print; bad++ } }
        END { exit !(n > 0 && !bad) }' "$work/att.txt"
    sthrow=$(ct_src_line "$ssrc" 'throw new InvalidOperationException\("n="')
    check "run -p --srcline: Validate's exceptions thrown at Program.cs:$sthrow" awk -v l="$sthrow" '
        /Svc\.Handlers\.Validate\(long n=[0-9]+\) -> exception/ { n++; if ($0 !~ (" thrown at Program\\.cs:" l "$")) { print; bad++ } }
        END { exit !(n > 0 && !bad) }' "$work/att.txt"
    ct_service_done
else
    ct_fail "the service did not start"
fi

echo "== 6. clrtrace sigs --lines"
"$ct" sigs --lines "$app" >"$work/sigs.txt" 2>&1
check "sigs --lines: Add at Program.cs:$add, Divide at $divide" bash -c \
    "grep -qxF 'static int Demo.MathOps.Add(int a, int b) at Program.cs:$add' '$work/sigs.txt' &&
     grep -qxF 'static int Demo.MathOps.Divide(int a, int b) at Program.cs:$divide' '$work/sigs.txt'"
"$ct" sigs --lines "$emb" >"$work/sigs-emb.txt" 2>&1
check "sigs --lines: the same from the embedded PDB" cmp -s "$work/sigs.txt" "$work/sigs-emb.txt"
# --at: where a line's probe goes. The line after Divide's `if` is its "{"
# (no code): the throw's line; the blank line after Divide's last line is in
# no method.
throwl=$(ct_src_line "$src" 'throw new ArgumentException')
blank=$(( $(ct_src_line "$src" 'return a / b;') + 2 ))
"$ct" sigs --at "Program.cs:$((divide + 1))" "$app" >"$work/at.txt" 2>&1
check_eq "sigs --at Program.cs:$((divide + 1)) (a brace): the throw's line $throwl, in Divide" \
    "Program.cs:$((divide + 1)) -> Program.cs:$throwl IL_XXXX static int Demo.MathOps.Divide(int a, int b)" \
    "$(sed -E "s/IL_[0-9A-F]{4}/IL_XXXX/" "$work/at.txt")"
ct_run "$work" atblank "$ct" sigs --at "Program.cs:$blank" "$app"
check "sigs --at Program.cs:$blank (blank, between methods): exit 1, one line" bash -c \
    "[ \"\$(cat '$work/atblank.rc')\" = 1 ] && [ \$(wc -l < '$work/atblank.err') = 1 ] &&
     grep -q 'line $blank is in no method' '$work/atblank.err'"
# --at --locals: Greet's loop body sees `string text` and `int i` (by hand
# from the source: declared before the loop, and the loop's variable).
"$ct" sigs --at "Program.cs:$(ct_src_line "$src" 'text \+= "!";')" --locals "$app" >"$work/atloc.txt" 2>&1
check "sigs --at (Greet's loop body) --locals: string text and int i" bash -c \
    "sed -n 2p '$work/atloc.txt' | grep -qE '^  locals: string text \(slot [0-9]+\), int i \(slot [0-9]+\)\$'"
# Hoisted locals (tests/targets/Lines, by hand from its source): SumAsync's
# total and i live across its await, Evens' k across its yield (fields of
# their state machines); Evens' e is a local of MoveNext.
"$ct" sigs --at "Program.cs:$(ct_src_line "$lsrc" 'total \+= i;')" --locals "$lapp" >"$work/hoist.txt" 2>&1
check "sigs --at (SumAsync, after its await) --locals: int total and int i, hoisted" bash -c \
    "sed -n 1p '$work/hoist.txt' | grep -qE 'Lines\.Later\.<SumAsync>d__[0-9]+\.MoveNext\(\)\$' &&
     sed -n 2p '$work/hoist.txt' | grep -qxE '  locals: int total \(hoisted: <total>5__[0-9]+\), int i \(hoisted: <i>5__[0-9]+\)'"
"$ct" sigs --at "Program.cs:$(ct_src_line "$lsrc" 'Console.Write\(""\);')" --locals "$lapp" >"$work/hoist2.txt" 2>&1
check "sigs --at (Evens, before its yield) --locals: int e a local, int k hoisted" bash -c \
    "sed -n 2p '$work/hoist2.txt' | grep -qxE '  locals: int e \(slot [0-9]+\), int k \(hoisted: <k>5__[0-9]+\)'"
fw=$(dirname "$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v "/System.Linq.dll" }')")/System.Linq.dll
ct_run "$work" nopdb "$ct" sigs --lines "$fw"
check_eq "sigs --lines on an assembly without a PDB: exit 1" 1 "$(cat "$work/nopdb.rc")"
check "sigs --lines without a PDB: one line saying so" bash -c \
    "[ \$(wc -l < '$work/nopdb.err') = 1 ] && grep -q 'no Portable PDB' '$work/nopdb.err'"

echo "== 7. a bad value"
ct_run "$work" bad "$ct" run --srcline=sideways -- dotnet "$app"
check_eq "--srcline=sideways: exit 2" 2 "$(cat "$work/bad.rc")"
check_eq "--srcline=sideways: one line" 1 "$(wc -l < "$work/bad.err")"
check "--srcline=sideways: nothing ran" bash -c "! grep -q 'sum=5' '$work/bad.out'"

ct_end run_srcline.sh
