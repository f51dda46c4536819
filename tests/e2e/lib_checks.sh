# Shared helpers for end-to-end scripts that check clrtrace's text traces.
# Source it: `. "$here/lib_checks.sh"`. Needs bash, awk, grep, sed, diff, cmp,
# timeout; ready_then_signal needs perl or python3.
#
# A call line of the trace (docs/tracer.md, "Output") is
#   "%10.6f %6d %10s  " time, TID, duration (blank on an opening line),
# then two spaces per level of the thread's depth (at most 64 levels), then
#   Name(args) {              an opening line (the call has children)
#   Name(args) -> type value  a folded call (no children), with a duration
#   Name(args)                a folded void call
#   Name(args) -> exception TYPE: "MESSAGE"   a folded call left by an exception
#                             (TYPE alone when the message is null; `exception`
#                             alone when the exception is not known)
#   Name(args) -> tailcall    a folded call left by a tail call
#   } -> type value | } | } exception TYPE: "MESSAGE" | } tailcall   a closing line
# The helpers parse the prefix with a regular expression (a TID wider than
# six digits shifts the columns) and count calls up to "# summary:".

# The profiler's CLSID, for runs that load it through the CORECLR_* variables:
# read from src/format/launch.h, where it is spelled once.
CLRTRACE_CLSID=$(sed -n 's/^#define CLRTRACE_CLSID_TEXT "\(.*\)"$/\1/p' \
    "$(dirname "${BASH_SOURCE[0]}")/../../src/format/launch.h")

# The folder of the e2e scripts (perfetto_subset.proto, check_*.py).
ct_e2e=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# ct_perfetto_text BIN TEXT / ct_otlp_text BIN TEXT: protoc's text of a
# Perfetto trace (perfetto_subset.proto, a subset of Perfetto's messages) /
# of an OTLP ExportTraceServiceRequest (tests/otlp, opentelemetry-proto's
# messages) into TEXT, protoc's errors with it; protoc's status.
ct_perfetto_text() {
    protoc -I "$ct_e2e" --decode=perfetto.protos.Trace "$ct_e2e/perfetto_subset.proto" <"$1" >"$2" 2>&1
}
ct_otlp_text() {
    protoc -I "$ct_e2e/../otlp" --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest \
        "$ct_e2e/../otlp/opentelemetry/proto/collector/trace/v1/trace_service.proto" <"$1" >"$2" 2>&1
}

# ----------------------------------------------------------------- reporting
ct_fails=0
ct_passes=0

# ct_ok DESCRIPTION / ct_fail DESCRIPTION [DETAIL...]
ct_ok() { echo "ok   $1"; ct_passes=$((ct_passes + 1)); }
ct_fail() {
    echo "FAIL $1"
    shift
    local d
    for d in "$@"; do
        [[ -n "$d" ]] && printf '     %s\n' "$d"
    done
    ct_fails=$((ct_fails + 1))
    return 0
}

# check DESCRIPTION COMMAND... : ok when the command succeeds. The command's
# output (a checker's explanation) is shown under a FAIL, at most 15 lines.
check() {
    local desc=$1 out rc
    shift
    out=$("$@" 2>&1) && rc=0 || rc=$?
    if ((rc == 0)); then
        ct_ok "$desc"
    else
        ct_fail "$desc" "$(head -n 15 <<<"$out" | sed 's/^/  /')"
    fi
}

# check_eq DESCRIPTION EXPECTED ACTUAL
check_eq() {
    if [[ "$2" == "$3" ]]; then ct_ok "$1"; else ct_fail "$1" "expected: $2" "actual:   $3"; fi
}

# ct_end SCRIPT-NAME: the count line; returns non-zero when a check failed.
ct_end() {
    echo "$1: $ct_passes passed, $ct_fails failed"
    ((ct_fails == 0))
}

# ------------------------------------------------------------- running
# ct_run DIR NAME COMMAND...: runs COMMAND with stdout, stderr and exit code
# into DIR/NAME.out, .err, .rc. The shell's own notice about a process killed
# by a signal ("Aborted") does not land in NAME.err.
ct_run() {
    local dir=$1 name=$2 rc=0
    shift 2
    { "$@" >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?; } 2>/dev/null
    echo "$rc" >"$dir/$name.rc"
}

