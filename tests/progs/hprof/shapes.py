#!/usr/bin/env python3
"""Heap dumps of known shapes for tests/e2e/hprof_holders.sh, and an
independent check of `tidemark hprof holders` on them.

  shapes.py DUMP SEED        writes DUMP (HPROF 1.0.2, 8-byte ids) and
                             DUMP.expect.json: per object its shallow size,
                             immediate dominator, retained bytes and objects,
                             by a plain iterative dominator computation
                             (Cooper, Harvey, Kennedy) over the same graph.
  shapes.py --check DUMP CSV JSON   compares tidemark's output with it;
                             prints "ok NAME" / "not-ok NAME what" lines.

Shapes (each a fact checked by name): a map holding a known number of
bytes (held by a static field), a subgraph shared by two parents (retained
by neither), a cycle, an object reachable only from a thread-stack root,
an unreachable island; then a random graph held by a few roots.
"""
import json
import random
import struct
import sys

HDR, ARR, REF = 12, 16, 4          # compressed oops and class pointers
PRIM = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


def a8(x):
    return (x + 7) & ~7


class Dump:
    def __init__(self):
        self.strings, self.classes, self.objs, self.roots = {}, [], [], []
        self.next_id = 0x10000

    def new_id(self):
        self.next_id += 0x10
        return self.next_id

    def sid(self, s):
        if s not in self.strings:
            self.strings[s] = 0x100 + len(self.strings)
        return self.strings[s]

    def cls(self, name, fields=(), statics=(), super_id=0, sticky=True):
        """fields: [(name, type)]; statics: [(name, target id)]"""
        cid = self.new_id()
        self.classes.append(dict(id=cid, name=name, super=super_id, fields=list(fields),
                                 statics=list(statics)))
        if sticky:
            self.roots.append((0x05, cid))
        return cid

    def inst(self, cid, refs=None, oid=None):
        """an instance whose reference fields (in the order declared) are REFS"""
        oid = oid or self.new_id()
        self.objs.append(dict(kind='inst', id=oid, cls=cid, refs=list(refs or [])))
        return oid

    def objarr(self, cid, elems, oid=None):
        oid = oid or self.new_id()
        self.objs.append(dict(kind='oarr', id=oid, cls=cid, refs=list(elems)))
        return oid

    def bytes_(self, n):
        oid = self.new_id()
        self.objs.append(dict(kind='parr', id=oid, n=n, type=8))
        return oid

    # ---- the file ----
    def write(self, path):
        u1 = lambda v: struct.pack('>B', v)
        u2 = lambda v: struct.pack('>H', v)
        u4 = lambda v: struct.pack('>I', v)
        idb = lambda v: struct.pack('>Q', v)
        out = open(path, 'wb')
        rec = lambda tag, body: out.write(u1(tag) + u4(0) + u4(len(body)) + body)
        out.write(b'JAVA PROFILE 1.0.2\0' + u4(8) + u4(0) + u4(0))
        for c in self.classes:
            self.sid(c['name'])
            for f, _ in c['fields'] + c['statics']:
                self.sid(f)
        for s, i in self.strings.items():
            rec(1, idb(i) + s.encode())
        for n, c in enumerate(self.classes):
            rec(2, u4(n + 1) + idb(c['id']) + u4(0) + idb(self.sid(c['name'])))
        seg = bytearray()
        for kind, oid in self.roots:
            seg += u1(kind) + idb(oid)
            seg += {0x05: b'', 0x03: u4(1) + u4(0), 0x01: idb(0)}[kind]
        for c in self.classes:
            seg += u1(0x20) + idb(c['id']) + u4(0) + idb(c['super']) + idb(0) * 5 + u4(0)
            seg += u2(0) + u2(len(c['statics']))
            for f, t in c['statics']:
                seg += idb(self.sid(f)) + u1(2) + idb(t)
            seg += u2(len(c['fields']))
            for f, t in c['fields']:
                seg += idb(self.sid(f)) + u1(t)
        by_id = {c['id']: c for c in self.classes}
        for o in self.objs:
            if o['kind'] == 'inst':
                body, refs, c = b'', list(o['refs']), by_id[o['cls']]
                while c:   # the dump: the class's own fields, then its superclass's
                    for _, t in c['fields']:
                        body += idb(refs.pop(0) if refs else 0) if t == 2 else b'\0' * PRIM[t]
                    c = by_id.get(c['super'])
                seg += u1(0x21) + idb(o['id']) + u4(0) + idb(o['cls']) + u4(len(body)) + body
            elif o['kind'] == 'oarr':
                seg += u1(0x22) + idb(o['id']) + u4(0) + u4(len(o['refs'])) + idb(o['cls'])
                seg += b''.join(idb(r) for r in o['refs'])
            else:
                seg += u1(0x23) + idb(o['id']) + u4(0) + u4(o['n']) + u1(o['type']) + b'\0' * o['n']
        rec(0x1c, bytes(seg))
        rec(0x2c, b'')
        out.close()

    # ---- the independent computation ----
    def graph(self):
        """nodes: id -> (shallow bytes, successors); None for the super-root"""
        by_id = {c['id']: c for c in self.classes}
        nodes = {}
        for c in self.classes:   # a class mirror: its super and statics; size n/a
            succ = [c['super']] + [t for _, t in c['statics']]
            nodes[c['id']] = (0, [s for s in succ if s])
        for o in self.objs:
            if o['kind'] == 'inst':
                size, c = HDR, by_id[o['cls']]
                while c:
                    size += sum(REF if t == 2 else PRIM[t] for _, t in c['fields'])
                    c = by_id.get(c['super'])
                nodes[o['id']] = (a8(size), [o['cls']] + [r for r in o['refs'] if r])
            elif o['kind'] == 'oarr':
                nodes[o['id']] = (a8(ARR + REF * len(o['refs'])), [o['cls']] + [r for r in o['refs'] if r])
            else:
                nodes[o['id']] = (a8(ARR + o['n'] * PRIM[o['type']]), [])
        nodes[None] = (0, [oid for _, oid in self.roots])
        return nodes


