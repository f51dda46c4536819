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

ioe='System.InvalidOperationException'
# line FILE TEXT: the call text of the first line whose call text starts with
# TEXT (time, TID, duration and indentation dropped).
line() {
    ct_calls "$1" | awk -v want="$2" '{ if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
        t = substr($0, RLENGTH + 13); sub(/^ +/, "", t)
        if (index(t, want) == 1) { print t; exit } }'
}
# closes FILE: the closing lines left by an exception, in order, indentation dropped.
closes() { ct_calls "$1" | sed -nE 's/^.{30} *(\} exception.*)$/\1/p'; }

# ------------------------------------------------------------ text log
ct_run "$work" rec "$ct" record -o "$work/ex" --text "$work/live.txt" --profiler "$lib" -- \
    dotnet "$app" exceptions
check_eq "recorded: the program's own output and exit code" \
    "0 exceptions: total=203 handled=18 filters=3 finallies=3" \
    "$(cat "$work/rec.rc") $(cat "$work/rec.out")"
"$ct" replay "$work/ex" > "$work/replay.txt" 2> "$work/replay.err"
check "replay: byte for byte the live text log" cmp "$work/live.txt" "$work/replay.txt"
t="$work/replay.txt"
check_eq "a folded frame: the thrower, with the exception's type and message" \
    "Hard.Exceptions.Thrower(int n=1) -> exception $ioe: \"boom 1\"" "$(line "$t" "Hard.Exceptions.Thrower(int n=1)")"
check_eq "every frame step 1's exception leaves (Level3, Level2, Level1) shows it" \
    "$(printf '} exception %s: "boom 1"\n' "$ioe" "$ioe" "$ioe")" "$(closes "$t" | head -n 3)"
# Step 2: the filter runs on top of Thrower(2), before its frames unwind.
check_eq "a filter (when): Thrower(2) closes with its exception after the filter's call" \
    "} exception $ioe: \"boom 2\"" "$(closes "$t" | sed -n 4p)"
# Step 5: Level3..Level1 left by the first throw, RethrowMiddle by the rethrow.
check_eq "catch and rethrow: RethrowMiddle, left by the rethrow, shows the same exception" \
    "$(printf '} exception %s: "boom 5"\n' "$ioe" "$ioe" "$ioe" "$ioe")" \
    "$(ct_calls "$t" | sed -n '/Thrower(int n=5)/,/Handled(string message="boom 5")/p' | sed -nE 's/^.{30} *(\} exception.*)$/\1/p')"
check_eq "a null Exception._message (a Message override): the type alone" \
    "} exception Hard.QuietException" "$(ct_calls "$t" | grep -A 2 -F 'QuietThrower(int n=12)' | sed -nE 's/^.{30} *(\}.*)$/\1/p')"