# ct_same_run DIR A B: stdout, stderr and exit code of run B equal run A's.
# Prints the differences; for `check`.
ct_same_run() {
    local dir=$1 a=$2 b=$3 bad=0
    if ! cmp -s "$dir/$a.out" "$dir/$b.out"; then
        echo "stdout differs:"; diff "$dir/$a.out" "$dir/$b.out" | head -n 6; bad=1
    fi
    if ! cmp -s "$dir/$a.err" "$dir/$b.err"; then
        echo "stderr differs:"; diff "$dir/$a.err" "$dir/$b.err" | head -n 6; bad=1
    fi
    if [[ "$(cat "$dir/$a.rc")" != "$(cat "$dir/$b.rc")" ]]; then
        echo "exit code $(cat "$dir/$b.rc"), expected $(cat "$dir/$a.rc")"; bad=1
    fi
    return $bad
}

# ------------------------------------------------------------- the trace
# ct_calls FILE: the call lines (no header, no summary).
ct_calls() {
    awk '/^# summary: /{exit} /^#/ || /^$/ {next} {print}' "$1"
}

# ct_pid FILE: the pid in the trace's first header line.
ct_pid() {
    sed -n '1s/^# clrtrace: .*, pid \([0-9][0-9]*\), .*/\1/p' "$1"
}

# ct_balance FILE [open-ok]: per TID, every call opened with " {" is closed by
# a "}" line at the same depth; every line is indented as deep as its thread's
# open calls (up to 64 levels); every folded call and closing line carries a
# duration; no closing line says "(not entered on this thread)". After a
# line at the wrong depth the count follows the trace again (one problem is
# reported once). With open-ok, calls still open at the end are allowed (a
# process that ended in the middle of them: Environment.Exit, a signal).
# Prints what is wrong.
ct_balance() {
    ct_calls "$1" | awk -v open_ok="${2:-}" '
        function problem(msg) {
            if (nprob < 12) print "line " NR ": " msg ": " substr($0, 1, 160)
            nprob++
        }
        # at(d, indent, what): checks that a line of a thread d deep is
        # indented d levels (64 at most); resynchronises d otherwise.
        function at(d, indent, what) {
            want = d < 64 ? d : 64
            if (indent == 2 * want) return d
            problem(what " indented " indent / 2 " levels, expected " want)
            return indent < 128 ? indent / 2 : d
        }
        {
            if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) { problem("not a call line"); next }
            head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
            split(head, h, " "); tid = h[2]
            dur = substr(rest, 1, 10); gsub(/ /, "", dur)
            text = substr(rest, 13)
            indent = match(text, /[^ ]/) - 1; text = substr(text, indent + 1)
            if (indent % 2) problem("odd indentation")
            d = depth[tid] + 0
            if (text ~ /^\}/ && text ~ /not entered on this thread/) {
                problem("closing line says: not entered on this thread")
            } else if (text ~ /^\}/) {
                if (d == 0) { problem("closes a call that is not open on TID " tid); next }
                d = at(d - 1, indent, "closing line")
                if (dur == "" && d < 65536) problem("closing line without a duration")
                depth[tid] = d
                closes++
            } else if (text ~ / \{$/ && dur == "") {
                d = at(d, indent, "opening line")
                depth[tid] = d + 1
                opens++
            } else {
                d = at(d, indent, "call")
                depth[tid] = d
                if (dur == "" && d < 65536) problem("folded call without a duration")
                folded++
            }
        }
        END {
            for (t in depth) if (depth[t] != 0 && open_ok == "") {
                if (nprob < 12) print "TID " t ": " depth[t] " call(s) still open at the end"
                nprob++
            }
            if (nprob) { print nprob " problem(s); " opens + 0 " opened, " closes + 0 " closed, " folded + 0 " folded"; exit 1 }
        }'
}

# ct_count FILE NAME-PREFIX: calls (opening or folded lines; not an async
# call's end, "(async: task ended)") whose text starts
# with NAME-PREFIX, a fixed string such as "Hard.Threads.Work(".
ct_count() {
    ct_calls "$1" | awk -v p="$2" '
        /  \(async: task ended\)$/ { next }
        { if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
          if (index(t, p) == 1) n++ }
        END { print n + 0 }'
}

