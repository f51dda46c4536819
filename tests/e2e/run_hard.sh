#!/usr/bin/env bash
# End-to-end test of the hard cases (issue 6): trace tests/targets/Hard in
# real `dotnet` processes and check the call tree and the program's health.
#
# Usage: tests/e2e/run_hard.sh [path/to/libclrtrace.so]
#
# Without an argument (or CLRTRACE_LIB) the profiler is built with CMake into
# a temporary directory. Environment:
#   HARD_ONLY="exceptions threads ..."  run only these sections
#   HARD_STRESS_CALLS=N (default 2000000), HARD_STRESS_THREADS=T (default 16):
#       the stress section's size; HARD_STRESS_CALLS=50000000 is the full one.
#   KEEP=1  keep the work directory (traces) and print its path.
#
# Sections (each check prints "ok   ..." or "FAIL ...", the script goes on):
#   exceptions  thrown through traced frames and caught higher up, filters
#               (and one that throws), finally (one that throws, one that
#               throws and catches), rethrow, a new exception from a catch
#               block, caught in the same method, through framework frames,
#               a message that is not in Exception._message, one that needs
#               escaping: unwound frames closed "-> exception TYPE: "MESSAGE""
#               / "} exception TYPE: ...", each with the exception that left
#               it; the next call after each catch at the right depth; the
#               summary's EXCEPTIONS column
#   threads     16 named threads, the thread pool, Parallel.For: each line on
#               the thread that made the call (the program passes its own
#               gettid() as an argument), counts equal the program's, balanced
#   async       MoveNext frames shown as their async methods, continuations on
#               pool threads, balanced
#   tailcalls   IL `tail.` calls built with PersistedAssemblyBuilder, also
#               through the launcher (which keeps self-recursive ones calls)
#   interop     P/Invoke, reverse P/Invoke (qsort), delegates, generic
#               virtual methods, static constructors, a DynamicMethod
#   recursion   10 000 deep; 70 000 deep (past the 65 536 timed frames)
#   ending      Environment.Exit(5) from 20 frames down, an unhandled
#               exception, SIGTERM and SIGINT: exit code, stdout and stderr
#               unchanged; the traces are complete
#   badenv      unwritable outputs, invalid option values, a full disk: one
#               clear line (where one is promised) and an unharmed program
#   stress      HARD_STRESS_CALLS calls over HARD_STRESS_THREADS threads: the
#               trace has every one on the right thread; memory stays bounded
#
# Every expected value below and in cases/hard.case (the sections'
# "run this, expect these lines" checks, lib_cases.sh) is written by hand
# from tests/targets/Hard/*.cs.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"

