#!/bin/sh
# heap attach on aarch64, under ptrace on a real arm64 kernel: Debian's
# linux-image-arm64 under qemu-system-aarch64 (scripts/arm64-guest.sh; TCG,
# qemu's "max" CPU).  qemu-user cannot run it (it does not emulate ptrace).
# The guest runs tests/cross/guest_attach.sh: the aarch64 tidemark attaches
# its aarch64 agent to heap_attach_loop, reads the live heap against the
# program's own figure, detaches; the program goes on and ends with the
# output it gives without an attach, computed here under qemu-aarch64.
. "$(dirname "$0")/../lib.sh"

A=$TM_ROOT/build/aarch64
G=$A/guest
HOLD=4000
STEPS=500000
if ! command -v qemu-system-aarch64 >/dev/null 2>&1; then
	skip arm64_attach "no qemu-system-aarch64 (qemu-system-arm: sh scripts/deps.sh --test)"
	finish
fi
if ! ls "$G"/deb/linux-image-*_arm64.deb "$G"/deb/busybox-static_*_arm64.deb >/dev/null 2>&1; then
	skip arm64_attach "no arm64 kernel or busybox package in $G/deb (sh scripts/arm64-guest.sh fetch)"
	finish
fi
if [ ! -x "$A/tidemark" ] || [ ! -r "$A/libtidemark-heap-attach.so" ] ||
	[ ! -x "$A/progs/heap_attach_loop" ]; then
	fail arm64_attach_build "build/aarch64 incomplete: make cross ARCH=aarch64"
	finish
fi
if ! command -v qemu-aarch64-static >/dev/null 2>&1; then
	fail arm64_attach_reference "no qemu-aarch64-static for the reference run (sh scripts/deps.sh --test)"
	finish
fi
ref=$(qemu-aarch64-static -cpu max "$A/progs/heap_attach_loop" $HOLD $STEPS 2>&1)
echo "# reference (qemu-aarch64): $ref"
# the statistics path: static_je (built when scripts/deps.sh --test put the
# arm64 libjemalloc.a into build/deps/), its output without an attach
je_ref=""
[ -x "$A/progs/static_je" ] && je_ref=$(qemu-aarch64-static -cpu max "$A/progs/static_je" 40 0 2>&1)
sh "$TM_ROOT/scripts/arm64-guest.sh" run tests/cross/guest_attach.sh $HOLD $STEPS "$ref" "$je_ref" \
	>"$T/guest.tap" 2>&1
rc=$?
cat "$T/guest.tap"
grep -q '^# arm64 attach job done' "$T/guest.tap" ||
	fail arm64_attach_guest "the job did not reach its end: status $rc (the console's tail is above)"
finish
