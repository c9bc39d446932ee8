/*
 * What the shim does differently by machine (x86_64, aarch64); docs/heap.md
 * "Machines" says why.  Everything else in the shim is the same on both:
 * glibc's chunk header (one 8-byte size word before the block, checked
 * against malloc_usable_size at start-up), the frame record a frame pointer
 * points to ([previous frame, return address] on both), initial-exec TLS,
 * and the size classes, which come from the allocator itself (nallocx).
 */
#ifndef TMH_ARCH_H
#define TMH_ARCH_H

#include <elf.h>
#include <stdint.h>

/* The relocation types of a call's GOT entry (attach: got.c). */
#if defined(__aarch64__)
#define TMH_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define TMH_R_GLOB_DAT  R_AARCH64_GLOB_DAT
#else
#define TMH_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define TMH_R_GLOB_DAT  R_X86_64_GLOB_DAT
#endif

#if defined(__aarch64__)
#include <sys/prctl.h>

/*
 * 1 when glibc's chunk header may be read through a block's pointer.  Not
 * under memory tagging (MTE: GLIBC_TUNABLES=glibc.mem.tagging on hardware
 * that has it): the header's granule has another tag than the block, and
 * reading it through the block's pointer faults.  The shim then asks
 * malloc_usable_size, which knows the tags.
 */
static inline int tmh_arch_header_readable(void)
{
#if defined(PR_GET_TAGGED_ADDR_CTRL) && defined(PR_MTE_TCF_MASK)
	int ctrl = prctl(PR_GET_TAGGED_ADDR_CTRL, 0, 0, 0, 0);
	if (ctrl > 0 && (ctrl & PR_MTE_TCF_MASK))
		return 0;
#endif
	return 1;
}

/*
 * A return address as saved in a frame record, without its pointer
 * authentication code (code built with -mbranch-protection, as Ubuntu's
 * arm64 packages are, signs it on CPUs with PAC, ARMv8.3 on).  XPACLRI is
 * in the hint space: a no-op on CPUs without PAC, such as the Raspberry Pi's.
 */
static inline uintptr_t tmh_arch_strip_pc(uintptr_t pc)
{
	register uintptr_t lr __asm__("x30") = pc;
	__asm__("hint 7" : "+r"(lr)); /* xpaclri */
	return lr;
}

/*
 * Whether TIDEMARK_HEAP_UNWIND=libunwind gives right stacks: not on aarch64.
 * Through code built with -mbranch-protection (all of Ubuntu's arm64
 * packages, and Debian's glibc), Debian 12's libunwind (1.6) returns wrong
 * stacks whether the CPU signs return addresses or not (tested on qemu's
 * Cortex-A72, the Raspberry Pi 4's CPU, and its "max": "keep_known_site;
 * keep_known_site" where the frame walk gives "_start;__libc_start_main;
 * ...;main;keep_known_site").  The frame-pointer walk is used instead.
 */
static inline int tmh_arch_libunwind_ok(void)
{
	return 0;
}
#else
static inline int tmh_arch_libunwind_ok(void)
{
	return 1;
}
static inline int tmh_arch_header_readable(void)
{
	return 1;
}
static inline uintptr_t tmh_arch_strip_pc(uintptr_t pc)
{
	return pc;
}
#endif

#endif
