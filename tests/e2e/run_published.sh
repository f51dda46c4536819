#!/usr/bin/env bash
# End-to-end test: published apps started through their apphost
# (`clrtrace run -- ./Published`, not `dotnet Published.dll`), and the
# runtime versions: tests/targets/Published, published once per build tree
# (ct_dotnet_publish) as
#   apphost       framework-dependent, with its apphost (.NET 10, the SDK's runtime)
#   net10         self-contained (.NET 10 runtime pack)
#   singlefile    self-contained, PublishSingleFile: assemblies inside the
#                 executable, no file path per assembly
#   readytorun    self-contained, PublishReadyToRun
#   trimmed       self-contained, PublishTrimmed
#   net8, net9    self-contained from NuGet's .NET 8 and 9 runtime packs
#   net11         self-contained on the .NET 11.0.0 runtime pack (a net10.0
#                 build with RuntimeFrameworkVersion 11.0.0), when it restores
#   net11async    the same, compiled with runtime-async (SumAsync without a
#                 state machine): one logical call with the IL engine, not
#                 traced by the ELT engine, the rest traced
# The runtime packs' versions are the SDK's choice: none is named here.
#
# Usage: tests/e2e/run_published.sh [path/to/libclrtrace.so]
#   (clrtrace beside it; CLRTRACE_ENGINE=elt for the ELT engine: eltsuite.list)
#
# Checks, for each variant:
#   1. the traced run prints what the untraced one printed (the line the C#
#      source makes) and exits with 3;
#   2. the header: filter "my code (framework by public key token)"; the
#      runtime's version is the one the publish carries (its deps.json), the
#      ICorProfilerInfo the one that version gives (8: 14; 9, 10, 11: 15);
#   3. the main thread's call tree, written by hand from Program.cs: objects,
#      a List and a Dictionary, DateOnly, an exception chain, an async
#      method suspended then resumed and its Task's result;
#   4. "my code" is the program's own assembly only (signed with its own key):
#      no function of the framework (CoreLib's Interop.*, System.Console's)
#      in the trace; the summary has one row per function of the tree, with
#      the tree's call counts;
#   5. in the single-file bundle, assemblies by name: --assembly Published
#      traces the same tree, --assembly System.Private.CoreLib with -F one
#      CoreLib method's call;
# and, for each runtime version (net8, net9, net10, net11; not again under
# the IL engine, which attach uses anyway):
#   6. `clrtrace run -p PID` on the running service: the header says
#      attached, with the version; every Tick call's value is 2n; the
#      service ends on its own (exit 0);
# and once:
#   7. every assembly of the shared frameworks and of the runtime packs
#      carries one of the public key tokens the profiler takes for the
#      framework (src/agent/model/identity.c), read by
#      System.Reflection.AssemblyName (`Published tokens DIR...`); the
#      target's own assembly carries another.
# The checks are the cases of cases/published.case (sections run, tree and
# tree-async for each variant, names, attach, tokens); the script publishes,
# reads the runtimes' versions and serves the attached programs.
# Ends with "run_published.sh: N passed, M failed".
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup published "${1:-}" cli
engine=${CLRTRACE_ENGINE:-il}
src="$root/tests/targets/Published"
# Under tests/e2e/sanitized.sh: what preloads the sanitizers into a program
# started without `dotnet`.
sanit=(${CLRTRACE_SANITIZE_RUN:+"$CLRTRACE_SANITIZE_RUN"})

# The framework's public key tokens, as identity.c lists them.
fw_tokens="b03f5f7f11d50a3a 7cec85d7bea7798e cc7b13ffcd2ddd51 adb9793829ddae60 31bf3856ad364e35 b77a5c561934e089"

# ----------------------------------------------------------------- publish
sc=(-r linux-x64 --self-contained)
declare -A exe
publish() { # VARIANT ARGS...
    local v=$1 e
    shift
    echo "== publishing $v"
    e=$(ct_dotnet_publish "$src" "$v" "$work" "$@") && [[ -n "$e" ]] || return 1
    exe[$v]=$e
}
publish apphost -f net10.0 -p:SelfContained=false ||
    { echo "ERROR: dotnet publish of tests/targets/Published failed" >&2; exit 2; }
