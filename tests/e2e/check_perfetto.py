#!/usr/bin/env python3
"""Checks the text `protoc --decode=perfetto.protos.Trace perfetto_subset.proto`
prints for a `clrtrace dump --perfetto` trace (run_perfetto.sh).

  check_perfetto.py validate TEXT
      The sequence rules and the tracks: every packet on sequence 1, the first
      with SEQ_INCREMENTAL_STATE_CLEARED, every TrackEvent packet with
      SEQ_NEEDS_INCREMENTAL_STATE; one process track; every thread track
      under it with a pid, a tid and a name; every event on a thread track;
      on each track the begins and ends pair as a stack (an end never without
      an open slice, none open at the end) and times never go back; each
      event name and each annotation name interned once, under one iid,
      before (or in) the first packet that uses it; every iid used is
      interned. Prints "begins=B ends=E threads=T names=N annotation_names=A
      unfinished=U", then " async=N" when there are async calls' tracks: each
      a track under the process's, named, with one slice (an async call's,
      from its enter to its task's end); " instants=N" when there are line
      probes' hits (TYPE_INSTANT events on a thread's track).
  check_perfetto.py calls TEXT
      One line per slice, "TID NAME ARGS" in order of begin on each thread
      (threads in order of their first slice): ARGS is the JSON object of
      its debug annotations, begin and end merged (as Perfetto merges them),
      keys sorted, object addresses written @ADDR and pointers 0xADDR (as
      check_chrome.py writes --chrome's args); an instant event (a line
      probe's hit) is a line too, in its place.
  check_perfetto.py event TEXT NAME START
      "TS DUR" of the first slice of NAME: begin minus START (ns), end minus
      begin.
  check_perfetto.py async TEXT
      One line per async call's slice, "NAME ARGS" (ARGS as for calls),
      sorted.
  check_perfetto.py process TEXT
      "PID NAME" of the process track, then "PID TID NAME" per thread track.
"""
import codecs
import json
import re
import sys


def parse(path):
    """The text format as nested lists of (key, value); a message is a list."""
    root = []
    stack = [root]
    for lineno, line in enumerate(open(path, encoding="ascii"), 1):
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
            # C escapes, octal for bytes past ASCII: bytes, then UTF-8.
            val = codecs.escape_decode(val[1:-1].encode("ascii"))[0].decode("utf-8")
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


def masked(s):
    s = re.sub(r"@0x[0-9a-f]+", "@ADDR", s)
    return re.sub(r"\b0x[0-9a-f]+", "0xADDR", s)


