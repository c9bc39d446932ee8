# Sourced by the guest's /init (scripts/vm/init) when run-in-guest was given
# --systemd (tm_systemd=1 on the kernel's command line): boots Debian's own
# systemd, from this machine's read-only root, as the guest's PID 1.
#
# The root is an overlay: the host's root over 9p (read-only) below, a tmpfs
# above, so /etc and /var are writable and every write is lost at power-off.
# Into the tmpfs go: the job's units (tm.target, the boot's only goal, wants
# tm-job.service, which runs job/run and powers the guest off), masks for
# what is slow or means nothing here (networking, gettys, timers, udev,
# module loading, the host's services), a volatile journal (journald runs),
# an empty fstab.  /tmp (the checkout too when it is under the host's /tmp,
# as in init), /run and /run/job are mounted before switch_root; systemd
# mounts /proc, /sys, /dev and cgroup2 (unified) itself.
systemd_boot()
{
	mkdir -p /lower /up
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=512000 root /lower ||
		die "cannot mount the host's root over 9p"
	mount -t tmpfs -o mode=755 up /up || die "no tmpfs for the overlay"
	mkdir -p /up/upper /up/work
	mount -t overlay -o lowerdir=/lower,upperdir=/up/upper,workdir=/up/work,xino=off overlay $R ||
		die "cannot mount the overlay root"
	mount -t tmpfs -o mode=1777 tmp $R/tmp || die "no /tmp"
	tmroot=$(sed -n 's/.* tm_root=\([^ ]*\).*/\1/p' /proc/cmdline)
	case $tmroot in /tmp/?*)
		mkdir -p "$R$tmroot" && mount -o bind "/lower$tmroot" "$R$tmroot" ||
			die "cannot show the checkout $tmroot" ;;
	esac
	mount -t tmpfs -o mode=755,nosuid,nodev run $R/run || die "no /run"
	# both layers, for a pooled guest to undo what each job wrote (pool.sh)
	mkdir -p $R/run/tm-overlay/upper $R/run/tm-overlay/lower
	mount -o bind /up/upper $R/run/tm-overlay/upper &&
		mount -o bind,ro /lower $R/run/tm-overlay/lower || die "cannot show the overlay's layers"
	mkdir -p $R/run/job
	mount -t 9p -o trans=virtio,version=9p2000.L,rw,cache=none,msize=512000 job $R/run/job ||
		die "cannot mount the job directory"
	E=$R/etc/systemd/system
	mkdir -p $E $R/etc/systemd/journald.conf.d
	: >$R/etc/fstab
	echo v2-guest >$R/etc/hostname
	rm -f $R/.dockerenv
	printf '[Journal]\nStorage=volatile\nRuntimeMaxUse=32M\n' >$R/etc/systemd/journald.conf.d/tm.conf
	# what the boot needs not wait for, or what cannot work in this guest
	for u in systemd-networkd.service systemd-networkd.socket systemd-resolved.service \
		systemd-timesyncd.service systemd-pstore.service getty@tty1.service \
		serial-getty@ttyS0.service console-getty.service systemd-udevd.service \
		systemd-udev-trigger.service systemd-udev-settle.service systemd-udevd-control.socket \
		systemd-udevd-kernel.socket systemd-modules-load.service kmod-static-nodes.service \
		proc-sys-fs-binfmt_misc.automount systemd-binfmt.service systemd-firstboot.service \
		systemd-journal-flush.service systemd-random-seed.service systemd-repart.service \
		systemd-pcrphase.service systemd-pcrphase-sysinit.service systemd-machine-id-commit.service \
		systemd-update-utmp.service systemd-hwdb-update.service ldconfig.service \
		systemd-journald-audit.socket systemd-remount-fs.service systemd-fsck-root.service \
		sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount \
		sys-fs-fuse-connections.mount dev-hugepages.mount dev-mqueue.mount \
		cryptsetup.target veritysetup.target integritysetup.target remote-fs.target \
		systemd-ask-password-console.path systemd-ask-password-wall.path \
		console-setup.service keyboard-setup.service apparmor.service \
		e2scrub_reap.service logrotate.timer; do
		ln -sf /dev/null $E/$u
	done
	# no generators: this guest's boot needs none (an empty fstab, no
	# gettys, no init.d scripts, no encrypted disks), and each one is a
	# process systemd starts on every daemon-reload, which the tests and
	# bench --unit do many times (seconds each under TCG)
	mkdir -p $R/etc/systemd/system-generators
	for g in /lower/lib/systemd/system-generators/* /lower/usr/lib/systemd/system-generators/*; do
		[ -e "$g" ] && ln -sf /dev/null "$R/etc/systemd/system-generators/${g##*/}"
	done
	# no timers: one that fires during a job (apt-daily, man-db, at
	# midnight atop-rotate, ...) starts a service and writes its stamp in
	# /var/lib/systemd/timers, a change the pool cannot undo (pool.sh).
	# (The wants are absolute links into the host's root: -h, not -e, in
	# this initramfs, where they do not resolve.)
	for t in /lower/etc/systemd/system/timers.target.wants/*.timer \
		/lower/lib/systemd/system/*.timer /lower/usr/lib/systemd/system/*.timer; do
		[ -e "$t" ] || [ -h "$t" ] && ln -sf /dev/null "$E/${t##*/}"
	done
	cat >$E/tm.target <<-'EOF'
		[Unit]
		Description=the v2 guest's job (scripts/vm/systemd.sh)
		Requires=basic.target
		Wants=tm-job.service
		After=basic.target
		AllowIsolate=yes
	EOF
	cat >$E/tm-job.service <<-'EOF'
		[Unit]
		Description=run-in-guest's job (/run/job/run)
		After=basic.target dbus.socket systemd-journald.socket
		SuccessAction=poweroff-immediate
		FailureAction=poweroff-immediate
		[Service]
		Type=exec
		TimeoutStartSec=infinity
		ExecStart=/bin/sh -c 'cd /run/job && /bin/sh ./run >/run/job/out 2>&1; echo $? >/run/job/status; sync'
	EOF
	echo "vm-init: switching to systemd on an overlay root"
	exec switch_root $R /lib/systemd/systemd
}