def dominators(nodes):
    """Cooper, Harvey, Kennedy: 'A Simple, Fast Dominance Algorithm'."""
    order, seen, stack = [], {None}, [(None, iter(nodes[None][1]))]
    while stack:                      # postorder, iteratively
        v, it = stack[-1]
        w = next(it, 'end')
        if w == 'end':
            order.append(v)
            stack.pop()
        elif w in nodes and w not in seen:
            seen.add(w)
            stack.append((w, iter(nodes[w][1])))
    po = {v: i for i, v in enumerate(order)}
    preds = {v: [] for v in order}
    for v in order:
        for w in nodes[v][1]:
            if w in po:
                preds[w].append(v)
    idom = {None: None}
    changed = True
    while changed:
        changed = False
        for v in reversed(order):
            if v is None:
                continue
            new = unset = object()    # None is the super-root
            for p in preds[v]:
                if p not in idom:
                    continue
                if new is unset:
                    new = p
                    continue
                a, b = p, new
                while a != b:
                    while po[a] < po[b]:
                        a = idom[a]
                    while po[b] < po[a]:
                        b = idom[b]
                new = a
            if idom.get(v, 'unset') != new:
                idom[v] = new
                changed = True
    ret = {v: nodes[v][0] for v in order}
    cnt = {v: 1 for v in order}
    for v in order:                   # postorder: children before parents
        if v is not None:
            ret[idom[v]] += ret[v]
            cnt[idom[v]] += cnt[v]
    return idom, ret, cnt


