/*
 * Arrays that live in files, not in anonymous memory: the working set of
 * `tidemark hprof holders` (one entry a object or reference of the dump),
 * kept in unnamed temporary files in $TMPDIR (or /tmp) and mapped shared,
 * so the kernel pages them to disk as it needs and the process's anonymous
 * memory stays small.  The files have no name (O_TMPFILE, or unlinked at
 * once where that is unsupported): they vanish when closed, at exit, on an
 * error or a kill.
 */
#ifndef TM_HPROF_SPILL_H
#define TM_HPROF_SPILL_H

#include <stddef.h>
#include <stdint.h>

/* What the files of one computation hold on disk at most (their sizes). */
struct tm_spool {
	uint64_t bytes_now, bytes_peak;
};

struct tm_spill {
	int fd;         /* -1: closed */
	uint8_t *buf;   /* append buffer */
	size_t used;    /* bytes in buf */
	uint64_t bytes; /* bytes appended (or the array's size) */
	void *map;      /* the file, mapped after tm_spill_map */
	struct tm_spool *pool;
};

/* A new empty file for appends.  0, or -1 after tm_error. */
int tm_spill_open(struct tm_spill *s, struct tm_spool *pool);

/* Appends N bytes.  0, or -1 after tm_error (disk full). */
int tm_spill_append(struct tm_spill *s, const void *p, size_t n);

/* Writes what is buffered and maps the file read-write at S->map (NULL
 * when empty).  0, or -1 after tm_error. */
int tm_spill_map(struct tm_spill *s);

/* A new zero-filled array of BYTES, mapped at S->map (the file is sparse:
 * disk is used as pages are written).  0, or -1 after tm_error. */
int tm_spill_array(struct tm_spill *s, struct tm_spool *pool, uint64_t bytes);

/* Unmaps and closes (the file vanishes); safe on a closed or zeroed spill
 * whose fd is -1 or never opened. */
void tm_spill_release(struct tm_spill *s);

/* Inits S as closed, so tm_spill_release is safe. */
static inline void tm_spill_init(struct tm_spill *s)
{
	*s = (struct tm_spill){.fd = -1};
}

#endif
