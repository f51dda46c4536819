#!/usr/bin/env bash
# bench/run_attach.sh — what `clrtrace record -p PID` costs a running
# process, side by side in one run (docs/performance.md, "Attach").
#
# tests/targets/Service `spin` calls Svc.Handlers.Add(long, long) in rounds of
# 1e6 calls and prints each round's ns per call. Three processes, one after
# the other, BENCH_SECONDS each:
#   untraced   never attached
#   budget     attached at 1/3 of its time (record -p -F Svc.Handlers.Add,
#              values; the default budget, 5%), detached at 2/3
#   nobudget   the same with --max-overhead off (lossless, no budget)
# Printed: the time to attach and to detach (clrtrace's own report), and the
# median ns per call of the rounds before the attach, while attached (rounds
# wholly inside) and after the detach, each against the untraced process's
# median over its whole run; and while attached the mean (the throughput,
# slow rounds included) against the untraced mean.
#
# Usage: bench/run_attach.sh [path/to/libclrtrace.so]   (BENCH_SECONDS=15)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
. "$root/tests/e2e/lib_checks.sh"
ct_setup bench-attach "${1:-}" cli
secs=${BENCH_SECONDS:-15}

echo "== building tests/targets/Service"
app=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }

# median FILE FROM_MS TO_MS: the median ns per call of the rounds that ended
# in (FROM_MS, TO_MS] (with SKIP: after the first SKIP, default 2: tiering up).
median() {
    awk -v a="$2" -v b="$3" -v s="${4:-2}" '$1 == "round" && $2 > a && $2 <= b { if (++k > s) print $3 }' "$1" |
        sort -g | awk '{ v[n++] = $1 } END { if (!n) print "?"; else print (n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) }'
}
# wait_ready FILE: the pid once the service printed "ready PID".
wait_ready() {
    local i p
    for ((i = 0; i < 600; i++)); do
        p=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$1" 2>/dev/null)
        [[ -n "$p" ]] && { echo "$p"; return; }
        sleep 0.1
    done
}
# elapsed FILE: the ms of the service's last round so far.
elapsed() { awk '$1 == "round" { t = $2 } END { print t + 0 }' "$1"; }

echo "== untraced, $secs s"
dotnet "$app" spin "$secs" >"$work/plain.out"
# mean FILE FROM_MS TO_MS: the mean ns per call of the rounds that ended in
# (FROM_MS, TO_MS]: the service's throughput over that time, slow rounds
# included (a median hides them).
mean() {
    awk -v a="$2" -v b="$3" '$1 == "round" && $2 > a && $2 <= b { s += $3; n++ }
        END { if (!n) print "?"; else printf "%.2f", s / n }' "$1"
}
ratio() { awk -v x="$1" -v y="$2" 'BEGIN { if (x == "?" || y == "?" || y == 0) print "?"; else printf "%.2f", x / y }'; }

# attached NAME [OPTION...]: a process attached from 1/3 of its time to 2/3
# with record -p -F Svc.Handlers.Add (values) and the options; sets
# before/during/after (medians), during_mean, calls, budget (info's line).
attached() {
    local name=$1
    shift
    echo "== attached ($name) from $((secs / 3)) s to $((2 * secs / 3)) s"
    dotnet "$app" spin "$secs" >"$work/$name.out" &
    svc=$!
    pid=$(wait_ready "$work/$name.out")
    sleep $((secs / 3))
    "$ct" record -p "$pid" -F Svc.Handlers.Add "$@" -d "$((secs / 3))s" -o "$work/rec-$name" \
        2>"$work/$name.err" &
    cli=$!
    # The methods are rewritten once clrtrace says it attached.
    for ((i = 0; i < 600; i++)); do
        grep -q ' attached to pid ' "$work/$name.err" && break
        sleep 0.05
    done
    t_attach=$(elapsed "$work/$name.out")
    wait "$cli"
    t_detach=$(elapsed "$work/$name.out")
    wait "$svc"
    cat "$work/$name.err"
    # While attached: the rounds that ended after the attach, but the one
    # that was running then, and before the detach, but the last (it may
    # straddle).
    t_in_start=$(awk -v a="$t_attach" '$1 == "round" && $2 > a { print $2; exit }' "$work/$name.out")
    t_in_end=$(awk -v d="$t_detach" '$1 == "round" && $2 <= d { t = p; p = $2 } END { print t + 0 }' \
        "$work/$name.out")
    before=$(median "$work/$name.out" 0 "$t_attach")
    during=$(median "$work/$name.out" "${t_in_start:-0}" "$t_in_end" 0)
    during_mean=$(mean "$work/$name.out" "${t_in_start:-0}" "$t_in_end")
    after=$(median "$work/$name.out" "$t_detach" 999999999)
    calls=$("$ct" info "$work/rec-$name" | sed -nE 's/^calls +([0-9]+) ended.*/\1/p')
    budget=$("$ct" info "$work/rec-$name" | sed -nE 's/^budget +//p')
}

base=$(median "$work/plain.out" 0 999999999)
base_mean=$(mean "$work/plain.out" 0 999999999)
attached budget
b_before=$before b_during=$during b_mean=$during_mean b_after=$after b_calls=$calls b_budget=$budget
attached nobudget --max-overhead off
echo
printf '%-40s %10s %8s\n' "Svc.Handlers.Add, ns/call" "ns/call" "ratio"
printf '%-40s %10s %8s\n' "untraced process, median" "$base" "1.00"
printf '%-40s %10s %8s\n' "untraced process, mean (throughput)" "$base_mean" "1.00"
printf '%-40s %10s %8s\n' "budget 5% (default): before the attach" "$b_before" "$(ratio "$b_before" "$base")"
printf '%-40s %10s %8s\n' "budget 5%: while attached, median" "$b_during" "$(ratio "$b_during" "$base")"
printf '%-40s %10s %8s\n' "budget 5%: while attached, mean" "$b_mean" "$(ratio "$b_mean" "$base_mean")"
printf '%-40s %10s %8s\n' "budget 5%: after the detach" "$b_after" "$(ratio "$b_after" "$base")"
printf '%-40s %10s %8s\n' "--max-overhead off: while attached, median" "$during" "$(ratio "$during" "$base")"
printf '%-40s %10s %8s\n' "--max-overhead off: while attached, mean" "$during_mean" "$(ratio "$during_mean" "$base_mean")"
printf '%-40s %10s %8s\n' "--max-overhead off: after the detach" "$after" "$(ratio "$after" "$base")"
echo "calls recorded while attached: budget $b_calls, off $calls"
echo "budget: $b_budget"
