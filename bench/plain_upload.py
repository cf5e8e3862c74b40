#!/usr/bin/env python3
"""A plain HTTP server that takes uploads: the floor of procflow's attachment upload in the
bench (bench/files.sh, row F1). Every PUT or POST has its body written, as it arrives, to a
file of DIRECTORY named after the path's last segment, and is answered 201; a GET answers 200
(the bench's readiness check). Nothing more: no multipart parsing, no hashing, no database.

Usage: plain_upload.py PORT DIRECTORY   (listens on 127.0.0.1 until SIGINT or SIGTERM)
"""

import http.server
import os
import signal
import sys

CHUNK = 1024 * 1024


class Upload(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_PUT(self):
        left = int(self.headers.get("Content-Length", "0"))
        name = os.path.basename(self.path.split("?", 1)[0]) or "upload"
        with open(os.path.join(self.server.directory, name), "wb") as out:
            while left > 0:
                chunk = self.rfile.read(min(CHUNK, left))
                if not chunk:
                    break
                out.write(chunk)
                left -= len(chunk)
        self.send_response(201 if left == 0 else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Upload)
    server.directory = directory
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
