#!/usr/bin/env python3
"""Checks the JSON of `clrtrace dump --chrome` (tests/e2e/run_chrome.sh).

  check_chrome.py validate FILE   the file is strict JSON (UTF-8, no NaN or
                                  Infinity) in the Chrome Trace Event Format
                                  as docs/cli.md describes it; complete events
                                  nest strictly on each thread; every thread
                                  with events has a thread_name and the process
                                  a process_name. Prints "events=N threads=T
                                  unfinished=U" or the problems (exit 1).
  check_chrome.py calls FILE      one line per complete event, in start order
                                  per thread (threads by first start):
                                  "TID NAME ARGS" with ARGS as JSON, keys
                                  sorted, object addresses written @ADDR and
                                  pointers 0xADDR.
  check_chrome.py names FILE      "TID NAME" per complete event, in that order.
  check_chrome.py event FILE NAME the first event named NAME as "TS DUR" in ns.
"""
import decimal
import json
import re
import sys

ENDINGS = ("exception", "tailcall", "unfinished")


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8")  # strict: invalid UTF-8 raises

    def no_constant(name):
        raise ValueError("non-standard JSON constant " + name)

    return json.loads(text, parse_float=decimal.Decimal, parse_constant=no_constant)


def ns(v):
    """A ts/dur in microseconds (three decimals at most) as integer ns."""
    d = decimal.Decimal(v) * 1000
    if d != d.to_integral_value():
        raise ValueError("more than three decimals: %s" % v)
    return int(d)


def x_events(doc):
    return [e for e in doc["traceEvents"] if e.get("ph") == "X"]


def validate(path):
    problems = []

    def bad(msg):
        if len(problems) < 20:
            problems.append(msg)

    doc = load(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("no traceEvents array")
        return 1
    procs, tnames, by_thread = set(), set(), {}
    unfinished = 0
    for i, e in enumerate(doc["traceEvents"]):
        if not isinstance(e, dict):
            bad("event %d is not an object" % i)
            continue
        ph = e.get("ph")
        if ph == "M":
            name, args = e.get("name"), e.get("args")
            if name not in ("process_name", "thread_name") or not isinstance(args, dict) \
                    or not isinstance(args.get("name"), str) or not args["name"]:
                bad("metadata event %d: %r" % (i, e))
            elif name == "process_name":
                procs.add(e.get("pid"))
            else:
                tnames.add((e.get("pid"), e.get("tid")))
            continue
        if ph != "X":
            bad("event %d: ph %r" % (i, ph))
            continue
        for k, t in (("name", str), ("cat", str), ("pid", int), ("tid", int), ("args", dict)):
            if not isinstance(e.get(k), t):
                bad("event %d: %s is not %s: %r" % (i, k, t.__name__, e))
        for k in ("ts", "dur"):
            v = e.get(k)
            if not isinstance(v, (int, decimal.Decimal)) or v < 0:
                bad("event %d: %s %r" % (i, k, v))
        args = e.get("args", {})
        ends = [k for k in ENDINGS if k in args]
        for k, v in args.items():
            if k == "exception" and isinstance(v, str) and v:
                pass  # the exception's type and message
            elif k in ENDINGS:
                if v is not True:
                    bad("event %d: %s is %r, not true" % (i, k, v))
            elif not isinstance(v, str):
                bad("event %d: argument %s is not a string: %r" % (i, k, v))
        if len(ends) > 1 or (ends and "return" in args):
            bad("event %d ends more than one way: %r" % (i, args))
        unfinished += "unfinished" in args
        try:
            start, end = ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])
        except (KeyError, ValueError, decimal.InvalidOperation) as err:
            bad("event %d: %s" % (i, err))
            continue
        by_thread.setdefault((e.get("pid"), e.get("tid")), []).append((start, end, e["name"]))
    # Strict nesting: sorted by start (longest first on ties), each event
    # lies inside the innermost event still open, and none overlaps another.
    for key, evs in by_thread.items():
        evs.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for start, end, name in evs:
            while stack and not (stack[-1][0] <= start and end <= stack[-1][1]):
                top = stack.pop()
                if top[1] > start:
                    bad("tid %s: %s [%d, %d] overlaps %s [%d, %d]"
                        % (key[1], name, start, end, top[2], top[0], top[1]))
            stack.append((start, end, name))
        if key not in tnames:
            bad("tid %s has events but no thread_name" % key[1])
        if key[0] not in procs:
            bad("pid %s has events but no process_name" % key[0])
    if not procs:
        bad("no process_name")
    other = doc.get("otherData")
    if not isinstance(other, dict) or other.get("producer") != "clrtrace":
        bad("otherData missing")
    if problems:
        print("\n".join(problems))
        return 1
    print("events=%d threads=%d unfinished=%d"
          % (sum(len(v) for v in by_thread.values()), len(by_thread), unfinished))
    return 0


def masked(s):
    s = re.sub(r"@0x[0-9a-f]+", "@ADDR", s)
    return re.sub(r"\b0x[0-9a-f]+", "0xADDR", s)


def calls(path, names_only=False):
    evs = x_events(load(path))
    first = {}
    for e in evs:
        first[e["tid"]] = min(first.get(e["tid"], e["ts"]), e["ts"])
    evs.sort(key=lambda e: (first[e["tid"]], e["tid"], e["ts"], -e["dur"]))
    for e in evs:
        if names_only:
            print(e["tid"], e["name"])
            continue
        args = {k: masked(v) if isinstance(v, str) else v for k, v in e["args"].items()}
        print(e["tid"], e["name"], json.dumps(args, sort_keys=True, ensure_ascii=False))
    return 0


def event(path, name):
    for e in x_events(load(path)):
        if e["name"] == name:
            print(ns(e["ts"]), ns(e["dur"]))
            return 0
    return 1


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 2 else ""
    if cmd == "validate":
        try:
            sys.exit(validate(sys.argv[2]))
        except ValueError as err:  # JSONDecodeError and UnicodeDecodeError too
            print("not valid JSON: %s" % err)
            sys.exit(1)
    elif cmd in ("calls", "names"):
        sys.exit(calls(sys.argv[2], cmd == "names"))
    elif cmd == "event" and len(sys.argv) > 3:
        sys.exit(event(sys.argv[2], sys.argv[3]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
