/*
 * Reading the heap shim's counters from outside the process (the recorder's
 * side of include/tidemark-heap.h).
 */
#ifndef TM_HEAPSHM_H
#define TM_HEAPSHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sample.h"

struct tm_heap_reader;

struct tm_heap_reader *tm_heap_reader_new(void);
/* Frees R; with profiles, writes each process's final one first. */
void tm_heap_reader_free(struct tm_heap_reader *r);

/*
 * Profiles the reader writes as it samples: PREFIX.PID.N.pb.gz every
 * EVERY_USEC (0: none) while a process runs, and PREFIX.PID.final.pb.gz when
 * it leaves (exits, is killed) or the reader is freed.  A process killed
 * before it could save its memory map is symbolized with the reader's last
 * look at it.  ON_KILLED (may be NULL) is asked of each process that left
 * without exiting (killed): 1 with PATH (SIZE bytes) filled writes its
 * profile there instead (with or without PREFIX), 0 leaves it to PREFIX.
 * ON_WRITE (may be NULL) hears of each file written: KIND 0 periodic, 1
 * final, 2 at ON_KILLED's path.
 */
struct tm_heap_profiles {
	const char *prefix; /* NULL: none but ON_KILLED's */
	int64_t every_usec;
	int (*on_killed)(void *ctx, pid_t pid, char *path, size_t size);
	/* KIND 0 periodic, 1 final, 2 at ON_KILLED's path; UNWINDER: how the
	 * stacks were unwound (tm_heap_snapshot.unwinder) */
	void (*on_write)(void *ctx, pid_t pid, const char *path, int kind, const char *unwinder);
	void *ctx;
};
void tm_heap_reader_set_profiles(struct tm_heap_reader *r, const struct tm_heap_profiles *p);

/*
 * For each of PIDS that runs with the shim, reads its counters and adds them
 * to S: HEAP_PROCS, HEAP_LIVE_BYTES, HEAP_PEAK_BYTES (sum of per-process
 * peaks), HEAP_ALLOC_BYTES, HEAP_ALLOCS, HEAP_FREES.  Sets none of them when
 * no pid has the shim.  Keeps regions mapped between calls; a pid no longer
 * listed adds its final counters (those it kept at exit, or had when it was
 * killed) once, and so does a process of ours (tm_heap_keep_tag) that came
 * and went unlisted; then its region is dropped.  Publishes each live value
 * read into the region's peak.  0, or -1 after tm_error.
 */
int tm_heap_reader_sample(struct tm_heap_reader *r, const pid_t *pids, size_t npids,
                          struct tm_sample *s);

/* Reads the live bytes of each process already mapped, just before the
 * sample reads anon (the process and cgroup files): tm_heap_reader_sample
 * then stores how far they moved meanwhile (HEAP_READ_SKEW_BYTES), so that
 * anon is split only with a heap reading of the same moment. */
void tm_heap_reader_mark(struct tm_heap_reader *r);

/* The value of TIDEMARK_HEAP_KEEP for the commands this process records:
 * the regions they keep carry it, so a reader of this process finds those
 * of processes that came and went between two samples.  Never 0 or 1. */
uint64_t tm_heap_keep_tag(void);

/* Path of libtidemark-heap.so next to the running tidemark binary (or in
 * TIDEMARK_HEAP_LIB); with SITES, of libtidemark-heap-sites.so (or
 * TIDEMARK_HEAP_SITES_LIB).  0, or -1 after tm_error. */
int tm_heap_shim_path(char *buf, size_t size, int sites);

#endif
