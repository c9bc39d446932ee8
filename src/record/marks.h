/*
 * Marks: named phase boundaries sent to a running recorder.  The recorder
 * listens on a FIFO (so `echo busy-start > $TIDEMARK_MARK` works from any
 * shell) in the runtime directory: $TIDEMARK_RUNTIME_DIR, else /run/tidemark,
 * else /tmp/tidemark-UID.  A directory is used only when it is a real
 * directory owned by us or root that no one else may write to (anyone can
 * create /tmp/tidemark-UID first); with none, a recording takes no marks.
 * One line is one mark.
 */
#ifndef TM_MARKS_H
#define TM_MARKS_H

#include <stddef.h>
#include <sys/types.h>

#define TM_MARK_TEXT_MAX 200

struct tm_mark_listener {
	char path[256];
	int fd;      /* read end, non-blocking */
	int keep_fd; /* our own write end, so the FIFO never reports EOF */
};

/* Creates and opens the recorder's FIFO.  0, or -1 after tm_error. */
int tm_mark_listen(struct tm_mark_listener *l);
void tm_mark_unlisten(struct tm_mark_listener *l);

/* Sends TEXT to the FIFO at PATH.  0, or -1 after tm_error. */
int tm_mark_send(const char *path, const char *text);

/*
 * The FIFO of the recorder with pid PID (0: the only recorder running).
 * 0 found; -1 after tm_error (none, or several and PID was 0).
 */
int tm_mark_find(pid_t pid, char *path, size_t size);

#endif
