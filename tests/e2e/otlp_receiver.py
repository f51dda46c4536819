#!/usr/bin/env python3
"""A stand-in OTLP/HTTP collector for run_otlp.sh, on 127.0.0.1 only.

  otlp_receiver.py DIR STATUS SECONDS

Listens on an ephemeral port of 127.0.0.1 and writes it to DIR/port; each
POST is saved as DIR/req-N.pb (N from 1) with a line "N PATH CONTENT-TYPE
LENGTH" in DIR/log, and answered with STATUS (200: an empty
ExportTraceServiceResponse; anything else with the reason Python gives it).
Serves one request at a time and exits after SECONDS (bounded: a test that
forgets it does not leave it running).
"""
import http.server
import os
import sys
import time


def main(argv):
    out, status, seconds = argv[1], int(argv[2]), float(argv[3])
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n)
            count[0] += 1
            with open(os.path.join(out, "req-%d.pb" % count[0]), "wb") as f:
                f.write(body)
            with open(os.path.join(out, "log"), "a") as f:
                f.write("%d %s %s %d\n" % (count[0], self.path,
                                          self.headers.get("Content-Type"), len(body)))
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 0.5
    with open(os.path.join(out, "port.new"), "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(os.path.join(out, "port.new"), os.path.join(out, "port"))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        server.handle_request()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
