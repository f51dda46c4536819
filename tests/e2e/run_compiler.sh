#!/usr/bin/env bash
# End-to-end test on a real program no one here wrote: the SDK's own C#
# compiler (Roslyn's csc.dll), traced on its lexer with objects by content,
# compiles a small program to the same bytes as untraced.
#
# Usage: tests/e2e/run_compiler.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. the traced compile (clrtrace record) exits as the untraced one and
#      writes the same assembly, byte for byte (-deterministic); the program
#      it built prints what its source says;
#   2. the trace reads without a damaged value, completely;
#   3. the lexer's constructor shows the source text it was given, from
#      inside Roslyn's StringText object (its _source field: the file this
#      script wrote), cut at 64 characters with the file's length.
# Ends with "run_compiler.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup compiler "${1:-}" cli

ct_csc || { echo "ERROR: no csc.dll ($csc) or reference assemblies ($refdir)" >&2; exit 2; }

# The program compiled: 160 characters (ASCII, no final newline).
printf '%s\n%s\n%s' 'using System;' 'using System.Collections.Generic;' \
    'class P { static void Main() { var l = new List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }' \
    >"$work/a.cs"
check_eq "the source is 160 characters" 160 "$(wc -c <"$work/a.cs")"
mkdir -p "$work/plain" "$work/traced"

echo "== untraced and traced compiles"
(cd "$work/plain" && dotnet "$csc" "${cc_args[@]}") >"$work/plain.out" 2>&1
echo $? >"$work/plain.rc"
(cd "$work/traced" && "$ct" record -o "$work/rec" -F 'Microsoft.CodeAnalysis.CSharp.Syntax.InternalSyntax.*' \
    -- dotnet "$csc" "${cc_args[@]}") >"$work/traced.out" 2>&1
echo $? >"$work/traced.rc"
check_eq "untraced compile exits with 0" 0 "$(cat "$work/plain.rc")"
check_eq "traced compile exits as the untraced one" "$(cat "$work/plain.rc")" "$(cat "$work/traced.rc")"
check "the traced compile wrote the same assembly, byte for byte" cmp "$work/plain/a.dll" "$work/traced/a.dll"
# A runtimeconfig for `dotnet a.dll` (csc writes none).
printf '{"runtimeOptions":{"tfm":"net%s.0","framework":{"name":"Microsoft.NETCore.App","version":"%s"}}}\n' \
    "${runtime%%.*}" "$runtime" >"$work/traced/a.runtimeconfig.json"
check_eq "the program it built prints 246" 246 "$(dotnet "$work/traced/a.dll" 2>&1)"

echo "== the trace"
"$ct" replay "$work/rec" >"$work/replay.txt" 2>"$work/replay.err"
check_eq "replay exits with 0" 0 "$?"
check "replay has no damaged value" bash -c "! grep -q '<damaged>' '$work/replay.txt'"
check "info: the trace is complete" grep -q '^complete *yes' <("$ct" info "$work/rec")
# Roslyn's Lexer(SourceText text, ...): text is a StringText whose _source
# is the file's text; strings are cut at 64 characters (-s) with their length.
first64=$(head -c 64 "$work/a.cs" | sed 's/$/\\n/' | tr -d '\n' | sed 's/\\n$//')
check "the lexer's SourceText shows the file's text (_source, 64 of 160 characters)" \
    grep -qF "SourceText text=Microsoft.CodeAnalysis.Text.StringText{" "$work/replay.txt"
check "... its _source field" \
    grep -qF "_source=\"$first64\"...(160 chars)" "$work/replay.txt"

ct_end run_compiler.sh
