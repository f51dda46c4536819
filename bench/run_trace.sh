#!/usr/bin/env bash
# bench/run_trace.sh — what tracing costs, mode by mode, side by side in one
# run, with the ratios against the goals of issue 5 (docs/performance.md).
#
# The workload (bench/Workload) makes ~BENCH_CALLS calls of small methods with
# int, double, string and struct arguments, recursion, virtual and interface
# calls, and times its own hot loop after a warm-up (Stopwatch): ns per call
# below is that loop's time divided by its calls, best of BENCH_REPEATS runs.
#
#   untraced      plain dotnet
#   floor         --null: slow-path WithInfo hooks that return at once (the
#                 runtime's own ELT machinery: no profiler can go under it)
#   full/binary   full capture (every argument and return value) to a binary
#                 trace (clrtrace record), compressed in zstd blocks
#   full/raw      the same, uncompressed (CLRTRACE_COMPRESS=0, --no-compress)
#   full/text     full capture, the live text log to a file (clrtrace run -o)
#   gated         --trigger on a function never called: every call is outside
#                 the per-thread gate, so the hooks record it without values
#                 and the writer's filter drops it (binary trace)
#   fast/empty    --null=fast: the fast-path stubs calling empty callbacks
#   fast          --no-args: calls and times through the fast path, binary trace
#   il            --engine=il --no-args: calls and times through IL probes (the
#                 traced methods' IL calls the tracer; no runtime hooks), binary
#   il_args       --engine=il: the same with values (arguments, return values)
#   naive         bench only (CLRTRACE_BENCH_NAIVE=1): capture, format and
#                 write(2) each line in the hook, under one lock
#
# Values (Workload objects: calls passing a three-level object, a List<int>
# of 100 and a Dictionary<string, int> of 20), full capture to a binary
# trace: objects by content (the defaults) against objects by class and
# address (--object-depth 0, what clrtrace showed before), and by content to
# the text log.
#
# The C# compiler (a real program), values on Microsoft.CodeAnalysis.*: wall
# time untraced, traced with the trace compressed (the default) and not, and
# the trace's bytes per call.
#
# Conditions (--when, Workload when): ns per call of Values.Place(Order o),
# the only method traced (-F), with values to a binary trace: no condition,
# a condition that holds (o.Total > 10 && o.Buyer.Home.City == "Paris": two
# objects down) and the same one false ("Lyon": nothing recorded); then
# conditions at the end (return > 0, true; return < 0, false: each call
# recorded, held by the writer until its end, then kept or left out); the
# ratios side by side. BENCH_ONLY=when runs this part alone.
#
# Trace ids (issue 28, BENCH_ONLY=ids): the Workload's calls under an
# Activity, full capture to a binary trace with the Activity's ids read at
# each call (the default) and without (CLRTRACE_IDS=0), the fast path, and
# the IL engine with values and with --no-args, each both ways, in turn.
#
# Line probes (issue 38, BENCH_ONLY=lineprobe): a hit's cost, and what the
# program allocates with a probe (bench_lineprobe, below).
#
# Async calls (issue 35, BENCH_ONLY=async): Workload async (each call an
# async method that suspends once), values to a binary trace by each engine,
# with BASELINE_LIB beside.
#
# The default engine (issue 36, BENCH_ONLY=default; also at the end of a
# full run): whole programs, the default engine against each and against the
# floor of a profiler loaded with the IL engine's events (bench_default,
# below, lists them).
#
# The goals of issue 29 (BENCH_ONLY=goals; also at the end of a full run):
# whole programs by wall time, runs interleaved, medians of BENCH_REPEATS +
# 2 rounds: the C# compiler untraced, with every method JIT-compiled
# (DOTNET_ReadyToRun=0, untraced: the floor of tracing all of them), and
# traced by each engine with a narrow filter (-F CSharpCompilation.*), calls
# and times only, and values, on Microsoft.CodeAnalysis.*; `Workload hello`;
# then Workload objects by content against by address, and the live text
# log over the floor (ns/call, best of BENCH_REPEATS). With BASELINE_LIB
# each traced figure is measured with that build too, in the same rounds.
#
# Also: start-up of a traced "hello" against untraced (wall time, best of
# BENCH_REPEATS + 2), and peak RSS (VmHWM) of 64 busy threads, traced (full
# capture, binary) against untraced.
#
# Environment:
#   BENCH_CALLS=N      calls of the fast modes (default 10000000); the full
#                      modes make N/5, the naive mode N/100
#   BENCH_REPEATS=N    runs per mode, best kept (default 3)
#   BENCH_LONG=1       BENCH_CALLS=50000000 and BENCH_REPEATS=5 unless set
#   BUILD=DIR          the CMake build directory (default build/)
#   BENCH_TMP=DIR      where traces go (default: a new directory in $TMPDIR)
#   BASELINE_LIB=PATH  another libclrtrace.so (an older build): each traced
#                      mode is measured with it too, right after the same mode
#                      with this build, and a before/after table is printed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
if [[ -n "${BENCH_LONG:-}" ]]; then
    calls=${BENCH_CALLS:-50000000}
    repeats=${BENCH_REPEATS:-5}
else
    calls=${BENCH_CALLS:-10000000}
    repeats=${BENCH_REPEATS:-3}