def build(seed):
    d, facts = Dump(), {}
    obj = d.cls('java/lang/Object')
    oarr = d.cls('[Ljava/lang/Object;', super_id=obj)
    entry = d.cls('test/Entry', [('key', 2), ('value', 2), ('next', 2), ('hash', 10)], super_id=obj)
    tmap = d.cls('test/Map', [('table', 2), ('size', 10)], super_id=obj)
    # 1. a map holding a known number of bytes, held by a static field
    vals = [d.bytes_(1000 + i) for i in range(50)]
    keys = [d.bytes_(8) for _ in range(50)]
    ents = [d.inst(entry, [keys[i], vals[i], 0]) for i in range(50)]
    table = d.objarr(oarr, ents + [0] * 14)
    themap = d.inst(tmap, [table])
    facts['map'] = themap
    facts['map_bytes'] = (a8(HDR + 4 + 4) + a8(ARR + 4 * 64) + 50 * a8(HDR + 4 * 3 + 4)
                          + sum(a8(ARR + 1000 + i) for i in range(50)) + 50 * a8(ARR + 8))
    d.cls('test/Holder', statics=[('map', themap)], super_id=obj)
    # 2. a shared subgraph: two parents, retained by neither
    node = d.cls('test/Node', [('a', 2), ('b', 2)], super_id=obj)
    shared_leaf = d.bytes_(4000)
    shared = d.inst(node, [shared_leaf, 0])
    p1 = d.inst(node, [shared, d.bytes_(100)])
    p2 = d.inst(node, [shared, 0])
    d.cls('test/Parents', statics=[('one', p1), ('two', p2)], super_id=obj)
    facts.update(shared=shared, p1=p1, p2=p2)
    # 3. a cycle, entered at one node
    c1, c2, c3 = d.new_id(), d.new_id(), d.new_id()
    d.inst(node, [c2, d.bytes_(300)], oid=c1)
    d.inst(node, [c3, d.bytes_(200)], oid=c2)
    d.inst(node, [c1, d.bytes_(100)], oid=c3)
    d.cls('test/Ring', statics=[('head', c1)], super_id=obj)
    facts['cycle'] = c1
    # 4. reachable only from a thread stack frame
    onstack = d.inst(node, [d.bytes_(7777), 0])
    d.roots.append((0x03, onstack))
    facts['stack'] = onstack
    # a holder at the end of two chains of 100: its path is long (elided)
    far = d.inst(node, [d.bytes_(2500), 0])
    heads = []
    for _ in range(2):
        nxt = far
        for _ in range(100):
            nxt = d.inst(node, [nxt, 0])
        heads.append(nxt)
    d.cls('test/Chains', statics=[('left', heads[0]), ('right', heads[1])], super_id=obj)
    facts['far'] = far
    # 5. an unreachable island (its class is not a root either)
    isl = d.cls('test/Island', [('other', 2), ('data', 2)], super_id=obj, sticky=False)
    u1, u2 = d.new_id(), d.new_id()
    d.inst(isl, [u2, d.bytes_(5000)], oid=u1)
    d.inst(isl, [u1, d.bytes_(6000)], oid=u2)
    facts['island'] = [u1, u2]
    # 6. a random graph: 3000 objects, 2 to 4 references each, 5 roots
    rnd = random.Random(seed)
    ids = [d.new_id() for _ in range(3000)]
    for i, oid in enumerate(ids):
        refs = [rnd.choice(ids) if rnd.random() < 0.8 else 0 for _ in range(3)]
        if i + 1 < len(ids) and rnd.random() < 0.5:
            refs[0] = ids[i + 1]     # long chains, as lists make
        if rnd.random() < 0.3:
            refs[2] = d.bytes_(rnd.randrange(1, 3000))
        o_cls = rnd.choice((node, entry))
        nref = 2 if o_cls == node else 3
        d.inst(o_cls, refs[:nref], oid=oid)
    for oid in rnd.sample(ids, 5):
        d.roots.append((0x01, oid))
    rnd.shuffle(d.objs)               # a dump's order is not the ids'
    return d, facts


