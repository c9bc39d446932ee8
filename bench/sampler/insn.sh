#!/bin/sh
# Instructions per sample read (user space), aarch64 against x86_64, both
# counted the same way: each build's tm-sample run under qemu-user
# (qemu-aarch64-static, qemu-x86_64-static) with "-d in_asm,exec,nochain",
# whose log gives every translated block's instructions once and one line
# per block executed (bench/sampler/insn.awk sums them).  Debian's
# qemu-user-static is static, so it loads no TCG plugins (libinsn.so); the
# VM has no hardware counters either (perf stat: instructions <not
# supported>).  The count of one read is the slope between READS+1 reads
# and 1 read of the same tree (start-up and the first, slow read cancel);
# reads are 100 ms apart in the sampler's time with status and
# smaps_rollup every 10 s, as `record -i 100ms` does.  The kernel's work
# (generating the /proc files, most of the CPU on x86_64: bench/README.md)
# is the host's and not counted.
#   sh bench/sampler/insn.sh [READS]          (default 200)
# Needs: make build/tm-sample, and build/aarch64/tm-sample (the command is
# printed when it is missing).  Results: bench/README.md ("aarch64").
set -eu
cd "$(dirname "$0")/../.."
READS=${1:-200}
D=$(mktemp -d /tmp/tm-insn.XXXXXX)
TREES=
trap 'for p in $TREES; do kill -- "-$p" 2>/dev/null; done; rm -rf "$D"' EXIT
for f in build/tm-sample build/aarch64/tm-sample; do
	[ -x $f ] && continue
	echo "missing $f: make build/tm-sample; PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig make B=build/aarch64 CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar build/aarch64/tm-sample" >&2
	exit 1
done

# count ARCH READS PID: instructions of one tm-sample run of READS reads
count()
{
	rm -f "$D/log"
	mkfifo "$D/log"
	awk -f bench/sampler/insn.awk <"$D/log" >"$D/n" &
	a=$!
	case $1 in
	x86_64) qemu-x86_64-static -d in_asm,exec,nochain -D "$D/log" build/tm-sample pid "$3" --reads "$2" >/dev/null ;;
	aarch64) qemu-aarch64-static -cpu max -d in_asm,exec,nochain -D "$D/log" build/aarch64/tm-sample pid "$3" --reads "$2" >/dev/null ;;
	esac
	wait $a
	cut -d' ' -f1 "$D/n"
}

echo "| processes | arch | instructions, 1 read (with start-up) | instructions, $((READS + 1)) reads | per read |"
echo "|---|---|---|---|---|"
for n in 1 50; do
	setsid sh -c "for i in \$(seq $((n - 1))); do sleep 3600 & done; exec sleep 3600" >/dev/null 2>&1 &
	root=$!
	TREES="$TREES $root"
	sleep 1
	for arch in x86_64 aarch64; do
		one=$(count $arch 1 $root)
		many=$(count $arch $((READS + 1)) $root)
		echo "| $n | $arch | $one | $many | $(((many - one) / READS)) |"
	done
	kill -- "-$root" 2>/dev/null || true
done
