#!/bin/sh
# Regenerates tests/sigblobs/srm-*.txt with the oracle. Run from the repository root.
set -eu
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
dotnet build tests/oracle -c Release -v quiet -nologo >/dev/null
O="dotnet tests/oracle/bin/Release/net10.0/oracle.dll"
S=tests/sigblobs
# ASP.NET Core shared framework and SDK directories of the installed .NET (newest of each).
ASPNET=$(dotnet --list-runtimes | awk '$1 == "Microsoft.AspNetCore.App" { v = $2; d = substr($3, 2, length($3) - 2) } END { print d "/" v }')
SDK=$(dotnet --list-sdks | awk '{ v = $1; d = substr($2, 2, length($2) - 2) } END { print d "/" v }')

$O blobs System.Private.CoreLib.dll --max 250 -o $S/srm-corelib.txt
$O blobs --framework --skip System.Private.CoreLib.dll --exclude $S/srm-corelib.txt --max 100 -o $S/srm-framework.txt
$O fill tests/oracle/synthetic.txt -o $S/srm-synthetic.txt
$O blobs "$ASPNET" "$SDK" --exclude $S/srm-corelib.txt --exclude $S/srm-framework.txt --max 40 -o $S/srm-sdk.txt