fi
full_calls=$((calls / 5))
naive_calls=$((calls / 100))
threads=64
thread_calls=${BENCH_THREAD_CALLS:-200000}
build=${BUILD:-$root/build}
tmp=${BENCH_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-bench.XXXXXX")}
[[ -n "${BENCH_TMP:-}" ]] || trap '[[ $BASHPID != $$ ]] || { rm -rf "$tmp"; }' EXIT
mkdir -p "$tmp"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target clrtrace clrtrace_profiler -j2 >/dev/null
lib="$build/src/agent/libclrtrace.so"
dotnet build "$root/bench/Workload" -c Release --artifacts-path "$tmp/artifacts" -v quiet -nologo >/dev/null
app=$(find "$tmp/artifacts/bin" -name Workload.dll | head -n 1)
clsid=$(sed -n 's/^#define CLRTRACE_CLSID_TEXT "\(.*\)"$/\1/p' "$root/src/format/launch.h")
# The modes name their engine: the ELT engine unless a mode says
# CLRTRACE_ENGINE=il after these (env's last assignment wins); the default
# (auto) is measured by the goals' rows.
profiled=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$lib" CLRTRACE_ENGINE=elt)
base=${BASELINE_LIB:+$(readlink -f "$BASELINE_LIB")}
baseline=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$base" CLRTRACE_ENGINE=elt)

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# measure NAME CALLS [VAR=VALUE...]: best ns/call of $repeats runs; sets
# ns[NAME], wall[NAME] (ms, of the best run), size[NAME] (trace bytes).
declare -A ns wall size ncalls
measure() {
    local name=$1 n=$2 best="" bwall=0 out t0 t1 v i
    shift 2
    for ((i = 0; i < repeats; i++)); do
        rm -f "$tmp/$name".*
        t0=$(now_ms)
        out=$(env "$@" dotnet "$app" "${workload_mode:-calls}" "$n")
        t1=$(now_ms)
        v=$(sed -nE 's/.*ns_per_call=([0-9.]+).*/\1/p' <<<"$out")
        [[ -n "$v" ]] || { echo "bench: no result from mode $name: $out" >&2; exit 1; }
        if [[ -z "$best" ]] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$v
            bwall=$((t1 - t0))
            size[$name]=$( (cat "$tmp/$name".* 2>/dev/null || true) | wc -c)
        fi
    done
    ns[$name]=$best
    wall[$name]=$bwall
    ncalls[$name]=$n
}

echo "== clrtrace benchmark: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "   $(dotnet --list-runtimes | grep NETCore.App | tail -n 1), best of $repeats runs"

# Conditions: the same method with no condition, a true one, a false one.
bench_when() {
    local cond='o.Total > 10 && o.Buyer.Home.City == '
    workload_mode=when
    measure when_untraced "$full_calls"
    measure when_none "$full_calls" "${profiled[@]}" CLRTRACE_INCLUDE=Bench.Values.Place \
        "CLRTRACE_TRACE=$tmp/when_none.clrt"
    measure when_true "$full_calls" "${profiled[@]}" CLRTRACE_INCLUDE=Bench.Values.Place \
        "CLRTRACE_WHEN=Bench.Values.Place: $cond\"Paris\"" "CLRTRACE_TRACE=$tmp/when_true.clrt"
    measure when_false "$full_calls" "${profiled[@]}" CLRTRACE_INCLUDE=Bench.Values.Place \
        "CLRTRACE_WHEN=Bench.Values.Place: $cond\"Lyon\"" "CLRTRACE_TRACE=$tmp/when_false.clrt"
    # At the end: Place returns o.Id + 1 (> 0): read at the leave, the
    # writer holding each call until its end.
    measure when_end_true "$full_calls" "${profiled[@]}" CLRTRACE_INCLUDE=Bench.Values.Place \
        "CLRTRACE_WHEN=Bench.Values.Place: return > 0" "CLRTRACE_TRACE=$tmp/when_end_true.clrt"
    measure when_end_false "$full_calls" "${profiled[@]}" CLRTRACE_INCLUDE=Bench.Values.Place \
        "CLRTRACE_WHEN=Bench.Values.Place: return < 0" "CLRTRACE_TRACE=$tmp/when_end_false.clrt"
    workload_mode=calls
    echo
    echo "== conditions (--when on Bench.Values.Place(Order o), values to a binary trace), ns/call, best of $repeats"
    printf '%-14s %11s %9s %10s %8s %12s\n' MODE CALLS NS/CALL XUNTRACED XNONE TRACE_MB
    for m in when_untraced when_none when_true when_false when_end_true when_end_false; do
        awk -v m="$m" -v c="${ncalls[$m]}" -v n="${ns[$m]}" -v u="${ns[when_untraced]}" \
            -v z="${ns[when_none]}" -v s="${size[$m]:-0}" \
            'BEGIN { printf "%-14s %11d %9.1f %10.1f %8.2f %12.1f\n", m, c, n, n / u, n / z, s / 1048576 }'
    done
    awk -v u="${ns[when_untraced]}" -v z="${ns[when_none]}" -v t="${ns[when_true]}" -v f="${ns[when_false]}" 'BEGIN {
        printf "over untraced: no condition +%.1f ns/call, true +%.1f, false +%.1f; false/none = %.2f, true/none = %.2f\n",
               z - u, t - u, f - u, f / z, t / z
    }'
    awk -v u="${ns[when_untraced]}" -v z="${ns[when_none]}" -v t="${ns[when_end_true]}" -v f="${ns[when_end_false]}" 'BEGIN {
        printf "at the end (return > 0 / return < 0): true +%.1f ns/call, false +%.1f; true/none = %.2f, false/none = %.2f\n",
               t - u, f - u, t / z, f / z
    }'
}
if [[ "${BENCH_ONLY:-}" == when ]]; then
    bench_when
    exit 0
