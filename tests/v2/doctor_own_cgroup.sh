#!/bin/sh
# doctor on a bare cgroup v2 host with no child cgroup yet (issue 25): it
# makes one of its own to check swap accounting and the kernel's files,
# and removes it (and the memory controller it enabled) afterwards.  The
# bare host is a cgroup of ours, empty, bind-mounted over /sys/fs/cgroup in
# a mount namespace of its own.
. "$(dirname "$0")/lib.sh"
X=$CG/tm-doctor-bare-$$
mkdir "$X" || { fail "a cgroup to stand in for a bare host" "mkdir $X"; finish; }
echo +memory >"$CG/cgroup.subtree_control" 2>/dev/null
unshare -m sh -c 'mount --bind "$1" /sys/fs/cgroup && exec "$2" doctor --json' sh "$X" "$TM" \
	>"$T/d.json" 2>"$T/d.err"
r=$(python3 -c 'import json, sys
v = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
print(v["swap_accounting"]["status"], v["swap_accounting"]["value"] or "-",
      v["kernel_files"]["status"], "tidemark-doctor-" in v["kernel_files"]["summary"],
      "made to look at and removed" in v["kernel_files"]["summary"])' "$T/d.json" 2>&1)
echo "# swap accounting, kernel files: $r"
set -- $r
test_expect "doctor checks swap accounting and kernel files in a cgroup of its own" 'set -- $r; [ "${1:-}" != skipped ] && [ "${3:-}" != skipped ] && [ "${4:-}" = True ] && [ "${5:-}" = True ] || test_why "$r; $(cat "$T/d.err")"'
left=$(find "$X" -mindepth 1 -type d | wc -l)
sub=$(cat "$X/cgroup.subtree_control")
test_expect "doctor removed its cgroup and the controller it enabled" '[ "$left" = 0 ] && [ -z "$sub" ] || test_why "$left left: $(find "$X" -mindepth 1 -type d); subtree_control '\''$sub'\''"'
rmdir "$X"
finish
