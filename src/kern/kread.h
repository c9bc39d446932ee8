/*
 * Reading kernel text files that are kept open: one pread from offset 0.
 *
 * /proc and cgroup files are generated on each read (seq_file); a second
 * pread at the end offset to see EOF regenerates the whole text, doubling
 * the cost.  A seq_file read fills the buffer unless the text ends, so a
 * short read is the whole file; only when the buffer fills do we fall back
 * to reading on (tm_pread_all).
 */
#ifndef TM_KERN_KREAD_H
#define TM_KERN_KREAD_H

#include <stddef.h>
#include <sys/types.h>

/* The file's text into BUF (NUL-terminated); its length, or -1 with errno. */
ssize_t tm_kread(int fd, char *buf, size_t size);

#endif