fi
# csc_setup: the SDK's C# compiler compiling a small file, into the array
# csc (no compiler in the SDK: 1).
csc_setup() {
    local sdk rt refdir
    sdk=$(dotnet --list-sdks | tail -n 1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
    rt=$(dotnet --list-runtimes | sed -nE 's/^Microsoft\.NETCore\.App ([^ ]+) .*/\1/p' | tail -n 1)
    refdir=$(dirname "$sdk")/../packs/Microsoft.NETCore.App.Ref/$rt/ref/net${rt%%.*}.0
    [[ -f "$sdk/Roslyn/bincore/csc.dll" && -d "$refdir" ]] || return 1
    mkdir -p "$tmp/csc"
    printf 'using System;\nclass P { static void Main() { var l = new System.Collections.Generic.List<int> { 1, 2, 3 }; foreach (var x in l) Console.Write(x * 2); } }\n' >"$tmp/csc/a.cs"
    csc=(dotnet "$sdk/Roslyn/bincore/csc.dll" -nologo -deterministic -out:"$tmp/csc/a.dll"
         "-r:$refdir/System.Runtime.dll" "-r:$refdir/System.Console.dll" "-r:$refdir/System.Collections.dll" "$tmp/csc/a.cs")
}

# The goals of issue 29 (whole-program cost), each figure beside the one of
# BASELINE_LIB measured in the same run, for both engines.
#
# Wall times of whole programs, runs interleaved (each mode once per round),
# median of BENCH_REPEATS + 2 rounds: the C# compiler untraced, untraced
# with its precompiled code refused (DOTNET_ReadyToRun=0: every method
# JIT-compiled, the floor of any tracing that must compile what it traces),
# and traced by each engine with a narrow filter (-F CSharpCompilation.*,
# values), calls and times only (--no-args on Microsoft.CodeAnalysis.*) and
# values at the defaults (Microsoft.CodeAnalysis.*); `Workload hello` with
# the my-code filter. Then per call (best of BENCH_REPEATS): Workload
# objects by content against by class and address, and the live text log
# against the floor.
declare -A wruns
wall_run() { # wall_run MODE: one run, its wall ms on stdout
    local mode=$1 l=$lib engine=il t0 t1 f='Microsoft.CodeAnalysis.CSharp.CSharpCompilation.*'
    [[ $mode == *_base ]] && l=$base
    [[ $mode == *elt* ]] && engine=elt
    local -a what=(-F 'Microsoft.CodeAnalysis.*') src=()
    case $mode in
        *narrow*) what=(-F "$f") ;;
        *calls*) what+=(--no-args) ;;
    esac
    # *_src: with --srcline (issue 37).
    [[ $mode == *_src* ]] && what+=(--srcline) src=(CLRTRACE_SRCLINE=1)
    rm -rf "$tmp/wall"
    t0=$(date +%s%N)
    case $mode in
        csc) "${csc[@]}" >/dev/null 2>&1 ;;
        csc_jit) DOTNET_ReadyToRun=0 "${csc[@]}" >/dev/null 2>&1 ;;
        csc_*) "$build/clrtrace" record --profiler "$l" --engine=$engine -o "$tmp/wall" "${what[@]}" \
                   -- "${csc[@]}" >/dev/null 2>&1 ;;
        hello) dotnet "$app" hello >/dev/null ;;
        many) dotnet "$many" >/dev/null ;;
        many_*) env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$l" \
                    CLRTRACE_ENGINE=$engine "CLRTRACE_TRACE=$tmp/wall.clrt" "${src[@]}" \
                    dotnet "$many" >/dev/null ;;
        hello_*) env CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$l" \
                     CLRTRACE_ENGINE=$engine "CLRTRACE_TRACE=$tmp/wall.clrt" "${src[@]}" \
                     dotnet "$app" hello >/dev/null ;;
    esac
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
median_of() { tr ' ' '\n' <<<"$1" | sed '/^$/d' | sort -n |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall_modes MODE...: the modes' rounds, into wruns (each mode's _base too
# with BASELINE_LIB, but not untraced ones).
wall_modes() {
    local i m
    for ((i = 0; i < repeats + 2; i++)); do
        for m in "$@"; do
            wruns[$m]+="$(wall_run "$m") "
            if [[ -n "$base" && $m == *_* && $m != csc_jit ]]; then
                wruns[${m}_base]+="$(wall_run "${m}_base") "
            fi
        done
    done
}
# goal_row LABEL MODE UNTRACED GOAL: "label  this (x)  before (x)  goal  met"
goal_row() {
    local label=$1 m=$2 u=$3 g=$4 a b=""
    a=$(median_of "${wruns[$m]}")
    [[ -z "$base" ]] || b=$(median_of "${wruns[${m}_base]}")
    awk -v l="$label" -v a="$a" -v b="$b" -v u="$u" -v g="$g" 'BEGIN {
        printf "  %-52s %6.0f ms %5.2fx", l, a, a / u
        if (b != "") printf "   %6.0f ms %5.2fx", b, b / u; else printf "   %16s", "-"
        printf "   %5.2fx  %s\n", g, (a / u <= g) ? "met" : "NOT met"
    }'
}
bench_goals() {
    local u uj e
    echo
    echo "== issue 29 goals: whole programs, wall ms, median of $((repeats + 2)) interleaved rounds"
    echo "   (this build; before = BASELINE_LIB${base:+ $BASELINE_LIB}, measured in the same rounds)"
    printf '  %-52s %16s   %16s   %6s\n' "" "THIS BUILD" "BEFORE" "GOAL"
    if csc_setup; then
        wall_modes csc csc_jit csc_il_narrow csc_elt_narrow csc_il_calls csc_elt_calls csc_il_values csc_elt_values
        u=$(median_of "${wruns[csc]}")
        uj=$(median_of "${wruns[csc_jit]}")
        awk -v u="$u" -v j="$uj" 'BEGIN {
            printf "  C# compiler untraced %.0f ms; every method JIT-compiled (DOTNET_ReadyToRun=0) %.0f ms = %.2fx: the floor of tracing all its methods\n", u, j, j / u }'
        for e in il elt; do
            goal_row "compiler, $e, -F CSharpCompilation.* (values)" "csc_${e}_narrow" "$u" 1.1
        done
        for e in il elt; do
            goal_row "compiler, $e, Microsoft.CodeAnalysis.* --no-args" "csc_${e}_calls" "$u" 2.0
        done
        for e in il elt; do
            goal_row "compiler, $e, Microsoft.CodeAnalysis.* values" "csc_${e}_values" "$u" 4.0
        done
    else
        echo "  (no C# compiler in the SDK: its rows skipped)"
    fi
    wall_modes hello hello_il hello_elt
    u=$(median_of "${wruns[hello]}")
    for e in il elt; do
        goal_row "$(basename "$app") hello, $e, my-code filter (values)" "hello_$e" "$u" 1.1
    done
    echo
    echo "== issue 29 goals: per call (Workload), ns/call, best of $repeats"
    workload_mode=objects
    local oc=$((full_calls / 4))
    measure obj_untraced "$oc"
    traced obj_address "$oc" CLRTRACE_OBJECT_DEPTH=0 "CLRTRACE_TRACE=$tmp/obj_address.clrt"
    traced obj_content "$oc" "CLRTRACE_TRACE=$tmp/obj_content.clrt"
    traced obj_il_address "$oc" CLRTRACE_ENGINE=il CLRTRACE_OBJECT_DEPTH=0 \
        "CLRTRACE_TRACE=$tmp/obj_il_address.clrt"
    traced obj_il_content "$oc" CLRTRACE_ENGINE=il "CLRTRACE_TRACE=$tmp/obj_il_content.clrt"
    workload_mode=calls
    measure untraced "$calls"
    traced floor "$calls" CLRTRACE_NULL=1
    traced full_text "$full_calls" "CLRTRACE_OUTPUT=$tmp/full_text.txt"
    for e in "elt:obj" "il:obj_il"; do
        awk -v e="${e%%:*}" -v a="${ns[${e#*:}_address]}" -v c="${ns[${e#*:}_content]}" \
            -v ab="${ns[${e#*:}_address_base]:-}" -v cb="${ns[${e#*:}_content_base]:-}" 'BEGIN {
            printf "  %s: objects by content %.1f ns/call, by class and address %.1f: %.2fx (goal <= 1.5x): %s\n",
                   e, c, a, c / a, (c / a <= 1.5) ? "met" : "NOT met"
            if (cb != "") printf "    before: by content %.1f, by address %.1f: %.2fx\n", cb, ab, cb / ab
        }'
    done
    awk -v f="${ns[floor]}" -v t="${ns[full_text]}" -v fb="${ns[floor_base]:-}" -v tb="${ns[full_text_base]:-}" 'BEGIN {
        printf "  live text log %.1f ns/call, the floor %.1f: %.1f over the floor (goal <= 150): %s\n",
               t, f, t - f, (t - f <= 150) ? "met" : "NOT met"
        if (tb != "") printf "    before: %.1f ns/call, the floor %.1f: %.1f over it\n", tb, fb, tb - fb
    }'
}
# Trace ids: the same modes with and without the Activity's ids.
bench_ids() {
    # Under an Activity (Workload activity): each call finds the thread's
    # ExecutionContext unchanged (the common case: two loads and a compare).
    workload_mode=activity
    measure ids_untraced "$full_calls"
    local k
    for ((k = 0; k < 2; k++)); do
        measure "ids_full_$k" "$full_calls" "${profiled[@]}" "CLRTRACE_IDS=$((1 - k))" \
            "CLRTRACE_TRACE=$tmp/ids_full_$k.clrt"
        measure "ids_fast_$k" "$calls" "${profiled[@]}" "CLRTRACE_IDS=$((1 - k))" CLRTRACE_NO_ARGS=1 \
            "CLRTRACE_TRACE=$tmp/ids_fast_$k.clrt"
        measure "ids_il_$k" "$full_calls" "${profiled[@]}" "CLRTRACE_IDS=$((1 - k))" CLRTRACE_ENGINE=il \
            "CLRTRACE_TRACE=$tmp/ids_il_$k.clrt"
        measure "ids_ilplain_$k" "$calls" "${profiled[@]}" "CLRTRACE_IDS=$((1 - k))" CLRTRACE_ENGINE=il \
            CLRTRACE_NO_ARGS=1 "CLRTRACE_TRACE=$tmp/ids_ilplain_$k.clrt"
    done
    echo
    echo "== trace ids (the Activity's, read at each call), ns/call, best of $repeats"
    printf 'untraced %.1f\n' "${ns[ids_untraced]}"
    local m label
    for m in "full:full capture, binary" "fast:fast path" "il:IL engine, values" \
             "ilplain:IL engine, --no-args"; do
        label=${m#*:} m=${m%%:*}
        awk -v l="$label" -v a="${ns[ids_${m}_0]}" -v b="${ns[ids_${m}_1]}" 'BEGIN {
            printf "%-22s ids %.1f, no ids %.1f: %+.1f ns/call (%.2fx)\n", l ":", a, b, a - b, a / b }'
    done
    for m in full il; do
        printf '%s trace ids: %s\n' "$m" \
            "$("$build/clrtrace" info "$tmp/ids_${m}_0.clrt" 2>/dev/null | sed -n 's/^trace ids *//p')"
    done
    workload_mode=calls
}
if [[ "${BENCH_ONLY:-}" == ids ]]; then
    bench_ids
    exit 0
