# Runs inside the arm64 guest (scripts/arm64-guest.sh run), under the arm64
# busybox sh: the aarch64 build on a real arm64 kernel with cgroup2 alone.
# Prints TAP for what it can judge here and leaves stores and outputs in
# $GUEST_OUT, which tests/e2e/aarch64_guest.sh checks on the host (with the
# host's tidemark and python3: the store is the same file on both machines).
set -u
ok() { echo "ok - $*"; }
fail() { echo "not ok - $1"; shift; [ $# -gt 0 ] && echo "# $*"; return 0; }
O=$GUEST_OUT
# stores are written on the guest's tmpfs (SQLite's WAL needs shared memory
# maps, which the 9p share does not give) and copied out at the end
D=/tmp/stores
mkdir -p $D
m=$(uname -m)
if [ "$m" = aarch64 ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers &&
	! grep -q ' cgroup ' /proc/mounts; then
	ok "arm64_guest_kernel ($(uname -r), cgroup2 alone: $(cat /sys/fs/cgroup/cgroup.controllers))"
else
	fail arm64_guest_kernel "$m $(cat /sys/fs/cgroup/cgroup.controllers 2>&1)"
fi
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
