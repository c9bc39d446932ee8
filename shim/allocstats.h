/*
 * An allocator's own statistics, read inside the process through its own
 * entry points: the contract shared by the heap shim (stats.c) and any other
 * code that runs inside an observed process (an injected agent).
 *
 * Standing alone: libc and libdl only; no stdio, no malloc of its own, no
 * locks.  Whatever the allocator allocates while it answers is its own.
 * Thread-safe after tmh_allocstats_find; not async-signal-safe (the
 * allocators' entry points are not).
 */
#ifndef TMH_ALLOCSTATS_H
#define TMH_ALLOCSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "tidemark-heap.h"

/* The entry points found for one allocator (NULL: absent). */
struct tmh_allocstats {
	int kind;   /* enum tmh_allocator; TMH_ALLOC_UNKNOWN: no entry point found */
	int in_exe; /* malloc is defined in the executable (linked into it) */
	int (*mallctl)(const char *, void *, size_t *, void *, size_t);
	int (*tc_prop)(const char *, size_t *);
	void (*mi_info)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *, size_t *,
	                size_t *);
	void *mallinfo2; /* struct mallinfo2 (*)(void) */
};

/* What an allocator says of itself, in bytes; -1 where it gives no figure.
 *   allocated  handed out to the program and not freed (its count)
 *   active     pages that hold handed-out blocks (jemalloc stats.active)
 *   resident   what it holds from the system (resident or committed) */
struct tmh_allocfig {
	int64_t allocated_bytes, active_bytes, resident_bytes;
};

/* 1 when FN (the process's NAME: dlsym(RTLD_DEFAULT, NAME)) is the
 * executable's own: it lies in its loaded segments and the executable does
 * not list NAME as undefined, which a non-PIE executable does when FN is
 * only its PLT entry for a library's NAME (python3's malloc); else 0. */
int tmh_allocstats_in_exe(const char *name, const void *fn);

/*
 * Finds the statistics entry points of the allocator linked into the
 * executable, by the symbols that recognise each (base/allocators.h, the
 * column "exe"): jemalloc's mallctl, _rjem_mallctl (tikv-jemallocator),
 * je_mallctl; tcmalloc's MallocExtension_GetNumericProperty; mimalloc's
 * mi_process_info.  Looks in the dynamic symbols first, then in the
 * executable's own symbol table (.symtab of /proc/self/exe, mapped
 * read-only and unmapped again: one pass, bounded by the file; none in a
 * stripped binary).  Fills *A (in_exe 1); returns A->kind.
 */
int tmh_allocstats_find_exe(struct tmh_allocstats *a);

/* Reads the figures of A's allocator into *F (jemalloc: advances its
 * "epoch" first, which refreshes its cached statistics).  0, or -1 when
 * the allocator gave none (all of *F is then -1). */
int tmh_allocstats_read(const struct tmh_allocstats *a, struct tmh_allocfig *f);

#endif
