#!/bin/sh
# An HTML report runs only its own inline scripts: its CSP names each one
# by SHA-256 and allows no 'unsafe-inline' script, and each hash matches
# the script's text in the file (else a browser would run none of them).
. "$(dirname "$0")/../lib.sh"

"$TM" record -q -o "$T/r.db" -i 50ms -- sleep 0.3 >/dev/null 2>&1 &&
	"$TM" report -o "$T/r.db" --html "$T/r.html" >"$T/out" 2>&1 ||
	{ fail "report --html" "$(cat "$T/out")"; finish; }
out=$(/usr/bin/python3 - "$T/r.html" <<'EOP' 2>&1
import base64, hashlib, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
policy = dict((d.split()[0], d.split()[1:]) for d in csp.split(";") if d.strip())
script_src = policy.get("script-src", [])
bad = []
if "'unsafe-inline'" in script_src:
    bad.append("script-src allows 'unsafe-inline': %s" % script_src)
allowed = set(s[len("'sha256-"):-1] for s in script_src if s.startswith("'sha256-"))
scripts = re.findall(r'<script>(.*?)</script>', page, re.S)
if not scripts:
    bad.append("no inline script")
for text in scripts:
    h = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
    if h not in allowed:
        bad.append("script of %d bytes has sha256 %s, not in the CSP's %s" % (len(text), h, sorted(allowed)))
if len(allowed) != len(scripts):
    bad.append("%d hashes for %d scripts" % (len(allowed), len(scripts)))
if bad:
    print("\n".join(bad)); sys.exit(1)
print("%d scripts, each allowed by its hash" % len(scripts))
EOP
)
csp_rc=$?
test_expect "the HTML report's CSP allows its scripts by hash, no 'unsafe-inline' ($out)" '[ $csp_rc = 0 ] || test_why "$out"'
finish
