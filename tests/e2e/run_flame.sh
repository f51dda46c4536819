#!/usr/bin/env bash
# clrtrace dump --flame: the SVG flame graph of a recorded trace of
# tests/targets/Hello, checked by check_flame.py against dump --folded of the
# same trace: well-formed XML, every frame as wide as the weight of its
# stack's folded lines, siblings in name order, nothing missing or extra.
#
# From Hello's source: Main makes 27 calls in all, counting itself (Add, Scale,
# Fib(5) with its 14 recursive calls, the Greeter and Counter constructors,
# Greet, Bump twice, TryDivide twice, each calling Divide). Fib's rule
# (n < 2 ? n : Fib(n - 1) + Fib(n - 2)) gives the calls at each recursion
# depth below Fib(5), computed here from that rule.
# Usage: run_flame.sh PATH/TO/libclrtrace.so
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
ct_setup flame "${1:-}" cli
flame_check() { python3 "$here/check_flame.py" "$@"; }

echo "== building tests/targets/Hello"
hello=$(ct_dotnet_build "$root/tests/targets/Hello" "$work") && [[ -n "$hello" ]] ||
    { echo "ERROR: dotnet build failed" >&2; exit 2; }
ct_run "$work" rec "$ct" record -o "$work/rec" --profiler "$lib" -- dotnet "$hello"
check_eq "Hello recorded (its exit code 3)" 3 "$(cat "$work/rec.rc")"

# ------------------------------------------------------ weighted by calls
ct_run "$work" calls "$ct" dump --flame --calls "$work/rec"
check_eq "--flame --calls: exit 0, nothing on stderr" "0 0" "$(cat "$work/calls.rc") $(wc -c < "$work/calls.err")"
"$ct" dump --folded --calls "$work/rec" > "$work/calls.folded"
flame_check "$work/calls.out" "$work/calls.folded" 1200 > "$work/calls.frames"
check "--flame --calls: well-formed SVG; frames, widths and order agree with --folded --calls" \
    bash -c 'cat "$0"; [[ $(head -c 7 "$0") == frames= ]]' "$work/calls.frames"
title() { awk -F'\t' -v s="$1" 'NR > 1 && $1 == s { print $3 }' "$2"; }
check_eq "--calls: the bottom frame is all 27 calls" "all (27 calls, 100.00%)" "$(title "" "$work/calls.frames")"
check_eq "--calls: Main, all 27" "Demo.Program.Main (27 calls, 100.00%)" \
    "$(title "Demo.Program.Main" "$work/calls.frames")"
check_eq "--calls: TryDivide's stack has 4 calls, 2 of them Divide" \
    "Demo.MathOps.TryDivide (4 calls, 14.81%)|Demo.MathOps.Divide (2 calls, 7.41%)" \
    "$(title "Demo.Program.Main;Demo.MathOps.TryDivide" "$work/calls.frames")|$(title "Demo.Program.Main;Demo.MathOps.TryDivide;Demo.MathOps.Divide" "$work/calls.frames")"
