#!/usr/bin/env python3
"""An S3-compatible server on loopback for the S3 adapter's tests: moto's server (from the
virtualenv that scripts/ensure-s3.sh makes), its in-memory S3 with multipart uploads. Binds
127.0.0.1 on a free port (the kernel picks it: no race with other tests), creates the buckets
named as arguments, and prints `port <n>`. Stops on stdin's end, so it never outlives the test
that started it."""
import logging
import sys
import urllib.request

from moto.moto_server.threaded_moto_server import ThreadedMotoServer

# One line per request on the test's output says nothing a failing assertion does not.
logging.getLogger("werkzeug").setLevel(logging.ERROR)
server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
port = server.get_host_and_port()[1]
for bucket in sys.argv[1:]:
    # moto's server does not check signatures: a bare PUT creates the bucket.
    urllib.request.urlopen(
        urllib.request.Request(f"http://127.0.0.1:{port}/{bucket}", method="PUT")
    ).close()
print(f"port {port}", flush=True)
sys.stdin.read()
server.stop()
