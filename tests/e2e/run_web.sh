#!/usr/bin/env bash
# End-to-end test: an ASP.NET Core minimal-API app (tests/targets/Web) on
# Kestrel, 127.0.0.1 and a port the system picks, traced from the start.
#
# Usage: tests/e2e/run_web.sh [path/to/libclrtrace.so]
#
# The app requests its own routes with HttpClient, one at a time and 20 ms
# apart (Web client N TIMES: /order/i, /text/i, /slow/i for i = 1..N), and
# writes each request's time as the client measured it. Fully optimised code
# from the start (DOTNET_TieredCompilation=0), as a service runs once its
# methods reached tier 1: there the JIT makes `return Results.Text(...)` an
# opportunistic tail call into the framework. Checks:
#   1. traced (`clrtrace run`), the program prints what its source says and
#      exits 3, as untraced;
#   2. every handler call (Web.Program.<>c.<Main>b__0_0/1/2, one per route)
#      of the N requests is closed by its return, none by a tail call, and
#      none lasts longer than its own request as the client measured it
#      (a tail call into the framework used to close the handler only at its
#      thread's next traced call, a later request or never: docs/tracer.md,
#      "Tail calls");
#   3. the values of Place, Total, Receipt and the handlers' results, worked
#      out by hand from Program.cs: Place(id) = 2 id + 1,
#      Total(qty) = 250 qty + 99, Receipt(qty) = "qty Q total T";
#   4. attached (`run -p PID -F 'Web.*'`, once, under the default engine's
#      run: attach is the IL engine's anyway) to the app serving requests
#      (Web serve PORT-FILE; requests over bash's /dev/tcp), after 5
#      requests per route: the NoInlining /slow handler is traced, with its
#      values; the /order handler, which the JIT inlined into ASP.NET Core's
#      request delegate (a dynamic method ReJIT cannot recompile), has no
#      call in the trace and clrtrace names it in one line after the detach
#      line; the /text handler is not named; the app answers rightly
#      throughout and ends with exit code 0 after GET /quit.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup web "${1:-}" cli

echo "== building tests/targets/Web"
app=$(ct_dotnet_build "$root/tests/targets/Web" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Web failed" >&2; exit 2; }

n=4
jit=(DOTNET_TieredCompilation=0)
# What Program.cs prints for N = 4, worked out by hand: for each route,
# "ROUTE i: qty Q total T" with Q = 2i + 1, T = 250 Q + 99.
expected="order 1: qty 3 total 849
order 2: qty 5 total 1349
order 3: qty 7 total 1849
order 4: qty 9 total 2349
text 1: qty 3 total 849
text 2: qty 5 total 1349
text 3: qty 7 total 1849
text 4: qty 9 total 2349
slow 1: qty 3 total 849
slow 2: qty 5 total 1349
slow 3: qty 7 total 1849
slow 4: qty 9 total 2349"

echo "== untraced"
ct_run "$work" plain env "${jit[@]}" timeout -k 5 300 dotnet "$app" client "$n" "$work/plain.times"
check_eq "untraced: the program printed what its source says" "$expected" "$(cat "$work/plain.out")"
check_eq "untraced: exit code 3" 3 "$(cat "$work/plain.rc")"

echo "== traced from the start"
t="$work/traced.txt"
ct_run "$work" traced env "${jit[@]}" timeout -k 5 900 \
    "$ct" run --profiler "$lib" -o "$t" -- dotnet "$app" client "$n" "$work/traced.times"
check "traced: stdout, stderr and exit code equal the untraced run's" \
    ct_same_run "$work" plain traced
check_eq "traced: the client measured 3 x $n requests" $((3 * n)) "$(wc -l <"$work/traced.times")"

# handler_calls TRACE: one line per call of a route handler,
# "ROUTE ID HOW MICROSECONDS": HOW is "return" (closed by its return),
# "tailcall" (closed by a tail call) or "open" (never closed); the duration
# as the trace gives it (rounded to its last digit), -1 when open.
handler_calls() {
    ct_calls "$1" | awk '
        function us(d,   v, u) {
            v = d; u = d; sub(/ .*/, "", v); sub(/.* /, "", u)
            return u == "s" ? v * 1000000 : u == "ms" ? v * 1000 : v
        }
        BEGIN { route[0] = "order"; route[1] = "text"; route[2] = "slow" }
        {
            if (!match($0, /^ *[0-9]+\.[0-9]+ +[0-9]+ /)) next
            split(substr($0, 1, RLENGTH), h, " "); tid = h[2]
            rest = substr($0, RLENGTH + 1)
            dur = substr(rest, 1, 10); gsub(/^ +| +$/, "", dur)
            text = substr(rest, 13); sub(/^ +/, "", text)
            if (text ~ /^\}/) {
                d = --depth[tid]
                k = tid SUBSEP d
                if (k in open) {
                    print open[k], (text ~ /^\} tailcall/ ? "tailcall" : "return"), us(dur)
                    delete open[k]
                }
                next
            }
            what = ""
            if (match(text, /^Web\.Program\.<>c\.<Main>b__0_[0-2]\(.*int id=[0-9]+\)/)) {
                s = substr(text, 1, RLENGTH)
                r = s; sub(/^Web\.Program\.<>c\.<Main>b__0_/, "", r); sub(/\(.*/, "", r)
                id = s; sub(/.*int id=/, "", id); sub(/\).*/, "", id)
                what = route[r] " " id
            }
            if (text ~ / \{$/) {
                if (what != "") open[tid SUBSEP (depth[tid] + 0)] = what
                depth[tid]++
            } else if (what != "") {
                print what, (text ~ / -> tailcall$/ ? "tailcall" : "return"), us(dur)
            }
        }
        END { for (k in open) print open[k], "open", -1 }' | sort -k1,1 -k2,2n
}
calls=$(handler_calls "$t")
for r in order text slow; do
    check_eq "every $r handler call of the $n requests is closed by its return" \
        "$(for ((i = 1; i <= n; i++)); do echo "$r $i return"; done)" \
        "$(awk -v r="$r" '$1 == r { print $1, $2, $3 }' <<<"$calls")"
