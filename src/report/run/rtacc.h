/*
 * A runtime's part of the run summary's accumulator (summary_int.h): the
 * figures of struct tm_summary that are its own, kept as the samples (and
 * the rollup buckets of a pruned stretch) go by, in bounded memory.
 * runtime/registry.h describes the runtime, rtreport.h is its part of the
 * report's output; this is its part of the figures.
 *
 * One entry per runtime whose figures are more than the summary's generic
 * ones (a GC runtime's live heap and cycles, gc_live and gc_cycles, which
 * every --runtime fills), one line of TM_RT_ACC_LIST below, each defined in
 * its own file (tm_rta_NAME).  summary_acc.c walks the list and names no
 * runtime; tests/unit/test_runtimes.c checks that a run carrying a
 * runtime's figures has its summary field (its descriptor's summary_field)
 * filled, so a runtime whose figures nothing accumulates fails there.
 */
#ifndef TM_REPORT_RTACC_H
#define TM_REPORT_RTACC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/run/summary_int.h"
#include "runtime/registry.h"

/* Where the window's end was measured, for a runtime's figures of the end. */
struct tm_acc_end {
	/* the end is a rollup bucket's last values (END), when the target was
	 * alive at it with anon (END_ALIVE) */
	bool in_bucket, end_alive;
	const struct pt *end;
	/* else the window's last kept samples W[0..N), W[0] being sample BASE
	 * of the window, and the sample of "held after the work" among them
	 * (HELD, absolute; INT64_MAX when there is none) */
	const struct pt *w;
	size_t n;
	int64_t base, held;
	/* counters count from zero: the window starts at the run's start, and
	 * the run launched its command (a counter's first value is then the
	 * window's too) */
	bool from_start;
};

struct tm_rt_acc {
	size_t size; /* bytes of its state, zeroed before init */
	/* sets its state ST to "nothing seen" */
	void (*init)(void *st);
	/* every sample S (P: S as the summary's point), in the window or not:
	 * I is its index in the window, -1 when it is outside it */
	void (*sample)(void *st, const struct tm_sample *s, const struct pt *p, int64_t i);
	/* a rollup bucket R in the window, FIRST and LAST its first and last
	 * values as points */
	void (*bucket)(void *st, const struct tm_rollup *r, const struct pt *first,
	               const struct pt *last);
	/* its figures into S, at the end E */
	void (*finish)(void *st, const struct tm_acc_end *e, struct tm_summary *s);
};

/* The runtimes with a part, one line each: X(ENUM, descriptor), ENUM as in
 * runtime/registry.h's lists (TM_RUNTIME_ENUM), the descriptor defined in
 * the runtime's own file.  A line whose descriptor is not defined fails to
 * link; rtacc.c's table derives from the list. */
#define TM_RT_ACC_LIST(X) X(JVM, tm_rta_jvm)

#define TM_X_RTA_DECL(e, desc) extern const struct tm_rt_acc desc;
TM_RT_ACC_LIST(TM_X_RTA_DECL)
#undef TM_X_RTA_DECL

/* The accumulator part of runtime RT, NULL when it has none (or RT is none). */
const struct tm_rt_acc *tm_rt_acc(enum tm_runtime rt);

/* Each part, in registry order: its state into A->rt[] (0, or -1 when out
 * of memory; tm_rt_acc_release frees what was made either way), a sample,
 * a bucket, its figures into S. */
int tm_rt_acc_init(struct acc *a);
void tm_rt_acc_release(struct acc *a);
void tm_rt_acc_sample(struct acc *a, const struct tm_sample *s, const struct pt *p, int64_t i);
void tm_rt_acc_bucket(struct acc *a, const struct tm_rollup *r, const struct pt *first,
                      const struct pt *last);
void tm_rt_acc_finish(struct acc *a, const struct tm_acc_end *e, struct tm_summary *s);

/* ---- the accumulator's own tools, for a runtime's part (summary_acc.c) ---- */

/* A figure of a sample: metric A, or the sum of A and B (both present)
 * when B is not TM_METRIC_COUNT. */
struct tm_acc_src {
	enum tm_metric a, b;
};

/* A bucket's figures of one point field. */
struct agg {
	bool has;
	double first, last, min, max, rises;
	int64_t n;
};

/* SRC's value in S (NAN when absent), and its figures in bucket R. */
double tm_acc_src_get(const struct tm_sample *s, struct tm_acc_src src);
struct agg tm_acc_src_agg(const struct tm_rollup *r, struct tm_acc_src src);

/* "nothing seen"; takes a sample's value V (NAN: skipped); takes a bucket's G. */
void tm_facc_init(struct facc *f);
void tm_facc_take(struct facc *f, double v);
void tm_facc_bucket(struct facc *f, const struct agg *g);

#endif
