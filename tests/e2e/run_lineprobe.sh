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
# Sections 1-4 are the cases of cases/lineprobe.case but the Perfetto and
# OTLP exports (protoc); the script finds the lines, decodes the exports and
# serves tests/targets/Service for the attach.
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

# hits FILE VAR: the hits of the probe at line $VAR of Program.cs, the time
# and thread columns left out, the line number written as "$VAR".
hits() {
    local l=${!2}
    grep -F "@ Program.cs:$l  " "$1" | sed -E "s/^ *[0-9.]+ +[0-9]+ +//; s/^ +//; s/^@ Program\.cs:$l /@ Program.cs:\$$2 /"
}
ats=(--at "Program.cs:$l_loop" --at "Program.cs:$l_print" --at "Program.cs:$l_comment"
     --at "Program.cs:$l_async" --at "Program.cs:$l_yield" --at "Program.cs:$l_try"
     --at "Program.cs:$l_catch")
counts="# line probes: @ Program.cs:$l_loop 3 hits, @ Program.cs:$l_print 1 hit, @ Program.cs:$l_if 2 hits, @ Program.cs:$l_async 3 hits, @ Program.cs:$l_yield 3 hits, @ Program.cs:$l_try 1 hit, @ Program.cs:$l_catch 1 hit"
many=()
for ((i = 0; i < 16; i++)); do many+=(--at "Program.cs:$l_loop"); done
ct_cases "$here/cases/lineprobe.case" main

echo "== 3. the Perfetto and OTLP exports of the recording"
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
