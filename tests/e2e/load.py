#!/usr/bin/env python3
"""A steady, bounded load on tests/targets/Web on 127.0.0.1, each answer checked.

usage: load.py PORT STOP-FILE REPORT-FILE [CLIENTS] [MAX-SECONDS]

CLIENTS threads (default 2) each send GET /order/i and /slow/i, i = 1, 2, ...
(i wrapping at 1000), one request at a time over a kept-alive HTTP/1.1
connection, until STOP-FILE exists or MAX-SECONDS (default 900) pass. Each
answer must be "qty Q total T" with Q = 2 i + 1 and T = 250 Q + 99 (the
handlers' source, tests/targets/Web/Program.cs). Any other answer, status,
timeout (10 s) or connection error is a failure; a failed connection is
opened again. Every second the totals so far are written to REPORT-FILE
(replaced whole), and at the end:

    requests N failed F slowest MS
    first failure: ...        (when F > 0)
"""
import http.client
import os
import sys
import threading
import time

port = int(sys.argv[1])
stop_file = sys.argv[2]
report_file = sys.argv[3]
clients = int(sys.argv[4]) if len(sys.argv) > 4 else 2
max_seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 900.0

lock = threading.Lock()
totals = {"requests": 0, "failed": 0, "slowest": 0.0, "first": ""}
deadline = time.monotonic() + max_seconds


def note(ok, ms, why=""):
    with lock:
        totals["requests"] += 1
        totals["slowest"] = max(totals["slowest"], ms)
        if not ok:
            totals["failed"] += 1
            if not totals["first"]:
                totals["first"] = why


def client(k):
    conn = None
    i = k * 500
    while not os.path.exists(stop_file) and time.monotonic() < deadline:
        i = i % 1000 + 1
        route = "order" if i % 2 else "slow"
        q = 2 * i + 1
        want = "qty %d total %d" % (q, 250 * q + 99)
        t0 = time.monotonic()
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/%s/%d" % (route, i))
            r = conn.getresponse()
            body = r.read().decode("utf-8", "replace")
            ms = (time.monotonic() - t0) * 1000
            if r.status != 200 or body != want:
                note(False, ms, "/%s/%d: %d %r (wanted %r)" % (route, i, r.status, body, want))
            else:
                note(True, ms)
        except Exception as e:  # a refused, reset or timed-out request
            note(False, (time.monotonic() - t0) * 1000, "/%s/%d: %s" % (route, i, e))
            if conn is not None:
                conn.close()
            conn = None
            time.sleep(0.05)


def write_report(final):
    with lock:
        text = "requests %d failed %d slowest %d\n" % (
            totals["requests"], totals["failed"], int(totals["slowest"]))
        if totals["first"]:
            text += "first failure: %s\n" % totals["first"]
    if final:
        text += "done\n"
    tmp = report_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, report_file)


threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
for t in threads:
    t.start()
while any(t.is_alive() for t in threads):
    write_report(False)
    time.sleep(1)
write_report(True)
