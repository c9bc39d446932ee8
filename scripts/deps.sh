#!/bin/sh
# Installs the Debian packages tidemark needs to build, demo and test.
# Idempotent: only missing packages are installed; apt-get update runs once,
# and only when something is missing.  Needs root (or sudo) on Debian 12.
set -eu

BUILD="gcc make pkg-config libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev
libjansson-dev libunwind-dev libdw-dev libelf-dev libprotobuf-c-dev
protobuf-c-compiler zlib1g-dev libinih-dev libgnutls28-dev libsystemd-dev libsnappy-dev"
# the demo's jemalloc arm
DEMO="libjemalloc2"
# sysstat: pidstat, a peer in the recorder's benchmark (bench/record/run.py --peers).
# ghc: --runtime ghc's live test (tests/e2e/runtime_ghc.sh; 73 MB download,
# 776 MB installed, about 3 minutes here).
# qemu-system-x86 and busybox-static: the cgroup v2 guest (scripts/vm/); its
# --systemd guest boots this machine's own systemd, with dbus (a minimal
# Debian image, a container's, has neither).  strace: another tracer, which
# heap attach must refuse (tests/e2e/heap_attach.sh).  rustc: a Rust program
# with #[global_allocator] jemalloc, built offline with no crate
# (tests/e2e/heap_attach_static.sh; Debian's 1.63 builds it).
TEST="libcmocka-dev libjemalloc2 libjemalloc-dev libmimalloc2.0 libmimalloc-dev libgoogle-perftools-dev
libgoogle-perftools4 libtcmalloc-minimal4 sqlite3 python3 perl git g++ valgrind
heaptrack atop sysstat prometheus golang-go chromium clang libclang-rt-14-dev procps
clang-format cppcheck openjdk-17-jdk-headless dpkg-dev lintian victoria-metrics groff-base bash-completion
qemu-system-x86 busybox-static redis-server systemd dbus ghc strace jq rustc"

# aarch64 (mk/cross.mk, tests/e2e/aarch64.sh): Debian's cross toolchain, the
# multiarch arm64 libraries it links, and qemu-user to run what it builds
# (binfmt-support registers qemu for aarch64 binaries started by a test).
# qemu-system-arm and cpio: the arm64 guest (scripts/arm64-guest.sh), whose
# kernel and busybox packages are downloaded, not installed.
ARM64="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user-static binfmt-support
qemu-system-arm cpio
libc6-dev:arm64 libstdc++6:arm64 libsqlite3-dev:arm64 libjansson-dev:arm64 libdw-dev:arm64
libelf-dev:arm64 libprotobuf-c-dev:arm64 zlib1g-dev:arm64 libinih-dev:arm64
libmicrohttpd-dev:arm64 libcurl4-openssl-dev:arm64 libgnutls28-dev:arm64 libcmocka-dev:arm64
libsystemd-dev:arm64 libsnappy-dev:arm64
libjemalloc2:arm64 libmimalloc2.0:arm64 libtcmalloc-minimal4:arm64"

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo

# binfmt_misc entry for aarch64: qemu-user-static's, made by binfmt-support
# at install on a machine with systemd; a container without it needs the
# filesystem mounted and the entry enabled (again after each boot).
arm64_binfmt()
{
	[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && return 0
	command -v update-binfmts >/dev/null 2>&1 || return 0
	[ -e /proc/sys/fs/binfmt_misc/register ] ||
		$SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || return 0
	$SUDO update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
}

# Debian's libjemalloc-dev cannot be installed for two architectures at
# once (installing the arm64 one removes the amd64 one): the arm64
# libjemalloc.a for tests/e2e/aarch64.sh's static-allocator programs is
# downloaded and extracted into build/deps/aarch64-linux-gnu/ (mk/heap.mk).
arm64_static_jemalloc()
{
	dir="$(dirname "$0")/../build/deps/aarch64-linux-gnu"
	[ -r "$dir/libjemalloc.a" ] && return 0
	tmp=$(mktemp -d)
	if (cd "$tmp" && apt-get download libjemalloc-dev:arm64 >/dev/null 2>&1); then
		mkdir -p "$dir" && dpkg-deb --fsys-tarfile "$tmp"/libjemalloc-dev_*_arm64.deb |
			tar -xO ./usr/lib/aarch64-linux-gnu/libjemalloc.a >"$dir/libjemalloc.a"
	else
		echo "deps: cannot download libjemalloc-dev:arm64 (aarch64 static jemalloc tests skip)" >&2
	fi
	rm -rf "$tmp"
}

want="$BUILD $DEMO"
if [ "${1:-}" = "--test" ]; then
	want="$BUILD $TEST $ARM64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "deps: adding the arm64 architecture (multiarch, for the aarch64 tests)" >&2
		$SUDO dpkg --add-architecture arm64
	fi
fi

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
# Node.js and npm may come from outside Debian (they do on this project's
# machines); any working npm will do for fetching the panel's test tools.
if [ "${1:-}" = "--test" ] && ! command -v npm >/dev/null 2>&1; then
	missing="$missing nodejs npm"
fi
# The cgroup v2 guest's kernel (tests/v2, scripts/vm/): Debian's
# linux-image-amd64, downloaded (not installed) into build/vm/.
kernel()
{
	[ "${1:-}" = "--test" ] || return 0
	SUDO="$SUDO" sh "$(dirname "$0")/vm/fetch-kernel.sh"
}
if [ -z "$missing" ]; then
	if [ "${1:-}" = "--test" ]; then
		arm64_binfmt
		arm64_static_jemalloc
		SUDO=$SUDO sh "$(dirname "$0")/arm64-guest.sh" fetch
	fi
	kernel "${1:-}"
	exit 0
fi

echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# A policy-rc.d that says no keeps packages such as prometheus from
# starting their services at install time; the tests start what they need
# themselves, on their own ports.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
	$SUDO chmod +x "$policy"
	trap '$SUDO rm -f "$policy"' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
if [ "${1:-}" = "--test" ]; then
	arm64_binfmt
	arm64_static_jemalloc
	SUDO=$SUDO sh "$(dirname "$0")/arm64-guest.sh" fetch
fi
kernel "${1:-}"
exit 0
