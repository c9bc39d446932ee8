/*
 * One bounded HTTP GET into a file (a Go program's /debug/pprof/heap for a
 * snapshot, snap/gopprof.c).  In libtidemark-net.so: core code reaches it
 * through struct tm_net (record/netlib.h).
 */
#ifndef TM_HTTPGET_H
#define TM_HTTPGET_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/*
 * GETs URL (http or https only, no redirects) and writes the body to FD.
 * Gives up at DEADLINE_MONO_USEC (CLOCK_MONOTONIC) and past MAX_BYTES of
 * body.  0 with *WROTE the bytes written; -1 with ERR set (curl's
 * reason, "HTTP status 404", "the body is over N bytes", "no time left").
 */
int tm_http_get_fd(const char *url, int fd, uint64_t max_bytes, int64_t deadline_mono_usec,
                   uint64_t *wrote, struct tm_err *err);

#endif
