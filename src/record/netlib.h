/*
 * The network half of tidemark (the server, the pusher, /metrics) lives in
 * libtidemark-net.so, loaded only when a command needs it.  Its libraries
 * (libmicrohttpd, libcurl, GnuTLS, OpenSSL) cost the process about 6 MiB of
 * resident pages the moment they are mapped; a recorder that does not push
 * should not pay that on a small machine.
 *
 * The library resolves the rest of tidemark (store, errors, ...) from the
 * executable, which exports it (-rdynamic, whole archive).
 */
#ifndef TM_NETLIB_H
#define TM_NETLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"

struct tm_store;
struct tm_pusher;
struct tm_prom_server;
struct tm_cmd_ctx;
struct tm_scraper;
struct tm_scrape_spec;
struct tm_scrape_result;
struct tm_rw;
struct tm_err;

/* record --remote-write: how to reach the receiver (serve/client/remotewrite.h). */
struct tm_rw_opts {
	const char *url;             /* http(s)://host:port/api/v1/write */
	const char *token_file;      /* a bearer token (NULL: none) */
	const char *basic_auth_file; /* "user:password" (NULL: none) */
	const char *store_path;      /* the store, opened again by the thread */
	int64_t run_id;              /* the run being recorded (noted for URL) */
	int64_t interval_usec;       /* how often to send */
};

struct tm_net {
	void *handle;
	int (*pusher_new)(const char *url, const char *token_file, struct tm_store *st,
	                  int64_t run_id, struct tm_pusher **out);
	void (*pusher_tick)(struct tm_pusher *p);
	int (*pusher_finish)(struct tm_pusher *p, int64_t timeout_usec);
	bool (*pusher_reached)(const struct tm_pusher *p);
	const char *(*pusher_machine)(const struct tm_pusher *p);
	void (*pusher_free)(struct tm_pusher *p);
	int (*prom_start)(const char *addr, int listen_fd, const char *machine,
	                  const char *run_uuid, const char *cgroup, struct tm_prom_server **out);
	int (*prom_set_run)(struct tm_prom_server *srv, const char *machine, const char *run_uuid,
	                    const char *cgroup);
	void (*prom_end_run)(struct tm_prom_server *srv);
	void (*prom_update)(struct tm_prom_server *srv, const struct tm_sample *s);
	void (*prom_scraped)(struct tm_prom_server *srv, const char *const *names,
	                     const char *const *kinds, const double *values, size_t n);
	void (*prom_progress)(struct tm_prom_server *srv, int64_t t_mono_usec, double value);
	void (*prom_stop)(struct tm_prom_server *srv);
	int (*cmd_serve)(int argc, char **argv, struct tm_cmd_ctx *ctx);
	/* record --scrape (serve/client/scrape.h) */
	int (*scraper_start)(const struct tm_scrape_spec *spec, int64_t start_mono_usec,
	                     int64_t interval_usec, struct tm_scraper **out);
	int (*scraper_take)(struct tm_scraper *s, int64_t due_mono_usec,
	                    struct tm_scrape_result *out, int64_t *t_wall_usec, struct tm_err *err);
	void (*scraper_stop)(struct tm_scraper *s);
	/* record --remote-write (serve/client/remotewrite.h) */
	int (*rw_start)(const struct tm_rw_opts *o, struct tm_rw **out);
	int (*rw_stop)(struct tm_rw *rw, int64_t wait_usec);
};

/* Loads libtidemark-net.so (next to the binary, or $TIDEMARK_NET_LIB) and
 * fills N.  0, or -1 after tm_error. */
int tm_net_load(struct tm_net *n);
void tm_net_unload(struct tm_net *n);

#endif