done
# A handler runs within its request: its duration is at most the client's
# time for that request (60 us for the trace's rounding of milliseconds).
check "no handler call lasts longer than its request as the client measured it" awk '
    NR == FNR { t[$1 " " $2] = $3; next }
    {
        k = $1 " " $2
        if ($3 == "open") { print k ": never closed"; bad++ }
        else if (!(k in t)) { print "no request time for " k; bad++ }
        else if ($4 > t[k] + 60) { print k ": " $4 " us (" $3 "), the request " t[k] " us"; bad++ }
    }
    END { exit bad > 0 }' "$work/traced.times" <(printf '%s\n' "$calls")

# call_tree TRACE TEXT: the subtree of the first call whose line contains
# TEXT (a fixed string, addresses written @ADDR), on its thread, in
# ct_tree's form (no times, addresses @ADDR).
call_tree() {
    local tid
    tid=$(ct_calls "$1" | sed -E 's/@0x[0-9a-f]+/@ADDR/g' | grep -F -m1 -- "$2" | awk '{ print $2 }')
    [[ -n "$tid" ]] || return 0
    ct_subtree "$(ct_tree "$1" "$tid")" "$2" | ct_dedent
}
check "the /order handler's call for id 2: Place, Receipt and Total, the values by hand" ct_diff_tree \
    'Web.Program.<>c.<Main>b__0_0(this=Web.Program.<>c@ADDR, int id=2) {
  Web.Shop.Place(int id=2) -> int 5
  Web.Shop.Receipt(int qty=5) {
    Web.Shop.Total(int qty=5) -> int 1349
  } -> string "qty 5 total 1349"
} -> string "qty 5 total 1349"' \
    "$(call_tree "$t" 'Web.Program.<>c.<Main>b__0_0(this=Web.Program.<>c@ADDR, int id=2)')"
check "the NoInlining /slow handler's call for id 4: the same, by hand" ct_diff_tree \
    'Web.Program.<>c.<Main>b__0_2(this=Web.Program.<>c@ADDR, int id=4) {
  Web.Shop.Place(int id=4) -> int 9
  Web.Shop.Receipt(int qty=9) {
    Web.Shop.Total(int qty=9) -> int 2349
  } -> string "qty 9 total 2349"
} -> string "qty 9 total 2349"' \
    "$(call_tree "$t" 'Web.Program.<>c.<Main>b__0_2(this=Web.Program.<>c@ADDR, int id=4)')"
