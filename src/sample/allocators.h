/*
 * Which allocator each process of a target runs: read from /proc/PID/maps
 * (tm_parse_maps_allocator) once its dynamic loader is done, for every
 * process that comes, with its name and the largest share of the target's
 * anon it held.  For the run's "allocator" text ("glibc (sh), jemalloc
 * (redis-server)") and for the bench guard.
 */
#ifndef TM_ALLOCATORS_H
#define TM_ALLOCATORS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kern/procfs.h"

struct tm_allocators;

/* NULL when out of memory. */
struct tm_allocators *tm_allocators_new(void);
void tm_allocators_free(struct tm_allocators *a);

/*
 * Looks at PIDS, named COMMS (each process's command name from the stat
 * the sampler read: a process whose name changed ran exec, and is looked
 * at anew; nothing else is read for it): a process not classified yet gets
 * its allocator once libc is mapped (or after 3 looks: a static binary);
 * every classified one running another allocator than EXPECT (NULL: none
 * expected) has its RssAnon read, against TREE_ANON_BYTES (the target's
 * anon now; <= 0: unknown).  Returns 1 when the description changed, else 0.
 */
int tm_allocators_update(struct tm_allocators *a, const pid_t *pids, const struct tm_comm *comms,
                         size_t npids, const char *expect, int64_t tree_anon_bytes);

/* "glibc (sh), jemalloc (redis-server)": each distinct allocator with the
 * names of the processes that ran it, in order of appearance; "" before the
 * first classification.  Truncated to SIZE (with "...") when long. */
void tm_allocators_describe(const struct tm_allocators *a, char *buf, size_t size);

/* The first allocator of the target, as the run's single-word figure was. */
const char *tm_allocators_first(const struct tm_allocators *a);

/*
 * 1 when a process that held a real share of the target's anon (at least
 * 10 % of it and 1 MiB, at some look) runs another allocator than EXPECT,
 * with REASON saying which; else 0.
 */
int tm_allocators_mismatch(const struct tm_allocators *a, const char *expect, char *reason,
                           size_t size);

#endif