check_eq "a message escaped as a string value is" \
    "Hard.Exceptions.EscapedThrower(int n=13) -> exception System.FormatException: \"line\\n\\\"q\\\" 13\"" \
    "$(line "$t" "Hard.Exceptions.EscapedThrower(")"

# Inner exceptions.
fnf='System.IO.FileNotFoundException'
agg='System.AggregateException'
check_eq "a wrapping exception: the frame it leaves shows its cause after ' <- '" \
    "} exception $ioe: \"load failed: cfg.json\" <- $fnf: \"cfg.json not found\"" \
    "$(ct_calls "$t" | sed -n '/LoadWrapped(int n=14)/,/Handled(/p' | sed -nE 's/^.{30} *(\} exception.*)$/\1/p')"
check_eq "an AggregateException: .NET's Message, then its InnerExceptions in parentheses" \
    "Hard.Exceptions.BatchThrower(int n=15) -> exception $agg: \"batch failed (bad a) (bad b)\" <- ($ioe: \"bad a\", System.FormatException: \"bad b\")" \
    "$(line "$t" "Hard.Exceptions.BatchThrower(")"
check_eq "an AggregateException's Message: the one the program's catch block read (Handled's argument)" \
    "$(line "$t" "Hard.Exceptions.Handled(string message=\"batch" | sed -E 's/^Hard\.Exceptions\.Handled\(string message=(.*)\) -> int 28$/\1/')" \
    "$(line "$t" "Hard.Exceptions.BatchThrower(" | sed -E "s/^.* -> exception $agg: (\"[^\"]*\") <- .*$/\\1/")"
e18=""; for i in 1 2 3 4 5 6 7 8; do e18+="System.Exception: \"e$i\", "; done
check_eq "nine inner exceptions: 8 kept (CT_EXC_CHAIN_MAX), the Message as far as they tell" \
    "Hard.Exceptions.ManyThrower(int n=16) -> exception $agg: \"many (e1) (e2) (e3) (e4) (e5) (e6) (e7) (e8)\"... <- (${e18}+1 more)" \
    "$(line "$t" "Hard.Exceptions.ManyThrower(")"
check_eq "a chain five long: 4 levels followed (CT_EXC_CHAIN_DEPTH), then ..." \
    "Hard.Exceptions.DeepThrower(int n=17) -> exception System.Exception: \"d0\" <- System.Exception: \"d1\" <- System.Exception: \"d2\" <- System.Exception: \"d3\" <- System.Exception: \"d4\" <- ..." \
    "$(line "$t" "Hard.Exceptions.DeepThrower(")"

# ------------------------------------------------------------ report
"$ct" report "$work/ex" > "$work/report.txt"
check_eq "report: the EXCEPTIONS column" "#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION" \
    "$(grep '^#  CALLS' "$work/report.txt")"
col() { # col FILE FUNCTION: "CALLS EXCEPTIONS" of its row
    awk -v f="$2" '/^#  CALLS/ {on = 1; next} on && $NF == f {print $1, $(NF - 1); exit}' "$1"
}
check_eq "report: Thrower 13 calls, 13 ended by an exception" "13 13" \
    "$(col "$work/report.txt" Hard.Exceptions.Thrower)"
check_eq "report: Level1 11 calls, 11 by an exception" "11 11" "$(col "$work/report.txt" Hard.Exceptions.Level1)"
check_eq "report: RethrowMiddle 1 call, ended by the rethrow" "1 1" \
    "$(col "$work/report.txt" Hard.Exceptions.RethrowMiddle)"
check_eq "report: CatchHigher 2 calls (1 and 80), none by an exception" "2 0" \
    "$(col "$work/report.txt" Hard.Exceptions.CatchHigher)"
check_eq "report: Handled 18 calls, none by an exception" "18 0" "$(col "$work/report.txt" Hard.Exceptions.Handled)"
check "report: the same table as the text log's summary" \
    cmp <(sed -n '/^#  CALLS/,/^# clrtrace: shutdown/p' "$work/report.txt") \
        <(sed -n '/^#  CALLS/,/^# clrtrace: shutdown/p' "$work/live.txt")
"$ct" report --percent "$work/ex" > "$work/percent.txt"
hdr=$(grep '^#  CALLS' "$work/percent.txt")
check_eq "report --percent: the header with EXCEPTIONS" \
    "#  CALLS      TOTAL  TOTAL%       SELF   SELF%  EXCEPTIONS  FUNCTION" "$hdr"
check "report --percent: the header within 80 columns" test "${#hdr}" -le 80

# ------------------------------------------------------------ dump --chrome
"$ct" dump --chrome "$work/ex" > "$work/ex.json"
check "chrome: valid JSON, events nested per thread" chk validate "$work/ex.json"
chk calls "$work/ex.json" | cut -d' ' -f2- > "$work/calls.txt"
want=$(cat <<'EOF'
Hard.Exceptions.Thrower {"exception": "System.InvalidOperationException: \"boom 1\"", "n": "1"}
Hard.Exceptions.Level3 {"exception": "System.InvalidOperationException: \"boom 1\"", "n": "1"}
Hard.Exceptions.Level2 {"exception": "System.InvalidOperationException: \"boom 1\"", "n": "1"}
Hard.Exceptions.Level1 {"exception": "System.InvalidOperationException: \"boom 1\"", "n": "1"}
EOF
)
check "chrome: step 1's frames carry \"exception\": its type and message" \
    ct_diff_tree "$want" "$(grep -E '^Hard\.Exceptions\.(Thrower|Level[123]) .*"n": "1"' "$work/calls.txt" | tac)"
check_eq "chrome: RethrowMiddle left by the rethrow" \
    'Hard.Exceptions.RethrowMiddle {"exception": "System.InvalidOperationException: \"boom 5\"", "n": "5"}' \
    "$(grep -F 'Hard.Exceptions.RethrowMiddle ' "$work/calls.txt")"
check_eq "chrome: a null _message: the type alone" \
    'Hard.Exceptions.QuietThrower {"exception": "Hard.QuietException", "n": "12"}' \
    "$(grep -F 'Hard.Exceptions.QuietThrower ' "$work/calls.txt")"
check_eq "chrome: the escaped message as the text log shows it" \
    'Hard.Exceptions.EscapedThrower {"exception": "System.FormatException: \"line\\n\\\"q\\\" 13\"", "n": "13"}' \
    "$(grep -F 'Hard.Exceptions.EscapedThrower ' "$work/calls.txt")"
check_eq "chrome: the inner exception as the text log shows it" \
    'Hard.Exceptions.LoadWrapped {"exception": "System.InvalidOperationException: \"load failed: cfg.json\" <- System.IO.FileNotFoundException: \"cfg.json not found\"", "n": "14"}' \
    "$(grep -F 'Hard.Exceptions.LoadWrapped ' "$work/calls.txt")"

# ------------------------------------------------------------ limits, fast path
ct_run "$work" short "$ct" record -o "$work/short" -s 3 --profiler "$lib" -- dotnet "$app" exceptions
"$ct" replay "$work/short" > "$work/short.txt"
check_eq "-s 3: the message cut like a string argument" \
    "$(line "$work/short.txt" "Hard.Exceptions.Handled(" | sed -E 's/^Hard\.Exceptions\.Handled\(string message=(.*)\) -> int 6$/\1/')" \
    "$(line "$work/short.txt" "Hard.Exceptions.Thrower(int n=1)" | sed -E "s/^.* -> exception $ioe: //")"
check_eq "-s 3: inner messages cut too" \
    "} exception $ioe: \"loa\"...(21 chars) <- System.IO.FileNotFoundException: \"cfg\"...(18 chars)" \
    "$(ct_calls "$work/short.txt" | sed -n '/LoadWrapped(int n=14)/,/Handled(/p' | sed -nE 's/^.{30} *(\} exception.*)$/\1/p')"
ct_run "$work" fast "$ct" record -o "$work/fast" --no-args --profiler "$lib" -- dotnet "$app" exceptions
"$ct" replay "$work/fast" > "$work/fast.txt"
check_eq "the fast path (--no-args): the exception too" \
    "Hard.Exceptions.Thrower(...) -> exception $ioe: \"boom 1\"" "$(line "$work/fast.txt" "Hard.Exceptions.Thrower(")"
check_eq "the fast path: inner exceptions too" \
    "Hard.Exceptions.BatchThrower(...) -> exception System.AggregateException: \"batch failed (bad a) (bad b)\" <- ($ioe: \"bad a\", System.FormatException: \"bad b\")" \
    "$(line "$work/fast.txt" "Hard.Exceptions.BatchThrower(")"
check "the fast path: balanced" ct_balance "$work/fast.txt"

ct_end run_exceptions.sh