# /text's handler returns Results.Text(...): its IResult closes the call
# (the result's fields left out).
check "the /text handler's call for id 3: the same callees, closed by its IResult" ct_diff_tree \
    'Web.Program.<>c.<Main>b__0_1(this=Web.Program.<>c@ADDR, int id=3) {
  Web.Shop.Place(int id=3) -> int 7
  Web.Shop.Receipt(int qty=7) {
    Web.Shop.Total(int qty=7) -> int 1849
  } -> string "qty 7 total 1849"
} -> IResult' \
    "$(call_tree "$t" 'Web.Program.<>c.<Main>b__0_1(this=Web.Program.<>c@ADDR, int id=3)' |
        sed -E 's/^(\} -> IResult) .*/\1/')"
# The last continuation of the async Main (after `await app.StopAsync()`)
# completes Main's task from a pool thread; the main thread then returns and
# the process ends, sometimes before that MoveNext has returned: that call
# may be open at the end (a call in flight when the process ended), no other.
check "the trace is balanced (but the async Main's last step, in flight at the exit)" ct_balance "$t" open-ok
# only_main_open FILE: every call open at the end is an async Web.Program.Main
# step (thread by thread); prints the others.
only_main_open() {
    ct_calls "$1" | awk '
        match($0, /^ *[0-9.]+ +[0-9]+ +/) {
            split(substr($0, 1, RLENGTH), f, " ")
            tid = f[2]
            rest = substr($0, RLENGTH + 1)
            sub(/^[0-9.]+ [mun]?s +/, "", rest)
            if (rest ~ /^\}/) { if (depth[tid]) depth[tid]--; next }
            if (rest ~ / \{$/) open[tid, ++depth[tid]] = rest
        }
        END {
            for (tid in depth)
                for (i = 1; i <= depth[tid]; i++)
                    if (open[tid, i] !~ /^async Web\.Program\.Main\(/) { print "open: " open[tid, i]; bad = 1 }
            exit bad
        }'
}
check "no call but the async Main's last step is open at the end" only_main_open "$t"

if [[ ${CLRTRACE_ENGINE:-il} == il ]]; then
    echo "== attached to the app serving requests"
    # http_get PORT PATH: the body of GET PATH (HTTP/1.0 over /dev/tcp, 10 s at most).
    http_get() {
        timeout 10 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
            printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" "$2" >&3
            sed "1,/^\r\?$/d" <&3' _ "$1" "$2"
    }
    ( env CLRTRACE_PRELOAD_SANITIZERS=1 timeout -k 5 300 dotnet "$app" serve "$work/port" \
        >"$work/serve.out" 2>"$work/serve.err"; echo $? >"$work/serve.rc" ) 2>/dev/null &
    for ((i = 0; i < 600; i++)); do [[ -s "$work/port" ]] && break; sleep 0.1; done
    port=$(cat "$work/port" 2>/dev/null)
    spid=$(pgrep -f -n "^dotnet $app serve $work/port\$")
    check "the app serves (a port, a pid)" test -n "$port" -a -n "$spid"
    answers() { # ROUTE...: GET /ROUTE/i for i = 1..3 of each, one answer a line
        local r i
        for r in "$@"; do for ((i = 1; i <= 3; i++)); do echo "$r $i: $(http_get "$port" "/$r/$i")"; done; done
    }
    want_answers=$(grep -E '^(order|text|slow) [123]:' <<<"$expected")
    for ((k = 0; k < 5; k++)); do answers order text slow >"$work/warm.$k"; done
    check_eq "before the attach: the app's answers" "$want_answers" "$(cat "$work/warm.4")"
    at="$work/attach.txt"
    "$ct" run -p "$spid" -F 'Web.*' -o "$at" 2>"$work/attach.err" &
    cli=$!
    ct_wait_attached "$work/attach.err"
    answers order text slow >"$work/during"
    kill -INT "$cli"
    wait "$cli"
    check_eq "run -p: exit code 0" 0 "$?"
    check_eq "while attached: the app's answers" "$want_answers" "$(cat "$work/during")"
    check "the NoInlining /slow handler: traced, 3 calls, the values by hand" ct_diff_tree \
        "$(for i in 1 2 3; do q=$((2 * i + 1)); printf '%s\n' \
            "Web.Program.<>c.<Main>b__0_2(this=Web.Program.<>c@ADDR, int id=$i) {" \
            "  Web.Shop.Place(int id=$i) -> int $q" \
            "  Web.Shop.Receipt(int qty=$q) {" \
            "    Web.Shop.Total(int qty=$q) -> int $((250 * q + 99))" \
            "  } -> string \"qty $q total $((250 * q + 99))\"" \
            "} -> string \"qty $q total $((250 * q + 99))\""; done)" \
        "$(for i in 1 2 3; do call_tree "$at" "Web.Program.<>c.<Main>b__0_2(this=Web.Program.<>c@ADDR, int id=$i)"; done)"
    check_eq "Place: 9 calls traced (3 requests of each route)" 9 "$(grep -c 'Web\.Shop\.Place(' "$at")"
    check_eq "the /order handler, inlined into the request delegate before the attach: no call traced" \
        0 "$(grep -c 'b__0_0(' "$at")"
    # After the detach line, one line names every chosen method with no call
    # since the attach, with no claim that it was inlined (issue 35): the
    # handler among them, the methods it calls (called) not.
    uncalled=$(ct_after_detach "$work/attach.err")
    check "clrtrace names it, after its detach line, among the methods with no call since the attach" \
        grep -qE '^clrtrace run: [0-9]+ chosen methods? had 0 calls since the attach \(not called since, or called only from code compiled before it that the runtime cannot recompile: dynamic methods such as serializers, dependency injection and request delegates; trace the program from its start to see them\): (.*; )?Web\.Program\.<>c\.<Main>b__0_0(;|$)' <<<"$uncalled"
    check_eq "that line is the only one, and names no called method (Place, Receipt, Total, b__0_2)" \
        "1 0" "$(wc -l <<<"$uncalled") $(grep -cE 'Web\.Shop\.(Place|Receipt|Total)(;|$)|b__0_2(;|$)' <<<"$uncalled")"
    # Again, ASP.NET Core's own code, with a 1% budget (issue 27): the app
    # answers as before; each step the budget took names a function and a
    # share over 1% of a thread's time.
    at2="$work/attach2.txt"
    "$ct" run -p "$spid" --assembly 'Microsoft.AspNetCore.*' --max-overhead 1 -o "$at2" \
        2>"$work/attach2.err" &
    cli=$!
    ct_wait_attached "$work/attach2.err"
    for ((k = 0; k < 5; k++)); do answers order text slow >"$work/during2.$k"; done
    kill -INT "$cli"
    wait "$cli"
    check_eq "run -p, ASP.NET Core, budget 1%: exit code 0" 0 "$?"
    check_eq "run -p, budget 1%: the app's answers" "$want_answers" "$(cat "$work/during2.4")"
    check "run -p, budget 1%: the header says so" grep -qE '^# .*, budget 1%, lossy, attached$' "$at2"
    check "run -p, budget 1%: ASP.NET Core's calls traced" grep -qE ' Microsoft\.AspNetCore\.' "$at2"
    check_eq "run -p, budget 1%: every step names a function and a share over 1%" "" \
        "$(grep '^# budget at' "$at2" | grep -vE '^# budget at [0-9]+\.[0-9]{6}: ((async|iterator) )?[^ ]+ (values off|sampled: one call in 16 per thread|untraced|recorded again|values off)( \(the tracer took ([1-9][0-9]*|[1-9])\.[0-9]% of thread [0-9]+.s time\))?$' || true)"
    http_get "$port" /quit >/dev/null
    for ((i = 0; i < 300; i++)); do [[ -s "$work/serve.rc" ]] && break; sleep 0.1; done
    check_eq "the app ends after GET /quit: exit code 0" 0 "$(cat "$work/serve.rc" 2>/dev/null)"
    check "the app: nothing on its stdout" ct_empty "$work/serve.out"
    check "the app: nothing on its stderr" ct_empty "$work/serve.err"
fi

ct_end run_web.sh
