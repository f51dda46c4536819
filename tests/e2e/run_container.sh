#!/usr/bin/env bash
# End-to-end test: `clrtrace record|run -p PID` into a container, simulated
# with the kernel's own tools: the service (tests/targets/Service: workers
# call Svc.Handlers.Handle(worker=W, n=N, tag="w"+W, order) -> 2N+W) runs
# under `unshare --mount --pid --net --fork --mount-proc`, a shell as the
# container's pid 1, a private tmpfs on /tmp (no TMPDIR), and the build's
# profiler folder hidden (an empty tmpfs over it: the host's path of
# libclrtrace.so does not exist in the container).
#
# Usage: tests/e2e/run_container.sh [path/to/libclrtrace.so]
#
# Checks:
#   1. one line and exit 1, the process untouched, nothing placed, no output
#      left behind: diagnostics turned off in a container
#      (DOTNET_EnableDiagnostics=0, no longer misread); a read-only /tmp in
#      the container (the profiler cannot be placed); no ptrace access (the
#      service as another user, clrtrace as root without CAP_SYS_PTRACE);
#   2. a sidecar: clrtrace in its own mount and network namespaces sharing
#      only the container's pid namespace (nsenter --pid, unshare --mount
#      --net, its own /proc) attaches by the pid it sees: the first attach
#      (the socket found by the pid in the container, the profiler placed in
#      its /tmp by content hash), the values traced as the source gives them;
#   3. from the host, as root: record -p HOSTPID (the profiler loaded: the
#      control socket's file in the container's /tmp, owner-only; the placed
#      copy owner-only and the build's byte for byte), values checked,
#      detached; attached again (run -p); a second service in the same
#      container attached with the placed library reused (the same file);
#      every service ends with its own output and exit code;
#   4. the time of the first attach into the container (printed);
#   5. --srcline into a service whose files are in the container's own /tmp:
#      its PDB is read there (Handle's line, from the source).
# Needs root, unshare and nsenter: without them it says so and exits 77
# (ctest: skipped).
# Ends with "run_container.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
if [[ $(id -u) != 0 ]] || ! command -v unshare >/dev/null || ! command -v nsenter >/dev/null ||
    ! unshare --mount --pid --net --fork --mount-proc true 2>/dev/null; then
    echo "skip run_container.sh: simulating containers needs root, unshare and nsenter"
    exit 77
fi
. "$here/lib_checks.sh"
ct_setup container "${1:-}" cli
# Under sanitized.sh the services need its dotnet wrapper (libasan
# preloaded), which lives under /tmp: hidden by the containers' own /tmp.
if [[ $(ldd "$lib" 2>/dev/null) == *libasan* ]]; then
    echo "skip run_container.sh: an ASan profiler (sanitized.sh's dotnet wrapper is under /tmp, which a container hides)"
    exit 77
fi

