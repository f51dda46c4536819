#!/usr/bin/env bash
# bench/run_arm64.sh — what tracing costs on arm64 UNDER EMULATION: the
# Workload (bench/Workload) published self-contained for linux-arm64 and run
# under qemu-user with the arm64 profiler (scripts/cross-aarch64.sh), mode by
# mode, side by side in one run, ns per call best of BENCH_REPEATS (3).
#
# qemu-user translates each aarch64 instruction into several x86-64 ones and
# calls into the emulator for many system calls: these figures are ratios of
# emulated code and say nothing of the time on an arm64 machine. No arm64
# timing claim is made from them (docs/arm64.md).
#
#   untraced   the program alone
#   fast/empty CLRTRACE_NULL=fast: the arm64 fast-path stubs calling empty callbacks
#   fast       CLRTRACE_NO_ARGS=1, ELT engine: calls and times, binary trace
#   il         IL probes, no values (CLRTRACE_NO_ARGS=1 with CLRTRACE_ENGINE=il)
#   il_args    IL probes with values, binary trace
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
armbuild=${AARCH64_BUILD:-$root/build-aarch64}
armlib=$armbuild/src/agent/libclrtrace.so
[[ -f "$armlib" ]] || { echo "no $armlib: run scripts/cross-aarch64.sh first" >&2; exit 2; }
calls=${BENCH_CALLS:-2000000}
repeats=${BENCH_REPEATS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
dotnet publish "$root/bench/Workload/Workload.csproj" -c Release -r linux-arm64 --self-contained \
    --artifacts-path "$out/artifacts" >"$out/publish.log" 2>&1 || { cat "$out/publish.log" >&2; exit 1; }
app=$(find "$out/artifacts/publish" -type f -name Workload | head -n 1)
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu
    -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:/usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu)
prof=(CORECLR_ENABLE_PROFILING=1
    "CORECLR_PROFILER=$(sed -n 's/^#define CLRTRACE_CLSID_TEXT "\(.*\)"$/\1/p' "$root/src/format/launch.h")"
    "CORECLR_PROFILER_PATH=$armlib" "CLRTRACE_TRACE=$out/t.clrt")
best() { # MODE ENV...: the best ns per call of REPEATS runs
    local b="" v i
    for ((i = 0; i < repeats; i++)); do
        v=$(env "${@:2}" "${qemu[@]}" "$app" calls "$calls" | sed -nE 's/.*ns_per_call=([0-9.]+).*/\1/p')
        [[ -n "$v" ]] || { echo "$1: no figure" >&2; exit 1; }
        b=$(awk -v a="$b" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
    done
    echo "$b"
}
u=$(best untraced)
echo "under qemu-user emulation (not arm64 timings), $calls calls, best of $repeats:"
printf '%-11s %10s %8s\n' mode ns/call ratio
printf '%-11s %10.1f %8s\n' untraced "$u" 1.0
for m in "fast/empty CLRTRACE_NULL=fast" "fast CLRTRACE_ENGINE=elt CLRTRACE_NO_ARGS=1" \
         "il CLRTRACE_ENGINE=il CLRTRACE_NO_ARGS=1" "il_args CLRTRACE_ENGINE=il"; do
    read -r name vars <<<"$m"
    # shellcheck disable=SC2086
    v=$(best "$name" "${prof[@]}" $vars)
    awk -v n="$name" -v v="$v" -v u="$u" 'BEGIN { printf "%-11s %10.1f %7.1fx\n", n, v, v / u }'
done
