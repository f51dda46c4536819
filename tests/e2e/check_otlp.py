#!/usr/bin/env python3
"""Checks the text `protoc --decode=opentelemetry.proto.collector.trace.v1.
ExportTraceServiceRequest -I tests/otlp` prints for `clrtrace dump --otlp`
(run_otlp.sh).

  check_otlp.py validate TEXT [TEXT...]
      The requests of TEXT... together (one per batch sent, or one file):
      every ResourceSpans has the same resource and one ScopeSpans of scope
      "clrtrace"; every span has a 16-byte trace id and an 8-byte span id,
      none zero, span ids unique; kind INTERNAL; start <= end; a parent
      span id names a span of the same trace, which began no later and
      ended no earlier (unless the span is an async call's, clrtrace.async,
      which ends when its task does) and is on the same thread (thread.id); a span with
      status ERROR has one "exception" event with exception.type; each
      trace has one root. Prints "spans=N batches=B roots=R traces=T
      threads=K errors=E".
  check_otlp.py calls TEXT [TEXT...]
      The call tree from the parent links: one line per span, in call order
      (roots by start time, children by start time under their parent),
      indented two spaces per depth, "NAME ARGS": ARGS the JSON object of
      its attributes as --perfetto's annotations read (arg.X as X, return,
      at_return as "at return", the exception event's clrtrace.exception as
      "exception", clrtrace.tailcall/unfinished as tailcall/unfinished),
      keys sorted, addresses @ADDR.
  check_otlp.py resource TEXT
      "KEY=VALUE" per resource attribute.
  check_otlp.py exception TEXT NAME
      The first span of NAME's exception: "status=CODE|MESSAGE" then
      "type=...", "message=..." and the event's time minus the span's end.
  check_otlp.py span TEXT NAME
      "START END" of the first span of NAME (Unix ns).
  check_otlp.py batches TEXT
      The spans of each ResourceSpans, one number a line.
  check_otlp.py ids TEXT
      "NAME TRACE_ID PARENT_SPAN_ID" per span (hex; "-" for no parent).
"""
import codecs
import json
import re
import sys

BYTES = {"trace_id", "span_id", "parent_span_id"}


def parse(path):
    """The text format as nested lists of (key, value); a message is a list."""
    root = []
    stack = [root]
    for line in open(path, encoding="ascii"):
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        if line.endswith(" {"):
            msg = []
            stack[-1].append((line[:-2], msg))
            stack.append(msg)
            continue
        key, _, val = line.partition(": ")
        if val.startswith('"'):
            raw = codecs.escape_decode(val[1:-1].encode("ascii"))[0]
            val = raw.hex() if key in BYTES else raw.decode("utf-8")
        elif re.fullmatch(r"-?[0-9]+", val):
            val = int(val)
        stack[-1].append((key, val))
    if len(stack) != 1:
        raise SystemExit("unbalanced braces")
    return root


def get(msg, key, default=None):
    for k, v in msg:
        if k == key:
            return v
    return default


def get_all(msg, key):
    return [v for k, v in msg if k == key]


def attrs(msg, key="attributes"):
    out = {}
    for kv in get_all(msg, key):
        v = get(kv, "value", [])
        out[get(kv, "key")] = v[0][1] if v else None
    return out


def masked(s):
    s = re.sub(r"@0x[0-9a-f]+", "@ADDR", s)
    return re.sub(r"\b0x[0-9a-f]+", "0xADDR", s)


