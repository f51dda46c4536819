#!/usr/bin/env bash
# Runs every test: the build and unit tests (gcc), the same under ASan+UBSan,
# end-to-end tests that trace real dotnet programs (again with the ASan+UBSan
# profiler inside dotnet; the CLI under valgrind), and each libFuzzer harness
# briefly (FUZZ_SECONDS, default 30). Ends with "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
bash scripts/install-deps.sh || exit 1
passed=0 failed=0
step() { # step NAME COMMAND...
  echo "=== $1"
  if "${@:2}"; then passed=$((passed + 1)); echo "=== $1: ok"
  else failed=$((failed + 1)); echo "=== $1: FAILED"; fi
}
ctest_in() { (cd "$1" && ctest --output-on-failure "${@:2}"); }

step "build (gcc)" cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "compile (gcc)" cmake --build build -j2
step "tests" ctest_in build
# Every distinct signature blob of the installed shared framework, decoded by
# System.Reflection.Metadata (tests/oracle) and by libclrsig: both styles must agree.
oracle_all() {
  dotnet build tests/oracle -c Release -o build/oracle -v quiet -nologo >/dev/null &&
  rm -rf build/oracle-all && mkdir -p build/oracle-all &&
  dotnet build/oracle/oracle.dll blobs --framework --source "shared framework" -o build/oracle-all/framework.txt &&
  build/tests/test_sigblobs build/oracle-all > build/oracle-all/log.txt 2>&1; local rc=$?
  grep -E "FAILED|ERROR" build/oracle-all/log.txt | head -40; tail -2 build/oracle-all/log.txt
  return $rc
}
step "oracle: all framework blobs agree with SRM" oracle_all
for t in tests/e2e/run_*.sh; do
  step "e2e $(basename "$t" .sh)" bash "$t" build/src/profiler/libclrtrace.so
done
step "oracle: clrtrace sigs = System.Reflection.Metadata on the whole shared framework" bash tests/meta/oracle_sigs.sh build
step "install: libraries used from an installed prefix" bash tests/install/run.sh build
step "build (asan+ubsan)" cmake -S . -B build-asan -DCLRTRACE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
step "compile (asan+ubsan)" cmake --build build-asan -j2
step "unit tests (asan+ubsan)" ctest_in build-asan -L unit
step "e2e with the ASan+UBSan profiler inside dotnet" bash tests/e2e/sanitized.sh build-asan
# Every build type is warning-free under -Werror with both compilers: gcc
# built RelWithDebInfo and Debug (asan) above; here Release with each.
step "compile (gcc Release, -Werror)" bash -c "cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null && cmake --build build-release -j2"
step "install: the tool from a prefix and from a .deb traces a program" bash tests/install/run_tool.sh build-release
step "compile (clang-14 Release, -Werror)" bash -c "CC=clang-14 cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-clang -j2"
for h in fuzz_sig fuzz_compressed fuzz_trace fuzz_meta; do
  step "fuzz $h ${FUZZ_SECONDS:-30}s" bash fuzz/run.sh "$h" "${FUZZ_SECONDS:-30}"
done
echo
echo "steps: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
