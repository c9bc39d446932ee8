/*
 * snap/snap.h: one snapshot of a process, taken on demand (by `tidemark
 * guard` when a rule fires, or at an OOM kill) and written to a file of its
 * own.  Each kind of snapshot (a native heap profile, a JVM class histogram
 * or heap dump, a Go program's heap profile) is one function of the type
 * below, registered in one table (snap/kinds.h).
 */
#ifndef TM_SNAP_SNAP_H
#define TM_SNAP_SNAP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tm_err;

/* What to snapshot, and where to put it. */
struct tm_snap_req {
	pid_t pid;             /* the process (and, for heap profiles, its tree) */
	const char *dir;       /* an existing directory of ours, mode 0700 */
	int64_t deadline_usec; /* CLOCK_MONOTONIC time by which to give up */
	const char *url;       /* a Go program's /debug/pprof/heap URL, else NULL */
};

/* What a snapshot wrote. */
struct tm_snap_out {
	char path[PATH_MAX]; /* the file written, inside req->dir */
	char summary[512];   /* one line for the report: its top entries */
	uint64_t file_bytes; /* the size of that file */
};

/*
 * One snapshot taker.  Returns 0 with *out filled, or -1 with the reason in
 * ERR (may be NULL); never blocks past
 * req->deadline_usec, and never stops or signals the process for longer than
 * the tool it drives (jcmd, an HTTP GET) does.
 */
typedef int tm_snap_fn(const struct tm_snap_req *req, struct tm_snap_out *out, struct tm_err *err);

#endif
