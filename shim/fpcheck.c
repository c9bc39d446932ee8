/*
 * Does the executable keep frame pointers?  Decides the default unwinder
 * (docs/heap.md, "Which unwinder"): distro binaries are built without
 * frame pointers, and a frame-pointer walk through them gives the leaf
 * only.  Read from memory, nothing allocated: the executable's
 * .eh_frame_hdr (PT_GNU_EH_FRAME) lists every function that has DWARF
 * unwind tables, sorted by address; up to FP_SAMPLE of them, spread
 * evenly, are looked at for the frame-pointer prologue GCC and clang emit
 * with -fno-omit-frame-pointer (x86_64: [endbr64] push %rbp; mov %rsp,%rbp).
 */
#include <link.h>
#include <stdint.h>
#include <string.h>

#include "shim.h"

#define FP_SAMPLE 256

struct exe_frames {
	uintptr_t hdr; /* .eh_frame_hdr in memory, 0: none */
	uintptr_t text_lo, text_hi;
};

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct exe_frames *e = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_GNU_EH_FRAME)
			e->hdr = a;
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			e->text_lo = a;
			e->text_hi = a + ph->p_memsz;
		}
	}
	return 1; /* the executable comes first */
}

/* 1 when the code at P starts with the frame-pointer prologue. */
static int fp_prologue(const unsigned char *p)
{
#if defined(__x86_64__)
	static const unsigned char endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const unsigned char push_mov[4] = {0x55, 0x48, 0x89, 0xe5};
	if (!memcmp(p, endbr64, 4))
		p += 4;
	return !memcmp(p, push_mov, 4);
#else
	(void)p;
	return 1; /* aarch64: libunwind is not used there (shim/arch.h) */
#endif
}

int tmh_exe_frame_pointers(void)
{
	struct exe_frames e = {0, 0, 0};
	dl_iterate_phdr(first_object, &e);
	const unsigned char *h = (const unsigned char *)e.hdr;
	/* version 1; eh_frame_ptr any; fde_count udata4 or sdata4; table
	 * datarel|sdata4 (0x3b): what GNU ld and lld write */
	if (!h || h[0] != 1 || (h[2] != 0x03 && h[2] != 0x0b) || h[3] != 0x3b)
		return -1;
	size_t skip = (h[1] & 0x0f) == 0x04 || (h[1] & 0x0f) == 0x0c ? 8 : 4;
	uint32_t count;
	memcpy(&count, h + 4 + skip, 4);
	const unsigned char *table = h + 8 + skip;
	if (count == 0)
		return -1;
	unsigned step = count > FP_SAMPLE ? count / FP_SAMPLE : 1, seen = 0, with = 0;
	for (uint32_t i = 0; i < count && seen < FP_SAMPLE; i += step) {
		int32_t rel;
		memcpy(&rel, table + (size_t)i * 8, 4);
		uintptr_t fn = e.hdr + (uintptr_t)(intptr_t)rel;
		if (fn < e.text_lo || fn + 8 > e.text_hi)
			continue;
		seen++;
		with += (unsigned)fp_prologue((const unsigned char *)fn);
	}
	if (seen < 4)
		return -1; /* too few functions to say */
	/* a quarter: a small program's table is mostly the PLT and crt1's
	 * _start, which never set one up; code built without frame pointers
	 * sets one up only where it needs it (alloca, VLAs): a few percent */
	return with * 4 >= seen;
}
