#!/usr/bin/env python3
"""Checks an SVG of `clrtrace dump --flame` against the folded stacks of the
same trace (`clrtrace dump --folded`, same weighting) (tests/e2e/run_flame.sh).

  check_flame.py SVG FOLDED WIDTH

The SVG must be well-formed XML with an <svg> root WIDTH wide. Each frame is
a <g> holding a <title> ("NAME (VALUE, P%)") and a <rect>. The stack of a
frame is found from the geometry alone: its caller is the frame one row
below whose x range holds it. Then, with W = WIDTH - 20 (the margins) and
T the sum of all folded weights:
  - the bottom frame is "all", W wide;
  - each frame is (sum of the weights of the folded lines that begin with its
    stack) / T * W wide, and starts where its left siblings end;
  - every stack whose width is at least 0.1 px is drawn, exactly once, and
    nothing else; P is its share of T.
Prints "frames=N total=T" and, one per line, "STACK<TAB>WIDTH<TAB>TITLE" for
the drawn frames, or the problems (exit 1).

  check_flame.py fills SVG    a colour per name: the frames of one name have
                              one fill (exit 1 otherwise)
  check_flame.py labels SVG   every label is its frame's name, or ".." and
                              the end of the name; some are cut (prints
                              "cut labels: N"; exit 1 otherwise)
  check_flame.py title SVG    the text of the first <text> (the title)
  check_flame.py script SVG   the script inside its CDATA section
  check_flame.py drawn SVG    the frames as drawn, [name, x, width] with one
                              decimal, as JSON (flame_browser.js's form)
  check_flame.py zoomed JSON  flame_browser.js's frames after a zoom: the
                              shown ones "NAME@X+WIDTH", then "hidden: N"
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
TOL = 0.011       # widths and x are printed with two decimals
MIN_PX = 0.1      # flame.c's FLAME_MIN_FRAME_PX
ROW = 16          # flame.c's FLAME_FRAME_HEIGHT


def main(svg_path, folded_path, width):
    problems = []

    def bad(msg):
        if len(problems) < 20:
            problems.append(msg)

    root = ET.parse(svg_path).getroot()
    if root.tag != NS + "svg" or root.get("width") != str(width):
        print("root is %s width=%s" % (root.tag, root.get("width")))
        return 1
    frames = []
    for g in root.iter(NS + "g"):
        title, rect = g.find(NS + "title"), g.find(NS + "rect")
        if title is None or rect is None:
            continue
        m = re.fullmatch(r"(.*) \(([^()]*), ([0-9.]+)%\)", title.text or "", re.S)
        if not m:
            bad("title %r" % title.text)
            continue
        frames.append({"name": m.group(1), "value": m.group(2), "pct": float(m.group(3)),
                       "title": title.text, "x": float(rect.get("x")), "y": float(rect.get("y")),
                       "w": float(rect.get("width"))})
    if not frames:
        print("no frames")
        return 1
    # Stacks from the geometry: the bottom row is the root.
    frames.sort(key=lambda f: (-f["y"], f["x"]))
    bottom = frames[0]["y"]
    if sum(1 for f in frames if f["y"] == bottom) != 1 or frames[0]["name"] != "all":
        bad("the bottom row is not one frame named all")
    frames[0]["stack"] = ()
    for f in frames[1:]:
        below = [p for p in frames if p["y"] == f["y"] + ROW and "stack" in p
                 and p["x"] - TOL <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"] + TOL]
        if len(below) != 1:
            bad("frame %s at x=%s y=%s has %d callers below" % (f["name"], f["x"], f["y"], len(below)))
            f["stack"] = None
            continue
        p = below[0]
        f["stack"] = None if p["stack"] is None else p["stack"] + (f["name"],)
    # The folded stacks: weight per stack prefix.
    weight, total = {(): 0}, 0
    for line in open(folded_path, encoding="utf-8"):
        stack, w = line.rstrip("\n").rsplit(" ", 1)
        frames_of = tuple(stack.split(";"))
        total += int(w)
        for k in range(len(frames_of) + 1):
            weight[frames_of[:k]] = weight.get(frames_of[:k], 0) + int(w)
    avail = width - 20
    drawn = {}
    for f in frames:
        s = f["stack"]
        if s is None:
            continue
        if s in drawn:
            bad("stack drawn twice: %s" % ";".join(s))
        drawn[s] = f
        want = weight.get(s, 0) / total * avail if total else avail
        if abs(f["w"] - want) > TOL:
            bad("%s: width %.2f, expected %.4f" % (";".join(s) or "all", f["w"], want))
        pct = 100.0 * weight.get(s, 0) / total if total else 100.0
        if abs(f["pct"] - pct) > 0.006:
            bad("%s: %.2f%%, expected %.4f%%" % (";".join(s) or "all", f["pct"], pct))
    # Left to right by name: a frame starts after the weight of the siblings
    # whose names sort before its own (drawn or not).
    for s, f in drawn.items():
        if not s:
            continue
        left = sum(w for o, w in weight.items() if len(o) == len(s) and o[:-1] == s[:-1]
                   and o[-1].encode() < s[-1].encode())
        want_x = drawn[s[:-1]]["x"] + left / total * avail if s[:-1] in drawn else None
        if want_x is not None and abs(f["x"] - want_x) > 2 * TOL:
            bad("%s: x %.2f, expected %.4f" % (";".join(s), f["x"], want_x))
    for s, w in weight.items():
        px = w / total * avail if total else 0
        if px >= MIN_PX + TOL and s not in drawn:
            bad("stack %s (%.2f px) not drawn" % (";".join(s), px))
    if problems:
        print("\n".join(problems))
        return 1
    print("frames=%d total=%d" % (len(frames), total))
    for f in frames:
        print("%s\t%.2f\t%s" % (";".join(f["stack"]), f["w"], f["title"]))
    return 0


def fills(svg):
    seen = {}
    for t, f in re.findall(r"<title>(.*?) \([^<]*</title><rect [^>]*fill=\"([^\"]+)\"", open(svg).read()):
        seen.setdefault(t, set()).add(f)
    return 0 if seen and all(len(v) == 1 for v in seen.values()) else 1


def labels(svg):
    cut = 0
    for g in ET.parse(svg).getroot().iter(NS + "g"):
        title, text = g.find(NS + "title"), g.find(NS + "text")
        if title is None or text is None:
            continue
        name = re.fullmatch(r"(.*) \(([^()]*), ([0-9.]+)%\)", title.text, re.S).group(1)
        label = text.text or ""
        if label.startswith(".."):
            cut += 1
            if not name.endswith(label[2:]) or len(label) >= len(name) + 2:
                return "label %r of %r" % (label, name)
        elif label != name:
            return "label %r of %r" % (label, name)
    print("cut labels:", cut)
    return 0 if cut else "no label was cut (--width 600 should cut some)"


def drawn(svg):
    s = open(svg).read()
    print(json.dumps([[t, "%.1f" % float(x), "%.1f" % float(w)] for t, x, w in
                      re.findall(r"<g><title>(.*?) \([^()]*\)</title><rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"", s)],
                     separators=(",", ":")))
    return 0


def zoomed(frames):
    f = json.loads(frames)
    print(" ".join("%s@%s+%s" % tuple(x) for x in f if len(x) == 3), "hidden:", sum(len(x) == 2 for x in f))
    return 0


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] in ("fills", "labels", "title", "script", "drawn", "zoomed"):
    cmd, arg = sys.argv[1], sys.argv[2]
    if cmd == "title":
        print(next(ET.parse(arg).getroot().iter(NS + "text")).text)
    elif cmd == "script":
        print(re.search(r"<!\[CDATA\[(.*?)\]\]>", open(arg).read(), re.S).group(1))
    else:
        sys.exit({"fills": fills, "labels": labels, "drawn": drawn, "zoomed": zoomed}[cmd](arg))
elif __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
    except ET.ParseError as err:
        print("not well-formed XML: %s" % err)
        sys.exit(1)
