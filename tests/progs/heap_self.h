/* Test programs read their own shim region (no libtidemark here). */
#ifndef HEAP_SELF_H
#define HEAP_SELF_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "tidemark-heap.h"

struct self_counters {
	long long live, peak, alloc_bytes, allocs, frees, own;
};

/* 0 and the folded counters, or -1 when not running under the shim. */
static inline int self_read(struct self_counters *c)
{
	char path[320];
	const char *dir = getenv(TMH_DIR_ENV); /* as the shim chose it */
	if (dir && *dir)
		snprintf(path, sizeof(path), "%.256s/%d", dir, (int)getpid());
	else
		snprintf(path, sizeof(path), TMH_PATH_FMT, (unsigned)geteuid(), (int)getpid());
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	const struct tmh_region *r =
	    (const struct tmh_region *)mmap(NULL, sizeof(*r), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (r == MAP_FAILED || r->magic != TMH_MAGIC)
		return -1;
	for (;;) {
		unsigned long long seq = __atomic_load_n(&r->fold_seq, __ATOMIC_ACQUIRE);
		memset(c, 0, sizeof(*c));
		for (int i = -2; i < TMH_SLOTS; i++) {
			const struct tmh_slot *s = i == -2   ? &r->retired
			                           : i == -1 ? &r->shared
			                                     : &r->slots[i];
			c->live += s->alloc_bytes - s->freed_bytes;
			c->alloc_bytes += s->alloc_bytes;
			for (int k = 0; k < TMH_CLASSES; k++)
				c->allocs += s->hist[k];
			c->frees += s->frees;
		}
		c->peak = r->peak_bytes;
		c->own = r->own_bytes;
		if (!(seq & 1) && __atomic_load_n(&r->fold_seq, __ATOMIC_ACQUIRE) == seq)
			break;
	}
	munmap((void *)r, sizeof(*r));
	return 0;
}

#endif
