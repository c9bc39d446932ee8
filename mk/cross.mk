# Cross build for aarch64 (Raspberry Pi 3/4/5 and arm64 servers), issue 11.
#
#   make cross ARCH=aarch64   tidemark, libtidemark-heap(-sites).so, the unit
#                             tests and the heap test programs, built with
#                             Debian's cross toolchain into build/aarch64/
#
# Libraries come from Debian's multiarch -dev:arm64 packages (scripts/deps.sh
# adds the arm64 architecture and installs them); pkg-config is pointed at
# their .pc files.  The programs run here under qemu-aarch64 (user mode):
# tests/e2e/aarch64.sh, which make check runs.  No ASan build: ASan's shadow
# memory does not fit under qemu-user.
ARCH ?= aarch64
CROSS_TRIPLET = $(ARCH)-linux-gnu
CROSS_B = build/$(ARCH)
CROSS_GOALS = all heap-progs-cross unit-plain

.PHONY: cross heap-progs-cross unit-plain
cross:
	$(Q)if [ "$(ARCH)" != aarch64 ]; then \
		echo "cross: ARCH=$(ARCH): only aarch64 is set up (mk/cross.mk)" >&2; exit 1; fi
	$(Q)if ! command -v $(CROSS_TRIPLET)-gcc >/dev/null; then \
		echo "cross: $(CROSS_TRIPLET)-gcc missing: run sh scripts/deps.sh --test" >&2; exit 1; fi
	$(Q)PKG_CONFIG_LIBDIR=/usr/lib/$(CROSS_TRIPLET)/pkgconfig:/usr/share/pkgconfig \
		$(MAKE) --no-print-directory B=$(CROSS_B) CC=$(CROSS_TRIPLET)-gcc \
		CXX=$(CROSS_TRIPLET)-g++ AR=$(CROSS_TRIPLET)-ar $(CROSS_GOALS)

# What the aarch64 tests need besides `all` (the bench-only shims are not).
# Second expansion: this file is read before heap.mk and the Makefile's
# UNIT_BIN.
.SECONDEXPANSION:
heap-progs-cross: $$(filter-out $$(B)/progs/heap_bench,$$(HEAP_PROGS)) $(B)/progs/heap_sites_pac \
	$$(PROG_BIN)
unit-plain: $$(UNIT_BIN)

CHECK_EXTRA += cross

# heap_sites as Ubuntu builds arm64 code: return addresses signed (PAC), so
# that the test sees the shim strip them (shim/arch.h).
$(B)/progs/heap_sites_pac: tests/progs/heap_sites.c tests/progs/heap_self.h include/tidemark-heap.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 $(WARN) -D_GNU_SOURCE -Iinclude -O2 -g -fno-omit-frame-pointer \
		-mbranch-protection=standard -o $@ $< -ldl -lpthread
