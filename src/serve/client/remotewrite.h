/*
 * record --remote-write URL: the recorded samples to a Prometheus remote
 * write receiver (Prometheus with --web.enable-remote-write-receiver,
 * VictoriaMetrics, Thanos, Mimir), with the series and labels of /metrics
 * (serve/promfmt.h).  Protobuf (serve/client/prompb.proto), snappy-compressed,
 * over libcurl (TLS, bearer or basic auth).  A thread of its own sends
 * from the store, which is the queue (store/remote.h): the recording never
 * waits for the receiver, and what did not reach it is sent, once and in
 * order, when it answers again, by this recorder or the next one.
 */
#ifndef TM_SERVE_REMOTEWRITE_H
#define TM_SERVE_REMOTEWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "record/netlib.h" /* struct tm_rw_opts */

/* The labels every series of a run carries. */
struct tm_rw_labels {
	const char *machine, *run, *cgroup; /* NULL is "" (cgroup: left out) */
};

/*
 * The WriteRequest for N samples of one run (oldest first): one series a
 * metric the samples have (as /metrics names it, its values in base
 * units; a limit of -1 left out) and tidemark_run_info (value 1) at each
 * sample's time, snappy-compressed.  0 with *OUT (malloc'd) and *LEN set,
 * or -1 on out of memory.  Pure: no I/O.
 */
int tm_rw_encode(const struct tm_rw_labels *lb, const struct tm_sample *s, size_t n, uint8_t **out,
                 size_t *len);

struct tm_rw;

/* Notes RUN_ID for URL in the store and starts the sending thread.  0 with
 * *OUT set, or -1 after tm_error (a credentials file that cannot be read,
 * a store that cannot be opened, no thread). */
int tm_rw_start(const struct tm_rw_opts *o, struct tm_rw **out);

/* Sends what is left for up to WAIT_USEC while the receiver answers, says
 * on stderr what did not reach it (it stays in the store for the next
 * start), stops the thread and frees RW (NULL: nothing).  0 when
 * everything was sent, 1 when some is left. */
int tm_rw_stop(struct tm_rw *rw, int64_t wait_usec);

#endif
