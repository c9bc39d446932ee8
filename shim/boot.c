/*
 * Start-up allocations (dlsym calling calloc, ...) before the real allocator
 * is known: a bump buffer, never freed.  Each block has a 16-byte header
 * holding its size.  glibc's dlsym makes one; at most TMH_BOOT_BLOCKS are
 * handed out, each pinned in the sample filter (see free).
 */
#include <stdint.h>

#include "shim.h"

#define TMH_BOOT_BLOCKS 64
char tmh_boot_buf[TMH_BOOT_BYTES] __attribute__((aligned(64)));
static size_t boot_used;
static void *boot_blocks[TMH_BOOT_BLOCKS];
static int boot_nblocks;

void *tmh_boot_alloc(size_t n, size_t align)
{
	if (align < 16)
		align = 16;
	if (align > 4096 || n > sizeof(tmh_boot_buf))
		return NULL;
	int i = __atomic_fetch_add(&boot_nblocks, 1, __ATOMIC_RELAXED);
	if (i >= TMH_BOOT_BLOCKS)
		return NULL;
	size_t off = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start, end;
	do {
		start = (off + 16 + align - 1) & ~(align - 1);
		end = start + ((n + 15) & ~(size_t)15);
		if (end > sizeof(tmh_boot_buf))
			return NULL;
	} while (!__atomic_compare_exchange_n(&boot_used, &off, end, 0, __ATOMIC_RELAXED,
	                                      __ATOMIC_RELAXED));
	*(size_t *)(tmh_boot_buf + start - 16) = n;
	boot_blocks[i] = tmh_boot_buf + start;
	tmh_filter_pin(tmh_boot_buf + start);
	return tmh_boot_buf + start; /* static storage is zeroed: fine for calloc */
}

void tmh_boot_repin(void)
{
	for (int i = 0; i < TMH_BOOT_BLOCKS && i < boot_nblocks; i++)
		if (boot_blocks[i])
			tmh_filter_pin(boot_blocks[i]);
}

size_t tmh_boot_size(const void *p)
{
	return *(const size_t *)((const char *)p - 16);
}
