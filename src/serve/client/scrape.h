/*
 * record --scrape: one thread per target reads the target's Prometheus
 * endpoint with libcurl, off the recorder's loop, on the sample grid.
 *
 * For the sample due at START + k * INTERVAL (k >= 1) the thread starts
 * the request LEAD before it (half the interval, at most 2 s) and gives it
 * until MARGIN before the sample (a fifth of LEAD): a slow, hung or gone
 * endpoint costs that request, never the loop, which only takes what is
 * ready for its sample (tm_scraper_take) and never waits.  A scrape that
 * failed or came too late is a missed value, not the last one repeated.
 */
#ifndef TM_SERVE_SCRAPE_H
#define TM_SERVE_SCRAPE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/scrapesel.h"

struct tm_err;

struct tm_scraper;

/* Starts scraping SPEC (copied) for the samples of the grid START_MONO_USEC
 * + k * INTERVAL_USEC.  0 with *OUT set, or -1 after tm_error. */
int tm_scraper_start(const struct tm_scrape_spec *spec, int64_t start_mono_usec,
                     int64_t interval_usec, struct tm_scraper **out);

/*
 * The scrape for the sample due at DUE_MONO_USEC into *OUT, and the wall
 * time its answer arrived in *T_WALL_USEC: 0.  1 when there is none (it
 * failed, or was not complete): ERR->msg says why.  Never
 * blocks longer than a mutex held for a copy.
 */
int tm_scraper_take(struct tm_scraper *s, int64_t due_mono_usec, struct tm_scrape_result *out,
                    int64_t *t_wall_usec, struct tm_err *err);

/* Stops the thread: waits for it at most 300 ms (a request in flight is
 * aborted), then leaves it to end and free itself.  NULL is a no-op. */
void tm_scraper_stop(struct tm_scraper *s);

#endif