fi
# traced NAME CALLS VAR=VALUE...: the mode with this build, then (with
# BASELINE_LIB) the same with the baseline as NAME_base.
traced() {
    local name=$1 n=$2
    shift 2
    measure "$name" "$n" "${profiled[@]}" "$@"
    [[ -z "$base" ]] || measure "${name}_base" "$n" "${baseline[@]}" "${@//$name/${name}_base}"
}
# The default engine (issue 36, BENCH_ONLY=default; also in a full run):
# whole programs by wall time, runs interleaved, medians of BENCH_REPEATS +
# 2 rounds, each against its untraced run of the same rounds: `Workload
# hello` (the my-code filter, values) untraced, with the floor (the
# profiler loaded with the IL engine's events, nothing done), by the
# default engine (no --engine), by each engine, and with -a (every method:
# each engine, values and --no-args: what makes -a the ELT engine's); the
# C# compiler with -F CSharpCompilation.* (values) by the default engine
# and each; the compiler with values on Microsoft.CodeAnalysis* by
# assembly (--assembly, the IL engine) against by name (-F
# 'Microsoft.CodeAnalysis.*'); tests/targets/Web's time to a first response
# (`Web first`: start, one request, stop) by the default engine and by the
# ELT engine.
dwall() { # dwall MODE: one run, its wall ms on stdout
    local mode=$1 t0 t1 f='Microsoft.CodeAnalysis.CSharp.CSharpCompilation.*'
    local -a pr=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$clsid" "CORECLR_PROFILER_PATH=$lib"
                 "CLRTRACE_TRACE=$tmp/dwall.clrt")
    local -a rec=("$build/clrtrace" record --profiler "$lib" -o "$tmp/dwall")
    rm -rf "$tmp/dwall" "$tmp/dwall.clrt"
    t0=$(date +%s%N)
    case $mode in
        hello) dotnet "$app" hello >/dev/null ;;
        hello_floor) env "${pr[@]}" CLRTRACE_BENCH_FLOOR=0x20266 CLRTRACE_BENCH_FLOOR_HIGH=0x10 dotnet "$app" hello >/dev/null ;;
        hello_default) env "${pr[@]}" dotnet "$app" hello >/dev/null ;;
        hello_il) env "${pr[@]}" CLRTRACE_ENGINE=il dotnet "$app" hello >/dev/null ;;
        hello_elt) env "${pr[@]}" CLRTRACE_ENGINE=elt dotnet "$app" hello >/dev/null ;;
        calls_il) env "${pr[@]}" CLRTRACE_ENGINE=il CLRTRACE_NO_ARGS=1 dotnet "$app" hello >/dev/null ;;
        calls_elt) env "${pr[@]}" CLRTRACE_ENGINE=elt CLRTRACE_NO_ARGS=1 dotnet "$app" hello >/dev/null ;;
        all_il) env "${pr[@]}" CLRTRACE_ENGINE=il CLRTRACE_ALL=1 dotnet "$app" hello >/dev/null ;;
        all_elt) env "${pr[@]}" CLRTRACE_ENGINE=elt CLRTRACE_ALL=1 dotnet "$app" hello >/dev/null ;;
        allcalls_il) env "${pr[@]}" CLRTRACE_ENGINE=il CLRTRACE_ALL=1 CLRTRACE_NO_ARGS=1 dotnet "$app" hello >/dev/null ;;
        allcalls_elt) env "${pr[@]}" CLRTRACE_ENGINE=elt CLRTRACE_ALL=1 CLRTRACE_NO_ARGS=1 dotnet "$app" hello >/dev/null ;;
        csc) "${csc[@]}" >/dev/null 2>&1 ;;
        csc_default) "${rec[@]}" -F "$f" -- "${csc[@]}" >/dev/null 2>&1 ;;
        csc_il) "${rec[@]}" --engine=il -F "$f" -- "${csc[@]}" >/dev/null 2>&1 ;;
        csc_elt) "${rec[@]}" --engine=elt -F "$f" -- "${csc[@]}" >/dev/null 2>&1 ;;
        csc_byname) "${rec[@]}" --engine=il -F 'Microsoft.CodeAnalysis.*' -- "${csc[@]}" >/dev/null 2>&1 ;;
        csc_byasm) "${rec[@]}" --engine=il --assembly 'Microsoft.CodeAnalysis*' -- "${csc[@]}" >/dev/null 2>&1 ;;
        web) dotnet "$webapp" first >/dev/null ;;
        web_default) "${rec[@]}" -- dotnet "$webapp" first >/dev/null 2>&1 ;;
        web_elt) "${rec[@]}" --engine=elt -- dotnet "$webapp" first >/dev/null 2>&1 ;;
    esac
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
declare -A druns
drow() { # drow LABEL MODE UNTRACED-MODE [GOAL]
    local m u
    m=$(median_of "${druns[$2]}")
    u=$(median_of "${druns[$3]}")
    awk -v l="$1" -v m="$m" -v u="$u" -v g="${4:-}" 'BEGIN {
        printf "  %-62s %7.0f ms  %5.2fx", l, m, m / u
        if (g != "") printf "   goal <= %sx: %s", g, (m / u <= g) ? "met" : "NOT met"
        printf "\n" }'
}
bench_default() {
    local i m
    webapp=
    if dotnet build "$root/tests/targets/Web" -c Release --artifacts-path "$tmp/web" -v quiet -nologo >/dev/null; then
        webapp=$(find "$tmp/web" -name Web.dll -path '*/bin/*' | head -n 1)
    fi
    local -a modes=(hello hello_floor hello_default hello_il hello_elt calls_il calls_elt all_il all_elt
                    allcalls_il allcalls_elt)
    csc_setup && modes+=(csc csc_default csc_il csc_elt csc_byname csc_byasm)
    [[ -n "$webapp" ]] && modes+=(web web_default web_elt)
    for ((i = 0; i < repeats + 2; i++)); do
        for m in "${modes[@]}"; do
            druns[$m]+="$(dwall "$m") "
        done
    done
    echo
    echo "== issue 36: the default engine, wall ms, median of $((repeats + 2)) interleaved rounds (x: against untraced)"
    drow "Workload hello: the floor (profiler loaded, IL engine's events)" hello_floor hello
    drow "Workload hello, my-code filter, values: default engine" hello_default hello 1.10
    drow "Workload hello: IL engine" hello_il hello
    drow "Workload hello: ELT engine" hello_elt hello
    drow "Workload hello, --no-args: IL engine" calls_il hello
    drow "Workload hello, --no-args: ELT engine" calls_elt hello
    drow "Workload hello, -a, values: IL engine" all_il hello
    drow "Workload hello, -a, values: ELT engine" all_elt hello
    drow "Workload hello, -a, --no-args: IL engine" allcalls_il hello
    drow "Workload hello, -a, --no-args: ELT engine" allcalls_elt hello
    if [[ -n "${druns[csc]:-}" ]]; then
        drow "C# compiler, -F CSharpCompilation.*: default engine" csc_default csc 1.15
        drow "C# compiler, -F CSharpCompilation.*: IL engine" csc_il csc
        drow "C# compiler, -F CSharpCompilation.*: ELT engine" csc_elt csc
        drow "C# compiler, values, -F 'Microsoft.CodeAnalysis.*' (IL)" csc_byname csc
        drow "C# compiler, values, --assembly 'Microsoft.CodeAnalysis*' (IL)" csc_byasm csc
        awk -v a="$(median_of "${druns[csc_byasm]}")" -v n="$(median_of "${druns[csc_byname]}")" 'BEGIN {
            printf "  --assembly against -F: %.2fx (goal <= 1.20x): %s\n", a / n, (a / n <= 1.2) ? "met" : "NOT met" }'
    fi
    if [[ -n "${druns[web]:-}" ]]; then
        drow "Web: time to a first response, default engine" web_default web 1.15
        drow "Web: time to a first response, ELT engine" web_elt web
    fi
}
if [[ "${BENCH_ONLY:-}" == default ]]; then
    bench_default
    exit 0
