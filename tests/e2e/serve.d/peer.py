#!/usr/bin/env python3
"""Hostile peers for tests/e2e/serve_push_peers.sh, on 127.0.0.1.

  peer.py blackhole PORTFILE          accepts connections and never answers
  peer.py slow PORTFILE UPSTREAM SEC  reads each request whole, waits SEC
                                      seconds, then passes it to 127.0.0.1:
                                      UPSTREAM and its answer back

Listens on a port from the kernel (or $PEER_PORT) and writes it to PORTFILE;
runs until killed."""
import os
import socket
import sys
import threading
import time

mode, portfile = sys.argv[1], sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", int(os.environ.get("PEER_PORT", "0"))))
ls.listen(64)
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % ls.getsockname()[1])
os.rename(portfile + ".tmp", portfile)
held = []


def read_request(c):
    data = b""
    while b"\r\n\r\n" not in data:
        more = c.recv(65536)
        if not more:
            return None
        data += more
    head, body = data.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v.strip())
    while len(body) < length:
        more = c.recv(65536)
        if not more:
            return None
        body += more
    # one request a connection: the upstream closes after answering
    head = b"\r\n".join(l for l in head.split(b"\r\n") if not l.lower().startswith(b"connection:"))
    return head + b"\r\nConnection: close\r\n\r\n" + body


def slow(c, upstream, delay):
    try:
        while True:
            req = read_request(c)
            if req is None:
                break
            time.sleep(delay)
            u = socket.create_connection(("127.0.0.1", upstream))
            u.sendall(req)
            answer = b""
            while True:
                more = u.recv(65536)
                if not more:
                    break
                answer += more
            u.close()
            c.sendall(answer)
            break
    except OSError:
        pass
    c.close()


while True:
    c, _ = ls.accept()
    if mode == "blackhole":
        held.append(c)  # never read, never answered, never closed
    else:
        threading.Thread(target=slow, args=(c, int(sys.argv[3]), float(sys.argv[4])),
                         daemon=True).start()