class Spans:
    def __init__(self, paths):
        self.problems = []
        self.spans = []
        self.batches = []
        self.resources = []
        for path in paths:
            for rs in get_all(parse(path), "resource_spans"):
                self.resources.append(attrs(get(rs, "resource", [])))
                n = 0
                sss = get_all(rs, "scope_spans")
                if len(sss) != 1:
                    self.problems.append("%d ScopeSpans in a ResourceSpans" % len(sss))
                for ss in sss:
                    scope = get(ss, "scope", [])
                    if get(scope, "name") != "clrtrace":
                        self.problems.append("scope %r" % get(scope, "name"))
                    for sp in get_all(ss, "spans"):
                        self.spans.append(sp)
                        n += 1
                self.batches.append(n)
        self.by_id = {}
        for i, sp in enumerate(self.spans):
            sid = get(sp, "span_id")
            if sid in self.by_id:
                self.problems.append("span id %s twice" % sid)
            self.by_id[sid] = i

    def thread(self, sp):
        return attrs(sp).get("thread.id")

    def validate(self):
        p = self.problems
        if any(r != self.resources[0] for r in self.resources):
            p.append("the ResourceSpans' resources differ")
        roots, traces, threads, errors = {}, set(), set(), 0
        for sp in self.spans:
            name = get(sp, "name")
            tid, sid, par = get(sp, "trace_id"), get(sp, "span_id"), get(sp, "parent_span_id")
            if not tid or len(tid) != 32 or set(tid) == {"0"}:
                p.append("%s: trace id %r" % (name, tid))
            if not sid or len(sid) != 16 or set(sid) == {"0"}:
                p.append("%s: span id %r" % (name, sid))
            if get(sp, "kind") != "SPAN_KIND_INTERNAL":
                p.append("%s: kind %r" % (name, get(sp, "kind")))
            s, e = get(sp, "start_time_unix_nano"), get(sp, "end_time_unix_nano")
            if s is None or e is None or s > e:
                p.append("%s: times %r %r" % (name, s, e))
            traces.add(tid)
            threads.add(self.thread(sp))
            if par is None:
                roots[tid] = roots.get(tid, 0) + 1
            elif par not in self.by_id:
                p.append("%s: parent %s is no span" % (name, par))
            else:
                up = self.spans[self.by_id[par]]
                if get(up, "trace_id") != tid:
                    p.append("%s: its parent is in another trace" % name)
                # An async call's span (clrtrace.async) ends when its task
                # does: after its caller, often.
                if get(up, "start_time_unix_nano") > s or (
                        get(up, "end_time_unix_nano") < e and "clrtrace.async" not in attrs(sp)):
                    p.append("%s: outside its parent %s" % (name, get(up, "name")))
                if self.thread(up) != self.thread(sp):
                    p.append("%s: its parent is on another thread" % name)
            st = get(sp, "status")
            evs = [ev for ev in get_all(sp, "events") if get(ev, "name") == "exception"]
            if st and get(st, "code") == "STATUS_CODE_ERROR":
                errors += 1
                if len(evs) != 1 or "exception.type" not in attrs(evs[0]):
                    p.append("%s: status ERROR without one exception event with a type" % name)
            elif evs:
                p.append("%s: an exception event without status ERROR" % name)
        for tid in traces:
            if roots.get(tid, 0) != 1:
                p.append("trace %s: %d roots" % (tid, roots.get(tid, 0)))
        if p:
            print("\n".join(p[:20]))
            return 1
        print("spans=%d batches=%d roots=%d traces=%d threads=%d errors=%d"
              % (len(self.spans), len(self.batches), sum(roots.values()), len(traces),
                 len(threads), errors))
        return 0

    def args(self, sp):
        out = {}
        for k, v in attrs(sp).items():
            if k.startswith("arg."):
                out[k[4:]] = v
            elif k in ("return",):
                out[k] = v
            elif k == "at_return":
                out["at return"] = v
            elif k.startswith("clrtrace."):
                out[k[9:]] = v
        for ev in get_all(sp, "events"):
            a = attrs(ev)
            if get(ev, "name") == "exception":
                out["exception"] = a.get("clrtrace.exception", True)
        return {k: masked(v) if isinstance(v, str) else v for k, v in out.items()}

    def calls(self):
        kids = {}
        for i, sp in enumerate(self.spans):
            kids.setdefault(get(sp, "parent_span_id"), []).append(i)
        key = lambda i: (get(self.spans[i], "start_time_unix_nano"), i)

        def walk(i, depth):
            sp = self.spans[i]
            print("  " * depth + get(sp, "name"),
                  json.dumps(self.args(sp), sort_keys=True, ensure_ascii=False))
            for k in sorted(kids.get(get(sp, "span_id"), []), key=key):
                walk(k, depth + 1)

        roots = [i for i, sp in enumerate(self.spans)
                 if get(sp, "parent_span_id") not in self.by_id]
        for i in sorted(roots, key=key):
            walk(i, 0)
        return 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = argv[1]
    if cmd in ("validate", "calls"):
        t = Spans(argv[2:])
        return t.validate() if cmd == "validate" else t.calls()
    t = Spans(argv[2:3])
    if cmd == "resource":
        for k, v in t.resources[0].items():
            print("%s=%s" % (k, v))
        return 0
    if cmd == "batches":
        for n in t.batches:
            print(n)
        return 0
    if cmd == "ids":
        for sp in t.spans:
            print(get(sp, "name"), get(sp, "trace_id"), get(sp, "parent_span_id") or "-")
        return 0
    for sp in t.spans:
        if get(sp, "name") != argv[3]:
            continue
        if cmd == "span":
            print(get(sp, "start_time_unix_nano"), get(sp, "end_time_unix_nano"))
            return 0
        if cmd == "exception":
            ev = [e for e in get_all(sp, "events") if get(e, "name") == "exception"]
            if not ev:
                continue
            st = get(sp, "status", [])
            a = attrs(ev[0])
            print("status=%s|%s" % (get(st, "code"), get(st, "message")))
            print("type=%s" % a.get("exception.type"))
            print("message=%s" % a.get("exception.message"))
            print("at_end=%d" % (get(ev[0], "time_unix_nano") - get(sp, "end_time_unix_nano")))
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