fi
if [[ "${BENCH_ONLY:-}" == goals ]]; then
    bench_goals
    exit 0
fi
# Source lines (issue 37, BENCH_ONLY=srcline; also in a full run): whole
# programs by wall time, runs interleaved, medians of BENCH_REPEATS + 2
# rounds, each traced run without and with --srcline in the same rounds: the
# C# compiler with -F CSharpCompilation.* (the SDK ships no PDB: each of its
# modules is looked at once and has none), and `Workload hello` with the
# my-code filter (our own program: its PDB read, every traced method's line
# looked up), and a program made here of MANY_METHODS methods in 20 files,
# each called once and throwing one exception through 5 of them (each
# traced method's line looked up, one stack walk per exception).
MANY_METHODS=200
many_setup() { # the program, built into $tmp/many; its dll in $many
    local d=$tmp/many i f
    mkdir -p "$d"
    printf '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net10.0</TargetFramework><ImplicitUsings>disable</ImplicitUsings></PropertyGroup></Project>\n' >"$d/many.csproj"
    for ((f = 0; f < 20; f++)); do
        {
            echo "namespace Many { public static class C$f {"
            for ((i = 0; i < MANY_METHODS / 20; i++)); do
                echo "  [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]"
                echo "  public static int M$i(int x) { int y = x * $i; if (y < 0) throw new System.ArgumentException(\"neg\"); return y + 1; }"
            done
            echo "} }"
        } >"$d/C$f.cs"
    done
    {
        echo "namespace Many { public static class Program { public static int Main() { int s = 0;"
        for ((f = 0; f < 20; f++)); do
            for ((i = 0; i < MANY_METHODS / 20; i++)); do echo "s += C$f.M$i(1);"; done
        done
        echo "for (int k = 0; k < 5; k++) try { C0.M1(-1); } catch (System.ArgumentException) { s++; }"
        echo "return s == 0 ? 1 : 0; } } }"
    } >"$d/Program.cs"
    dotnet build "$d/many.csproj" -c Release -o "$d/out" -v quiet -nologo >/dev/null 2>&1 &&
        many=$d/out/many.dll && [[ -f $many ]]
}
bench_srcline() {
    local u
    echo
    echo "== source lines (--srcline): whole programs, wall ms, median of $((repeats + 2)) interleaved rounds"
    if csc_setup; then
        wall_modes csc csc_il_narrow csc_il_narrow_src
        u=$(median_of "${wruns[csc]}")
        awk -v u="$u" -v a="$(median_of "${wruns[csc_il_narrow]}")" \
            -v b="$(median_of "${wruns[csc_il_narrow_src]}")" 'BEGIN {
            printf "  compiler -F CSharpCompilation.*: untraced %.0f ms, traced %.0f ms (%.2fx), with --srcline %.0f ms (%.2fx): %+.1f%% (goal <= 5%%)\n",
                   u, a, a / u, b, b / u, 100 * (b - a) / a }'
    else
        echo "  (no C# compiler in the SDK: its row skipped)"
    fi
    wall_modes hello hello_il hello_il_src
    u=$(median_of "${wruns[hello]}")
    awk -v u="$u" -v a="$(median_of "${wruns[hello_il]}")" -v b="$(median_of "${wruns[hello_il_src]}")" \
        -v n="$(basename "$app")" 'BEGIN {
        printf "  %s hello, my code: untraced %.0f ms, traced %.0f ms (%.2fx), with --srcline %.0f ms (%.2fx): %+.1f%%\n",
               n, u, a, a / u, b, b / u, 100 * (b - a) / a }'
    if many_setup; then
        wall_modes many many_il many_il_src
        u=$(median_of "${wruns[many]}")
        awk -v u="$u" -v a="$(median_of "${wruns[many_il]}")" -v b="$(median_of "${wruns[many_il_src]}")" \
            -v m="$MANY_METHODS" 'BEGIN {
            printf "  %d methods of ours (PDB), my code: untraced %.0f ms, traced %.0f ms (%.2fx), with --srcline %.0f ms (%.2fx): %+.1f%% (goal <= 5%%)\n",
                   m, u, a, a / u, b, b / u, 100 * (b - a) / a }'
    else
        echo "  (the program of $MANY_METHODS methods did not build: its row skipped)"
    fi
    # Without --srcline, against BASELINE_LIB (a build before it), same rounds.
    local m
    for m in csc_il_narrow hello_il many_il; do
        [[ -n "$base" && -n "${wruns[${m}_base]:-}" ]] || continue
        awk -v m="$m" -v a="$(median_of "${wruns[$m]}")" -v b="$(median_of "${wruns[${m}_base]}")" 'BEGIN {
            printf "  %s without --srcline: %.0f ms, BASELINE_LIB %.0f ms: %+.1f%%\n", m, a, b, 100 * (a - b) / b }'
    done
}
if [[ "${BENCH_ONLY:-}" == srcline ]]; then
    bench_srcline
    exit 0
