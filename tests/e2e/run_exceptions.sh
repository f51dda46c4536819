#!/usr/bin/env bash
# Exceptions in a recorded trace of tests/targets/Hard (`dotnet Hard.dll
# exceptions`): the frame an exception leaves shows its type and message in
# the live text log, the replay (byte for byte the same), `dump --chrome`
# ("exception": "TYPE: MESSAGE") and the fast path; `report` counts the calls
# each function ended by an exception; -s cuts messages like strings.
# run_hard.sh checks the whole call tree of every step.
#
# Every expected value below is written by hand from
# tests/targets/Hard/Exceptions.cs: Thrower(n) throws
# InvalidOperationException("boom " + n) through Level3, Level2, Level1 (step
# 1: caught by CatchHigher; step 2: WithFilter's filter accepts it; step 5:
# RethrowMiddle catches it, calls Log and rethrows with `throw;`); Thrower runs
# 13 times (n = 1-5, 7-11, 80, 90, 1000), Level1 11 times, every call ended by
# its exception; QuietThrower throws a QuietException, whose Message is an
# override (Exception._message is null: the type alone); EscapedThrower(13)
# throws FormatException("line\n\"q\" 13"). Inner exceptions: step 14,
# LoadWrapped catches LoadConfig's FileNotFoundException("cfg.json not found")
# and throws InvalidOperationException("load failed: cfg.json") around it;
# step 15, BatchThrower throws AggregateException("batch failed",
# InvalidOperationException("bad a"), FormatException("bad b")), whose
# Message .NET builds as its own message, then " (" + each inner
# exception's Message + ")" (AggregateException.cs, Message); step 16,
# ManyThrower an AggregateException("many") of Exception("e1") to ("e9"):
# one more than the 8 inner exceptions kept (CT_EXC_CHAIN_MAX); step 17,
# DeepThrower Exception("d0") whose InnerException chain is "d1" to "d5":
# one level deeper than the 4 followed (CT_EXC_CHAIN_DEPTH).
# The checks are the cases of cases/exceptions.case, but the two that
# compare a message with the one the program read.
# Usage: tests/e2e/run_exceptions.sh [path/to/libclrtrace.so]
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup exceptions "${1:-}" cli
chk() { python3 "$here/check_chrome.py" "$@"; }

echo "== building tests/targets/Hard"
app=$(ct_dotnet_build "$root/tests/targets/Hard" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Hard failed" >&2; exit 2; }

# line FILE TEXT: the call text of the first line whose call text starts with
# TEXT (time, TID, duration and indentation dropped).
line() {
    ct_calls "$1" | awk -v want="$2" '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
        if (index(t, want) == 1) { print t; exit } }'
}
# closes FILE: the closing lines left by an exception, in order, indentation dropped.
closes() { ct_calls "$1" | sed -nE 's/^.{30} *(\} exception.*)$/\1/p'; }
col() { # col FILE FUNCTION: "CALLS EXCEPTIONS" of its row
    awk -v f="$2" '/^#  CALLS/ {on = 1; next} on && $NF == f {print $1, $(NF - 1); exit}' "$1"
}
calls_of() { chk calls "$1" | cut -d' ' -f2-; } # calls_of JSON: its calls, "NAME ARGS"
ct_cases "$here/cases/exceptions.case"

# The messages as the program read them (its Handled's argument).
check_eq "an AggregateException's Message: the one the program's catch block read (Handled's argument)" \
    "$(line "$work/replay.out" "Hard.Exceptions.Handled(string message=\"batch" | sed -E 's/^Hard\.Exceptions\.Handled\(string message=(.*)\) -> int 28$/\1/')" \
    "$(line "$work/replay.out" "Hard.Exceptions.BatchThrower(" | sed -E 's/^.* -> exception System\.AggregateException: ("[^"]*") <- .*$/\1/')"
check_eq "-s 3: the message cut like a string argument" \
    "$(line "$work/shortrep.out" "Hard.Exceptions.Handled(" | sed -E 's/^Hard\.Exceptions\.Handled\(string message=(.*)\) -> int 6$/\1/')" \
    "$(line "$work/shortrep.out" "Hard.Exceptions.Thrower(int n=1)" | sed -E 's/^.* -> exception System\.InvalidOperationException: //')"

ct_end run_exceptions.sh