ct_setup hard "${1:-}"
# The file systems the bad-environment section mounts, unmounted at the end.
mounts=()
unmount_all() { local m; for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
ct_at_exit unmount_all
launcher=$(readlink -f "$(dirname "$lib")/../../clrtrace" 2>/dev/null || true)
ulimit -c 0 # the unhandled-exception scenario aborts

echo "== building tests/targets/Hard"
app=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hard failed" >&2; exit 2; }


want() { [[ -z "${HARD_ONLY:-}" || " $HARD_ONLY " == *" $1 "* ]]; }

# exceptions_column FILE NAME...: the EXCEPTIONS column of Hard.Exceptions.NAME's
# summary rows, on one line.
exceptions_column() {
    local t=$1 f
    shift
    for f in "$@"; do
        awk -v f="Hard.Exceptions.$f" '/^#  CALLS/ {on = 1; next} on && $NF == f {print $(NF - 1); exit}' "$t"
    done | tr '\n' ' ' | sed 's/ $//'
}
# hot_per_thread FILE PER THREADS: per TID, PER Hot lines with one value of t;
# THREADS TIDs.
hot_per_thread() {
    grep -F " Hard.Stress.Hot(int t=" "$1" | awk -v per="$2" -v nt="$3" '
        { tid = $2; match($0, /t=[0-9]+/); t = substr($0, RSTART + 2, RLENGTH - 2)
          n[tid]++
          if (!(tid in tv)) tv[tid] = t
          else if (tv[tid] != t && bad++ < 5) print "TID " tid " has t=" tv[tid] " and t=" t }
        END { for (x in n) { k++; if (n[x] != per && bad++ < 10) print "TID " x ": " n[x] " lines" }
              if (k != nt) { print k " TIDs"; bad++ }
              exit bad > 0 }'
}

# ================================================================ exceptions
if want exceptions; then
    ct_cases "$here/cases/hard.case" exceptions
    tree=$(ct_tree "$work/ex.txt")
    # Main (depth 0) -> Run (1) -> each step and After (2): four spaces.
    for k in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do
        check_eq "exceptions $k: the call after the catch, After($k), is at Run's children's depth" \
            "    Hard.Exceptions.After(int step=$k) -> int $k" "$(grep -F "Hard.Exceptions.After(int step=$k)" <<<"$tree")"
    done
    check_eq "exceptions: Main and Run close normally at the end" \
        "$(printf '  } -> int 0\n} -> int 0')" "$(tail -n 2 <<<"$tree")"
fi

# ================================================================ threads, async
for s in threads async; do
    want $s && ct_cases "$here/cases/hard.case" $s
done

# ================================================================ tail calls
if want tailcalls; then
    ct_cases "$here/cases/hard.case" tailcalls
    if [[ -x "$launcher" ]]; then
        ct_cases "$here/cases/hard.case" tailcalls-launcher
    else
        echo "skip the launcher (no clrtrace beside $lib)"
    fi
    ct_cases "$here/cases/hard.case" tailcalls-default
fi

# ================================================================ interop
# interop_qsort: qsort's callbacks (reverse P/Invoke) traced as often as the
# program counted them (its stdout, io.plain.out), each nested one level
# inside its caller (cases/hard.case, section interop).
interop_qsort() {
    local t="$work/io.txt" o tree n sub
    o=$(cat "$work/io.plain.out")
    tree=$(ct_tree "$t")
    n=$(sed -n 's/^interop: qsort unmanaged-callers-only sorted=True compares=//p' <<<"$o")
    check_eq "reverse P/Invoke: [UnmanagedCallersOnly] Compare traced as often as qsort called it ($n)" \
        "$n" "$(ct_count "$t" "Hard.Interop.Compare(")"
    sub=$(ct_subtree "$tree" "Hard.Interop.SortNative(")
    check_eq "reverse P/Invoke: every Compare call nested one level inside SortNative" "$n" \
        "$(grep -cE '^      Hard\.Interop\.Compare\(int\* a=0xADDR, int\* b=0xADDR\) -> int (-1|0|1)$' <<<"$sub")"
    check_eq "reverse P/Invoke: SortNative's block = the compares, Sorted, the close" "$((n + 3))" "$(grep -c . <<<"$sub")"
    n=$(sed -n 's/^interop: qsort delegate sorted=True compares=//p' <<<"$o")
    check_eq "reverse P/Invoke: a marshalled delegate's target traced as often as called ($n)" \
        "$n" "$(ct_count "$t" "Hard.Interop.CompareMarshalled(")"
    check_eq "reverse P/Invoke: every CompareMarshalled nested one level inside SortDelegate" "$n" \
        "$(ct_subtree "$tree" "Hard.Interop.SortDelegate(" | grep -cE '^      Hard\.Interop\.CompareMarshalled\(nint a=0xADDR, nint b=0xADDR\) -> int (-1|0|1)$')"
}
if want interop; then
    ct_cases "$here/cases/hard.case" interop
fi

# ================================================================ recursion
if want recursion; then
    ct_cases "$here/cases/hard.case" recursion
    check_eq "recursion 10000: the innermost call folded at 64 levels, the outermost closes at depth 2" \
        "$(printf '%128sHard.Recursion.Recurse(int n=0) -> int 0' '')|    } -> int 10000" \
        "$(ct_tree "$work/rc.txt" | grep -F 'Recurse(int n=0)')|$(ct_tree "$work/rc.txt" | grep -F -- '} -> int 10000')"
fi

# ================================================================ ending
if want ending; then
    ct_cases "$here/cases/hard.case" ending
    for sig in TERM INT; do
        ready_then_signal "sig$sig.plain" "$sig"
        ready_then_signal "sig$sig" "$sig" "${traced[@]}" "CLRTRACE_OUTPUT=$work/sig$sig.txt"
        code=$((128 + $(kill -l "$sig")))
        check_eq "SIG$sig: the untraced program printed ready and died of the signal ($code)" \
            "$code ready" "$(cat "$work/sig$sig.plain.rc") $(cat "$work/sig$sig.plain.out")"
        check_same "sig$sig" "sig$sig.plain"
        # The profiler finishes the trace on the signal, then lets the
        # runtime's (or the default) action run: summary and shutdown line.
        check "SIG$sig: the trace ends with the summary and the shutdown line" \
            bash -c 'grep -q "^# summary: " "$0" && tail -n 1 "$0" | grep -q "^# clrtrace: shutdown, "' \
            "$work/sig$sig.txt"
    done
fi

# ================================================================ bad environment
if want badenv; then
    echo "== bad environment"
    run_plain spin.plain spin 1000
    check_stdout spin.plain "spin: n=1000 sum=507500"
    # bad_env NAME MESSAGE VAR=VALUE...: one stderr line, exactly MESSAGE;
    # stdout and exit code (3) as untraced; no trace file.
    bad_env() {
        local name=$1 message=$2
        shift 2
        ct_run "$work" "$name" env "${traced[@]}" "CLRTRACE_OUTPUT=$work/$name.txt" "$@" \
            timeout -k 5 300 dotnet "$app" spin 1000
        local what=${*//$work/\$WORK}
        check_eq "$what: exactly one stderr line, saying so" "$message" "$(cat "$work/$name.err")"
        check "$what: the program is unharmed (stdout, exit code 3)" bash -c \
            'cmp -s "$0/spin.plain.out" "$0/$1.out" && [[ "$(cat "$0/$1.rc")" == 3 ]]' "$work" "$name"
        if [[ "$*" != CLRTRACE_OUTPUT=* ]]; then
            check "$what: no trace file" test ! -e "$work/$name.txt"
        fi
    }
    u='; the program runs untraced'
    bad_env bad_all "clrtrace: CLRTRACE_ALL=maybe is not valid (use 1 or 0)$u" CLRTRACE_ALL=maybe
    bad_env bad_inl "clrtrace: CLRTRACE_INLINING=2 is not valid (use 1 or 0)$u" CLRTRACE_INLINING=2
    bad_env bad_sig "clrtrace: CLRTRACE_SIGNATURES=yes please is not valid (use 1 or 0)$u" "CLRTRACE_SIGNATURES=yes please"
    bad_env bad_big "clrtrace: CLRTRACE_STRING_CHARS=1000001 is not valid (use a whole number from 0 to 1000000)$u" \
        CLRTRACE_STRING_CHARS=1000001
    bad_env bad_ovf "clrtrace: CLRTRACE_ARRAY_ITEMS=99999999999999999999999 is not valid (use a whole number from 0 to 1000000)$u" \
        CLRTRACE_ARRAY_ITEMS=99999999999999999999999
    bad_env bad_plus "clrtrace: CLRTRACE_STRING_CHARS=+5 is not valid (use a whole number from 0 to 1000000)$u" \
        CLRTRACE_STRING_CHARS=+5
    bad_env bad_hex "clrtrace: CLRTRACE_ARRAY_ITEMS=0x10 is not valid (use a whole number from 0 to 1000000)$u" \
        CLRTRACE_ARRAY_ITEMS=0x10
    bad_env bad_space "clrtrace: CLRTRACE_STRUCT_DEPTH= 3 is not valid (use a whole number from 0 to 8)$u" \
        "CLRTRACE_STRUCT_DEPTH= 3"
    # Two mistakes: still one line (the first one found).
    ct_run "$work" bad_two env "${traced[@]}" "CLRTRACE_OUTPUT=$work/bad_two.txt" CLRTRACE_ALL=x \
        CLRTRACE_STRUCT_DEPTH=99 timeout -k 5 300 dotnet "$app" spin 1000
    check_eq "two invalid values: one stderr line" 1 "$(grep -c . "$work/bad_two.err")"

    w='; the program runs untraced'
    bad_env out_nodir "clrtrace: cannot write the trace to CLRTRACE_OUTPUT=$work/no/such/dir/t.txt (No such file or directory)$w" \
        "CLRTRACE_OUTPUT=$work/no/such/dir/t.txt"
    check "CLRTRACE_OUTPUT in a missing directory: nothing created" test ! -e "$work/no"
    bad_env out_isdir "clrtrace: cannot write the trace to CLRTRACE_OUTPUT=$work (Is a directory)$w" \
        "CLRTRACE_OUTPUT=$work"
    bad_env out_notdir "clrtrace: cannot write the trace to CLRTRACE_OUTPUT=$work/spin.plain.out/t.txt (Not a directory)$w" \
        "CLRTRACE_OUTPUT=$work/spin.plain.out/t.txt"
    mkdir -p "$work/ro"
    if mount -t tmpfs -o ro,size=64k tmpfs "$work/ro" 2>/dev/null; then
        mounts+=("$work/ro")
        bad_env out_rofs "clrtrace: cannot write the trace to CLRTRACE_OUTPUT=$work/ro/t.txt (Read-only file system)$w" \
            "CLRTRACE_OUTPUT=$work/ro/t.txt"
    else
        echo "skip a read-only file system (mount -t tmpfs -o ro needs root)"
    fi

    # A full disk: a 64 KiB tmpfs, a trace of about 30 MB. The program must
    # not notice; one stderr line says the trace is incomplete.
    mkdir -p "$work/full"
    if mount -t tmpfs -o size=64k tmpfs "$work/full" 2>/dev/null; then
        mounts+=("$work/full")
        run_plain full.plain spin 300000
        ct_run "$work" full env "${traced[@]}" "CLRTRACE_OUTPUT=$work/full/t.txt" \
            timeout -k 5 300 dotnet "$app" spin 300000
        check "full disk: the program is unharmed (stdout, exit code 3)" bash -c \
            'cmp -s "$0/full.plain.out" "$0/full.out" && [[ "$(cat "$0/full.rc")" == 3 ]]' "$work"
        check "full disk: the trace holds what fitted, from its header on" \
            bash -c 'head -n 1 "$0" | grep -q "^# clrtrace: "' "$work/full/t.txt"
        check "full disk: one stderr line says the trace could not be written (No space left on device)" \
            bash -c '[[ $(grep -c . "$0") == 1 ]] && grep -q "^clrtrace: .*No space left on device" "$0" ||
                     { echo "stderr: $(head -c 300 "$0")"; exit 1; }' "$work/full.err"
    else
        echo "skip a full disk (mount -t tmpfs needs root)"
    fi

    # Trace files hold argument values (secrets): created mode 0600 whatever
    # the umask (`clrtrace run --help` says so for -o).
    for mask in 022 000; do
        rm -f "$work/mode$mask.txt"
        (umask "$mask" && run_traced "mode$mask" -- spin 10)
        check_eq "CLRTRACE_OUTPUT under umask $mask: the new trace file has mode 600" 600 \
            "$(stat -c %a "$work/mode$mask.txt" 2>&1)"
    done
    if [[ -x "$launcher" ]]; then
        ct_run "$work" launch_mode "$launcher" run --profiler "$lib" -o "$work/launch_mode.txt" -- dotnet "$app" spin 10
        check_eq "clrtrace run -o: the new trace file has mode 600" 600 "$(stat -c %a "$work/launch_mode.txt" 2>&1)"
    fi

    # A file size limit (ulimit -f): writing past it raises SIGXFSZ, whose
    # default action would kill the process; the profiler's writer blocks it
    # and reports the failure once. The runtime itself needs ulimit -f of
    # about 5 MB here (its double-mapped code memory is file-backed), so the
    # limit is 8 MiB and the trace ~30 MB.
    (ulimit -f 8192 && run_plain fsz.plain spin 300000)
    (ulimit -f 8192 && run_traced fsz -- spin 300000)
    if [[ "$(cat "$work/fsz.plain.rc")" == 3 ]]; then
        check "ulimit -f 8192: the traced program is unharmed (stdout, exit code 3)" bash -c \
            'cmp -s "$0/fsz.plain.out" "$0/fsz.out" && [[ "$(cat "$0/fsz.rc")" == 3 ]] ||
             { echo "exit code $(cat "$0/fsz.rc"), stdout: $(head -c 100 "$0/fsz.out")"; exit 1; }' "$work"
        check "ulimit -f 8192: one stderr line says the trace could not be written (File too large)" \
            bash -c '[[ $(grep -c . "$0") == 1 ]] && grep -q "^clrtrace: .*File too large" "$0" ||
                     { echo "stderr: $(head -c 300 "$0")"; exit 1; }' "$work/fsz.err"
    else
        echo "skip ulimit -f (the untraced program itself fails under it: exit $(cat "$work/fsz.plain.rc"))"
    fi

    # The launcher refuses bad values itself: usage error 2, one line, the
    # program not started.
    if [[ -x "$launcher" ]]; then
        ct_run "$work" launch_bad "$launcher" run --profiler "$lib" --struct-depth 9 -- dotnet "$app" spin 10
        check_eq "clrtrace run --struct-depth 9: exit 2, one stderr line, the program not run" "2 1 0" \
            "$(cat "$work/launch_bad.rc") $(grep -c . "$work/launch_bad.err") $(grep -c . "$work/launch_bad.out")"
    else
        echo "skip the launcher (no clrtrace beside $lib)"
    fi
fi

# ================================================================ stress
if want stress; then
    calls=${HARD_STRESS_CALLS:-2000000}
    threads=${HARD_STRESS_THREADS:-16}
    echo "== stress: $calls calls over $threads threads"
    # max_rss NAME COMMAND...: runs it like ct_run; NAME.rss gets the peak RSS (KiB).
    max_rss() {
        local name=$1
        shift
        if [[ -x /usr/bin/time ]]; then
            ct_run "$work" "$name" /usr/bin/time -f %M -o "$work/$name.rss" "$@"
        else
            ct_run "$work" "$name" "$@"
            echo "" >"$work/$name.rss"
        fi
    }
    max_rss st.plain timeout -k 5 900 dotnet "$app" stress "$calls" "$threads"
    check_stdout st.plain "stress: hot=$calls threads=$threads sum=$(awk -v c="$calls" -v t="$threads" \
        'BEGIN { p = c / t; printf "%.0f", t * (p * (p - 1)) + p * t * (t - 1) / 2 }')"
    small=$((threads * 10000))
    max_rss st.small env "${traced[@]}" "CLRTRACE_OUTPUT=$work/st.small.txt" \
        timeout -k 5 900 dotnet "$app" stress "$small" "$threads"
    max_rss st env "${traced[@]}" "CLRTRACE_OUTPUT=$work/st.txt" timeout -k 5 3600 dotnet "$app" stress "$calls" "$threads"
    check "stress: stdout and exit code as untraced" bash -c \
        'cmp -s "$0/st.plain.out" "$0/st.out" && [[ "$(cat "$0/st.rc")" == "$(cat "$0/st.plain.rc")" ]]' "$work"
    t="$work/st.txt"
    check_eq "stress: every Hot call is in the trace ($calls)" "$calls" "$(grep -cF ' Hard.Stress.Hot(int t=' "$t")"
    check_eq "stress: Hot's summary row" "$calls" "$(ct_summary_calls "$t" Hard.Stress.Hot)"
    check_eq "stress: no events dropped" 0 "$(summary_dropped "$t")"
    # Each thread passes its own index t: per TID one t, calls/threads lines.
    check "stress: per TID exactly $((calls / threads)) Hot lines, all with the same t; $threads TIDs" \
        hot_per_thread "$t" "$((calls / threads))" "$threads"
    check "stress: balanced per thread" ct_balance "$t"
    rss_plain=$(cat "$work/st.plain.rss") rss_small=$(cat "$work/st.small.rss") rss=$(cat "$work/st.rss")
    echo "     peak RSS: untraced $rss_plain KiB; traced $small calls $rss_small KiB; traced $calls calls $rss KiB;" \
        "trace $(($(stat -c %s "$t") / 1048576)) MiB"
    if [[ -n "$rss" && -n "$rss_small" ]]; then
        check "stress: memory bounded (traced $calls calls within 64 MiB of traced $small calls)" \
            test "$rss" -le $((rss_small + 65536))
    else
        echo "skip memory bound (no /usr/bin/time)"
    fi
    rm -f "$work/st.txt" "$work/st.small.txt"
fi

ct_end run_hard.sh