fi
# Line probes (issue 38, BENCH_ONLY=lineprobe; also in a full run): Workload
# probe, N calls of Values.Mix(int a, long b), the IL engine with values to a
# binary trace (-F Bench.Values.Mix): traced without a probe, with a probe at
# its marked line (10 values: the 2 arguments, 8 primitive locals), and the
# same probe under a condition that never holds (each hit read and dropped),
# and --locals without the probe (the method's body inside the filter's try;
# no exception: what it costs a call that throws nothing);
# ns per call, best of BENCH_REPEATS; a hit's cost is the difference, and the
# bytes the program allocated per call (GC.GetAllocatedBytesForCurrentThread
# around the timed loop).
bench_lineprobe() {
    workload_mode=probe
    local src="$root/bench/Workload/Program.cs" l n=$((full_calls / 2)) il
    l=$(grep -n '// PROBE LINE' "$src" | head -n 1 | cut -d: -f1)
    il=("${profiled[@]}" CLRTRACE_ENGINE=il CLRTRACE_INCLUDE=Bench.Values.Mix)
    measure probe_untraced "$n"
    measure probe_traced "$n" "${il[@]}" "CLRTRACE_TRACE=$tmp/probe_traced.clrt"
    measure probe_hit "$n" "${il[@]}" "CLRTRACE_AT=Program.cs:$l" "CLRTRACE_TRACE=$tmp/probe_hit.clrt"
    measure probe_false "$n" "${il[@]}" "CLRTRACE_AT=Program.cs:$l" \
        "CLRTRACE_WHEN=Program.cs:$l: c < 0" "CLRTRACE_TRACE=$tmp/probe_false.clrt"
    measure probe_locals "$n" "${il[@]}" CLRTRACE_LOCALS=1 "CLRTRACE_TRACE=$tmp/probe_locals.clrt"
    local a
    a=$(env "${il[@]}" "CLRTRACE_AT=Program.cs:$l" "CLRTRACE_TRACE=$tmp/probe_alloc.clrt" \
        dotnet "$app" probe "$n" | sed -nE 's/.*alloc_per_call=([0-9.]+).*/\1/p')
    rm -f "$tmp"/probe_*.clrt
    workload_mode=calls
    echo
    echo "== line probes (--at, IL engine, values to a binary trace), ns/call, best of $repeats"
    printf '%-15s %11s %9s\n' MODE CALLS NS/CALL
    for m in probe_untraced probe_traced probe_hit probe_false probe_locals; do
        awk -v m="$m" -v c="${ncalls[$m]}" -v v="${ns[$m]}" 'BEGIN { printf "%-15s %11d %9.1f\n", m, c, v }'
    done
    awk -v t="${ns[probe_traced]}" -v h="${ns[probe_hit]}" -v f="${ns[probe_false]}" -v a="$a" 'BEGIN {
        printf "a hit with 10 values (2 arguments, 8 primitive locals): +%.1f ns (goal <= 200 ns): %s; a hit its condition drops: +%.1f ns; the program allocated %s bytes a call with the probe (goal 0)\n",
               h - t, (h - t <= 200) ? "met" : "NOT met", f - t, a }'
    awk -v t="${ns[probe_traced]}" -v l="${ns[probe_locals]}" 'BEGIN {
        printf "--locals on a method that throws nothing (its body in a try, a filter never run): %+.1f ns a call\n", l - t }'
}
if [[ "${BENCH_ONLY:-}" == lineprobe ]]; then
    bench_lineprobe
    exit 0
fi
# Fault injection (issue 39, BENCH_ONLY=inject; also in a full run): what
# --inject costs a call it does not inject. Workload when (Values.Place(Order
# o), the only method traced, values to a binary trace): traced with no
# condition; --when with the condition that holds (two objects down: its
# cost on a call it records); --inject with that condition made false
# ("Lyon": never injected: the decision reads the condition at each call);
# and --inject with no condition and a selector that never chooses (after
# 1000000000: the decision's native call and its count). Goal: the inject
# with a false condition costs no more than --when's true one (each reads
# the same condition; best of BENCH_REPEATS, side by side in this run).
bench_inject() {
    local cond='o.Total > 10 && o.Buyer.Home.City == '
    local il=("${profiled[@]}" CLRTRACE_ENGINE=il CLRTRACE_INCLUDE=Bench.Values.Place)
    workload_mode=when
    measure inj_none "$full_calls" "${il[@]}" "CLRTRACE_TRACE=$tmp/inj_none.clrt"
    measure inj_when_true "$full_calls" "${il[@]}" \
        "CLRTRACE_WHEN=Bench.Values.Place: $cond\"Paris\"" "CLRTRACE_TRACE=$tmp/inj_when_true.clrt"
    measure inj_false "$full_calls" "${il[@]}" \
        "CLRTRACE_INJECT=Bench.Values.Place: throw InvalidOperationException when $cond\"Lyon\"" \
        "CLRTRACE_TRACE=$tmp/inj_false.clrt"
    measure inj_never "$full_calls" "${il[@]}" \
        "CLRTRACE_INJECT=Bench.Values.Place: throw InvalidOperationException after 1000000000" \
        "CLRTRACE_TRACE=$tmp/inj_never.clrt"
    rm -f "$tmp"/inj_*.clrt
    workload_mode=calls
    echo
    echo "== fault injection (--inject on Bench.Values.Place(Order o), IL engine, values to a binary trace), ns/call, best of $repeats"
    printf '%-15s %11s %9s\n' MODE CALLS NS/CALL
    for m in inj_none inj_when_true inj_false inj_never; do
        awk -v m="$m" -v c="${ncalls[$m]}" -v v="${ns[$m]}" 'BEGIN { printf "%-15s %11d %9.1f\n", m, c, v }'
    done
    awk -v z="${ns[inj_none]}" -v w="${ns[inj_when_true]}" -v f="${ns[inj_false]}" -v n="${ns[inj_never]}" 'BEGIN {
        printf "a call not injected: its condition read +%.1f ns, against --when'"'"'s +%.1f for the same condition (goal: no more): %s; with no condition (a selector that never chooses) +%.1f ns\n",
               f - z, w - z, (f - z <= w - z) ? "met" : "NOT met", n - z }'
}
if [[ "${BENCH_ONLY:-}" == inject ]]; then
    bench_inject
    exit 0
fi
# Async calls (issue 35, BENCH_ONLY=async; also in a full run): Workload
# async, each call an async method that suspends once (Task.Yield) and is
# followed until its task completes; values to a binary trace, by each
# engine, with BASELINE_LIB beside (which does not follow them).
bench_async() {
    workload_mode=async
    local n=$((full_calls / 50)) e
    measure async_untraced "$n"
    traced async_elt "$n" "CLRTRACE_TRACE=$tmp/async_elt.clrt"
    traced async_il "$n" CLRTRACE_ENGINE=il "CLRTRACE_TRACE=$tmp/async_il.clrt"
    workload_mode=calls
    echo
    echo "== async calls followed to their task's end (Workload async), ns/call, best of $repeats"
    for e in elt il; do
        awk -v e="$e" -v u="${ns[async_untraced]}" -v a="${ns[async_$e]}" -v b="${ns[async_${e}_base]:-}" 'BEGIN {
            printf "  %s: untraced %.0f, traced %.0f (%.2fx)", e, u, a, a / u
            if (b != "") printf "; before (not followed) %.0f (%.2fx): %+.0f ns per async call", b, b / u, a - b
            printf "\n" }'
    done
}
if [[ "${BENCH_ONLY:-}" == async ]]; then
    bench_async
    exit 0
