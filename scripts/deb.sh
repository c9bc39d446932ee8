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
# one version for the binary and the package: the VERSION file (tidemark
# --version prints it too, build/gen/tm_version.h)
version=$(cat VERSION)
maint=${DEB_MAINTAINER:-tidemark developers <tidemark@example.org>}
root=$B/deb/root
rm -rf "$B/deb"
mkdir -p "$root/DEBIAN"
make --no-print-directory -s install DESTDIR="$root" PREFIX=/usr B="$B" >/dev/null
doc=$root/usr/share/doc/tidemark
install -d "$doc"
install -m 644 dist/debian/copyright "$doc/copyright"
gzip -9n <dist/debian/changelog >"$doc/changelog.gz"
gzip -9n "$root"/usr/share/man/man1/*.1
# debug info split out as Debian does (dh_strip): each ELF file stripped,
# its DWARF kept by build id in a tidemark-dbgsym package beside it
dbg=$B/deb/dbgsym
for f in "$root/usr/bin/tidemark" "$root"/usr/lib/tidemark/*.so; do
	id=$(readelf -n "$f" | sed -n 's/^ *Build ID: *//p')
	[ -n "$id" ] || { echo "deb: $f has no build id" >&2; exit 1; }
	d=$dbg/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$d"
	objcopy --only-keep-debug --compress-debug-sections "$f" "$d/$(echo "$id" | cut -c3-).debug"
	case $f in
	*.so) strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
	*) strip --remove-section=.comment --remove-section=.note "$f" ;;
	esac
done
# dpkg-shlibdeps wants a debian/control to read; give it a minimal one
mkdir -p "$B/deb/src/debian"
printf 'Source: tidemark\n\nPackage: tidemark\nArchitecture: any\n' >"$B/deb/src/debian/control"
libs=$(cd "$B/deb/src" && dpkg-shlibdeps -O "-l$root/usr/lib/tidemark" \
	"$root/usr/bin/tidemark" "$root"/usr/lib/tidemark/*.so 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$libs" ] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# the libraries the tool loads when it first needs them (dlopen by soname:
# src/sysd/sdlib.h, src/heap/dwlib.h, src/base/zlib.h, src/bench/ini.c,
# src/base/pb.h) are
# in no NEEDED entry, so dpkg-shlibdeps cannot see them; their packages,
# named after the sonames as Debian policy names them
libs="$libs, libsystemd0, libdw1, zlib1g, libinih1, libprotobuf-c1"
# SQLite is linked into the executable (the Makefile's CORE_LIBS): no
# dependency, but the source package it came from, as Debian policy's
# Built-Using says (a security update of SQLite needs this deb rebuilt)
sqlite_src=$(dpkg-query -W -f '${source:Package}=${source:Version}' "libsqlite3-dev:$arch" 2>/dev/null) || {
	echo "deb: libsqlite3-dev is not installed (sh scripts/deps.sh)" >&2
	exit 1
}
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) \
	>"$root/DEBIAN/md5sums"
size=$(du -sk "$root" | cut -f1)
cat >"$root/DEBIAN/control" <<EOC
Package: tidemark
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $size
Depends: $libs
Built-Using: ${sqlite_src%%=*} (= ${sqlite_src#*=})
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
mkdir -p "$dbg/DEBIAN" "$dbg/usr/share/doc"
ln -sfn tidemark "$dbg/usr/share/doc/tidemark-dbgsym"
cat >"$dbg/DEBIAN/control" <<EOC
Package: tidemark-dbgsym
Version: $version
Architecture: $arch
Maintainer: $maint
Installed-Size: $(du -sk "$dbg" | cut -f1)
Depends: tidemark (= $version)
Section: debug
Priority: optional
Description: debug symbols for tidemark
 The DWARF debug information of the tidemark binary and its libraries,
 found by build id under /usr/lib/debug/.build-id.
EOC
dpkg-deb --root-owner-group --build "$dbg" "$B/tidemark-dbgsym_${version}_$arch.deb" >/dev/null
echo "$out"
