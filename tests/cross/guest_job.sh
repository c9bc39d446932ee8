# Runs inside the arm64 guest (scripts/arm64-guest.sh run), under the arm64
# busybox sh: the aarch64 build on a real arm64 kernel with cgroup2 alone.
# Prints TAP for what it can judge here and leaves stores and outputs in
# $GUEST_OUT, which tests/e2e/aarch64_guest.sh checks on the host (with the
# host's tidemark and python3: the store is the same file on both machines).
set -u
ok() { echo "ok - $*"; }
fail() { echo "not ok - $1"; shift; [ $# -gt 0 ] && echo "# $*"; return 0; }
# test_expect NAME BODY and test_why TEXT, as tests/lib.sh has them: one
# check named once; BODY runs in a subshell, and on failure what it printed
# (test_why's values) follows the name
test_expect()
{
	_te_name=$1 _te_body=$2
	if _te_out=$( (eval "$_te_body") 2>&1); then
		echo "ok - $_te_name"
		return 0
	fi
	echo "not ok - $_te_name"
	printf '%s\n' "$_te_out" | tail -20 | sed 's/^/# /'
}
test_why() { printf '%s\n' "$*"; return 1; }
O=$GUEST_OUT
# stores are written on the guest's tmpfs (SQLite's WAL needs shared memory
# maps, which the 9p share does not give) and copied out at the end
D=/tmp/stores
mkdir -p $D
m=$(uname -m)
test_expect "arm64_guest_kernel ($(uname -r), cgroup2 alone: $(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null))" '
	[ "$m" = aarch64 ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers &&
	! grep -q '\'' cgroup '\'' /proc/mounts || test_why "$m $(cat /sys/fs/cgroup/cgroup.controllers 2>&1)"'
"$A/tidemark" doctor >"$O/doctor.txt" 2>&1
echo $? >"$O/doctor.rc"
"$A/tidemark" doctor --json >"$O/doctor.json" 2>"$O/doctor.err"
# a hard limit: OOM-killed, as the kernel says
"$A/tidemark" record -q -o "$D/oom.db" -i 50ms --memory-max 64M -- "$A/progs/alloc_touch" 200 \
	>"$O/oom.out" 2>&1
echo $? >"$O/oom.rc"
# no limit: the sampled peak against the kernel's memory.peak
"$A/tidemark" record -q -o "$D/peak.db" -i 50ms -- "$A/progs/alloc_touch" 96 1500 >"$O/peak.out" 2>&1
echo $? >"$O/peak.rc"
# the heap shim's exact counts on an arm64 kernel, and the same recorded
LD_PRELOAD=$A/libtidemark-heap.so "$A/progs/heap_exact" >"$O/exact.out" 2>&1
"$A/tidemark" record -q -o "$D/heap.db" -i 50ms --heap -- "$A/progs/heap_exact" >"$O/heap.out" 2>&1
echo $? >"$O/heap.rc"
cp $D/*.db "$O/" || fail arm64_guest_stores "cannot copy the stores out"
