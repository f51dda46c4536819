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
# The checks are the cases of cases/srcline.case (sections main, attach,
# and lines and exc over several logs); the script builds the targets, reads
# the lines from the sources and serves tests/targets/Service for the attach.
# Ends with "run_srcline.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup srcline "${1:-}" cli

echo "== building tests/targets/Hello (standalone and embedded PDB), Service, Failures and Lines"
app=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hello failed" >&2; exit 2; }
emb=$(ct_dotnet_build "$root/tests/targets/Hello" "$work" embedded -p:DebugType=embedded) &&
    [[ -n "$emb" ]] || { echo "ERROR: the embedded-PDB build of Hello failed" >&2; exit 2; }
svc=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$svc" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }
fapp=$(ct_dotnet_build "$root/tests/targets/Failures" "$work") && [[ -n "$fapp" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Failures failed" >&2; exit 2; }
lapp=$(ct_dotnet_build "$root/tests/targets/Lines" "$work") && [[ -n "$lapp" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Lines failed" >&2; exit 2; }

src="$root/tests/targets/Hello/Program.cs"
add=$(ct_src_line "$src" 'public static int Add\(int a, int b\) =>')
fib=$(ct_src_line "$src" 'public static int Fib\(int n\) =>')
divide=$(ct_src_line "$src" 'if \(b == 0\)')          # Divide's first statement
trydivide=$(ct_src_line "$src" 'return Divide\(a, b\)') # TryDivide's, inside its try
main=$(sed -n '/static int Main(/,$p' "$src" | grep -nE '^ +[A-Za-z].*;' | head -n 1 | cut -d: -f1)
main=$(( $(ct_src_line "$src" 'static int Main\(') + main - 1 ))
throwl=$(ct_src_line "$src" 'throw new ArgumentException')
blank=$(( $(ct_src_line "$src" 'return a / b;') + 2 ))
echo "Program.cs: Add $add, Fib $fib, Divide $divide, Main's first statement $main"

fsrc="$root/tests/targets/Failures/Program.cs"
# The first async method declared, and its body's first statement's line.
amethod=$(grep -oE 'async Task(<[a-z]+>)? [A-Za-z]+\(' "$fsrc" | head -n 1 | sed -E 's/.* ([A-Za-z]+)\($/\1/')
adecl=$(ct_src_line "$fsrc" "async Task(<[a-z]+>)? $amethod\\(")
afirst=$(awk -v d="$adecl" 'NR > d && /^ +[A-Za-z_].*;/ { print NR; exit }' "$fsrc")

lsrc="$root/tests/targets/Lines/Program.cs"
ct_run "$work" lplain dotnet "$lapp"
# The runtime's own lines (its StackTrace over the PDB), as the program printed them.
rt() { awk -v c="$1:" -v m="$2" '$1 == c { on = 1; next } /^[a-z]+:/ { on = 0 } on && $1 == m { print $2; exit }' "$work/lplain.out"; }
inner=$(rt chain Lines.Chain.Inner) middle=$(rt chain Lines.Chain.Middle) outer=$(rt chain Lines.Chain.Outer)
deref=$(rt deref Lines.Chain.Deref) movenext=$(rt async 'Lines.Later+<FetchAsync>d__0.MoveNext')
echo "the runtime's lines: Inner $inner, Middle $middle, Outer $outer, Deref $deref, MoveNext $movenext"
dthrow=$(ct_src_line "$lsrc" 'throw new InvalidOperationException\("deep"\)')
drec=$(ct_src_line "$lsrc" 'return Deep\(n - 1\) \+ 1;')

ssrc="$root/tests/targets/Service/Program.cs"
# Handle's first statement (a release build has no sequence point on its "{").
shandle=$(( $(ct_src_line "$ssrc" 'public static long Handle\(') + 2 ))
sthrow=$(ct_src_line "$ssrc" 'throw new InvalidOperationException\("n="')

cf="$here/cases/srcline.case"
# lines FILE PREFIX, exc FILE PREFIX: the sections lines and exc over $work/FILE.
lines() { log=$work/$1 p=$2 ct_cases "$cf" lines; }
exc() { log=$work/$1 p=$2 ct_cases "$cf" exc; }
ct_cases "$cf" main

ct_service_run "$svc"
if [[ -n "$spid" ]]; then
    ct_cases "$cf" attach
    ct_service_done
else
    ct_fail "the service did not start"
fi

ct_end run_srcline.sh
