/*
 * Heap profiles: a snapshot of a shimmed process's sampled sites, written as
 * pprof (gzip'd profile.proto), as collapsed stacks, or listed as text.
 * Symbolization happens here, in tidemark, never in the target.
 */
#ifndef TM_HEAPPROF_H
#define TM_HEAPPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "heap/heapregion.h"

/* One sampled stack with its estimated (weighted) totals. */
struct tm_heap_site {
	int depth;
	uint64_t pc[TMH_MAX_DEPTH]; /* return addresses, innermost first */
	int64_t alloc_objects, alloc_bytes, inuse_objects, inuse_bytes;
	int64_t samples;
};

struct tm_heap_snapshot {
	pid_t pid;
	int64_t time_nanos;  /* when taken */
	int64_t start_nanos; /* when the process started its region */
	struct tm_heap_counters counters;
	struct tm_heap_site *sites;
	size_t nsites;
	char *maps; /* the process's /proc/PID/maps (live or saved at exit) */
	size_t maps_len;
	/* how its stacks were unwound: "frame pointers", "libunwind
	 * (TIDEMARK_HEAP_UNWIND)", "libunwind (no frame pointers in EXE)" */
	char unwinder[448];
	/* the process was killed inside an update of its stack table: one
	 * site may be a sample off (tm_heap_region_stacks) */
	bool torn;
};

/*
 * Reads PID's region: counters, sites and maps.  Fails (tm_error) when PID
 * runs without the shim, without sampling, or is gone and left no maps.
 */
int tm_heap_snapshot_take(pid_t pid, struct tm_heap_snapshot *out);

/* The same from a region the caller has mapped (it outlives an unlink).
 * MAPS, MAPS_LEN (may be NULL): the process's memory map as last seen, used
 * when it is gone without having saved one (killed, OOM-killed).
 * GONE: PID is gone for good (its region can change no more: a stack table
 * it left mid-update is read as it is, OUT->torn set). */
int tm_heap_snapshot_region(const struct tmh_region *r, pid_t pid, const char *maps,
                            size_t maps_len, bool gone, struct tm_heap_snapshot *out);
void tm_heap_snapshot_release(struct tm_heap_snapshot *s);

/* Writes S as a gzip'd pprof profile with sample types alloc_objects,
 * alloc_space, inuse_objects, inuse_space (default inuse_space). */
int tm_heap_write_pprof(const struct tm_heap_snapshot *s, const char *path);

/* Writes "outer;...;leaf BYTES" lines (in-use bytes, or allocated bytes when
 * ALLOC) for flame graphs. */
int tm_heap_write_collapsed(const struct tm_heap_snapshot *s, FILE *out, int alloc);

/* Snapshot of PID written as pprof to PATH (the recorder's one call). */
int tm_heap_profile_write(pid_t pid, const char *path);

/* Reads a pprof heap profile (gzip'd, as written) and prints its top N
 * sites by in-use bytes to OUT.  0, or -1 after tm_error naming PATH. */
int tm_heap_top(const char *path, FILE *out, int n);

/* The same over an uncompressed profile in BUF (LEN bytes; not kept);
 * PATH only names it in errors.  The fuzz target's entry point. */
int tm_heap_top_buf(const uint8_t *buf, size_t len, const char *path, FILE *out, int n);

#endif