# Calls at each depth of Fib(5)'s recursion, and the frames of those depths.
want=$(python3 -c '
def fib(n, d, per):
    per[d] = per.get(d, 0) + 1
    if n >= 2:
        fib(n - 1, d + 1, per); fib(n - 2, d + 1, per)
per = {}
fib(5, 0, per)
for d in sorted(per):
    n = sum(v for k, v in per.items() if k >= d)  # a frame counts the calls above it too
    print("Demo.MathOps.Fib (%d call%s, %.2f%%)" % (n, "" if n == 1 else "s", 100.0 * n / 27))')
got=$(for d in 1 2 3 4 5; do
        s="Demo.Program.Main"; for ((k = 0; k < d; k++)); do s="$s;Demo.MathOps.Fib"; done
        title "$s" "$work/calls.frames"; done)
check "--calls: Fib's tower, its calls per level from Fib's rule" ct_diff_tree "$want" "$got"
names=$(grep -o '<title>[^<]* (' "$work/calls.out" | sed 's/<title>//; s/ ($//' | sort -u)
check_eq "--calls: the functions of Hello's source, each a frame" \
    "$(printf '%s\n' all Demo.Greeter..ctor Demo.Greeter.Counter..ctor Demo.Greeter.Counter.Bump \
        Demo.Greeter.Greet Demo.MathOps.Add Demo.MathOps.Divide Demo.MathOps.Fib Demo.MathOps.Scale \
        Demo.MathOps.TryDivide Demo.Program.Main | sort)" "$names"
check "--calls: a colour per name (the same name, the same fill)" python3 -c '
import re, sys
fills = {}
for t, f in re.findall(r"<title>(.*?) \([^<]*</title><rect [^>]*fill=\"([^\"]+)\"", open(sys.argv[1]).read()):
    fills.setdefault(t, set()).add(f)
sys.exit(0 if fills and all(len(v) == 1 for v in fills.values()) else 1)' "$work/calls.out"

# -------------------------------------------------------- weighted by time
ct_run "$work" time "$ct" dump --flame "$work/rec"
"$ct" dump --folded "$work/rec" > "$work/time.folded"
flame_check "$work/time.out" "$work/time.folded" 1200 > "$work/time.frames"
check "--flame (time): well-formed SVG; frames and widths agree with --folded" \
    bash -c 'cat "$0"; [[ $(head -c 7 "$0") == frames= ]]' "$work/time.frames"
check "--flame (time): Main is the whole width (1180 px inside the margins)" \
    grep -qxF "$(printf 'Demo.Program.Main\t1180.00\t')$(title Demo.Program.Main "$work/time.frames")" "$work/time.frames"
check "--flame (time): the subtitle names the program and the weighting" \
    grep -qF "dotnet $hello: by time, " "$work/time.out"

# ------------------------------------------------------- width and title
ct_run "$work" narrow "$ct" dump --flame --calls --width 600 --title 'Hello & <friends> "quoted"' "$work/rec"
flame_check "$work/narrow.out" "$work/calls.folded" 600 > "$work/narrow.frames"
check "--width 600: frames scaled to 580 px" bash -c 'cat "$0"; [[ $(head -c 7 "$0") == frames= ]]' "$work/narrow.frames"
check_eq "--title: text with & < > \" escaped, read back whole by an XML parser" 'Hello & <friends> "quoted"' \
    "$(python3 -c 'import sys, xml.etree.ElementTree as E
print(next(E.parse(sys.argv[1]).getroot().iter("{http://www.w3.org/2000/svg}text")).text)' "$work/narrow.out")"

for px in 200 100000; do  # FLAME_MIN_WIDTH, FLAME_MAX_WIDTH
    ct_run "$work" edge "$ct" dump --flame --calls --width "$px" "$work/rec"
    check_eq "--width $px (a limit): exit 0" 0 "$(cat "$work/edge.rc")"
    check "--width $px: frames scaled to $((px - 20)) px" flame_check "$work/edge.out" "$work/calls.folded" "$px"
done

# ------------------------------------------------------------ interaction
# Labels cut to fit keep the end of the name (the method): "..Tree.Leaf";
# every label is the frame's name or ".." and a suffix of it.
check "labels: whole names, or '..' and the end of the name" python3 -c '
import re, sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
cut = 0
for g in E.parse(sys.argv[1]).getroot().iter(ns + "g"):
    title, text = g.find(ns + "title"), g.find(ns + "text")
    if title is None or text is None:
        continue
    name = re.fullmatch(r"(.*) \(([^()]*), ([0-9.]+)%\)", title.text, re.S).group(1)
    label = text.text or ""
    if label.startswith(".."):
        cut += 1
        if not name.endswith(label[2:]) or len(label) >= len(name) + 2:
            sys.exit("label %r of %r" % (label, name))
    elif label != name:
        sys.exit("label %r of %r" % (label, name))
print("cut labels:", cut)
sys.exit(0 if cut else "no label was cut (--width 600 should cut some)")' "$work/narrow.out"
# The script: zoom, search, reset (flamegraph.pl's manner).
check "the SVG carries its script and its Search and Reset zoom controls" bash -c \
    'grep -q "<script type=\"text/ecmascript\"><!\[CDATA\[" "$0" && grep -q ">Search</text>" "$0" && grep -q ">Reset zoom</text>" "$0"' "$work/narrow.out"
python3 -c 'import re, sys; print(re.search(r"<!\[CDATA\[(.*?)\]\]>", open(sys.argv[1]).read(), re.S).group(1))' \
    "$work/narrow.out" >"$work/flame.js"
check "the script parses (node --check)" node --check "$work/flame.js"
# In a real browser: chromium, headless, driven over its DevTools protocol
# (flame_browser.js) opens the 600 px graph (frames 580 px wide from x = 10),
# clicks TryDivide (4 of the 27 calls: TryDivide twice, each calling
# Divide), then "Reset zoom", then "Search" and answers its prompt "Fib".
# The zoom shows TryDivide 580 px wide with its callers Main and all, Divide
# (2 of its 4 calls) 290 px, hides the other 11 frames and shows the reset;
# the reset puts every frame back where the SVG drew it and hides itself; the
# search marks the 5 Fib frames (Fib's 15 calls of 27 hold the whole tower:
# 55.56% matched), the other frames keep their colours. Screenshots of the
# zoom and of the search stay in the build tree (tests/artifacts).
art=$(dirname "$lib")/../../tests/artifacts
mkdir -p "$art" && art=$(cd "$art" && pwd)
shot=$art/flame${CLRTRACE_ENGINE:+-$CLRTRACE_ENGINE}
rm -f "$shot.png" "$shot-zoom.png"
cp "$work/narrow.out" "$work/narrow.svg" # a file:// page is an SVG by its name
node "$here/flame_browser.js" "$work/narrow.svg" Demo.MathOps.TryDivide Fib "$shot" >"$work/browser.out" 2>"$work/browser.err"
check_eq "browser: flame_browser.js ran to the end (exit 0)" "0" "$?$(head -c 300 "$work/browser.err")"
line() { sed -n "s/^$1: //p" "$work/browser.out"; }
check_eq "browser: the page's script threw nothing" none "$(line 'page errors')"
# The frames as the SVG drew them: [name, x, width], 1 decimal.
drawn=$(python3 -c 'import json, re, sys
s = open(sys.argv[1]).read()
print(json.dumps([[t, "%.1f" % float(x), "%.1f" % float(w)] for t, x, w in
    re.findall(r"<g><title>(.*?) \([^()]*\)</title><rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"", s)],
    separators=(",", ":")))' "$work/narrow.out")
check_eq "browser: the frames it read at load are the SVG's" "$drawn" "$(line load)"
# zoomed FRAMES-JSON: the shown frames, then how many are hidden.
zoomed() { python3 -c 'import json, sys
f = json.loads(sys.argv[1])
print(" ".join("%s@%s+%s" % tuple(x) for x in f if len(x) == 3), "hidden:", sum(len(x) == 2 for x in f))' "$1"; }
check_eq "browser: a click on TryDivide zooms: it and its callers 580 px from x=10, Divide 290 px, 11 frames hidden" \
    "all@10.0+580.0 Demo.Program.Main@10.0+580.0 Demo.MathOps.TryDivide@10.0+580.0 Demo.MathOps.Divide@10.0+290.0 hidden: 11" \
    "$(zoomed "$(line 'zoom Demo.MathOps.TryDivide')")"
check_eq "browser: the zoom shows Reset zoom" 1 "$(line 'reset visible')"
check_eq "browser: Reset zoom puts every frame back where the SVG drew it" "$drawn" "$(line 'after reset')"
check_eq "browser: Reset zoom hides itself" 0 "$(line 'reset hidden')"
check_eq "browser: a search for Fib: 55.56% matched, its 5 frames marked, the 10 others keep their colours" \
    'Matched: 55.56%|["Demo.MathOps.Fib","Demo.MathOps.Fib","Demo.MathOps.Fib","Demo.MathOps.Fib","Demo.MathOps.Fib"]|10 of 10' \
    "$(line search)|$(line highlighted)|$(line 'fills kept')"
check "browser: screenshots kept ($shot.png, $shot-zoom.png)" test -s "$shot.png" -a -s "$shot-zoom.png"

# ------------------------------------------------------------------ usage
for bad in "--width 199 --flame" "--width 100001 --flame" "--width x --flame" "--width --flame" "--title t --chrome" \
           "--flame --chrome" "--flame --folded" "--width 800"; do
    # shellcheck disable=SC2086
    ct_run "$work" usage "$ct" dump $bad "$work/rec"
    check_eq "dump $bad: usage error 2, one line" "2 1" "$(cat "$work/usage.rc") $(wc -l < "$work/usage.err")"
done
printf 'CLRTRACEgarbage' > "$work/bad.clrt"
ct_run "$work" bad "$ct" dump --flame "$work/bad.clrt"
check_eq "a file that is no trace: exit 1, one line" "1 1" "$(cat "$work/bad.rc") $(wc -l < "$work/bad.err")"

ct_end run_flame.sh
