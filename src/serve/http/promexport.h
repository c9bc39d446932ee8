/* `tidemark record --metrics-listen ADDR`: the latest sample as Prometheus text. */
#ifndef TM_PROMEXPORT_H
#define TM_PROMEXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"

struct tm_prom_server;

/* Starts serving GET /metrics on ADDR ("127.0.0.1:9464"), or when
 * LISTEN_FD >= 0 on that listening socket (systemd's, sd_listen_fds(3);
 * the server then owns and closes it; ADDR unused), for the run RUN_UUID
 * (NULL or "": none yet, nothing exported) of MACHINE in CGROUP (NULL or
 * "": none).  0, or -1 after tm_error. */
int tm_prom_server_start(const char *addr, int listen_fd, const char *machine, const char *run_uuid,
                         const char *cgroup, struct tm_prom_server **out);
/* The next run (record --unit: the unit started again): its labels, no
 * sample yet, live.  0, or -1 after tm_error (out of memory; the labels
 * may then be the old run's). */
int tm_prom_server_set_run(struct tm_prom_server *srv, const char *machine, const char *run_uuid,
                           const char *cgroup);
/* The run ended: from now on only its tidemark_run_info (state "ended")
 * and tidemark_last_sample_timestamp_seconds are exported, as the server
 * exports an ended run, until the next tm_prom_server_set_run. */
void tm_prom_server_end_run(struct tm_prom_server *srv);
/* Publishes a new sample (copied; thread-safe against the server thread). */
void tm_prom_server_update(struct tm_prom_server *srv, const struct tm_sample *s);
/* Publishes a progress point of the service's (--progress): VALUE at
 * T_MONO_USEC, exported with its rate over the last minute
 * (tidemark_progress_units, tidemark_progress_units_per_second). */
void tm_prom_server_progress(struct tm_prom_server *srv, int64_t t_mono_usec, double value);
/* Publishes what --scrape read at that sample: N series (NAMES, KINDS and
 * VALUES copied; at most 512; N 0 when none was read), exported beside it
 * as tidemark_scraped (serve/promfmt.h). */
void tm_prom_server_update_scraped(struct tm_prom_server *srv, const char *const *names,
                                   const char *const *kinds, const double *values, size_t n);
void tm_prom_server_stop(struct tm_prom_server *srv);

#endif
