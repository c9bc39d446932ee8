#!/bin/sh
# tidemark hprof holders --html FILE: the holders' section as one
# self-contained HTML page.  Over a dump of known shapes
# (tests/progs/hprof/shapes.py), every row of its three tables (top holders,
# holders by class, live and unreachable by class) carries the same figures
# as --json, and the rows it leaves out are counted under it; the page runs
# no script and loads nothing (its CSP); a class name that is markup is
# shown as text, never as a tag; a directory that does not exist is refused
# and leaves nothing; --html with top is bad usage.
. "$(dirname "$0")/../lib.sh"
SHAPES=$TM_ROOT/tests/progs/hprof/shapes.py
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

python3 "$SHAPES" "$T/s.hprof" 1
"$TM" hprof holders "$T/s.hprof" -n 10 --json >"$T/s.json" 2>"$T/s.err"
"$TM" hprof holders "$T/s.hprof" -n 10 --html "$T/s.html" >"$T/html.out" 2>>"$T/s.err"
check_eq hprof_html_exit "$?" 0
check_eq hprof_html_nothing_on_stdout "$(cat "$T/html.out")" ""

# PAGE JSON: the tables, parsed, against the JSON's figures
cat >"$T/cmp.py" <<'EOP'
import json, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.table, self.row, self.cell, self.tags = {}, None, None, None, []
        self.div = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == 'table':
            self.table = self.tables.setdefault(a.get('id'), [])
        elif tag == 'tr' and self.table is not None:
            self.row = []
        elif tag == 'td' and self.row is not None:
            self.cell = ''
        elif tag == 'div':
            self.div = True
    def handle_endtag(self, tag):
        if tag == 'td' and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == 'tr' and self.row is not None:
            if self.row:
                self.table.append(self.row)
            self.row = None
        elif tag == 'table':
            self.table = None
        elif tag == 'div':
            self.div = None
    def handle_data(self, data):
        if self.cell is not None and not self.div:
            self.cell += data

page = Page()
page.feed(open(sys.argv[1], encoding='utf-8').read())
doc = json.load(open(sys.argv[2]))
mib = lambda v: 'n/a' if v is None else '%.2f' % (v / 1048576)
bad = []
want = [[str(i + 1), mib(r['retained_bytes']), 'n/a' if r['shallow_bytes'] is None else str(r['shallow_bytes']),
         str(r['retained_objects']), '%s @ 0x%x' % (r['class'], r['id'])] for i, r in enumerate(doc['top'])]
if page.tables.get('holders') != want:
    bad.append('holders: %s != %s' % (page.tables.get('holders'), want))
cls = sorted([c for c in doc['classes'] if c['holders'] > 0], key=lambda c: -c['holders_retained_bytes'])
want = [[str(c['holders']), mib(c['holders_retained_bytes']), mib(c['holders_shallow_bytes']), c['class']] for c in cls]
got = page.tables.get('by-class')
if sorted(map(tuple, got or [])) != sorted(map(tuple, want)) or [r[1] for r in got] != [r[1] for r in want]:
    bad.append('by-class: %s != %s' % (got, want))
cls = sorted(doc['classes'], key=lambda c: -(c['live_bytes'] or 0))
want = [[str(c['live']), mib(c['live_bytes']), str(c['unreachable']), mib(c['unreachable_bytes']), c['class']] for c in cls]
got = page.tables.get('live')
if sorted(map(tuple, got or [])) != sorted(map(tuple, want)):
    bad.append('live: %s != %s' % (got, want))
scripts = [t for t in page.tags if t[0] in ('script', 'img', 'iframe', 'link', 'object')]
if scripts:
    bad.append('tags that run or load: %s' % scripts[:3])
csp = [t[1].get('content') for t in page.tags if t[0] == 'meta' and t[1].get('http-equiv') == 'Content-Security-Policy']
if csp != ["default-src 'none'; style-src 'unsafe-inline'"]:
    bad.append('CSP %s' % csp)
if len(sys.argv) > 3 and sys.argv[3] not in [r[4].split(' @ ')[0] for r in page.tables.get('holders', [])]:
    bad.append('the class named %r is not a holder row: %s' % (sys.argv[3], page.tables.get('holders')))
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print('%d holders, %d classes' % (len(page.tables['holders']), len(page.tables['live'])))
EOP
out=$(python3 "$T/cmp.py" "$T/s.html" "$T/s.json" 2>&1)
rc=$?
test_expect "hprof_html_same_figures_as_json ($out)" '[ $rc -eq 0 ] || test_why "$out"'
check hprof_html_path_shown grep -q 'class="path">path: ' "$T/s.html"

# a class whose name is markup: text on the page, not a tag
python3 - "$SHAPES" "$T/evil.hprof" <<'EOP'
import sys
sys.path.insert(0, __import__('os').path.dirname(sys.argv[1]))
from shapes import Dump
d = Dump()
obj = d.cls('java/lang/Object')
evil = d.cls('x/<img src=q onerror=alert(1)>&"\'', [('data', 2)], super_id=obj)
held = d.inst(evil, [d.bytes_(5000)])
d.cls('test/Holder', statics=[('x', held)], super_id=obj)
d.write(sys.argv[2])
EOP
"$TM" hprof holders "$T/evil.hprof" --json >"$T/evil.json" 2>"$T/evil.err"
"$TM" hprof holders "$T/evil.hprof" --html "$T/evil.html" 2>>"$T/evil.err"
out=$(python3 "$T/cmp.py" "$T/evil.html" "$T/evil.json" "x.<img src=q onerror=alert(1)>&\"'" 2>&1)
rc=$?
test_expect "hprof_html_markup_is_text ($out)" '[ $rc -eq 0 ] || test_why "$out; $(cat "$T/evil.err")"'

# more rows than a table shows (-n 5 holders; 100 classes a table): the
# count of the rest under the table, with where to see them
python3 - "$SHAPES" "$T/many.hprof" <<'EOP'
import sys
sys.path.insert(0, __import__('os').path.dirname(sys.argv[1]))
from shapes import Dump
d = Dump()
obj = d.cls('java/lang/Object')
for i in range(130):
    c = d.cls('x/C%d' % i, [('data', 2)], super_id=obj)
    d.cls('test/H%d' % i, statics=[('x', d.inst(c, [d.bytes_(100 + i)]))], super_id=obj)
d.write(sys.argv[2])
EOP
"$TM" hprof holders "$T/many.hprof" -n 5 --html "$T/many.html" 2>"$T/many.err"
test_expect hprof_html_more_rows '
	test_eq "the line under each table" "$(grep "more" "$T/many.html")" \
		"<p>&hellip; 125 more holders (<code>-n 0</code> for all).</p>
<p>&hellip; 30 more classes (<code>--json</code> has them).</p>
<p>&hellip; 32 more classes (<code>--json</code> has them).</p>"'

check_fails hprof_html_bad_dir "cannot write '$T/nodir/x.html.tmp'" "$TM" hprof holders "$T/s.hprof" --html "$T/nodir/x.html"
check_fails hprof_html_not_for_top "html is for holders, not 'top'" "$TM" hprof top "$T/s.hprof" --html "$T/t.html"
check_eq hprof_html_nothing_left "$(ls "$T" | grep -c '\.tmp$')" 0
check_eq hprof_html_no_temp_files "$(ls -A "$T/tmp")" ""
finish
