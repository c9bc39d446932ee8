#!/bin/sh
# Builds the cgroup v2 guest from the kernel package that fetch-kernel.sh
# downloaded: build/vm/vmlinuz (the package's kernel) and
# build/vm/initramfs.cpio.gz (busybox-static, the virtio, 9p and virtio_blk
# and overlay modules of the same package in dependency order,
# scripts/vm/init and scripts/vm/systemd.sh).  Cached: nothing
# is rebuilt unless the .deb, busybox or the init script changed.
#
#   sh scripts/vm/build.sh [DIR]     DIR defaults to build/vm
set -eu
cd "$(dirname "$0")/../.."
dir=${1:-build/vm}
deb=$(ls -t "$dir"/deb/linux-image-*_amd64.deb 2>/dev/null | head -1 || true)
[ -n "$deb" ] || { echo "vm-build: no kernel package in $dir/deb (run scripts/deps.sh --test)" >&2; exit 1; }
bb=/bin/busybox
[ -x "$bb" ] && "$bb" --list | grep -qx insmod ||
	{ echo "vm-build: no busybox-static (run scripts/deps.sh --test)" >&2; exit 1; }
out=$dir/initramfs.cpio.gz
if [ -f "$out" ] && [ -f "$dir/vmlinuz" ] && [ "$out" -nt "$deb" ] &&
	[ "$out" -nt scripts/vm/init ] && [ "$out" -nt scripts/vm/systemd.sh ] && [ "$out" -nt scripts/vm/build.sh ] && [ "$out" -nt "$bb" ]; then
	exit 0
fi
tmp=$(mktemp -d "$dir/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
kdir=$(ls -d "$tmp"/pkg/lib/modules/*/ | head -1)
mkdir -p "$tmp/root/bin" "$tmp/root/modules"
cp "$bb" "$tmp/root/bin/busybox"
cp scripts/vm/init "$tmp/root/init"
cp scripts/vm/systemd.sh "$tmp/root/systemd.sh"
chmod 755 "$tmp/root/init"

# The modules, each after what it depends on (its modinfo "depends=").
: >"$tmp/root/modules.list"
add() {
	grep -qx "$1" "$tmp/root/modules.list" && return 0
	f=$(find "$kdir" -name "$1.ko" | head -1)
	[ -n "$f" ] || { echo "vm-build: module $1 not in $deb" >&2; exit 1; }
	for d in $(tr '\0' '\n' <"$f" | sed -n 's/^depends=//p' | tr ',' ' '); do
		add "$d"
	done
	# (sh has no local variables: the calls above changed $f)
	cp "$(find "$kdir" -name "$1.ko" | head -1)" "$tmp/root/modules/"
	echo "$1" >>"$tmp/root/modules.list"
}
for m in virtio_pci 9pnet_virtio 9p virtio_blk overlay; do
	add "$m"
done
(cd "$tmp/root" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$tmp/initramfs.cpio.gz"
cp "$tmp"/pkg/boot/vmlinuz-* "$dir/vmlinuz"
mv "$tmp/initramfs.cpio.gz" "$out"
echo "vm-build: $(basename "$deb"), modules: $(tr '\n' ' ' <"$tmp/root/modules.list")" >&2