publish net10 -f net10.0 "${sc[@]}" || ct_fail "publish net10 (self-contained)"
publish singlefile -f net10.0 "${sc[@]}" -p:PublishSingleFile=true || ct_fail "publish singlefile"
publish readytorun -f net10.0 "${sc[@]}" -p:PublishReadyToRun=true || ct_fail "publish readytorun"
publish trimmed -f net10.0 "${sc[@]}" -p:PublishTrimmed=true || ct_fail "publish trimmed"
publish net8 -f net8.0 "${sc[@]}" || ct_fail "publish net8 (self-contained, NuGet's runtime pack)"
publish net9 -f net9.0 "${sc[@]}" || ct_fail "publish net9 (self-contained, NuGet's runtime pack)"
# .NET 11: only when its runtime pack is served (FACTS: it is, here).
CT_PUBLISH_QUIET=1 publish net11 -f net10.0 "${sc[@]}" -p:RuntimeFrameworkVersion=11.0.0 ||
    echo "note: the .NET 11.0.0 runtime pack does not restore here: net11 not checked"
# .NET 11 with the C# compiler's runtime-async (a preview feature of the .NET 10
# SDK): SumAsync compiled without a state machine.
if [[ -n "${exe[net11]:-}" ]]; then
    publish net11async -f net10.0 "${sc[@]}" -p:RuntimeFrameworkVersion=11.0.0 \
        -p:Features=runtime-async=on -p:EnablePreviewFeatures=true || ct_fail "publish net11async"
fi

# runtime_of EXE: the version of the runtime the publish carries
# (runtimepack.Microsoft.NETCore.App.Runtime.linux-x64/X.Y.Z in its
# deps.json); for the framework-dependent apphost, the SDK's newest
# Microsoft.NETCore.App of that major version, as `dotnet --list-runtimes` says.
runtime_of() {
    local deps=${1}.deps.json
    if [[ -f "$deps" ]] && grep -q '"runtimepack\.Microsoft\.NETCore\.App\.Runtime' "$deps"; then
        sed -n 's/.*"runtimepack\.Microsoft\.NETCore\.App\.Runtime\.[^/]*\/\([0-9][0-9.a-z-]*\)".*/\1/p' "$deps" | head -n 1
    elif [[ -f "$deps" ]]; then
        dotnet --list-runtimes | sed -n "s/^Microsoft\.NETCore\.App \($2\.[0-9.]*\) .*/\1/p" | tail -n 1
    else
        # a single-file bundle carries its deps.json inside: the same
        # runtime pack as the net10 variant's.
        runtime_of "${exe[net10]}"
    fi
}

# ----------------------------------------------------------------- checks
cf="$here/cases/published.case"

# ptree FILE [TASK]: FILE's main thread's calls (ct_tree), the state
# machine's class number as d__N, the file WriteRead wrote (this run's
# $work/clrtrace-published-PID, exactly) as its name in the case file; with
# TASK the task Done reads, a runtime-async method's (the runtime's own
# class), as TASK.
ptree() {
    local pid w=${work//./\\.}
    pid=$(ct_pid "$1")
    ct_tree "$1" | sed -E -e 's/d__[0-9]+>/d__N>/g' \
        -e "s|path=\"$w/clrtrace-published-$pid\"|path=\"\\\$work/clrtrace-published-\\\$pid\"|" |
        if [[ -n ${2:-} ]]; then sed -E 's/task=[A-Za-z.]+<int>[A-Za-z.<>_]*\{/task=TASK{/'; else cat; fi
}

# not_mine FILE: call lines whose function is not the program's own (Pub.*).
not_mine() {
    ct_calls "$1" | awk '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t); sub(/^async /, "", t)
        if (t !~ /^\}/ && t !~ /^Pub\./) { print substr(t, 1, 120); n++ } }
        END { exit n > 0 }' | head -n 5
    return "${PIPESTATUS[1]}"
}