# ct_count_re FILE ERE: calls (opening or folded lines) whose text, after the
# indentation, matches the extended regular expression.
ct_count_re() {
    ct_calls "$1" | awk -v re="$2" '
        { if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
          if (t !~ /^\}/ && t ~ re) n++ }
        END { print n + 0 }'
}

# ct_summary_calls FILE FUNCTION: the CALLS column of FUNCTION's summary row
# (empty when there is none).
ct_summary_calls() {
    awk -v f="$2" '/^#  CALLS/ {on = 1; next} /^# clrtrace: shutdown/ {on = 0}
        on && $NF == f {print $1; exit}' "$1"
}

# ct_tree FILE [TID]: the call text of one thread (default: the main thread,
# whose TID is the pid) as indentation + text, durations and times dropped,
# object addresses written @ADDR and pointers 0xADDR; for comparing with a
# tree written by hand. A call written as an opening line and its end (the
# log keeps lines of all threads in time order: another thread's line came
# between them) reads as one line, as a call with nothing inside it is
# written when no other thread's line comes between.
ct_tree() {
    local tid=${2:-$(ct_pid "$1")}
    ct_calls "$1" | awk -v want="$tid" '
        { if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          split(substr($0, 1, RLENGTH), h, " ")
          if (h[2] != want) next
          t = substr($0, RLENGTH + 13)
          gsub(/@0x[0-9a-f]+/, "@ADDR", t); gsub(/=0x[0-9a-f]+/, "=0xADDR", t)
          if (held != "") {
              hi = match(held, /[^ ]/); ci = match(t, /[^ ]/)
              if (hi == ci && substr(t, ci, 1) == "}") {
                  # "} exception X" reads "-> exception X", as one line says it
                  end = substr(t, ci + 1); if (end ~ /^ exception/) end = " ->" end
                  print substr(held, 1, length(held) - 2) end; held = ""; next
              }
              print held; held = ""
          }
          if (t ~ / \{$/) { held = t; next }
          print t }
        END { if (held != "") print held }'
}

# ct_subtree TREE-TEXT FIRST-LINE-FIXED-STRING: from the first line containing
# the string, that line and every following line indented deeper, plus the
# line that closes it.
ct_subtree() {
    awk -v s="$2" '
        !on && index($0, s) { on = 1; base = match($0, /[^ ]/); print; if ($0 !~ / \{$/) exit; next }
        on { i = match($0, /[^ ]/); print; if (i <= base) exit }' <<<"$1"
}

# ct_between TREE-TEXT FIRST LAST: the lines from the first one containing the
# fixed string FIRST to the next one containing LAST, both included.
ct_between() {
    awk -v a="$2" -v b="$3" '!on && index($0, a) { on = 1 } on { print; if (index($0, b)) exit }' <<<"$1"
}

# ct_tid_is_arg FILE NAME-PREFIX ARG: every call of NAME-PREFIX has its TID
# column equal to the value of its integer argument "ARG=N" (the program
# passes its own gettid()). Prints the first mismatches.
ct_tid_is_arg() {
    ct_calls "$1" | awk -v p="$2" -v a="$3" '
        { if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          split(substr($0, 1, RLENGTH), h, " ")
          t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
          if (index(t, p) != 1) next
          n++
          if (!match(t, " " a "=-?[0-9]+")) { if (bad++ < 5) print "no " a "= in: " t; next }
          v = substr(t, RSTART + length(a) + 2, RLENGTH - length(a) - 2)
          if (v != h[2]) { if (bad++ < 5) print "TID " h[2] " but " a "=" v ": " t } }
        END { if (!n) { print "no calls of " p; exit 1 } if (bad) { print bad " of " n " wrong"; exit 1 } }'
}

# ct_tids FILE NAME-PREFIX: the distinct TIDs of NAME-PREFIX's calls, one a line.
ct_tids() {
    ct_calls "$1" | awk -v p="$2" '
        { if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
          split(substr($0, 1, RLENGTH), h, " ")
          t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
          if (index(t, p) == 1 && !seen[h[2]]++) print h[2] }'
}

# ct_diff_tree EXPECTED-TEXT ACTUAL-TEXT: for `check`; prints a diff.
ct_diff_tree() {
    diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -n 30
    [[ "$1" == "$2" ]]
}

# ct_profiler ROOT WORK [LIB]: the absolute path of libclrtrace.so: LIB (or
# $CLRTRACE_LIB), else built with CMake into WORK/build. Empty on failure.
ct_profiler() {
    local root=$1 work=$2 lib=${3:-${CLRTRACE_LIB:-}}
    if [[ -z "$lib" ]]; then
        echo "== building libclrtrace.so" >&2
        { cmake -S "$root" -B "$work/build" -DCLRTRACE_TESTS=OFF &&
          cmake --build "$work/build" --target clrtrace_profiler; } >"$work/cmake.log" 2>&1 ||
            { cat "$work/cmake.log" >&2; return 1; }
        lib="$work/build/src/agent/libclrtrace.so"
    fi
    [[ -f "$lib" ]] || { echo "no profiler library at $lib" >&2; return 1; }
    echo "$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"
}

# ct_dotnet_build PROJECT-DIR OUT-DIR: builds a test target (Release) and
# prints the path of its main dll. The build is shared: it goes to
# TARGETS/NAME-KEY, KEY a hash of the project's files (and of the projects it
# references) and of the SDK's version, and is reused by every later call
# with the same sources, from this script or another one (ctest runs them in
# parallel: a lock per build). TARGETS is $CLRTRACE_TARGETS, else
# tests/e2e-targets in the build tree of $lib (the profiler: its
# directory/../..), else OUT-DIR (a build for this run alone).
ct_dotnet_build() {
    local dir=$1 out=$2 variant=${3:-} name key targets dest dll extra
    shift 2
    [[ $# -gt 0 ]] && shift
    extra=("$@")  # VARIANT BUILD-ARGS...: a build of its own, e.g. embedded -p:DebugType=embedded
    name=$(basename "$dir")
    targets=${CLRTRACE_TARGETS:-}
    if [[ -z "$targets" && -n "${lib:-}" && -f "$(dirname "$lib")/../../CMakeCache.txt" ]]; then
        targets=$(cd "$(dirname "$lib")/../.." && pwd)/tests/e2e-targets
    fi
    [[ -n "$targets" ]] || targets=$out
    key=$(ct_sources_key "$dir") || return 1
    dest=$targets/$name${variant:+-$variant}-$key
    mkdir -p "$targets" || return 1
    (
        flock 9 || exit 1
        [[ -s "$dest/dll" && -f "$(cat "$dest/dll")" ]] && exit 0
        rm -rf "$dest" && mkdir -p "$dest" || exit 1
        dotnet build "$dir/$name.csproj" -c Release --artifacts-path "$dest/artifacts" "${extra[@]}" \
            >"$dest/dotnet-build.log" 2>&1 || { cat "$dest/dotnet-build.log" >&2; exit 1; }
        find "$dest/artifacts/bin" -name "$name.dll" | head -n 1 >"$dest/dll.new" &&
            [[ -s "$dest/dll.new" ]] && mv "$dest/dll.new" "$dest/dll"
    ) 9>"$dest.lock" || return 1
    dll=$(cat "$dest/dll")
    [[ -f "$dll" ]] && echo "$dll"
}

# ct_dotnet_publish PROJECT-DIR VARIANT OUT-DIR PUBLISH-ARGS...: publishes a
# test target (Release, `dotnet publish PUBLISH-ARGS`: -f, -r, --self-contained,
# -p:PublishSingleFile=true, ...) and prints the path of its apphost. Shared
# like ct_dotnet_build: TARGETS/NAME-VARIANT-KEY, KEY a hash of the sources,
# the SDK's version and the arguments; a lock per publish. Fails (1) when the
# publish does (its log on stderr unless CT_PUBLISH_QUIET is set).
ct_dotnet_publish() {
    local dir=$1 variant=$2 out=$3 name key targets dest exe
    shift 3
    name=$(basename "$dir")
    targets=${CLRTRACE_TARGETS:-}
    if [[ -z "$targets" && -n "${lib:-}" && -f "$(dirname "$lib")/../../CMakeCache.txt" ]]; then
        targets=$(cd "$(dirname "$lib")/../.." && pwd)/tests/e2e-targets
    fi
    [[ -n "$targets" ]] || targets=$out
    key=$( { ct_sources_key "$dir" && printf '%s\n' "$@"; } | sha256sum | cut -c1-16) || return 1
    dest=$targets/$name-$variant-$key
    mkdir -p "$targets" || return 1
    (
        flock 9 || exit 1
        [[ -s "$dest/exe" && -x "$(cat "$dest/exe")" ]] && exit 0
        rm -rf "$dest" && mkdir -p "$dest" || exit 1
        dotnet publish "$dir/$name.csproj" -c Release --artifacts-path "$dest/artifacts" "$@" \
            >"$dest/dotnet-publish.log" 2>&1 ||
            { [[ -n "${CT_PUBLISH_QUIET:-}" ]] || cat "$dest/dotnet-publish.log" >&2; exit 1; }
        find "$dest/artifacts/publish" -type f -name "$name" | head -n 1 >"$dest/exe.new" &&
            [[ -s "$dest/exe.new" ]] && mv "$dest/exe.new" "$dest/exe"
    ) 9>"$targets/$name-$variant-$key.lock" || return 1
    exe=$(cat "$dest/exe")
    [[ -x "$exe" ]] && echo "$exe"
}

# ct_sources_key PROJECT-DIR: a hash of the project's files (bin/ and obj/
# left out), of those of the projects it references (ProjectReference), and
# of `dotnet --version`.
ct_sources_key() {
    local dirs=("$(cd "$1" && pwd)") seen=" " d ref
    local i=0
    while ((i < ${#dirs[@]})); do
        d=${dirs[i]}
        i=$((i + 1))
        [[ "$seen" == *" $d "* ]] && continue
        seen+="$d "
        for ref in $(sed -n 's/.*<ProjectReference Include="\([^"]*\)".*/\1/p' "$d"/*.csproj 2>/dev/null); do
            ref=${ref//\\//}
            ref=$(cd "$d/$(dirname "$ref")" && pwd) || return 1
            dirs+=("$ref")
        done
    done
    {
        dotnet --version
        for d in "${dirs[@]}"; do
            (cd "$d" && find . -type f -not -path './bin/*' -not -path './obj/*' -print0 |
                LC_ALL=C sort -z | xargs -0 -r sha256sum | sed "s|  \./|  $(basename "$d")/|")
        done
    } | sha256sum | cut -c1-16
}

# ct_dedent: removes the first line's indentation from every line (stdin).
ct_dedent() {
    awk 'NR == 1 { n = match($0, /[^ ]/) - 1 } { print substr($0, n + 1) }'
}

# ------------------------------------------------ runs of a test target
# These use the caller's globals: work (the directory for outputs), app (the
# target's dll) and traced (the array of CORECLR_* settings that load the
# profiler).

# ct_same_as_plain [-q] NAME [LABEL]: run NAME's stdout and exit code equal
# the untraced run "plain"'s (two checks, described as LABEL, default NAME);
# with -q a third: NAME wrote nothing on stderr.
ct_same_as_plain() {
    local quiet=
    [[ $1 == -q ]] && { quiet=1; shift; }
    local name=$1 label=${2:-$1}
    check "$label: stdout equals the untraced run's" diff "$work/plain.out" "$work/$name.out"
    check_eq "$label: exit code equals the untraced run's" "$(cat "$work/plain.rc")" "$(cat "$work/$name.rc")"
    [[ -z $quiet ]] || check "$label: nothing on stderr" ct_empty "$work/$name.err"
}
# ct_empty FILE: FILE is empty, or its first lines.
ct_empty() { [[ ! -s "$1" ]] || { head -n 3 "$1"; return 1; }; }
# ct_has TRACE COUNT TEXT: TEXT (fixed string) is on exactly COUNT lines.
ct_has() {
    check_eq "$(basename "$1"): $2 line(s) with: $3" "$2" "$(grep -cF -- "$3" "$1")"
}
# ct_has_re TRACE COUNT REGEX: like ct_has, with an extended regex (for addresses).
ct_has_re() {
    check_eq "$(basename "$1"): $2 line(s) matching /$3/" "$2" "$(grep -cE -- "$3" "$1")"
}
# ct_bad_option NAME VAR=VALUE EXPECTED-MESSAGE: a traced run with a bad
# setting prints that one line on stderr, runs untraced (same output and exit
# code) and writes no trace.
ct_bad_option() {
    local name=$1 setting=$2 message=$3
    run_traced "$name" "$setting" --
    ct_same_as_plain "$name"
    check_eq "$setting: 1 stderr line" 1 "$(wc -l <"$work/$name.err")"
    check_eq "$setting: the stderr message" "$message" "$(cat "$work/$name.err")"
    check "$setting: no trace written" test ! -e "$work/$name.txt"
}

# run_plain NAME ARGS...: the untraced run of `dotnet Hard.dll ARGS...`.
run_plain() {
    local name=$1
    shift
    ct_run "$work" "$name" timeout -k 5 300 dotnet "$app" "$@"
}
# run_traced NAME [VAR=VALUE...] -- ARGS...: the traced run, trace in NAME.txt.
run_traced() {
    local name=$1 envs=()
    shift
    while [[ $# -gt 0 && "$1" != -- ]]; do envs+=("$1"); shift; done
    shift
    ct_run "$work" "$name" env "${traced[@]}" "CLRTRACE_OUTPUT=$work/$name.txt" "${envs[@]}" \
        timeout -k 5 900 dotnet "$app" "$@"
}
# check_same NAME PLAIN-NAME: stdout, stderr and exit code of run NAME equal PLAIN-NAME's.
check_same() {
    check "$1 (traced): stdout, stderr and exit code ($(cat "$work/$2.rc")) equal the untraced run's" \
        ct_same_run "$work" "$2" "$1"
}
check_stdout() { # NAME EXPECTED-TEXT: run NAME printed exactly this
    check_eq "$1: the program printed what its source says" "$2" "$(cat "$work/$1.out")"
}
summary_dropped() { sed -nE 's/^# summary: .*, ([0-9]+) events? dropped$/\1/p' "$1"; }

# ready_then_signal NAME SIGNAL [VAR=VALUE...]: starts `Hard.dll loop` (traced
# when VAR=VALUE are given) with SIGINT at its default disposition (a
# background job of a script starts with SIGINT ignored), waits for "ready",
# sends SIGNAL, waits at most 60 s for the end. Needs perl or python3.
ready_then_signal() {
    local name=$1 sig=$2 i pid watchdog rc=0
    shift 2
    local reset=(perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!\n"')
    command -v perl >/dev/null || reset=(python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
    env "$@" "${reset[@]}" dotnet "$app" loop >"$work/$name.out" 2>"$work/$name.err" &
    pid=$!
    for ((i = 0; i < 600; i++)); do
        grep -qx ready "$work/$name.out" 2>/dev/null && break
        sleep 0.1
    done
    kill -"$sig" "$pid" 2>/dev/null
    (sleep 60 && kill -KILL "$pid") 2>/dev/null &
    watchdog=$!
    wait "$pid" 2>/dev/null || rc=$?
    kill "$watchdog" 2>/dev/null
    wait "$watchdog" 2>/dev/null
    echo "$rc" >"$work/$name.rc"
}

# ------------------------------------------------------------- setup
# ct_setup NAME LIB [cli]: the usual start of a script, after it has set
# `root` and sourced this file; call it directly (not in a subshell). Sets
# work, a temporary directory removed when the script exits (not when one of
# its subshells does; KEEP=1 keeps it and prints its path), after the
# commands given to ct_at_exit; lib, the profiler (ct_profiler: LIB, or
# built); traced, the CORECLR_* settings that load it (for run_traced and
# `env "${traced[@]}" ...`); with "cli", ct, the clrtrace beside the profiler
# (its directory/../../clrtrace); exports the DOTNET_* variables that keep
# dotnet quiet. A failure is an "ERROR: ..." line and exit 2.
ct_setup() {
    local name=$1 want=${2:-} cli=${3:-}
    export DOTNET_NOLOGO=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
    # The engine, named: il (the default's choice but for -a) unless the
    # caller says elt (run_eltsuite.sh, ctest e2e.elt.*); the scripts check
    # each engine's own form where they differ by design.
    export CLRTRACE_ENGINE=${CLRTRACE_ENGINE:-il}
    work=$(mktemp -d "${TMPDIR:-/tmp}/clrtrace-$name.XXXXXX") ||
        { echo "ERROR: cannot create a temporary directory" >&2; exit 2; }
    ct_exit_commands=()
    trap ct_cleanup EXIT
    lib=$(ct_profiler "${root:?}" "$work" "$want") || { echo "ERROR: no profiler" >&2; exit 2; }
    traced=(CORECLR_ENABLE_PROFILING=1 "CORECLR_PROFILER=$CLRTRACE_CLSID" "CORECLR_PROFILER_PATH=$lib")
    if [[ $cli == cli ]]; then
        ct=$(readlink -f "$(dirname "$lib")/../../clrtrace" 2>/dev/null || true)
        [[ -x "$ct" ]] || { echo "ERROR: no clrtrace next to $lib" >&2; exit 2; }
    fi
}

# ct_at_exit COMMAND...: run COMMAND (a function, with its arguments) when
# the script exits, before the work directory goes (in the order given).
ct_at_exit() { ct_exit_commands+=("$(printf '%q ' "$@")"); }
# ct_record_dir PID: the folder a running `clrtrace record` (such as the
# one `clrtrace top` runs) writes, its -o; nothing when PID is gone.
ct_record_dir() { tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | sed -n '/^-o$/{n;p;q}'; }
# ct_tmux_end SOCKET: the tmux server of SOCKET ended, if it still runs
# (at exit: a test may have ended it already).
ct_tmux_end() { tmux -S "$1" kill-server 2>/dev/null || true; }

# ct_csc: the newest SDK's C# compiler and the reference assemblies of the
# newest runtime: sets csc (its csc.dll), runtime (the version), refdir
# and cc_args (what compiles ../a.cs into a.dll, deterministic, against
# System.Runtime, System.Console and System.Collections); 1 when the
# compiler or the references are missing.
ct_csc() {
    local sdk
    sdk=$(dotnet --list-sdks | tail -n 1 | sed -E 's/^([^ ]+) \[(.*)\]$/\2\/\1/')
    csc="$sdk/Roslyn/bincore/csc.dll"
    runtime=$(dotnet --list-runtimes | sed -nE 's/^Microsoft\.NETCore\.App ([^ ]+) .*/\1/p' | tail -n 1)
    refdir=$(dirname "$sdk")/../packs/Microsoft.NETCore.App.Ref/$runtime/ref/net${runtime%%.*}.0
    cc_args=(-nologo -deterministic -out:a.dll "-r:$refdir/System.Runtime.dll"
             "-r:$refdir/System.Console.dll" "-r:$refdir/System.Collections.dll" ../a.cs)
    [[ -f "$csc" && -d "$refdir" ]]
}

# ct_wait_attached FILE: waits (at most 30 s) for clrtrace's "attached to
# pid" line in FILE, its stderr; 1 when it did not come.
ct_wait_attached() {
    local i
    for ((i = 0; i < 300; i++)); do
        grep -q "attached to pid" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# ct_after_detach FILE: the lines clrtrace wrote after its "detached from
# pid" line, less the budget's summary ("budget 5%: 1 step ..."), which a
# loaded machine may add to any attach and is checked where budgets are.
ct_after_detach() {
    sed -n '/^clrtrace [a-z]*: detached from pid /,$p' "$1" | sed 1d |
        grep -vE '^clrtrace [a-z]+: budget [0-9]+%: '
}
ct_kill_quiet() { kill -KILL "$@" 2>/dev/null; }

# ct_ready_pid FILE [TENTHS]: sets spid once FILE holds a line "ready PID"
# (a service's first line), waiting at most TENTHS tenths of a second
# (default 600); spid is empty when it did not come.
ct_ready_pid() {
    local i
    spid=
    for ((i = 0; i < ${2:-600}; i++)); do
        spid=$(sed -n 's/^ready \([0-9][0-9]*\)$/\1/p' "$1" 2>/dev/null)
        [[ -n "$spid" ]] && return 0
        sleep 0.1
    done
    return 1
}

# ct_serve APP: tests/targets/Inject's service mode (`dotnet APP serve`),
# its stdin a fifo held open on fd 3, its output in $work/svc.out, .err and
# its exit code in .rc; sets spid once it is ready (empty when it never is).
# CLRTRACE_PRELOAD_SANITIZERS=1: an ASan profiler can attach to it.
ct_serve() {
    mkfifo "$work/svc.in"
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$1" serve <"$work/svc.in" >"$work/svc.out" \
          2>"$work/svc.err"; echo $? >"$work/svc.rc" ) 2>/dev/null &
    exec 3>"$work/svc.in"
    ct_ready_pid "$work/svc.out"
}
# ct_serve_done: tells the service to stop ("stop" on its stdin), waits for
# it (at most 30 s) and checks it ended as it does untraced.
ct_serve_done() {
    local i
    echo stop >&3
    exec 3>&-
    for ((i = 0; i < 300; i++)); do [[ -s "$work/svc.rc" ]] && break; sleep 0.1; done
    check_eq "the service ends as it does untraced (exit code 0, its last line)" "0 served" \
        "$(cat "$work/svc.rc") $(tail -n 1 "$work/svc.out" | cut -d' ' -f1)"
}

# ct_src_line FILE REGEX: the number of the first line of FILE (a C# source)
# matching REGEX (an extended regex).
ct_src_line() { grep -nE "$2" "$1" | head -n 1 | cut -d: -f1; }

# ct_service_run SVC: tests/targets/Service's `run 6 2` mode (two workers
# calling Handle and Validate for 6 s) in the background, its output in
# $work/svc.out and .err, its exit code in $work/svc.rc when it ends; waits
# for its "ready PID" line and sets spid (empty: it did not start).
# CLRTRACE_PRELOAD_SANITIZERS: under sanitized.sh, the sanitizers' runtime
# the profiler it will load needs.
ct_service_run() {
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$1" run 6 2 >"$work/svc.out" 2>"$work/svc.err"
      echo $? >"$work/svc.rc" ) 2>/dev/null &
    ct_ready_pid "$work/svc.out"
}

# ct_service_done: waits (at most 20 s) for the service of ct_service_run to
# end; checks its exit code (7) and that it found every answer right.
ct_service_done() {
    local i
    for ((i = 0; i < 200; i++)); do [[ -s "$work/svc.rc" ]] && break; sleep 0.1; done
    check_eq "the service: exit code 7" 7 "$(cat "$work/svc.rc")"
    check "the service: every answer right" grep -qx "checksums right" "$work/svc.out"
}

# ct_serve_shop APP: tests/targets/Shop's service mode (the four orders
# placed every 5 ms for 60 s) in the background, its output in
# $work/serve.out and .err, killed at exit; waits (at most 60 s) for its
# "ready PID" line, checks it, and sets spid. CLRTRACE_PRELOAD_SANITIZERS:
# under sanitized.sh, the sanitizers' runtime the profiler it will load
# needs.
ct_serve_shop() {
    env CLRTRACE_PRELOAD_SANITIZERS=1 dotnet "$1" serve 60 > "$work/serve.out" 2> "$work/serve.err" &
    spid=$!
    ct_at_exit ct_kill_quiet "$spid"
    local i
    for ((i = 0; i < 600; i++)); do grep -q '^ready ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
    check "attach: the service is ready" grep -q "^ready $spid\$" "$work/serve.out"
}

# The EXIT trap of ct_setup. A subshell forked a moment before a signal
# reaches it still runs this trap (bash resets traps in a child only later):
# only the script's own shell cleans up.
ct_cleanup() {
    [[ $BASHPID == "$$" ]] || return 0
    local c
    for c in "${ct_exit_commands[@]}"; do eval "$c"; done
    if [[ -n "${KEEP:-}" ]]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
}

# ct_cases FILE: the checks of a case file (lib_cases.sh).
. "$(dirname "${BASH_SOURCE[0]}")/lib_cases.sh"
