#!/bin/sh
# Fetches the kernel of Debian's linux-image-amd64 package for the cgroup v2
# guest (scripts/vm/run-in-guest): the .deb of the image package it depends
# on is downloaded with apt-get download (not installed) into DIR/deb/.
# Idempotent: a .deb of the package's current version already there is
# kept; apt's lists are updated (with $SUDO) only when they do not know the
# package or the download fails.  Needs only Debian's registry.
#
#   sh scripts/vm/fetch-kernel.sh [DIR]     DIR defaults to build/vm
set -eu
cd "$(dirname "$0")/../.."
dir=${1:-build/vm}
SUDO=${SUDO:-}
mkdir -p "$dir/deb"

# linux-image-amd64 is a metapackage; its one dependency is the real image.
image() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -1
}
pkg=$(image)
if [ -z "$pkg" ]; then
	$SUDO apt-get update -qq
	pkg=$(image)
fi
[ -n "$pkg" ] || { echo "fetch-kernel: apt knows no linux-image-amd64" >&2; exit 1; }
ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p' | sed 's/:/%3a/')
[ -f "$dir/deb/${pkg}_${ver}_amd64.deb" ] && exit 0

echo "fetch-kernel: downloading $pkg $ver" >&2
get() { (cd "$dir/deb" && apt-get download -q "$pkg" >download.log 2>&1); }
if ! get; then
	$SUDO apt-get update -qq # stale lists: the mirror has a newer version
	pkg=$(image)
	get || { cat "$dir/deb/download.log" >&2; exit 1; }
fi
new=$(ls -t "$dir/deb/${pkg}_"*_amd64.deb | head -1)
for f in "$dir/deb/"*.deb; do
	[ "$f" = "$new" ] || rm -f "$f"
done
rm -f "$dir/deb/download.log"
