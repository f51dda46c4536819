#!/usr/bin/env bash
# End-to-end test of line probes (--at FILE:LINE): at each pass over a
# source line, `this`, the arguments and the locals in scope there by their
# source names.
#
# Usage: tests/e2e/run_lineprobe.sh [path/to/libclrtrace.so]
#
# The lines are found in tests/targets/Probes/Program.cs with grep, and the
# values each hit must show are written here by hand from that source (C#
# semantics: a decimal keeps its scale, locals start at zero, a catch's
# variable is the exception thrown), never from clrtrace's output. Checks:
#   1. run with seven probes: the program's stdout and exit code as
#      untraced; the one note on stderr (a comment line's probe goes to the
#      next line with code); each probe's hits, in order, exactly: a loop's
#      three passes (an instance method: `this`, the arguments, the locals
#      of the method's scope, a secret-named local redacted, a struct), a
#      later line of the same method, a line with code in both calls of a
#      method, an async method's hoisted locals on the pool's threads, an
#      iterator's (a hoisted local and one of MoveNext's own), a line in a
#      try block, a line in a catch block (its exception variable); the
#      "# line probes:" line's counts;
#   2. --when 'FILE:LINE: EXPR' over a probe's locals, and --limit per
#      probe; a probe named by method, 'GLOB:LINE' (the line in the file of
#      the method the glob matches; an async method's by its MoveNext);
#   3. recorded: replay shows the same hits; report counts them; the
#      Chrome export's instant events and their args; Perfetto's
#      TYPE_INSTANT track events (protoc with Perfetto's protos); the OTLP
#      export's span events on the caller's span;
#   4. refusals before anything runs (exit 2, one line, no program output):
#      a line outside any method, a file no PDB names, a malformed spec,
#      --engine=elt, 16 --at options accepted and the 17th refused;
#   5. under attach (-p) to tests/targets/Service: Handle's line, each hit's
#      values consistent with the source (tag == "w" + worker, order.Id ==
#      n, order.Amount == n * 0.5), the service's own checks right; a line
#      with no code refuses the attach with one line, the service untouched.
# Ends with "run_lineprobe.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup lineprobe "${1:-}" cli

echo "== building tests/targets/Probes and Service"
app=$(ct_dotnet_build "$root/tests/targets/Probes" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Probes failed" >&2; exit 2; }
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }

src="$root/tests/targets/Probes/Program.cs"
l_loop=$(ct_src_line "$src" 'total \+= prices\[i\];')
l_print=$(ct_src_line "$src" 'Console.WriteLine\("sum "')
l_comment=$(ct_src_line "$src" '// \(no code on this line')
l_if=$(ct_src_line "$src" 'if \(score > 10\)')
l_async=$(ct_src_line "$src" 'total \+= i;')
l_yield=$(ct_src_line "$src" 'yield return sq;')
l_try=$(ct_src_line "$src" '^ +return x;')
l_catch=$(ct_src_line "$src" 'int fallback = -x;')
[[ -n "$l_loop" && -n "$l_print" && -n "$l_comment" && -n "$l_if" && -n "$l_async" &&
   -n "$l_yield" && -n "$l_try" && -n "$l_catch" ]] ||
    { echo "ERROR: a probed line is missing from $src" >&2; exit 2; }
check_eq "the comment line is right before Classify's if" "$((l_comment + 1))" "$l_if"

ct_run "$work" plain timeout -k 5 300 dotnet "$app"
check_eq "untraced: exit code 0" 0 "$(cat "$work/plain.rc")"

# hits FILE NAME: the hits of probe NAME ("Program.cs:30"), the time and
# thread columns left out.
hits() { grep -F "@ $2  " "$1" | sed -E 's/^ *[0-9.]+ +[0-9]+ +//; s/^ +//'; }

echo "== 1. seven probes"
ats=(--at "Program.cs:$l_loop" --at "Program.cs:$l_print" --at "Program.cs:$l_comment"
     --at "Program.cs:$l_async" --at "Program.cs:$l_yield" --at "Program.cs:$l_try"
     --at "Program.cs:$l_catch")
ct_run "$work" run "$ct" run "${ats[@]}" -o "$work/run.txt" -- dotnet "$app"
check "run --at: stdout equals the untraced run's" diff "$work/plain.out" "$work/run.out"
check_eq "run --at: exit code equals the untraced run's" "$(cat "$work/plain.rc")" "$(cat "$work/run.rc")"
check_eq "run --at: the one note on stderr" \
    "clrtrace run: --at Program.cs:$l_comment: no code starts on line $l_comment; the probe is at line $l_if" \
    "$(cat "$work/run.err")"

