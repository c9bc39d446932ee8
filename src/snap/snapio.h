/*
 * What the snapshot takers share: the file a snapshot writes, the process
 * it looks at, and a tool (jcmd) run as that process's user under a
 * deadline.
 */
#ifndef TM_SNAPIO_H
#define TM_SNAPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snap/snap.h"

struct tm_err;

/* Whose the process is: the owner of /proc/PID. */
struct tm_snap_proc {
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/* Fills P for REQ->pid.  0, or -1 with ERR ("no process N"). */
int tm_snap_proc(const struct tm_snap_req *req, struct tm_snap_proc *p, struct tm_err *err);

/* Creates REQ->dir/KIND-PID-UNIXTIME.EXT (-2, -3 ... before .EXT when
 * taken already in that second; a new file, mode 0600, never
 * through a link) and its path in OUT->path.  The fd, or -1 with ERR. */
int tm_snap_create(const struct tm_snap_req *req, const char *kind, const char *ext,
                   struct tm_snap_out *out, struct tm_err *err);

/* Fills OUT->file_bytes from FD's size. */
void tm_snap_sized(int fd, struct tm_snap_out *out);

/* The remaining time before REQ's deadline, in usec (<= 0: none). */
int64_t tm_snap_left_usec(const struct tm_snap_req *req);

/*
 * Runs ARGV (ARGV[0] a path) with stdin from /dev/null and its stdout and
 * stderr into OUT_FD, its files at most OUT_MAX_BYTES, as P's user when
 * that is not ours (only root may: -1 otherwise), in /.  Killed (SIGKILL)
 * at DEADLINE_USEC.  The exit status (0..255), or -1 with ERR ("killed at
 * the deadline (5.0 s)", "cannot run ...").
 */
int tm_snap_run(char *const argv[], const struct tm_snap_proc *p, int out_fd,
                uint64_t out_max_bytes, int64_t deadline_usec, struct tm_err *err);

/* The JVM of REQ (a live process mapping libjvm.so, before the deadline)
 * into *P, and the jcmd to drive it (into JCMD, SIZE bytes): $TIDEMARK_JCMD,
 * else the one beside its java, else on $PATH.  0, or -1 with ERR. */
int tm_snap_jvm_and_jcmd(const struct tm_snap_req *req, struct tm_snap_proc *p, char *jcmd,
                         size_t size, struct tm_err *err);

/* FD's first MAX bytes (from offset 0), NUL-terminated, *LEN without the
 * NUL; the caller frees it.  NULL when out of memory. */
char *tm_snap_read_back(int fd, size_t max, size_t *len);

/* The first line of TEXT (LEN bytes), with unprintable bytes as '?'. */
void tm_snap_first_line(const char *text, size_t len, char *out, size_t size);

#endif
