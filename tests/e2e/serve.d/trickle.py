#!/usr/bin/env python3
"""Slow clients for tests/e2e/serve_slow_clients.sh and metrics_listen_slow.sh:
CONNS connections to 127.0.0.1:PORT from the loopback addresses 127.0.0.2 ..
127.0.0.(1+ADDRS), each sending a request one byte every EVERY seconds (1
unless given), for SECONDS (then it stops by itself).  A connection the
server closes is opened again, so the pressure lasts.  Prints: opened N, closed_by_server N."""
import selectors
import socket
import sys
import time

port, conns, addrs, seconds = (int(a) for a in sys.argv[1:5])
every = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
sel = selectors.DefaultSelector()
opened = closed = 0
HEAD = b"POST /api/v1/push HTTP/1.1\r\nHost: x\r\nX-Slow: "


def start(i):
    global opened
    s = socket.socket()
    s.bind(("127.0.0.%d" % (2 + i % addrs), 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    sel.register(s, selectors.EVENT_READ, i)
    opened += 1
    return s


socks = {}
for i in range(conns):
    socks[i] = start(i)
sent_head = set()
end = time.time() + seconds
next_byte = time.time()
while time.time() < end:
    for key, _ in sel.select(timeout=0.2):
        s, i = key.fileobj, key.data
        try:
            data = s.recv(4096)
        except (ConnectionError, BlockingIOError, OSError):
            data = b""
        if not data:  # the server closed it (or answered): open another
            sel.unregister(s)
            s.close()
            closed += 1
            sent_head.discard(i)
            socks[i] = start(i)
    if time.time() >= next_byte:
        next_byte += every
        for i, s in list(socks.items()):
            try:
                s.send(b"a" if i in sent_head else HEAD[:1])
                if i not in sent_head:
                    s.send(HEAD[1:])
                    sent_head.add(i)
            except (BlockingIOError, OSError):
                pass
print("opened %d, closed_by_server %d" % (opened, closed))
