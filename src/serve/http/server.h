/*
 * `tidemark serve`: the HTTP server collectors push to and the panel reads
 * from.  One thread runs libmicrohttpd's event loop and owns the store, so
 * requests are handled one at a time (a long read delays a push; pushes
 * are retried by the collector).  Endpoints: docs/push-protocol.md.
 */
#ifndef TM_SERVE_SERVER_H
#define TM_SERVE_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_store;

struct tm_server_opts {
	const char *listen;           /* "127.0.0.1:7070" */
	bool public_read;             /* reads without a read token */
	size_t max_body_bytes;        /* request bodies above this get 413 */
	int64_t max_samples_per_sec;  /* per machine, averaged; bursts up to 60 s worth */
	int max_metrics_machines;     /* machines exported on /metrics */
	int64_t request_timeout_usec; /* a request must arrive whole within this */
};

void tm_server_opts_init(struct tm_server_opts *o);

/* Parses "HOST:PORT" (IPv4 dotted quad or "localhost"). 0 or -1 after tm_error. */
struct sockaddr_in;
int tm_parse_listen(const char *addr, struct sockaddr_in *out);

/* Serves until *STOP becomes non-zero.  0, or -1 after tm_error (cannot
 * listen).  Prints "listening on http://ADDR/" to stdout once ready. */
int tm_server_run(struct tm_store *st, const struct tm_server_opts *o, volatile sig_atomic_t *stop);

#endif
