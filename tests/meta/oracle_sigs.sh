#!/usr/bin/env bash
# The fidelity proof of libclrmeta + libclrsig: `clrtrace sigs --members` and
# an independent System.Reflection.Metadata implementation (tests/meta/srm)
# must print identical text for every assembly of the installed shared
# framework (Microsoft.NETCore.App), in both styles. Any difference fails and
# is shown. Known, legitimate differences: none.
# Usage: tests/meta/oracle_sigs.sh BUILD_DIR
set -uo pipefail
build=$(readlink -f "${1:?usage: oracle_sigs.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
out="$build/oracle-sigs"
rm -rf "$out" && mkdir -p "$out"
dotnet build "$root/tests/meta/srm" -c Release --artifacts-path "$out/srm-build" -v quiet -nologo >/dev/null || exit 1
srm=$(find "$out/srm-build/bin" -name srmsigs.dll | head -n 1)
fw=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v }')
assemblies=0 methods=0 lines=0 diffs=0
for dll in "$fw"/*.dll; do
  # Native libraries and non-assemblies: clrtrace sigs says so (exit 1) and so does SRM.
  "$build/clrtrace" sigs "$dll" >/dev/null 2>&1 || continue
  assemblies=$((assemblies + 1))
  methods=$((methods + $("$build/clrtrace" sigs "$dll" | wc -l)))
  for style in csharp ildasm; do
    "$build/clrtrace" sigs "$dll" --members --format "$style" > "$out/c.txt" 2>"$out/c.err"
    dotnet "$srm" sigs "$dll" --members --format "$style" > "$out/s.txt" 2>"$out/s.err"
    lines=$((lines + $(wc -l < "$out/c.txt")))
    if ! cmp -s "$out/c.txt" "$out/s.txt"; then
      diffs=$((diffs + 1))
      echo "DIFFERENT: $(basename "$dll") ($style)"
      diff "$out/s.txt" "$out/c.txt" | head -n 10
    fi
  done
done
echo "oracle sigs: $assemblies assemblies, $methods MethodDefs, $lines lines compared in 2 styles, $diffs differing"
[ "$assemblies" -gt 100 ] && [ "$diffs" -eq 0 ]
