#!/bin/sh
# A real arm64 machine for the aarch64 build: Debian's arm64 kernel
# (linux-image-arm64, taken out of the .deb, not installed) booted under
# qemu-system-aarch64 (TCG, the "virt" board, 2 vCPUs), with cgroup2 alone.
#
#   sh scripts/arm64-guest.sh fetch          download the kernel and busybox-static
#                                            arm64 packages (scripts/deps.sh --test)
#   sh scripts/arm64-guest.sh run JOB [ARG]  boot, run the busybox-sh script JOB in
#                                            the guest, print its output, exit with
#                                            its status
#
# The guest sees this machine's root read-only over virtio-9p (the checkout,
# build/aarch64 and the arm64 multiarch libraries under /usr/lib/aarch64-linux-gnu
# are where they are here), its own tmpfs on /tmp, /run and /dev/shm, and
# cgroup2 on /sys/fs/cgroup with memory, cpu, io and pids enabled at the
# root, as systemd does.  The host's programs are x86_64, so the job runs
# under the arm64 busybox (sh and its applets on PATH) from the checkout,
# with A (build/aarch64, absolute) and GUEST_OUT (a directory shared with
# the host, read-write: what the host checks afterwards) set.  The console
# goes to build/aarch64/guest/console.log; its tail is printed when the job
# fails or the guest does not finish.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
G=$ROOT/build/aarch64/guest
SUDO=${SUDO:-}

# The image package linux-image-arm64 stands for (its one dependency).
image() {
	apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ :]*-arm64\).*/\1/p' | head -1
}

fetch() {
	mkdir -p "$G/deb"
	pkg=$(image)
	if [ -z "$pkg" ]; then
		$SUDO apt-get update -qq
		pkg=$(image)
	fi
	[ -n "$pkg" ] || { echo "arm64-guest: apt knows no linux-image-arm64:arm64" >&2; return 1; }
	ls "$G/deb/${pkg}_"*_arm64.deb >/dev/null 2>&1 && ls "$G/deb/"busybox-static_*_arm64.deb \
		>/dev/null 2>&1 && return 0
	echo "arm64-guest: downloading $pkg and busybox-static (arm64)" >&2
	rm -f "$G/deb/"*.deb
	# apt's sandbox user cannot write into a root-owned build/
	(cd "$G/deb" && apt-get -o APT::Sandbox::User=root download -q "$pkg:arm64" \
		busybox-static:arm64 >download.log 2>&1) || {
		$SUDO apt-get update -qq
		pkg=$(image)
		(cd "$G/deb" && apt-get -o APT::Sandbox::User=root download -q "$pkg:arm64" \
			busybox-static:arm64 >download.log 2>&1) || { cat "$G/deb/download.log" >&2; return 1; }
	}
}

