#!/usr/bin/env bash
# Runs every test: the build and unit tests (gcc), the same under ASan+UBSan,
# end-to-end tests that trace real dotnet programs (again with the ASan+UBSan
# profiler inside dotnet; the CLI under valgrind), the arm64 cross build
# with its unit tests and a traced arm64 program under qemu-user
# (scripts/cross-aarch64.sh; SKIPPED, saying why, when its packages cannot be
# installed), and each libFuzzer harness briefly (FUZZ_SECONDS, default 30).
# Ends with a table of each step's duration and "N passed, N failed".
#
# ctest runs tests side by side (-j2) but those that measure time (RUN_SERIAL,
# tests/e2e/CMakeLists.txt). The e2e scripts' C# targets are built once for
# the gcc run and reused by the ASan run (CLRTRACE_TARGETS, lib_checks.sh).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
export CLRTRACE_TARGETS="$root/build/tests/e2e-targets"
jobs=${CLRTRACE_TEST_JOBS:-2}
passed=0 failed=0 skipped=0
step_names=() step_secs=() step_results=()
step() { # step NAME COMMAND...
  local t0=$SECONDS result
  echo "=== $1"
  local rc=0
  "${@:2}" || rc=$?
  # 77: a step that could not run here and said why (the arm64 cross
  # packages not installable): neither passed nor failed.
  if [ "$rc" -eq 0 ]; then passed=$((passed + 1)); result=ok
  elif [ "$rc" -eq 77 ]; then skipped=$((skipped + 1)); result=SKIPPED
  else failed=$((failed + 1)); result=FAILED; fi
  echo "=== $1: $result ($((SECONDS - t0)) s)"
  step_names+=("$1") step_secs+=($((SECONDS - t0))) step_results+=("$result")
}
ctest_in() { (cd "$1" && ctest --output-on-failure -j"$jobs" "${@:2}"); }

step "dependencies" bash scripts/install-deps.sh
[ "${step_results[0]}" = ok ] || exit 1
# The tests are ctest's, by label: unit (and asm), oracle, e2e, fuzz.
step "build (gcc)" cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLRTRACE_FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
step "compile (gcc)" cmake --build build -j2
step "unit tests" ctest_in build -L 'unit|asm'
step "oracles: libclrsig and clrtrace sigs = System.Reflection.Metadata on the shared framework" ctest_in build -L oracle
step "e2e: real dotnet programs traced with the gcc profiler" ctest_in build -L e2e
step "install: libraries used from an installed prefix" bash tests/install/run.sh build
step "arm64: cross build, unit tests and a traced program under qemu-user" bash scripts/cross-aarch64.sh --test
step "build (asan+ubsan)" cmake -S . -B build-asan -DCLRTRACE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
step "compile (asan+ubsan)" cmake --build build-asan -j2
step "unit tests (asan+ubsan)" ctest_in build-asan -L unit
step "e2e with the ASan+UBSan profiler inside dotnet" bash tests/e2e/sanitized.sh build-asan
# Every build type is warning-free under -Werror with both compilers: gcc
# built RelWithDebInfo and Debug (asan) above; here Release with each.
step "compile (gcc Release, -Werror)" bash -c "cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null && cmake --build build-release -j2"
step "install: the tool from a prefix and from a .deb traces a program" bash tests/install/run_tool.sh build-release
step "compile (clang-14 Release, -Werror)" bash -c "CC=clang-14 cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build-clang -j2"
step "fuzzers, ${FUZZ_SECONDS:-30} s each" ctest_in build -L fuzz
echo
echo "step durations (seconds):"
for i in "${!step_names[@]}"; do
  printf '%6d  %-6s  %s\n' "${step_secs[$i]}" "${step_results[$i]}" "${step_names[$i]}"
done
printf '%6d          total (%d min %d s)\n' "$SECONDS" $((SECONDS / 60)) $((SECONDS % 60))
echo "steps: $passed passed, $failed failed$( [ "$skipped" -eq 0 ] || echo ", $skipped skipped")"
[ "$failed" -eq 0 ]
