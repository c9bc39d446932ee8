/* Setting up a command to run under the heap shim. */
#ifndef TM_HEAPENV_H
#define TM_HEAPENV_H

#include <stddef.h>

/*
 * The LD_PRELOAD value for a command to run under the shim: the shim first
 * (tm_heap_shim_path), then OLD (the command's own LD_PRELOAD, e.g. an
 * allocator to measure; may be NULL).  Also set TIDEMARK_HEAP_KEEP=1 when
 * the final counters / an at-exit profile are wanted.  SITES: the
 * sites-only build.  0, or -1 after tm_error.
 */
int tm_heap_preload_value(char *buf, size_t size, const char *old, int sites);

#endif
