#!/usr/bin/env python3
"""A reference HPROF class-histogram reader: the same one streaming pass as
tidemark hprof top (instances per class), written plainly in Python, for
bench/hprof/run.sh to measure beside it.  Counts only: no layout."""
import struct
import sys

def main(path):
    f = open(path, 'rb', buffering=1 << 20)
    header = b''
    while not header.endswith(b'\0'):
        header += f.read(1)
    idsz = struct.unpack('>I', f.read(4))[0]
    f.read(8)
    idfmt = '>Q' if idsz == 8 else '>I'
    counts = {}
    prim = {}
    basic = {2: idsz, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
    roots = {0xff: idsz, 1: 2 * idsz, 2: idsz + 8, 3: idsz + 8, 4: idsz + 4, 5: idsz, 6: idsz + 4, 7: idsz, 8: idsz + 8}
    while True:
        h = f.read(9)
        if len(h) < 9:
            break
        tag, _, length = struct.unpack('>BII', h)
        if tag not in (0x0c, 0x1c):
            f.seek(length, 1)
            continue
        end = f.tell() + length
        while f.tell() < end:
            sub = f.read(1)[0]
            if sub in roots:
                f.seek(roots[sub], 1)
            elif sub == 0x20:
                f.seek(7 * idsz + 8, 1)
                for skip_head in (2, idsz):
                    n = struct.unpack('>H', f.read(2))[0]
                    for _ in range(n):
                        f.seek(skip_head, 1)
                        f.seek(basic[f.read(1)[0]], 1)
                n = struct.unpack('>H', f.read(2))[0]
                f.seek(n * (idsz + 1), 1)
            elif sub == 0x21:
                f.seek(idsz + 4, 1)
                cls = struct.unpack(idfmt, f.read(idsz))[0]
                counts[cls] = counts.get(cls, 0) + 1
                f.seek(struct.unpack('>I', f.read(4))[0], 1)
            elif sub == 0x22:
                f.seek(idsz + 4, 1)
                n = struct.unpack('>I', f.read(4))[0]
                cls = struct.unpack(idfmt, f.read(idsz))[0]
                counts[cls] = counts.get(cls, 0) + 1
                f.seek(n * idsz, 1)
            elif sub == 0x23:
                f.seek(idsz + 4, 1)
                n, t = struct.unpack('>IB', f.read(5))
                prim[t] = prim.get(t, 0) + 1
                f.seek(n * basic[t], 1)
            else:
                sys.exit('unknown sub-record 0x%02x' % sub)
    print(len(counts) + len(prim), 'classes,', sum(counts.values()) + sum(prim.values()), 'instances')

main(sys.argv[1])
