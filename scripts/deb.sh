#!/bin/sh
# make deb: a Debian package of `make install PREFIX=/usr`, built with
# Debian's own tools: dpkg-shlibdeps finds the packages of the shared
# libraries the binaries link, dpkg-deb builds the .deb.  Writes
# build/tidemark_VERSION_ARCH.deb.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
arch=$(dpkg --print-architecture)
# a tag v1.2 gives 1.2 (1.2+3+gHASH past it); no tag: 0.0+gitHASH
if version=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	version=$(echo "$version" | sed 's/^v//; s/-/+/g')
else
	version=0.0+git$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
fi
root=$B/deb/root
rm -rf "$B/deb"
mkdir -p "$root/DEBIAN"
make --no-print-directory -s install DESTDIR="$root" PREFIX=/usr B="$B" >/dev/null
# dpkg-shlibdeps wants a debian/control to read; give it a minimal one
mkdir -p "$B/deb/src/debian"
printf 'Source: tidemark\n\nPackage: tidemark\nArchitecture: any\n' >"$B/deb/src/debian/control"
libs=$(cd "$B/deb/src" && dpkg-shlibdeps -O "-l$root/usr/lib/tidemark" \
	"$root/usr/bin/tidemark" "$root"/usr/lib/tidemark/*.so 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$libs" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOC
Package: tidemark
Version: $version
Architecture: $arch
Maintainer: tidemark developers <tidemark@localhost>
Installed-Size: $size
Depends: $libs
Section: admin
Priority: optional
Description: memory observatory for long-running services
 Records a process tree, cgroup or systemd unit over time, splits its anon
 memory into live heap, allocator-held memory and the rest, compares
 allocators and limits in fresh memory-limited cgroups, and shows the
 results as tables, a live panel, Prometheus metrics and HTML reports.
EOC
out=$B/tidemark_${version}_$arch.deb
dpkg-deb --root-owner-group --build "$root" "$out" >/dev/null
echo "$out"