fi
measure untraced "$calls"
traced floor "$calls" CLRTRACE_NULL=1
traced fast_empty "$calls" CLRTRACE_NULL=fast
traced fast "$calls" CLRTRACE_NO_ARGS=1 "CLRTRACE_TRACE=$tmp/fast.clrt"
measure il "$calls" "${profiled[@]}" CLRTRACE_ENGINE=il CLRTRACE_NO_ARGS=1 "CLRTRACE_TRACE=$tmp/il.clrt"
measure il_args "$full_calls" "${profiled[@]}" CLRTRACE_ENGINE=il "CLRTRACE_TRACE=$tmp/il_args.clrt"
traced full_binary "$full_calls" "CLRTRACE_TRACE=$tmp/full_binary.clrt"
measure full_raw "$full_calls" "${profiled[@]}" CLRTRACE_COMPRESS=0 "CLRTRACE_TRACE=$tmp/full_raw.clrt"
traced full_text "$full_calls" "CLRTRACE_OUTPUT=$tmp/full_text.txt"
traced gated "$full_calls" "CLRTRACE_TRACE=$tmp/gated.clrt" CLRTRACE_TRIGGER=No.Such.Method
measure naive "$naive_calls" "${profiled[@]}" CLRTRACE_BENCH_NAIVE=1 "CLRTRACE_OUTPUT=$tmp/naive.txt"

u=${ns[untraced]}
printf '\n%-12s %11s %9s %10s %9s %12s\n' MODE CALLS NS/CALL XUNTRACED WALL_MS TRACE_MB
for m in untraced floor full_binary full_raw full_text gated fast_empty fast il il_args naive; do
    awk -v m="$m" -v c="${ncalls[$m]}" -v n="${ns[$m]}" -v u="$u" -v w="${wall[$m]}" -v s="${size[$m]:-0}" \
        'BEGIN { printf "%-12s %11d %9.1f %10.1f %9d %12.1f\n", m, c, n, n / u, w, s / 1048576 }'
done

if [[ -n "$base" ]]; then
    echo
    echo "== before (BASELINE_LIB=$BASELINE_LIB) and after (this build), ns/call, measured in turn"
    printf '%-12s %9s %9s %8s\n' MODE BEFORE AFTER AFTER/BEFORE
    for m in floor fast_empty fast full_binary full_text gated; do
        awk -v m="$m" -v b="${ns[${m}_base]}" -v a="${ns[$m]}" \
            'BEGIN { printf "%-12s %9.1f %9.1f %8.2f\n", m, b, a, a / b }'
    done
fi

echo
echo "== ratios against the goals"
awk -v u="$u" -v f="${ns[floor]}" -v b="${ns[full_binary]}" -v t="${ns[full_text]}" \
    -v fe="${ns[fast_empty]}" -v fa="${ns[fast]}" -v nv="${ns[naive]}" -v gt="${ns[gated]}" \
    -v il="${ns[il]}" -v ila="${ns[il_args]}" 'BEGIN {
    floor = f - u
    printf "floor: the runtime adds %.1f ns/call over untraced\n", floor
    printf "full capture (binary) adds %.1f ns/call over the floor = %.2fx the floor'"'"'s own cost (goal <= 3): %s\n",
           b - f, (b - f) / floor, ((b - f) / floor <= 3) ? "met" : "NOT met"
    printf "full capture (text)   adds %.1f ns/call over the floor = %.2fx the floor'"'"'s own cost\n",
           t - f, (t - f) / floor
    printf "fast path: %.1f ns/call against %.1f for the empty fast path = %.2fx (goal <= 2): %s\n",
           fa, fe, fa / fe, (fa / fe <= 2) ? "met" : "NOT met"
    printf "           (over untraced: fast path +%.1f ns/call, empty stubs +%.1f)\n", fa - u, fe - u
    printf "IL-probe engine (calls and times, like the fast path): %.1f ns/call, +%.1f over untraced = %.2fx the floor'"'"'s own cost (the ELT fast path: +%.1f)\n",
           il, il - u, (il - u) / floor, fa - u
    printf "IL-probe engine with values: %.1f ns/call, +%.1f over untraced against the ELT floor'"'"'s own +%.1f (goal: no more): %s; full capture through the ELT engine %.1f\n",
           ila, ila - u, floor, (ila - u <= floor) ? "met" : "NOT met", b
    printf "trigger closed (gated): %.1f ns/call against %.1f for full capture to binary = %.2fx\n", gt, b, gt / b
    printf "naive: %.1f ns/call = %.1fx full capture to binary, %.1fx full capture to text (goal >= 20x): %s / %s\n",
           nv, nv / b, nv / t, (nv / b >= 20) ? "met" : "NOT met", (nv / t >= 20) ? "met" : "NOT met"
}'

bench_when
bench_inject
bench_async

echo
echo "== values: objects and collections (Workload objects), ns/call, best of $repeats"
workload_mode=objects
obj_calls=$((full_calls / 4))
measure obj_untraced "$obj_calls"
measure obj_address "$obj_calls" "${profiled[@]}" CLRTRACE_OBJECT_DEPTH=0 "CLRTRACE_TRACE=$tmp/obj_address.clrt"
measure obj_content "$obj_calls" "${profiled[@]}" "CLRTRACE_TRACE=$tmp/obj_content.clrt"
measure obj_raw "$obj_calls" "${profiled[@]}" CLRTRACE_COMPRESS=0 "CLRTRACE_TRACE=$tmp/obj_raw.clrt"
measure obj_text "$obj_calls" "${profiled[@]}" "CLRTRACE_OUTPUT=$tmp/obj_text.txt"
workload_mode=calls
printf '%-12s %11s %9s %12s\n' MODE CALLS NS/CALL TRACE_MB
for m in obj_untraced obj_address obj_content obj_raw obj_text; do
    awk -v m="$m" -v c="${ncalls[$m]}" -v n="${ns[$m]}" -v s="${size[$m]:-0}" \
        'BEGIN { printf "%-12s %11d %9.1f %12.1f\n", m, c, n, s / 1048576 }'
done
awk -v a="${ns[obj_address]}" -v c="${ns[obj_content]}" -v t="${ns[obj_text]}" 'BEGIN {
    printf "objects by content cost %.1f ns/call more than by class and address (%.2fx); to text %.1f ns/call\n", c - a, c / a, t
}'
echo
echo "== compression: the binary trace in zstd blocks (default) and as it is (CLRTRACE_COMPRESS=0)"
for pair in "full_binary full_raw" "obj_content obj_raw"; do
    set -- $pair
    awk -v m="$1" -v z="${ns[$1]}" -v r="${ns[$2]}" -v zs="${size[$1]:-0}" -v rs="${size[$2]:-0}" \
        -v c="${ncalls[$1]}" 'BEGIN {
        printf "%-12s compressed %.1f ns/call, uncompressed %.1f (%.2fx); %.1f bytes/call against %.1f (%.1fx smaller)\n",
               m, z, r, z / r, zs / c, rs / c, (zs > 0 ? rs / zs : 0)
    }'