# summary_agrees FILE: the summary's rows are the tree's functions, each
# with as many calls as the tree has lines for it (opening or folded; an
# async call's end, "(async: task ended)", is not another call);
# overloads, which the summary tells apart by their parameters, counted
# under their name.
summary_agrees() {
    local tree rows
    tree=$(ct_calls "$1" | awk '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
        if (t ~ /^\}/ || t ~ /  \(async: task ended\)$/) next
        sub(/\(.*/, "", t); n[t]++ }
        END { for (f in n) print n[f], f }' | sort)
    rows=$(awk '/^#  CALLS/ { on = 1; next } /^# (tracer|jit|clrtrace)/ { on = 0 }
        on && /^ +[0-9]/ { n = $0; sub(/.*  /, "", n); sub(/\(.*/, "", n); c[n] += $1 }
        END { for (f in c) print c[f], f }' "$1" | sort)
    ct_diff_tree "$tree" "$rows"
}

# check_run VARIANT MAJOR INFO [TREE]: a traced run of the variant's
# apphost (the case file's sections run and TREE, default tree).
check_run() {
    local v=$1 major=$2 info=$3 run=$1.$engine ver
    [[ -n "${exe[$v]:-}" ]] || return 0
    echo "== $v ($engine engine)"
    ver=$(runtime_of "${exe[$v]}" "$major")
    [[ $ver == "$major".* ]] || ct_fail "$v: the runtime's version $ver is .NET $major's"
    ct_cases "$cf" run
    [[ -s "$work/$run.txt" ]] || ct_fail "$v: a trace was written" "$(head -n 3 "$work/$run.err")"
    t=$run.txt label="the main thread's calls, as Program.cs makes them" ct_cases "$cf" "${4:-tree}"
}

check_run apphost 10 15
check_run net10 10 15
check_run singlefile 10 15
check_run readytorun 10 15
check_run trimmed 10 15
check_run net8 8 14
check_run net9 9 15
check_run net11 11 15
check_run net11async 11 15 tree-async
if [[ -n "${exe[singlefile]:-}" ]]; then
    v=singlefile ct_cases "$cf" names
    v=singlefile t=singlefile-asm.txt label="--assembly Published traces the program's tree" ct_cases "$cf" tree
fi

# ------------------------------------------------------------------ attach
# check_attach VARIANT MAJOR INFO: `clrtrace run -p` on `Published serve FLAG`.
check_attach() {
    local v=$1 major=$2 info=$3 spid i ver
    [[ -n "${exe[$v]:-}" ]] || return 0
    echo "== attach: $v"
    rm -f "$work/flag-$v"
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 "${sanit[@]}" "${exe[$v]}" serve "$work/flag-$v" \
        >"$work/serve-$v.out" 2>"$work/serve-$v.err"
      echo $? >"$work/serve-$v.rc" ) 2>/dev/null &
    ct_ready_pid "$work/serve-$v.out" 300 || { ct_fail "attach $v: the service started"; touch "$work/flag-$v"; return; }
    ct_run "$work" "attach-$v" "$ct" run -p "$spid" -d 1s -o "$work/attach-$v.txt"
    touch "$work/flag-$v"
    for ((i = 0; i < 300; i++)); do [[ -s "$work/serve-$v.rc" ]] && break; sleep 0.1; done
    ver=$(runtime_of "${exe[$v]}" "$major")
    ct_cases "$cf" attach
}

if [[ $engine == il ]]; then
    check_attach net8 8 14
    check_attach net9 9 15
    check_attach net10 10 15
    check_attach net11 11 15
fi

# ------------------------------------------------------ framework tokens
if [[ $engine == il ]]; then
    echo "== public key tokens of the framework's assemblies (System.Reflection.AssemblyName)"
    dirs=()
    while read -r d; do dirs+=("$d"); done < <(dotnet --list-runtimes |
        sed -n 's/^\(Microsoft\.[A-Za-z]*\.App\) \([^ ]*\) \[\(.*\)\]$/\3\/\2/p')
    for v in net8 net9 net10 net11; do
        [[ -n "${exe[$v]:-}" ]] && dirs+=("$(dirname "${exe[$v]}")")
    done
    dotnet "${exe[apphost]}.dll" tokens "${dirs[@]}" >"$work/tokens.txt" 2>&1
    ct_cases "$cf" tokens
fi

ct_end run_published.sh