def gen(path, seed):
    d, facts = build(seed)
    d.write(path)
    nodes = d.graph()
    idom, ret, cnt = dominators(nodes)
    exp = {'facts': facts, 'objects': {str(v): [nodes[v][0], idom[v], ret[v], cnt[v]]
                                       for v in idom if v is not None},
           'unreachable': [[str(v), nodes[v][0]] for v in nodes if v is not None and v not in idom]}
    json.dump(exp, open(path + '.expect.json', 'w'))


def check(path, csv_path, json_path):
    import csv
    exp = json.load(open(path + '.expect.json'))
    facts, objs = exp['facts'], exp['objects']
    ours = {r['id']: r for r in csv.DictReader(open(csv_path))}
    js = json.load(open(json_path))
    res = []

    def say(name, good, what):
        res.append(('ok ' + name) if good else ('not-ok %s %s' % (name, what)))

    say('reachable_set', set(ours) == set(objs),
        'ours %d expected %d, differ: %s' % (len(ours), len(objs), sorted(set(ours) ^ set(objs))[:5]))
    bad = []
    for k, (size, dom, ret, cnt) in objs.items():
        r = ours.get(k)
        got = r and (int(r['shallow_bytes'] or 0), int(r['dominator']) if r['dominator'] else None,
                     int(r['retained_bytes']), int(r['retained_objects']))
        if got != (size, dom, ret, cnt):
            bad.append('%s ours %s expected %s' % (k, got, (size, dom, ret, cnt)))
    say('every_dominator_and_retained_size', not bad, '%d differ: %s' % (len(bad), bad[:4]))
    top = {h['id']: h for h in js['top']}
    m = top.get(facts['map'])
    say('map_retains_known_bytes', m and m['retained_bytes'] == facts['map_bytes'],
        'ours %s expected %d' % (m and m['retained_bytes'], facts['map_bytes']))
    say('map_path_names_the_static_field',
        m and [s['via'] for s in m['path']][-1:] == ['static test.Holder.map'],
        'path %s' % (m and m['path']))
    parts = {p['class']: p for p in (m['retains'] if m else [])}
    say('map_histogram_by_class', parts.get('[B', {}).get('objects') == 100 and
        parts.get('test.Entry', {}).get('objects') == 50, 'retains %s' % (m and m['retains']))
    sh = ours.get(str(facts['shared']))
    say('shared_subgraph_retained_by_neither_parent', sh and
        sh['dominator'] not in (str(facts['p1']), str(facts['p2'])) and
        str(facts['shared']) in [str(h) for h in top] and
        int(ours[str(facts['p2'])]['retained_bytes']) == int(ours[str(facts['p2'])]['shallow_bytes']),
        'shared %s p2 %s' % (sh, ours.get(str(facts['p2']))))
    cy = ours.get(str(facts['cycle']))
    say('cycle_retained_by_its_entry', cy and int(cy['retained_objects']) == 6,
        'entry %s' % cy)
    st = top.get(facts['stack'])
    say('thread_stack_root', st and st['path'][0]['via'] == 'Java frame' and len(st['path']) == 1,
        'holder %s' % st)
    fa = top.get(facts['far'])
    say('long_path_keeps_its_ends', fa and fa['path_elided'] == 102 - 40 and len(fa['path']) == 40
        and fa['path'][0]['via'] == 'sticky class' and fa['path'][0]['object'] == 'class test.Chains'
        and fa['path'][1]['via'].startswith('static test.Chains.')
        and all(s['via'] == 'test.Node.a' for s in fa['path'][2:]), 'holder %s' % fa)
    unr = sum(b for _, b in exp['unreachable'])
    say('unreachable_island', js['unreachable'] == len(exp['unreachable']) and
        js['unreachable_bytes'] == unr and str(facts['island'][0]) not in ours,
        'ours %s/%s expected %d/%d' % (js['unreachable'], js['unreachable_bytes'],
                                       len(exp['unreachable']), unr))
    print('\n'.join(res))


if __name__ == '__main__':
    if sys.argv[1] == '--check':
        check(*sys.argv[2:5])
    else:
        gen(sys.argv[1], int(sys.argv[2]))
