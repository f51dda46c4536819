#!/usr/bin/env bash
# Every distinct signature blob of the installed shared framework, decoded by
# System.Reflection.Metadata (tests/oracle) and by libclrsig
# (tests/unit/test_sigblobs): both styles must agree, blob for blob.
# Usage: tests/oracle/run_blobs.sh BUILD_DIR
set -uo pipefail
build=$(readlink -f "${1:?usage: run_blobs.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
dotnet build "$root/tests/oracle" -c Release -o "$build/oracle" -v quiet -nologo >/dev/null || exit 1
rm -rf "$build/oracle-all" && mkdir -p "$build/oracle-all"
dotnet "$build/oracle/oracle.dll" blobs --framework --source "shared framework" \
    -o "$build/oracle-all/framework.txt" || exit 1
"$build/tests/test_sigblobs" "$build/oracle-all" >"$build/oracle-all/log.txt" 2>&1
rc=$?
grep -E "FAILED|ERROR" "$build/oracle-all/log.txt" | head -40
tail -2 "$build/oracle-all/log.txt"
exit $rc