echo "== building tests/targets/Service"
app=$(ct_dotnet_build "$root/tests/targets/Service" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Service failed" >&2; exit 2; }
# The service's folder, readable by another user (the ptrace case), out of
# /tmp (the containers have their own).
appdir=$(mktemp -d /var/tmp/clrtrace-container-app.XXXXXX) &&
    cp -r "$(dirname "$app")/." "$appdir" && chmod -R o+rX "$appdir" &&
    app=$appdir/$(basename "$app") ||
    { echo "ERROR: cannot copy the service" >&2; exit 2; }
remove_appdir() { rm -rf "$appdir"; }
ct_at_exit remove_appdir

ups=()
cleanup_ups() { local p; for p in "${ups[@]}"; do kill -KILL "$p" 2>/dev/null; done; }
ct_at_exit cleanup_ups

# Reads NSpid's last field / the host pid of a process.
nspid() { awk '/^NSpid:/ { print $NF }' "/proc/$1/status"; }
# wait_for FILE REGEX [PID]: until FILE has a line matching REGEX (at most
# 60 s, and while process PID runs).
wait_for() {
    local i
    for ((i = 0; i < 600; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        [[ -z "${3:-}" ]] || kill -0 "$3" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# container NAME [ENV...] -- ARGS...: the service in a new container (its
# output in NAME.out/.err, its exit code in NAME.rc); sets hpid, the host
# pid of the service, and holder, of the container's pid 1.
container() {
    local name=$1 envs=() up i
    shift
    while [[ $# -gt 0 && "$1" != -- ]]; do envs+=("$1"); shift; done
    shift
    hpid= holder= up=
    ( unshare --mount --pid --net --fork --mount-proc sh -c '
        mount -t tmpfs -o size=1m tmpfs "$1" &&
        mount -t tmpfs -o mode=1777,size=64m tmpfs /tmp || exit 90
        shift
        env -u TMPDIR "$@"
        exit $?' sh "$(dirname "$lib")" env "${envs[@]}" dotnet "$app" "$@" \
        >"$work/$name.out" 2>"$work/$name.err"
      echo $? >"$work/$name.rc" ) 2>/dev/null &
    sub=$!
    for ((i = 0; i < 100; i++)); do
        [[ -z "$up" ]] || break
        up=$(pgrep -P "$sub" unshare) || sleep 0.05
    done
    [[ -n "$up" ]] || return 1
    ups+=("$up")
    wait_for "$work/$name.out" '^ready [0-9]+$' "$up" || return 1
    holder=$(pgrep -P "$up")
    hpid=$(pgrep -P "$holder" -f dotnet)
    [[ -n "$hpid" ]]
}
# finish NAME: waits for the service's end (its .rc), at most 60 s.
finish() {
    local i
    for ((i = 0; i < 600; i++)); do
        [[ -s "$work/$1.rc" ]] && return 0
        sleep 0.1
    done
    return 1
}
body() { grep -v '^ready ' "$work/$1.out"; }
# handles TRACE MIN: every Handle call reads the values of the source (tag
# "w"+W, order {Id=N, Amount=N/2}, returns 2N+W; one in flight at the
# detach is open), at least MIN calls.
handles() {
    awk -v min="$2" '
        /Svc\.Handlers\.Handle\(/ {
            if (!match($0, /Handle\(int worker=[0-9]+, long n=[0-9]+, string tag="w[0-9]+", Order order=Svc\.Order\{Id=[0-9]+, Amount=[0-9.]+\}\)( -> long [0-9]+| \{)$/)) {
                print "not in the expected form: " $0; bad++; next
            }
            open = $0 ~ / \{$/
            split(substr($0, RSTART), f, /[=,"{}) ]+/)
            w = f[3]; n = f[6]; tag = f[9]; id = f[14]; ret = f[19]
            if (tag != "w" w || id != n || f[16] * 2 != n || (!open && ret != 2 * n + w)) { print "wrong values: " $0; bad++ }
            calls++
        }
        END { if (calls < min) { print calls + 0 " calls"; bad++ } exit bad > 0 }' "$1"
}
# error FILE NAME EXPECTED-REGEX COMMAND...: the command fails with exit 1
# and one line on stderr matching the regex (its output in FILE.*).
error() {
    local file=$1 name=$2 re=$3
    shift 3
    ct_run "$work" "$file" "$@"
    check_eq "$name: exit code 1" 1 "$(cat "$work/$file.rc")"
    check_eq "$name: one line on stderr" 1 "$(wc -l <"$work/$file.err")"
    check "$name: the line says why" bash -c 'grep -qE "$1" "$2" || { cat "$2"; exit 1; }' _ \
        "$re" "$work/$file.err"
}
expected=$(printf 'done\nchecksums right')

echo "== containers start"
container svc -- run 16 4 || { echo "ERROR: the service did not start" >&2; cat "$work/svc.err" >&2; exit 2; }
svc=$hpid svc_holder=$holder
check "the service is in other mount, pid and network namespaces" bash -c '
    for ns in mnt pid net; do [[ $(readlink /proc/self/ns/$ns) != $(readlink /proc/$1/ns/$ns) ]] || exit 1; done' _ "$svc"
check "the host's path of the profiler is not in the container" test ! -e "/proc/$svc/root$lib"
container nodiag DOTNET_EnableDiagnostics=0 -- run 8 1 && nodiag=$hpid
container rotmp -- run 8 1 && rotmp=$hpid
container other setpriv --reuid=65534 --regid=65534 --clear-groups -- run 8 1 && other=$hpid

echo "== errors: one line, exit 1, the process untouched"
if [[ -n "${nodiag:-}" ]]; then
    error nodiag_rec "diagnostics off in a container" \
        "^clrtrace record: pid $nodiag runs \.NET with its diagnostics turned off \(DOTNET_EnableDiagnostics=0 in its environment\)" \
        "$ct" record -p "$nodiag" -d 1s -o "$work/nodiag"
    check "diagnostics off: no trace left behind" test ! -e "$work/nodiag/trace.clrt"
else
    ct_fail "the service without diagnostics started"
fi
if [[ -n "${rotmp:-}" ]]; then
    nsenter --target "$rotmp" --mount -- mount -o remount,ro /tmp
    error rotmp_run "a read-only /tmp in the container" \
        "^clrtrace run: cannot place the profiler in pid $rotmp's file system \(/tmp/clrtrace-[0-9a-f]+, as it sees it\): Read-only file system$" \
        "$ct" run -p "$rotmp" -d 1s -o "$work/rotmp.txt"
    check "a read-only /tmp: no log left behind" test ! -e "$work/rotmp.txt"
else
    ct_fail "the service with a read-only /tmp started"
fi
if [[ -n "${other:-}" ]]; then
    error other_run "no ptrace access (root without CAP_SYS_PTRACE, the service another user's)" \
        "^clrtrace run: no access to pid $other \(/proc/$other: Permission denied\): attaching needs ptrace rights" \
        setpriv --bounding-set=-sys_ptrace --inh-caps=-sys_ptrace "$ct" run -p "$other" -d 1s
else
    ct_fail "the service of another user started"
fi
# nothing_placed PID: nothing of clrtrace in the container's /tmp.
nothing_placed() { ! ls "/proc/$1/root/tmp" | grep clrtrace; }
for pid in ${nodiag:-} ${rotmp:-} ${other:-}; do
    check "pid $pid: nothing of clrtrace in its container's /tmp" nothing_placed "$pid"
done

echo "== from a sidecar (only the pid namespace shared): the first attach"
spid=$(nspid "$svc")
nsenter --target "$svc_holder" --pid -- unshare --mount --net --fork sh -c '
    mount -t proc proc /proc || exit 90
    exec "$@"' sh "$ct" run -p "$spid" --max-overhead off -d 1s -o "$work/sidecar.txt" \
    >"$work/sidecar.out" 2>"$work/sidecar.err"
check_eq "sidecar: exit code 0" 0 "$?"
check "sidecar: attached to the pid it sees ($spid)" grep -qE \
    "^clrtrace run: attached to pid $spid \(" "$work/sidecar.err"
check "sidecar: Handle's values" handles "$work/sidecar.txt" 100
first_ms=$(sed -nE 's/.* in ([0-9]+) ms: .*/\1/p' "$work/sidecar.err")

echo "== from the host"
ct_run "$work" rec "$ct" record -p "$svc" --max-overhead off -d 2s -o "$work/rec"
check_eq "record -p HOSTPID: exit code 0" 0 "$(cat "$work/rec.rc")"
check "record -p HOSTPID: attached, with the methods" grep -qE \
    "^clrtrace record: attached to pid $svc \(.*Service.dll run 16 4\) in [0-9]+ ms: [0-9]+ methods instrumented" \
    "$work/rec.err"
check "record -p HOSTPID: detached" grep -qE "^clrtrace record: detached from pid $svc in [0-9]+ ms" \
    "$work/rec.err"
placed=$(ls -d "/proc/$svc/root/tmp/"clrtrace-*/libclrtrace.so 2>/dev/null | head -n 1)
check "the profiler placed in the container's /tmp, by content hash" test -n "$placed"
check "the placed profiler is the build's, byte for byte" cmp "$lib" "$placed"
check_eq "the placed profiler: its folder owner-only, the file read-only to its user" \
    "700 root 500 root" "$(stat -c '%a %U' "$(dirname "$placed")") $(stat -c '%a %U' "$placed")"
check "the control socket's file beside it, owner-only" bash -c \
    '[[ $(stat -c %a%F "$1"/clrtrace-attach-$2-*-socket) == "600socket" ]]' _ "/proc/$svc/root/tmp" \
    "$(nspid "$svc")"
ino=$(stat -c %i "$placed")
ct_run "$work" replay "$ct" replay "$work/rec"
check "recording: Handle's values as the source gives them" handles "$work/replay.out" 100
check "recording: the pid in the header is the container's" grep -qE \
    "^# clrtrace: .*, pid $(nspid "$svc"), " "$work/replay.out"
check "recording: balanced" ct_balance "$work/replay.out" open-ok

ct_run "$work" again "$ct" run -p "$svc" --max-overhead off -d 1s -o "$work/again.txt"
check_eq "attach again (run -p): exit code 0" 0 "$(cat "$work/again.rc")"
check_eq "attach again: two lines on stderr (attached, detached), but the one naming the methods with no call" 2 \
    "$(grep -vcE '^clrtrace run: [0-9]+ chosen methods? had 0 calls since the attach ' "$work/again.err")"
check "attach again: Handle's values" handles "$work/again.txt" 100

# A second service in the same container: the runtime there loads the
# library placed by the first attach (verified, not written again).
nsenter --target "$svc_holder" --mount --pid --net -- env -u TMPDIR dotnet "$app" run 5 2 \
    >"$work/second.out" 2>"$work/second.err" &
second_job=$!
if wait_for "$work/second.out" '^ready [0-9]+$' "$second_job"; then
    second=$(pgrep -P "$second_job" -f dotnet || pgrep -P "$(pgrep -P "$second_job")" -f dotnet)
    ct_run "$work" reuse "$ct" run -p "$second" -d 1s -o "$work/reuse.txt"
    check_eq "a second service in the container: exit code 0" 0 "$(cat "$work/reuse.rc")"
    check "a second service: Handle's values" handles "$work/reuse.txt" 50
    check_eq "a second service: the placed library reused (same file)" "$ino" "$(stat -c %i "$placed")"
    check "a second service: its runtime mapped the placed library" grep -q \
        " /tmp/$(basename "$(dirname "$placed")")/libclrtrace.so$" "/proc/$second/maps"
else
    ct_fail "a second service in the container started" "$(head -n 3 "$work/second.err")"
fi
wait "$second_job"
check_eq "a second service: exit code 7, its own output" "7 $expected" "$? $(body second)"

# --srcline: a service whose files (its PDB too) are in the container's own
# /tmp, which the host does not see: the profiler reads the PDB there.
nsenter --target "$svc_holder" --mount -- sh -c "mkdir -p /tmp/srcapp && cp -r '$appdir/.' /tmp/srcapp"
nsenter --target "$svc_holder" --mount --pid --net -- env -u TMPDIR dotnet "/tmp/srcapp/$(basename "$app")" run 5 2 \
    >"$work/srcsvc.out" 2>"$work/srcsvc.err" &
src_job=$!
if wait_for "$work/srcsvc.out" '^ready [0-9]+$' "$src_job"; then
    srcsvc=$(pgrep -P "$src_job" -f dotnet || pgrep -P "$(pgrep -P "$src_job")" -f dotnet)
    check "the container's /tmp/srcapp is not the host's" test ! -e /tmp/srcapp
    handle_line=$(( $(grep -n 'public static long Handle(' "$root/tests/targets/Service/Program.cs" | cut -d: -f1) + 2 ))
    ct_run "$work" srcline "$ct" run -p "$srcsvc" --srcline -F 'Svc.Handlers.Handle' -d 1s -o "$work/srcline.txt"
    check_eq "--srcline into the container: exit code 0" 0 "$(cat "$work/srcline.rc")"
    check "--srcline into the container: Handle's calls at Program.cs:$handle_line (its PDB read in the container)" \
        grep -qE "Svc\.Handlers\.Handle\(.*\) -> long [0-9]+ at Program\.cs:$handle_line\$" "$work/srcline.txt"
else
    ct_fail "a service in the container's /tmp started" "$(head -n 3 "$work/srcsvc.err")"
fi
wait "$src_job"

for name in nodiag rotmp other; do
    finish "$name"
    check_eq "$name: the service ran on to its end (exit code 7, its output)" "7 $expected" \
        "$(cat "$work/$name.rc") $(body "$name")"
done
finish svc
check_eq "the service: exit code 7, as untraced" 7 "$(cat "$work/svc.rc")"
check_eq "the service: its own output" "$expected" "$(body svc)"
check "the service: nothing on its stderr" ct_empty "$work/svc.err"

echo "== the time to attach into a container"
echo "first attach, from the sidecar (placing the profiler, AttachProfiler, methods rewritten): ${first_ms:-?} ms"

ct_end run_container.sh