this='this=Probes.Cart{_count=3}, prices=decimal[3] {1.5, 2.25, 3}, discount=0.75'
check_eq "Sum's loop: three passes, total before each addition" \
"@ Program.cs:$l_loop  $this, total=0, password=<redacted>, p={X=0, Y=0}, i=0
@ Program.cs:$l_loop  $this, total=1.5, password=<redacted>, p={X=0, Y=0}, i=1
@ Program.cs:$l_loop  $this, total=3.75, password=<redacted>, p={X=0, Y=0}, i=2" \
    "$(hits "$work/run.txt" "Program.cs:$l_loop")"
check_eq "Sum after the loop: the total, the struct set, the secret redacted" \
    "@ Program.cs:$l_print  $this, total=6.75, password=<redacted>, p={X=3, Y=7}" \
    "$(hits "$work/run.txt" "Program.cs:$l_print")"
check_eq "Classify: the comment line's probe at the if, in both calls" \
"@ Program.cs:$l_if  n=2, score=6
@ Program.cs:$l_if  n=5, score=15" "$(hits "$work/run.txt" "Program.cs:$l_if")"
check_eq "TotalAsync: the hoisted total and i, after each await" \
"@ Program.cs:$l_async  n=3, total=0, i=1
@ Program.cs:$l_async  n=3, total=1, i=2
@ Program.cs:$l_async  n=3, total=3, i=3" "$(hits "$work/run.txt" "Program.cs:$l_async")"
check "TotalAsync's hits on the pool's threads (not Main's)" bash -c "
    main=\$(sed -n 's/^ *[0-9.]* *\([0-9]*\) .*Probes\.Program\.Main(.*/\1/p' '$work/run.txt' | head -n 1)
    n=\$(grep -F '@ Program.cs:$l_async  ' '$work/run.txt' | awk -v m=\"\$main\" '\$2 != m' | wc -l)
    [[ -n \$main && \$n == 3 ]]"
check_eq "Squares: the hoisted k and MoveNext's own sq" \
"@ Program.cs:$l_yield  n=3, k=1, sq=1
@ Program.cs:$l_yield  n=3, k=2, sq=4
@ Program.cs:$l_yield  n=3, k=3, sq=9" "$(hits "$work/run.txt" "Program.cs:$l_yield")"
check_eq "Guarded: the try block's line, only when nothing was thrown" \
    "@ Program.cs:$l_try  x=6" "$(hits "$work/run.txt" "Program.cs:$l_try")"
check_eq "Guarded: the catch block's line, its exception and its local not set yet" \
    "@ Program.cs:$l_catch  x=-4, e=System.ArgumentException{Message=\"negative\"}, fallback=0" \
    "$(hits "$work/run.txt" "Program.cs:$l_catch")"
counts="# line probes: @ Program.cs:$l_loop 3 hits, @ Program.cs:$l_print 1 hit, @ Program.cs:$l_if 2 hits, @ Program.cs:$l_async 3 hits, @ Program.cs:$l_yield 3 hits, @ Program.cs:$l_try 1 hit, @ Program.cs:$l_catch 1 hit"
check_eq "the line probes' counts" "$counts" "$(grep '^# line probes:' "$work/run.txt")"
check "each hit inside its method's call (the tree)" awk -v l="$l_loop" '
    /Probes\.Cart\.Sum\(/ && / \{$/ { open = 1; next }
    index($0, "@ Program.cs:" l "  ") { if (!open) bad++; n++ }
    /^ *[0-9.]+ +[0-9]+ .*\} -> decimal 6\.00$/ { open = 0 }
    END { exit !(n == 3 && !bad) }' "$work/run.txt"
check "the hits are no rows of the summary table" bash -c "! awk '/^# summary/{s=1} s && /  @ Program/' '$work/run.txt' | grep -q ."

echo "== 2. --when over a probe's locals, --limit per probe"
ct_run "$work" when "$ct" run --at "Program.cs:$l_loop" --when "Program.cs:$l_loop: total > 1" \
    -o "$work/when.txt" -- dotnet "$app"
check "--when: stdout equals the untraced run's" diff "$work/plain.out" "$work/when.out"
check_eq "--when 'Program.cs:$l_loop: total > 1': the two passes it holds for" \
"@ Program.cs:$l_loop  $this, total=1.5, password=<redacted>, p={X=0, Y=0}, i=1
@ Program.cs:$l_loop  $this, total=3.75, password=<redacted>, p={X=0, Y=0}, i=2" \
    "$(hits "$work/when.txt" "Program.cs:$l_loop")"
ct_run "$work" limit "$ct" run --at "Program.cs:$l_loop" --at "Program.cs:$l_yield" --limit 1 \
    -o "$work/limit.txt" -- dotnet "$app"
check_eq "--limit 1: one hit of each probe" "1 1" \
    "$(grep -cF "@ Program.cs:$l_loop  " "$work/limit.txt") $(grep -cF "@ Program.cs:$l_yield  " "$work/limit.txt")"

ct_run "$work" glob "$ct" run --at "Probes.Work.Classify:$l_if" --at "*.TotalAsync:$l_async" \
    -o "$work/glob.txt" -- dotnet "$app"
check "--at GLOB:LINE: stdout equals the untraced run's" diff "$work/plain.out" "$work/glob.out"
check_eq "--at 'Probes.Work.Classify:$l_if': the same hits as by file" \
    "$(hits "$work/run.txt" "Program.cs:$l_if")" "$(hits "$work/glob.txt" "Program.cs:$l_if")"
check_eq "--at '*.TotalAsync:$l_async': the async method's hits, by its MoveNext" \
    "$(hits "$work/run.txt" "Program.cs:$l_async")" "$(hits "$work/glob.txt" "Program.cs:$l_async")"

echo "== 3. recorded: replay, report, exports"
ct_run "$work" rec "$ct" record "${ats[@]}" -o "$work/rec" -- dotnet "$app"
check_eq "record --at: exit code 0" 0 "$(cat "$work/rec.rc")"
"$ct" replay "$work/rec" >"$work/replay.txt" 2>&1
check_eq "replay: the loop's hits as run showed them" "$(hits "$work/run.txt" "Program.cs:$l_loop")" \
    "$(hits "$work/replay.txt" "Program.cs:$l_loop")"
check_eq "replay: the catch block's hit" "$(hits "$work/run.txt" "Program.cs:$l_catch")" \
    "$(hits "$work/replay.txt" "Program.cs:$l_catch")"
"$ct" report "$work/rec" >"$work/report.txt" 2>&1
check_eq "report: the line probes' counts" "$counts" "$(grep '^# line probes:' "$work/report.txt")"
"$ct" dump --chrome "$work/rec" >"$work/chrome.json" 2>"$work/chrome.err"
check "chrome: each hit an instant event with its values as args" python3 - "$work/chrome.json" "$l_loop" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
hits = [e for e in ev if e.get("name") == "@ Program.cs:" + sys.argv[2]]
want = [("0", "0"), ("1.5", "1"), ("3.75", "2")]
got = [(e["args"].get("total"), e["args"].get("i")) for e in hits]
ok = len(hits) == 3 and all(e.get("ph") == "i" and e.get("s") == "t" and "dur" not in e for e in hits)
if not ok or got != want:
    print("hits:", hits[:3])
    sys.exit(1)
EOF
if command -v protoc >/dev/null; then
    "$ct" dump --perfetto "$work/rec" >"$work/perfetto.pb" 2>"$work/perfetto.err"
    protoc --proto_path="$here" --decode=perfetto.protos.Trace perfetto_subset.proto \
        <"$work/perfetto.pb" >"$work/perfetto.txt" 2>&1
    check "perfetto: well formed, the 14 hits as instant events (check_perfetto.py validate)" \
        grep -q ' instants=14$' <(python3 "$here/check_perfetto.py" validate "$work/perfetto.txt")
    check_eq "perfetto: the loop's hits, total and i as annotations" '"total": "0"|"total": "1.5"|"total": "3.75"' \
        "$(python3 "$here/check_perfetto.py" calls "$work/perfetto.txt" | grep -F " @ Program.cs:$l_loop " |
           grep -oE '"total": "[^"]*"' | paste -sd'|')"
    "$ct" dump --otlp "$work/rec" >"$work/otlp.pb" 2>"$work/otlp.err"
    protoc --proto_path="$root/tests/otlp" \
        --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        opentelemetry/proto/collector/trace/v1/trace_service.proto \
        <"$work/otlp.pb" >"$work/otlp.txt" 2>&1
    check "otlp: the spans are well formed (check_otlp.py validate)" \
        python3 "$here/check_otlp.py" validate "$work/otlp.txt"
    check "otlp: the loop's hits are events of Sum's span, with arg.total and arg.i" \
        python3 - "$work/otlp.txt" "$l_loop" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
spans = text.split("\n    spans {")
sums = [b for b in spans if 'name: "Probes.Cart.Sum"' in b.split("events {")[0]]
if len(sums) != 1:
    print("spans of Probes.Cart.Sum:", len(sums)); sys.exit(1)
events = sums[0].split("events {")[1:]
want = [("0", "0"), ("1.5", "1"), ("3.75", "2")]
got = []
for e in events:
    if 'name: "@ Program.cs:%s"' % sys.argv[2] not in e:
        continue
    attrs = dict(re.findall(r'key: "([^"]*)"\s*value \{\s*string_value: "([^"]*)"', e))
    got.append((attrs.get("arg.total"), attrs.get("arg.i")))
if got != want:
    print("events:", got); sys.exit(1)
EOF
else
    ct_fail "otlp: protoc is not installed (scripts/install-deps installs it)"
fi

echo "== 4. refusals before anything runs"
refused() { # NAME EXPECTED-LINE ARGS...: exit 2, that one line, no program output
    local name=$1 want=$2
    shift 2
    ct_run "$work" "$name" "$ct" run "$@" -- dotnet "$app"
    check_eq "$name: exit code 2" 2 "$(cat "$work/$name.rc")"
    check_eq "$name: the one line" "$want" "$(cat "$work/$name.err")"
    check "$name: the program did not run" ct_empty "$work/$name.out"
}
first=$(ct_src_line "$src" 'public Cart\(int count\)')
refused outside "clrtrace run: --at Program.cs:1: line 1 is in no method (the nearest code: line $first)" \
    --at Program.cs:1
refused nofile "clrtrace run: --at Orders.cs:5: no Portable PDB of the assemblies in $(dirname "$app") names a source file Orders.cs, and no method of theirs it names has code on line 5" \
    --at Orders.cs:5
refused notinmethod "clrtrace run: --at Probes.Work.Classify:$l_loop: no Portable PDB of the assemblies in $(dirname "$app") names a source file Probes.Work.Classify, and no method of theirs it names has code on line $l_loop" \
    --at "Probes.Work.Classify:$l_loop"
refused badspec "clrtrace run: --at takes FILE:LINE (Orders.cs:42; LINE from 1 to 536870911), not 'Program.cs'" \
    --at Program.cs
refused elt "clrtrace run: --at puts probes in the IL of methods: not with --engine=elt, -a, --no-args or --null" \
    --engine=elt --at "Program.cs:$l_loop"
many=()
for ((i = 0; i < 16; i++)); do many+=(--at "Program.cs:$l_loop"); done
ct_run "$work" sixteen "$ct" run "${many[@]}" -o "$work/sixteen.txt" -- dotnet "$app"
check_eq "16 --at (CT_AT_MAX): accepted, exit code 0" 0 "$(cat "$work/sixteen.rc")"
refused seventeen "clrtrace run: at most 16 --at options" "${many[@]}" --at "Program.cs:$l_loop"

echo "== 5. under attach"
ssrc="$root/tests/targets/Service/Program.cs"
shandle=$(ct_src_line "$ssrc" 'return 2 \* n \+ worker')
svalidate=$(ct_src_line "$ssrc" 'if \(n % 50 == 49\)')
ct_service_run "$svc"
if [[ -n "$spid" ]]; then
    ct_run "$work" nocode "$ct" run -p "$spid" --at Program.cs:1 -d 1s -o "$work/nocode.txt"
    check "run -p --at a line with no code: refused (exit 1)" test "$(cat "$work/nocode.rc")" = 1
    check_eq "run -p --at a line with no code: the one line" \
        "clrtrace run: pid $spid: --at Program.cs:1: no code found there in the assemblies loaded (their Portable PDBs name no such line)" \
        "$(cat "$work/nocode.err")"
    ct_run "$work" att "$ct" run -p "$spid" --max-overhead off --at "Program.cs:$shandle" --at "Svc.Handlers.Validate:$svalidate" \
        -d 1s -o "$work/att.txt"
    check_eq "run -p --at: exit code 0" 0 "$(cat "$work/att.rc")"
    check "run -p --at: Handle's hits, each with the values its source gives" awk -v l="$shandle" '
        index($0, "@ Program.cs:" l "  ") {
            n++
            if (!match($0, /worker=[0-9]+, n=[0-9]+, tag="w[0-9]+", order=Svc\.Order\{Id=[0-9]+, Amount=[0-9]+\.[05]\}$/)) { bad++; next }
            split(substr($0, RSTART), f, /[=,"{}]+/)
            # f: worker W n N tag wW order Svc.Order Id I Amount A
            w = f[2]; nn = f[4]; tag = f[6]; id = f[10]; amt = f[12]
            if (tag != "w" w || id != nn || amt * 2 != nn) { print; bad++ }
        }
        END { exit !(n > 10 && !bad) }' "$work/att.txt"
    check "run -p --at 'Svc.Handlers.Validate:$svalidate' (by method): its hits, n=N each" \
        grep -qE "@ Program\.cs:$svalidate  n=[0-9]+\$" "$work/att.txt"
    ct_service_done
else
    ct_fail "the service did not start"
fi

ct_end run_lineprobe.sh
