#!/bin/sh
# Checks that every #include "PART/..." under src/ is allowed by src/LAYERS,
# and that LAYERS itself has no cycle.  Prints each violation; exit 1 if any.
# A part may be a room of a folder ("report/bench"): a file belongs to the
# longest part its path starts with, and a line that names a folder
# ("bench: report") lets it include every room of that folder.
#   scripts/layers.sh [ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
layers=$root/src/LAYERS
[ -r "$layers" ] || { echo "layers: cannot read $layers" >&2; exit 2; }
awk -v root="$root" '
FNR == NR {
	if ($0 ~ /^[ \t]*(#|$)/) next
	part = $1; sub(/:$/, "", part)
	known[part] = 1
	for (i = 2; i <= NF; i++) allow[part, $i] = 1
	deps[part] = ""
	for (i = 2; i <= NF; i++) deps[part] = deps[part] " " $i
	next
}
# the part a path inside src/ belongs to: its longest prefix named in LAYERS
function part_of(path,    d) {
	d = path
	while (d != "") {
		if (d in known) return d
		if (d !~ /\//) return d
		sub(/\/[^\/]*$/, "", d)
	}
	return d
}
# whether part p may include part q: its own, named, or a room of a named folder
function allowed(p, q,    top) {
	if (p == q || ((p, q) in allow)) return 1
	top = q; sub(/\/.*/, "", top)
	return top != q && ((p, top) in allow)
}
{
	file = FILENAME; rel = file; sub("^" root "/src/", "", rel)
	dir = rel; sub(/\/[^\/]*$/, "", dir)
	part = part_of(dir)
	if (rel == "main.c") part = "main"
	if (!(part in known)) { printf "%s: folder %s is not in src/LAYERS\n", rel, part; bad = 1; nextfile }
	if (match($0, /^[ \t]*#[ \t]*include[ \t]+"[a-z_]+\/[a-z_0-9\/.-]*"/)) {
		inc = substr($0, RSTART, RLENGTH); sub(/^[^"]*"/, "", inc); sub(/"$/, "", inc)
		sub(/\/[^\/]*$/, "", inc); inc = part_of(inc)
		if (!allowed(part, inc)) {
			printf "%s:%d: %s may not include %s/ (src/LAYERS)\n", rel, FNR, part, inc; bad = 1
		}
	} else if (match($0, /^[ \t]*#[ \t]*include[ \t]+"[^"\/]+"/) && $0 !~ /\.pb-c\.h"|tidemark-(heap|size)\.h"|tm_(paths|version)\.h"/) {
		printf "%s:%d: include by folder path (\"part/file.h\"): %s\n", rel, FNR, $0; bad = 1
	}
}
END {
	# a cycle: some part reaches itself through allowed edges
	for (p in known) for (q in known) {
		t = q; sub(/\/.*/, "", t)
		if (t != q && index(deps[p] " ", " " t " ") && p != q && index(p "/", t "/") != 1) deps[p] = deps[p] " " q
	}
	for (p in known) {
		delete seen; n = split(deps[p], st, " "); top = n
		while (top > 0) {
			q = st[top--]
			if (q == p) { printf "src/LAYERS: %s depends on itself\n", p; bad = 1; break }
			if (q in seen) continue
			seen[q] = 1; m = split(deps[q], more, " ")
			for (k = 1; k <= m; k++) st[++top] = more[k]
		}
	}
	exit bad
}' "$layers" $(find "$root/src" -name '*.[ch]' | sort)
