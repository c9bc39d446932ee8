#!/bin/sh
# Installs the Debian packages tidemark needs to build, demo and test.
# Idempotent: only missing packages are installed; apt-get update runs once,
# and only when something is missing.  Needs root (or sudo) on Debian 12.
set -eu

BUILD="gcc make pkg-config libsqlite3-dev libmicrohttpd-dev libcurl4-openssl-dev
libjansson-dev libunwind-dev libdw-dev libelf-dev libprotobuf-c-dev
protobuf-c-compiler zlib1g-dev libinih-dev libgnutls28-dev"
# the demo's jemalloc arm
DEMO="libjemalloc2"
TEST="libcmocka-dev libjemalloc2 libjemalloc-dev libmimalloc2.0 libmimalloc-dev
libgoogle-perftools4 libtcmalloc-minimal4 sqlite3 python3 perl git g++ valgrind
heaptrack atop prometheus golang-go chromium clang libclang-rt-14-dev procps
clang-format cppcheck qemu-system-x86 busybox-static"

want="$BUILD $DEMO"
[ "${1:-}" = "--test" ] && want="$BUILD $TEST"

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
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
# The cgroup v2 guest's kernel (tests/v2, scripts/vm/): Debian's
# linux-image-amd64, downloaded (not installed) into build/vm/.
kernel()
{
	[ "${1:-}" = "--test" ] || return 0
	SUDO="$SUDO" sh "$(dirname "$0")/vm/fetch-kernel.sh"
}
if [ -z "$missing" ]; then
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
kernel "${1:-}"