class Trace:
    def __init__(self, path):
        self.problems = []
        self.packets = get_all(parse(path), "packet")
        self.event_names, self.annotation_names = {}, {}
        self.process = None
        self.threads = {}  # uuid -> (pid, tid, name)
        self.async_tracks = {}  # uuid -> name
        self.async_slices = []  # [name, begin, end, args]
        self.slices = []   # (tid, name, begin, end, args) in order of begin per track
        self.begins = self.ends = self.unfinished = self.instants = 0
        self.walk()

    def bad(self, msg):
        if len(self.problems) < 20:
            self.problems.append(msg)

    def intern(self, table, entries, kind):
        for e in entries:
            iid, name = get(e, "iid"), get(e, "name")
            if iid in table:
                self.bad("%s iid %s interned twice" % (kind, iid))
            if name in table.values():
                self.bad("%s %r interned twice" % (kind, name))
            table[iid] = name

    def annotations(self, ev, args):
        for a in get_all(ev, "debug_annotations"):
            iid = get(a, "name_iid")
            if iid not in self.annotation_names:
                self.bad("annotation name iid %s not interned" % iid)
                continue
            v = get(a, "string_value")
            if v is None:
                v = get(a, "bool_value") == "true" or self.bad("annotation without a value")
            args[self.annotation_names[iid]] = v

    def walk(self):
        open_ = {}  # track uuid -> stack of [name, begin, args]
        last = {}
        for n, p in enumerate(self.packets):
            if get(p, "trusted_packet_sequence_id") != 1:
                self.bad("packet %d: not on sequence 1" % n)
            flags = get(p, "sequence_flags", 0)
            if n == 0 and flags != 1:
                self.bad("the first packet does not clear the incremental state")
            data = get(p, "interned_data")
            if data is not None:
                self.intern(self.event_names, get_all(data, "event_names"), "event name")
                self.intern(self.annotation_names, get_all(data, "debug_annotation_names"),
                            "annotation name")
            td = get(p, "track_descriptor")
            if td is not None:
                proc, th = get(td, "process"), get(td, "thread")
                if proc is not None:
                    if self.process is not None:
                        self.bad("a second process track")
                    self.process = (get(td, "uuid"), get(proc, "pid"), get(proc, "process_name"))
                elif th is not None:
                    if self.process is None or get(td, "parent_uuid") != self.process[0]:
                        self.bad("thread track %s not under the process's" % get(td, "uuid"))
                    if None in (get(th, "pid"), get(th, "tid"), get(th, "thread_name")):
                        self.bad("thread track %s without pid, tid or name" % get(td, "uuid"))
                    self.threads[get(td, "uuid")] = (get(th, "pid"), get(th, "tid"),
                                                     get(th, "thread_name"))
                else:
                    if self.process is None or get(td, "parent_uuid") != self.process[0] \
                            or get(td, "name") is None:
                        self.bad("async track %s not under the process's, or unnamed"
                                 % get(td, "uuid"))
                    if get(td, "uuid") in self.async_tracks or get(td, "uuid") in self.threads:
                        self.bad("track %s described twice" % get(td, "uuid"))
                    self.async_tracks[get(td, "uuid")] = get(td, "name")
                continue
            ev = get(p, "track_event")
            if ev is None:
                self.bad("packet %d: neither a track descriptor nor a track event" % n)
                continue
            if flags != 2:
                self.bad("packet %d: a track event without SEQ_NEEDS_INCREMENTAL_STATE" % n)
            uuid, ts = get(ev, "track_uuid"), get(p, "timestamp")
            if uuid in self.async_tracks:
                # One slice: its begin, then its end (no earlier).
                stack = open_.setdefault(uuid, [])
                if get(ev, "type") == "TYPE_SLICE_BEGIN" and not stack and uuid not in last:
                    iid = get(ev, "name_iid")
                    if self.event_names.get(iid) != self.async_tracks[uuid]:
                        self.bad("packet %d: an async slice not named as its track" % n)
                    s = [self.async_tracks[uuid], ts, None, {}]
                    self.annotations(ev, s[3])
                    stack.append(s)
                    self.async_slices.append(s)
                elif get(ev, "type") == "TYPE_SLICE_END" and stack and ts >= stack[-1][1]:
                    s = stack.pop()
                    s[2] = ts
                    self.annotations(ev, s[3])
                else:
                    self.bad("packet %d: not the one slice of async track %s" % (n, uuid))
                last[uuid] = ts
                continue
            if uuid not in self.threads:
                self.bad("packet %d: event on an unknown track %s" % (n, uuid))
                continue
            if ts is None or ts < last.get(uuid, 0):
                self.bad("packet %d: no timestamp, or earlier than the track's last" % n)
            last[uuid] = ts
            stack = open_.setdefault(uuid, [])
            if get(ev, "type") == "TYPE_SLICE_BEGIN":
                self.begins += 1
                iid = get(ev, "name_iid")
                if iid not in self.event_names:
                    self.bad("packet %d: event name iid %s not interned" % (n, iid))
                s = [self.threads[uuid][1], self.event_names.get(iid), ts, None, {}]
                self.annotations(ev, s[4])
                stack.append(s)
                self.slices.append(s)
            elif get(ev, "type") == "TYPE_SLICE_END":
                self.ends += 1
                if not stack:
                    self.bad("packet %d: an end with no open slice" % n)
                    continue
                s = stack.pop()
                s[3] = ts
                self.annotations(ev, s[4])
                self.unfinished += s[4].get("unfinished") is True
            elif get(ev, "type") == "TYPE_INSTANT":
                # A line probe's hit (--at): an instant event inside the
                # open slice, its values as annotations.
                self.instants += 1
                iid = get(ev, "name_iid")
                if iid not in self.event_names:
                    self.bad("packet %d: event name iid %s not interned" % (n, iid))
                s = [self.threads[uuid][1], self.event_names.get(iid), ts, ts, {}]
                self.annotations(ev, s[4])
                self.slices.append(s)
            else:
                self.bad("packet %d: type %s" % (n, get(ev, "type")))
        for uuid, stack in open_.items():
            if stack:
                self.bad("track %s: %d slices never end" % (uuid, len(stack)))
        if self.process is None:
            self.bad("no process track")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    t = Trace(argv[2])
    if argv[1] == "validate":
        if t.problems:
            print("\n".join(t.problems))
            return 1
        print("begins=%d ends=%d threads=%d names=%d annotation_names=%d unfinished=%d%s%s"
              % (t.begins, t.ends, len(t.threads), len(t.event_names),
                 len(t.annotation_names), t.unfinished,
                 " async=%d" % len(t.async_slices) if t.async_slices else "",
                 " instants=%d" % t.instants if t.instants else ""))
        return 0
    if argv[1] == "async":
        lines = []
        for s in t.async_slices:
            args = {k: masked(v) if isinstance(v, str) else v for k, v in s[3].items()}
            lines.append("%s %s" % (s[0], json.dumps(args, sort_keys=True, ensure_ascii=False)))
        print("\n".join(sorted(lines)))
        return 0
    if argv[1] == "calls":
        first = {}
        for s in t.slices:
            first.setdefault(s[0], len(first))
        for s in sorted(t.slices, key=lambda s: first[s[0]]):  # stable: begin order per thread
            args = {k: masked(v) if isinstance(v, str) else v for k, v in s[4].items()}
            print(s[0], s[1], json.dumps(args, sort_keys=True, ensure_ascii=False))
        return 0
    if argv[1] == "event":
        for s in t.slices:
            if s[1] == argv[3]:
                print(s[2] - int(argv[4]), s[3] - s[2])
                return 0
        return 1
    if argv[1] == "process":
        print(t.process[1], t.process[2])
        for pid, tid, name in t.threads.values():
            print(pid, tid, name)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