done

# A real program: the SDK's C# compiler compiling a small file, traced with
# values on Microsoft.CodeAnalysis.* (clrtrace record), the trace compressed
# and not, runs alternating; wall time best of $repeats.
echo
echo "== the C# compiler, values on Microsoft.CodeAnalysis.*, best of $repeats (alternating)"
if csc_setup; then
    declare -A cbest csize
    for ((i = 0; i < repeats; i++)); do
        for m in zstd raw il ilv untraced; do
            rm -rf "$tmp/csc/$m"
            t0=$(now_ms)
            case $m in
                zstd) "$build/clrtrace" record --profiler "$lib" -o "$tmp/csc/$m" -F 'Microsoft.CodeAnalysis.*' -- "${csc[@]}" >/dev/null 2>&1 ;;
                raw) "$build/clrtrace" record --profiler "$lib" --no-compress -o "$tmp/csc/$m" -F 'Microsoft.CodeAnalysis.*' -- "${csc[@]}" >/dev/null 2>&1 ;;
                il) "$build/clrtrace" record --profiler "$lib" --engine=il --no-args -o "$tmp/csc/$m" -F 'Microsoft.CodeAnalysis.*' -- "${csc[@]}" >/dev/null 2>&1 ;;
                ilv) "$build/clrtrace" record --profiler "$lib" --engine=il -o "$tmp/csc/$m" -F 'Microsoft.CodeAnalysis.*' -- "${csc[@]}" >/dev/null 2>&1 ;;
                untraced) "${csc[@]}" >/dev/null 2>&1 ;;
            esac
            t1=$(now_ms)
            (( ${cbest[$m]:-999999999} > t1 - t0 )) && cbest[$m]=$((t1 - t0))
            [[ $m == untraced ]] || csize[$m]=$(stat -c %s "$tmp/csc/$m/trace.clrt")
        done
    done
    ccalls=$("$build/clrtrace" info "$tmp/csc/zstd" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')
    awk -v u="${cbest[untraced]}" -v z="${cbest[zstd]}" -v r="${cbest[raw]}" -v zs="${csize[zstd]}" \
        -v rs="${csize[raw]}" -v c="$ccalls" -v il="${cbest[il]}" -v ilv="${cbest[ilv]}" 'BEGIN {
        printf "untraced %d ms; traced, compressed %d ms (%.2fx), uncompressed %d ms (%.2fx): compressed/uncompressed %.2f\n",
               u, z, z / u, r, r / u, z / r
        printf "%d calls: %.1f bytes/call compressed (%.1f MB), %.1f uncompressed (%.1f MB)\n",
               c, zs / c, zs / 1048576, rs / c, rs / 1048576
        printf "IL-probe engine: with values %d ms (%.2fx untraced; the ELT engine %.2fx), calls and times %d ms (%.2fx)\n",
               ilv, ilv / u, z / u, il, il / u
    }'
else
    echo "(no C# compiler in the SDK: skipped)"
fi

echo
echo "== start-up: $(basename "$app") hello, my-code filter, text log to a file"
best_wall() { # best_wall VAR=VALUE...: best wall ms of repeats+2 runs of hello
    local b=999999 t0 t1 i
    for ((i = 0; i < repeats + 2; i++)); do
        t0=$(date +%s%N)
        env "$@" dotnet "$app" hello >/dev/null
        t1=$(date +%s%N)
        (((t1 - t0) / 1000000 < b)) && b=$(((t1 - t0) / 1000000))
    done
    echo "$b"
}
s_plain=$(best_wall)
# The floor of any start-up tracing: the profiler loaded with the IL
# engine's events (JIT compilation, cache searches, module and class loads,
# threads, exceptions; the high mask's basic GC) and nothing else done
# (CLRTRACE_BENCH_FLOOR, profiler.c).
s_floor=$(best_wall "${profiled[@]}" CLRTRACE_BENCH_FLOOR=0x20266 CLRTRACE_BENCH_FLOOR_HIGH=0x10)
s_traced=$(best_wall "${profiled[@]}" "CLRTRACE_OUTPUT=$tmp/hello.txt")
s_fast=$(best_wall "${profiled[@]}" CLRTRACE_NO_ARGS=1 "CLRTRACE_OUTPUT=$tmp/hello-fast.txt")
s_il=$(best_wall "${profiled[@]}" CLRTRACE_ENGINE=il CLRTRACE_NO_ARGS=1 "CLRTRACE_OUTPUT=$tmp/hello-il.txt")
s_ilv=$(best_wall "${profiled[@]}" CLRTRACE_ENGINE=il "CLRTRACE_OUTPUT=$tmp/hello-ilv.txt")
echo "untraced $s_plain ms, traced $s_traced ms (+$((s_traced - s_plain)) ms, $(awk -v a="$s_traced" -v b="$s_plain" 'BEGIN { printf "%.2f", a / b }')x), fast path $s_fast ms"
echo "the floor (the profiler loaded with the IL engine's events, nothing done): $s_floor ms ($(awk -v a="$s_floor" -v b="$s_plain" 'BEGIN { printf "%.2f", a / b }')x)"
echo "IL-probe engine: with values $s_ilv ms ($(awk -v a="$s_ilv" -v b="$s_plain" 'BEGIN { printf "%.2f", a / b }')x untraced; the ELT engine $(awk -v a="$s_traced" -v b="$s_plain" 'BEGIN { printf "%.2f", a / b }')x), calls and times $s_il ms ($(awk -v a="$s_il" -v b="$s_plain" 'BEGIN { printf "%.2f", a / b }')x; ELT fast path $s_fast ms)"

echo
echo "== peak RSS: $threads busy threads, $thread_calls calls each"
rss() { env "$@" dotnet "$app" threads "$threads" "$thread_calls" | sed -nE 's/.*vmhwm_kib=([0-9]+).*/\1/p'; }
r_plain=$(rss)
r_full=$(rss "${profiled[@]}" "CLRTRACE_TRACE=$tmp/rss.clrt")
r_fast=$(rss "${profiled[@]}" CLRTRACE_NO_ARGS=1 "CLRTRACE_TRACE=$tmp/rss-fast.clrt")
awk -v p="$r_plain" -v f="$r_full" -v q="$r_fast" 'BEGIN {
    printf "untraced %.1f MiB; full capture %.1f MiB (+%.1f MiB); fast path %.1f MiB (+%.1f MiB) (goal <= 64 MiB extra): %s\n",
           p / 1024, f / 1024, (f - p) / 1024, q / 1024, (q - p) / 1024, ((f - p) / 1024 <= 64 && (q - p) / 1024 <= 64) ? "met" : "NOT met"
}'

bench_goals
bench_default
bench_srcline
bench_lineprobe