# build/aarch64/guest/{vmlinuz,initramfs.cpio.gz}: busybox, the virtio-pci
# and 9p modules in dependency order, the init below.  Rebuilt when a .deb
# or this script is newer.
build() {
	kdeb=$(ls -t "$G/deb/"linux-image-*_arm64.deb 2>/dev/null | head -1)
	bdeb=$(ls -t "$G/deb/"busybox-static_*_arm64.deb 2>/dev/null | head -1)
	[ -n "$kdeb" ] && [ -n "$bdeb" ] ||
		{ echo "arm64-guest: no packages in $G/deb (sh scripts/arm64-guest.sh fetch)" >&2; return 1; }
	out=$G/initramfs.cpio.gz
	[ -f "$out" ] && [ "$out" -nt "$kdeb" ] && [ "$out" -nt "$bdeb" ] &&
		[ "$out" -nt scripts/arm64-guest.sh ] && return 0
	tmp=$(mktemp -d "$G/build.XXXXXX")
	dpkg-deb -x "$kdeb" "$tmp/k" && dpkg-deb -x "$bdeb" "$tmp/b" || return 1
	kdir=$(ls -d "$tmp"/k/lib/modules/*/ | head -1)
	mkdir -p "$tmp/root/bin" "$tmp/root/modules"
	cp "$tmp/b/bin/busybox" "$tmp/root/bin/busybox"
	: >"$tmp/root/modules.list"
	add() {
		grep -qx "$1" "$tmp/root/modules.list" && return 0
		f=$(find "$kdir" -name "$1.ko" | head -1)
		[ -n "$f" ] || { echo "arm64-guest: module $1 not in $kdeb" >&2; return 1; }
		for d in $(tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
			add "$d" || return 1
		done
		cp "$(find "$kdir" -name "$1.ko" | head -1)" "$tmp/root/modules/"
		echo "$1" >>"$tmp/root/modules.list"
	}
	for m in virtio_pci 9pnet_virtio 9p; do
		add "$m" || return 1
	done
	sed -n '/^#=init$/,/^#=end$/p' scripts/arm64-guest.sh | sed '1d;$d' >"$tmp/root/init"
	chmod 755 "$tmp/root/init"
	(cd "$tmp/root" && find . | cpio -o -H newc --quiet) | gzip -1 >"$tmp/initramfs.cpio.gz" || return 1
	cp "$tmp"/k/boot/vmlinuz-* "$G/vmlinuz"
	mv "$tmp/initramfs.cpio.gz" "$out"
	rm -rf "$tmp"
}

run() {
	job_script=$1
	shift
	command -v qemu-system-aarch64 >/dev/null ||
		{ echo "arm64-guest: no qemu-system-aarch64 (sh scripts/deps.sh --test)" >&2; return 2; }
	build || return 2
	mkdir -p "$G/jobs"
	job=$(mktemp -d "$G/jobs/job.XXXXXX")
	mkdir "$job/results"
	{
		echo "export A='$ROOT/build/aarch64' GUEST_OUT=/run/job/results"
		echo "cd '$ROOT' || exit 125"
		printf 'exec sh %s' "'$ROOT/$job_script'"
		for a in "$@"; do printf " '%s'" "$a"; done
		echo
	} >"$job/run"
	log=$G/console.log
	timeout -k 5 "${ARM64_GUEST_TIMEOUT:-240}" qemu-system-aarch64 -machine virt -accel tcg \
		-cpu max -smp 2 -m 1024 -nodefaults -no-user-config -nographic -no-reboot \
		-display none -monitor none -serial "file:$log" \
		-kernel "$G/vmlinuz" -initrd "$G/initramfs.cpio.gz" \
		-append "console=ttyAMA0 loglevel=4 panic=-1 rdinit=/init nokaslr tm_root=$ROOT" \
		-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device virtio-9p-pci,fsdev=root,mount_tag=root \
		-fsdev "local,id=job,path=$job,security_model=none" \
		-device virtio-9p-pci,fsdev=job,mount_tag=job >"$job/qemu.err" 2>&1
	qrc=$?
	cat "$job/out" 2>/dev/null
	if [ -f "$job/status" ]; then
		rc=$(cat "$job/status")
	else
		echo "not ok - the arm64 guest stopped before the job ended (qemu status $qrc)"
		rc=125
	fi
	if [ "$rc" -ne 0 ]; then
		echo "# the arm64 guest's console ($log), last 30 lines:"
		tail -30 "$log" | sed 's/^/#   /'
	fi
	# what the job left for the host's checks
	rm -rf "$G/results"
	mv "$job/results" "$G/results"
	rm -rf "$job"
	return "$rc"
}

case "${1:-}" in
fetch) fetch ;;
run)
	shift
	[ $# -ge 1 ] || { echo "usage: arm64-guest.sh run JOB [ARG...]" >&2; exit 2; }
	run "$@"
	;;
*)
	echo "usage: sh scripts/arm64-guest.sh fetch | run JOB [ARG...]" >&2
	exit 2
	;;
esac
exit $?

# The guest's /init (busybox sh), cut out of this file by build().
#=init
#!/bin/busybox sh
/bin/busybox mkdir -p /bin /proc /sys /dev /newroot
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
die() {
	echo "arm64-init: $*"
	poweroff -f
}
for m in $(cat /modules.list); do
	insmod "/modules/$m.ko" || die "insmod $m failed"
done
R=/newroot
mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 root $R ||
	die "cannot mount the host's root over 9p"
mount -t proc proc $R/proc && mount -t sysfs sys $R/sys && mount -t devtmpfs dev $R/dev || die "no /proc, /sys or /dev"
mkdir -p $R/dev/shm
mount -t tmpfs -o mode=1777 shm $R/dev/shm || die "no tmpfs"
# The checkout may be under the host's /tmp (a CI clone, say): keep that
# reachable at its own path before the guest's tmpfs covers /tmp.
mkdir -p /hosttmp && mount -o bind $R/tmp /hosttmp || die "cannot bind the host's /tmp"
mount -t tmpfs -o mode=1777 tmp $R/tmp || die "no /tmp"
tmroot=$(sed -n 's/.* tm_root=\([^ ]*\).*/\1/p' /proc/cmdline)
case $tmroot in /tmp/?*)
	mkdir -p "$R$tmroot" && mount -o bind "/hosttmp${tmroot#/tmp}" "$R$tmroot" ||
		die "cannot show the checkout $tmroot" ;;
esac
mount -t tmpfs -o mode=755 run $R/run || die "no tmpfs"
mount -t cgroup2 -o nsdelegate,memory_recursiveprot cgroup2 $R/sys/fs/cgroup || die "no cgroup2"
mkdir -p $R/run/job $R/run/bb
mount -t 9p -o trans=virtio,version=9p2000.L,rw,cache=none,msize=512000 job $R/run/job ||
	die "cannot mount the job directory"
C=$R/sys/fs/cgroup
echo "+memory +cpu +io +pids" >$C/cgroup.subtree_control || die "cannot enable controllers"
mkdir -p $C/init.scope
echo $$ >$C/init.scope/cgroup.procs
cp /bin/busybox $R/run/bb/busybox
echo "arm64-init: ready, $(cat $C/cgroup.controllers)"
chroot $R /run/bb/busybox sh -c '/run/bb/busybox --install -s /run/bb && export PATH=/run/bb HOME=/tmp &&
	cd /run/job && exec sh ./run' >$R/run/job/out 2>&1
echo $? >$R/run/job/status
sync
echo "arm64-init: job done, status $(cat $R/run/job/status)"
poweroff -f
#=end
