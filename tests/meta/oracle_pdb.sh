#!/usr/bin/env bash
# The fidelity proof of libclrmeta's Portable PDB reader: tests/pdb_dump and
# an independent System.Reflection.Metadata reader (tests/meta/srmpdb) must
# print identical text (documents, sequence points, local scopes, kickoff
# methods, Source Link) for every input, and fail alike where there is no PDB.
# Inputs: test targets built here with their default portable PDB, one built
# with an embedded PDB, one moved away from its PDB (found by the CodeView
# path), and NuGet packages that ship PDBs (standalone and embedded) when they
# restore. Any difference fails and is shown.
# Usage: tests/meta/oracle_pdb.sh BUILD_DIR
set -uo pipefail
build=$(readlink -f "${1:?usage: oracle_pdb.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
# ct_dotnet_build and ct_sources_key: the test targets' shared, cached builds.
. "$root/tests/e2e/lib_checks.sh"
export CLRTRACE_TARGETS=${CLRTRACE_TARGETS:-$build/tests/e2e-targets}
out="$build/oracle-pdb"
work="$out/work"
dump="$build/tests/pdb_dump"
rm -rf "$work" && mkdir -p "$work" || exit 1
[[ -x "$dump" ]] || echo "oracle pdb: no $dump (every input will differ)"
start=$SECONDS

# The SRM side; an incremental build, kept between runs.
timeout -k 5 600 dotnet build "$root/tests/meta/srmpdb" -c Release --artifacts-path "$out/srm-build" \
    -v quiet -nologo >"$out/srm-build.log" 2>&1 || { cat "$out/srm-build.log"; exit 1; }
srm=$(find "$out/srm-build/bin" -name srmpdb.dll | head -n 1)

inputs=()   # the assemblies to compare, in this order
errors=0    # inputs that could not be made

# Test targets with their default (portable) PDB: async state machines, lambdas,
# generics, local constants, several documents. Shared with the e2e tests.
for t in Hard Values Failures Web RtAsync; do
    if dll=$(ct_dotnet_build "$root/tests/targets/$t" "$out"); then
        inputs+=("$dll")
    else
        echo "BUILD FAILED: $t"; errors=$((errors + 1))
    fi
done

# One target with its PDB embedded in the image (DebugType=embedded), cached
# like ct_dotnet_build under TARGETS/NAME-embedded-KEY.
embedded_build() {
    local name=$1 key dest
    key=$(ct_sources_key "$root/tests/targets/$name") || return 1
    dest=$CLRTRACE_TARGETS/$name-embedded-$key
    mkdir -p "$CLRTRACE_TARGETS" || return 1
    (
        flock 9 || exit 1
        [[ -s "$dest/dll" && -f "$(cat "$dest/dll")" ]] && exit 0
        rm -rf "$dest" && mkdir -p "$dest" || exit 1
        timeout -k 5 600 dotnet build "$root/tests/targets/$name/$name.csproj" -c Release \
            --artifacts-path "$dest/artifacts" -p:DebugType=embedded \
            >"$dest/dotnet-build.log" 2>&1 || { cat "$dest/dotnet-build.log" >&2; exit 1; }
        find "$dest/artifacts/bin" -name "$name.dll" | head -n 1 >"$dest/dll.new" &&
            [[ -s "$dest/dll.new" ]] && mv "$dest/dll.new" "$dest/dll"
    ) 9>"$CLRTRACE_TARGETS/$name-embedded-$key.lock" || return 1
    cat "$dest/dll"
}
if dll=$(embedded_build Values); then
    inputs+=("$dll")
else
    echo "BUILD FAILED: Values (embedded)"; errors=$((errors + 1))
fi

# A target copied away from its PDB: found by the CodeView entry's own path
# (the build's obj/ folder), not beside the image.
if [[ ${#inputs[@]} -ge 3 ]]; then
    mkdir -p "$work/moved" && cp "${inputs[2]}" "$work/moved/" && inputs+=("$work/moved/$(basename "${inputs[2]}")")
fi

# NuGet packages that ship PDBs, pinned: standalone .pdb files (NodaTime,
# Polly.Core, System.CommandLine, copied beside their dlls by
# CopyDebugSymbolFilesFromPackages) and embedded ones (Dapper, Humanizer,
# Spectre.Console, xunit's). xunit.abstractions has only a Windows PDB's
# CodeView entry: a case where both sides must say "no pdb". One restore,
# kept between runs (an offline machine compares our own programs only).
mkdir -p "$out/nuget"
cat >"$out/nuget/pdbpackages.csproj" <<'EOF'
<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net10.0</TargetFramework>
    <CopyDebugSymbolFilesFromPackages>true</CopyDebugSymbolFilesFromPackages>
    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>
    <NoWarn>$(NoWarn);NU1603;NU1701;NU1902;NU1903</NoWarn>
  </PropertyGroup>
  <ItemGroup>
    <PackageReference Include="NodaTime" Version="3.3.7" />
    <PackageReference Include="Polly.Core" Version="8.9.1" />
    <PackageReference Include="System.CommandLine" Version="3.0.0" />
    <PackageReference Include="Dapper" Version="2.1.86" />
    <PackageReference Include="Humanizer.Core" Version="3.0.10" />
    <PackageReference Include="Spectre.Console" Version="0.57.2" />
    <PackageReference Include="xunit" Version="2.9.3" />
  </ItemGroup>
</Project>
EOF
echo 'static class P { static void Main() { } }' >"$out/nuget/P.cs"
if timeout -k 5 600 dotnet build "$out/nuget/pdbpackages.csproj" -c Release --artifacts-path "$out/nuget/artifacts" \
        -v quiet -nologo >"$out/nuget/build.log" 2>&1; then
    while IFS= read -r dll; do inputs+=("$dll"); done < <(
        find "$out/nuget/artifacts/bin" -name '*.dll' ! -name pdbpackages.dll | LC_ALL=C sort)
    nuget=yes
else
    echo "oracle pdb: the NuGet packages did not restore (see $out/nuget/build.log): own programs only"
    nuget=no
fi

# A shared-framework assembly: its CodeView path names a PDB that is not here.
fw=$(dotnet --list-runtimes | awk '$1 == "Microsoft.NETCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v }')
inputs+=("$fw/System.Linq.dll")
built=$((SECONDS - start))

assemblies=0 embedded=0 nopdb=0 methods=0 sps=0 locals=0 diffs=$errors
for dll in "${inputs[@]}"; do
    timeout -k 5 120 dotnet "$srm" "$dll" >"$work/s.txt" 2>"$work/s.err"; src=$?
    timeout -k 5 120 "$dump" "$dll" >"$work/c.txt" 2>"$work/c.err"; crc=$?
    name=${dll#"$build"/}
    if ((src != 0)); then
        # No PDB: pdb_dump must fail too, with nothing on stdout.
        if [[ "$(cat "$work/s.err")" != "no pdb" ]]; then
            diffs=$((diffs + 1)); echo "SRM FAILED: $name: $(head -n 3 "$work/s.err")"; continue
        fi
        nopdb=$((nopdb + 1))
        if ((crc != src)) || [[ -s "$work/c.txt" ]]; then
            diffs=$((diffs + 1))
            echo "DIFFERENT: $name (no pdb): pdb_dump exit $crc, $(wc -l <"$work/c.txt") lines, stderr: $(head -n 1 "$work/c.err")"
        fi
        continue
    fi
    assemblies=$((assemblies + 1))
    [[ "$(head -n 1 "$work/s.txt")" == "pdb embedded" ]] && embedded=$((embedded + 1))
    read -r _ m _ s _ l < <(tail -n 1 "$work/s.txt")
    methods=$((methods + m)) sps=$((sps + s)) locals=$((locals + l))
    if ((crc != 0)) || ! cmp -s "$work/s.txt" "$work/c.txt"; then
        diffs=$((diffs + 1))
        echo "DIFFERENT: $name (pdb_dump exit $crc)"
        head -n 3 "$work/c.err"
        diff "$work/s.txt" "$work/c.txt" | head -n 10
    fi
done
echo "oracle pdb: builds and restore $built s; NuGet packages: $nuget; $nopdb assemblies without a PDB checked"
echo "oracle pdb: $assemblies assemblies ($embedded embedded), $methods methods, $sps sequence points, $locals locals compared, $diffs differing"
[ "$diffs" -eq 0 ] && [ "$assemblies" -ge 3 ] && [ "$embedded" -ge 1 ]
