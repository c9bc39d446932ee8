# The executable's layout (issue 23): the recorder's code and data together.
#
# The kernel maps a program's text 64 KiB around each page fault
# (fault-around; a whole large folio on newer kernels), so the recorder's
# resident text is the number of 64 KiB windows its functions touch, not
# their size: 90 KiB of them spread over 7 windows of the 534 KiB text were
# 0.34 MiB of its RSS.  Each function is compiled into a section of its own
# (-ffunction-sections), and the link uses the toolchain's default script
# with the functions mk/record.order names at the start of .text and the
# read-only data of its source files at the start of .rodata
# (scripts/layout-ld.sh); then the members of SQLite's archive (linked in,
# the Makefile's CORE_LIBS) that a recording runs, text and read-only data,
# each one section.  Nothing changes in what the code does; only where
# it lies.
LAYOUT_CFLAGS := -ffunction-sections -fno-merge-constants
LAYOUT_LD      = -Wl,-T,$(B)/gen/record.ld $(RELR_LD)

$(B)/gen/record.ld: mk/record.order mk/layout.mk scripts/layout-ld.sh
	@mkdir -p $(dir $@)
	$(Q)sh scripts/layout-ld.sh mk/record.order $(CC) $(CFLAGS) $(HARDEN_LD) > $@.tmp && mv $@.tmp $@

# What the executable exports: the symbols libtidemark-net.so takes from it
# (every symbol its objects leave undefined; the linker exports those the
# executable defines: about 80), where -rdynamic exported all 1 000.  ld.so
# reads the executable's symbol table at every start, and at 54 KiB it was
# a window of its own.  Second expansion: PNET_OBJ is set after mk/*.mk.
.SECONDEXPANSION:
EXPORT_LD = -Wl,--dynamic-list=$(B)/gen/net-imports.list
$(B)/gen/net-imports.list: $$(PNET_OBJ) mk/layout.mk
	@mkdir -p $(dir $@)
	$(Q){ echo '{'; nm -u $(PNET_OBJ) | awk 'NF == 2 { print "  " $$2 ";" }' | LC_ALL=C sort -u; \
		echo '};'; } > $@.tmp && mv $@.tmp $@

# Relative relocations packed (DT_RELR, glibc 2.36): the executable's 1 900
# of them, one for each pointer in its tables (options, registries), were
# 46 KiB of .rela.dyn that ld.so reads at every start, and are 1 KiB packed.
# Used where the linker has it (binutils 2.40 has it for x86_64; for aarch64
# it says "-z pack-relative-relocs ignored", which --fatal-warnings does not
# catch): the probe links an empty program and takes the option only when
# the linker says nothing.
RELR_LD := $(shell printf 'int main(void){return 0;}\n' | $(CC) -x c - -o /dev/null \
	-Wl,-z,pack-relative-relocs 2>&1 | grep -q . || echo -Wl,-z,pack-relative-relocs)
