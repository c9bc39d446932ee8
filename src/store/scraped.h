/*
 * Series scraped from a target's own Prometheus endpoint (record --scrape,
 * docs/runtimes.md): `scrape_series` names each series of a run (its name
 * with its labels, its type, the URL it came from) and `scrape_values`
 * holds its values, keyed by run and the sample they were taken for.  A
 * scrape that failed or a metric not served leaves no row: absent, never 0.
 */
#ifndef TM_STORE_SCRAPED_H
#define TM_STORE_SCRAPED_H

#include <stdint.h>

struct tm_store;

/*
 * The id of run RUN_ID's series NAME in *ID, adding it (in the current
 * batch) with KIND ("gauge", "counter", "untyped", "histogram", "summary",
 * or "unknown" for one asked for and not yet served) and SOURCE (the URL)
 * when it is new; a known series of kind "unknown" takes KIND.  0 or -1
 * after tm_error.
 */
int tm_store_scraped_series(struct tm_store *st, int64_t run_id, const char *name, const char *kind,
                            const char *source, int64_t *id);

/* Adds a value of series SERIES_ID for the run's sample SEQ taken at
 * T_WALL_USEC (in the current batch).  VALUE must be finite.  0 or -1. */
int tm_store_add_scraped(struct tm_store *st, int64_t run_id, int64_t series_id, int64_t seq,
                         int64_t t_wall_usec, double value);

struct tm_scraped_series {
	int64_t id;
	const char *name, *kind, *source;
};
typedef int (*tm_scraped_series_cb)(void *ctx, const struct tm_scraped_series *s);
/* A run's series in the order they were first seen; a store written
 * before these tables existed has none.  The walk as in store.h. */
int tm_store_each_scraped_series(struct tm_store *st, int64_t run_id, tm_scraped_series_cb cb,
                                 void *ctx);

typedef int (*tm_scraped_value_cb)(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec,
                                   double value);
/* A run's values with FROM_SEQ <= seq <= TO_SEQ (TO_SEQ < 0: to the end),
 * of one series (SERIES_ID > 0) or all (0), in seq order, then series id.
 * The walk as in store.h. */
int tm_store_each_scraped_value(struct tm_store *st, int64_t run_id, int64_t series_id,
                                int64_t from_seq, int64_t to_seq, tm_scraped_value_cb cb,
                                void *ctx);

/* Removes a run's series and values (in the current batch).  0 or -1. */
int tm_store_delete_scraped(struct tm_store *st, int64_t run_id);

#endif
