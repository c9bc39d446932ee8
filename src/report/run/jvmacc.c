/*
 * The JVM's part of the summary's accumulator (report/run/rtacc.h): its
 * hsperfdata counters (heap used and committed, old gen, metaspace, GCs and
 * their time), its own GC log (-Xlog:gc), how many JVMs had no counters and
 * the Java heap's resident pages; the last samples alive with the Java heap
 * (for its figures and split at the end), and the old gen after the JVMs'
 * latest GC.
 */
#include <math.h>
#include <string.h>

#include "report/run/jvmsplit.h"
#include "report/run/rtacc.h"
#include "base/banned.h"

#define NO   TM_METRIC_COUNT
#define KEEP 8 /* the last samples alive with the Java heap, kept */

/* The JVM's figures of a sample. */
enum {
	J_USED,       /* Java heap used */
	J_CAP,        /* committed */
	J_OLD,        /* old gen used */
	J_META,       /* metaspace used */
	J_GCS,        /* young + full GCs */
	J_GC_USEC,    /* their time */
	J_LOG_BEFORE, /* the GC log's heap before the last pause */
	J_LOG_AFTER,  /* and after it */
	J_LOG_OLD,    /* the old gen after it */
	J_LOG_GCS,    /* the GCs the log showed */
	J_NOCNT,      /* JVMs without hsperfdata counters */
	J_PROCS,      /* JVMs with counters */
	J_RES,        /* the Java heap mappings' resident anon */
	J_RES_PROCS,  /* of how many JVMs */
	JN
};

static const struct tm_acc_src src[JN] = {
    [J_USED] = {TM_M_JVM_HEAP_USED_BYTES, NO},
    [J_CAP] = {TM_M_JVM_HEAP_COMMITTED_BYTES, NO},
    [J_OLD] = {TM_M_JVM_OLD_USED_BYTES, NO},
    [J_META] = {TM_M_JVM_METASPACE_USED_BYTES, NO},
    [J_GCS] = {TM_M_JVM_YOUNG_GCS, TM_M_JVM_FULL_GCS},
    [J_GC_USEC] = {TM_M_JVM_YOUNG_GC_USEC, TM_M_JVM_FULL_GC_USEC},
    [J_LOG_BEFORE] = {TM_M_JVM_LOG_HEAP_BEFORE_BYTES, NO},
    [J_LOG_AFTER] = {TM_M_JVM_LOG_HEAP_AFTER_BYTES, NO},
    [J_LOG_OLD] = {TM_M_JVM_LOG_OLD_AFTER_BYTES, NO},
    [J_LOG_GCS] = {TM_M_JVM_LOG_GCS, NO},
    [J_NOCNT] = {TM_M_JVM_PROCS_NO_COUNTERS, NO},
    [J_PROCS] = {TM_M_JVM_PROCS, NO},
    [J_RES] = {TM_M_JVM_HEAP_RESIDENT_BYTES, NO},
    [J_RES_PROCS] = {TM_M_JVM_HEAP_RESIDENT_PROCS, NO},
};

/* A sample: the summary's point and the JVM's figures. */
struct jpt {
	int64_t i; /* in the window */
	struct pt p;
	double v[JN];
};

struct jvm_acc {
	struct facc f[JN];
	/* the GC counts at the window's first sample with them */
	bool first_seen;
	double gcs_first, gc_usec_first;
	struct jpt keep[KEEP]; /* the last samples alive with the Java heap */
	int nkeep;
	/* the old gen after the JVMs' latest GC (over every sample), and its
	 * value at the window's last sample alive with the Java heap */
	double gc_prev, gc_cur, old_after_gc_end;
	double bucket_last[JN]; /* the last bucket's last values */
};

static void jvm_init(void *st)
{
	struct jvm_acc *j = st;

	for (int k = 0; k < JN; k++) {
		tm_facc_init(&j->f[k]);
		j->bucket_last[k] = NAN;
	}
	j->gcs_first = j->gc_usec_first = NAN;
	j->gc_prev = j->gc_cur = j->old_after_gc_end = NAN;
}

/* The GC counts of the window's first sample that has them. */
static void first_values(struct jvm_acc *j, const double *v)
{
	if (!j->first_seen && isfinite(v[J_GCS])) {
		j->first_seen = true;
		j->gcs_first = v[J_GCS];
		j->gc_usec_first = v[J_GC_USEC];
	}
}

/* The old gen used in the first sample that saw the GC time rise (HotSpot
 * adds a collection's time when it ends; its count rises when it starts, so
 * a sample taken during one sees the count but the old gen of before), the
 * first time seen rising from 0; forgotten when the time falls (a JVM
 * left).  Every sample counts, before the window too. */
static void old_after_gc(struct jvm_acc *j, double gc_usec, double old)
{
	if (!isfinite(gc_usec))
		return;
	if (isfinite(j->gc_prev) && gc_usec < j->gc_prev)
		j->gc_cur = NAN;
	if (isfinite(j->gc_prev) ? gc_usec > j->gc_prev : gc_usec > 0)
		j->gc_cur = old;
	j->gc_prev = gc_usec;
}

static void jvm_sample(void *st, const struct tm_sample *s, const struct pt *p, int64_t i)
{
	struct jvm_acc *j = st;
	double v[JN];

	for (int k = 0; k < JN; k++)
		v[k] = tm_acc_src_get(s, src[k]);
	old_after_gc(j, v[J_GC_USEC], v[J_OLD]);
	if (i < 0)
		return;
	for (int k = 0; k < JN; k++)
		tm_facc_take(&j->f[k], v[k]);
	first_values(j, v);
	if (!tm_sum_alive(p) || !isfinite(v[J_USED]))
		return;
	j->old_after_gc_end = j->gc_cur;
	if (j->nkeep == KEEP) {
		memmove(j->keep, j->keep + 1, sizeof(j->keep[0]) * (KEEP - 1));
		j->nkeep--;
	}
	j->keep[j->nkeep].i = i;
	j->keep[j->nkeep].p = *p;
	memcpy(j->keep[j->nkeep++].v, v, sizeof(v));
}

static void jvm_bucket(void *st, const struct tm_rollup *r, const struct pt *first,
                       const struct pt *last)
{
	struct jvm_acc *j = st;
	struct agg g[JN];
	double v0[JN];

	(void)first; /* its values are the bucket's first ones, read below */
	for (int k = 0; k < JN; k++) {
		g[k] = tm_acc_src_agg(r, src[k]);
		v0[k] = g[k].has ? g[k].first : NAN;
		j->bucket_last[k] = g[k].has ? g[k].last : NAN;
	}
	if (g[J_GC_USEC].has) { /* a GC inside: which sample followed it is not kept */
		if (g[J_GC_USEC].rises > 0 || g[J_GC_USEC].first != j->gc_prev)
			j->gc_cur = NAN;
		j->gc_prev = g[J_GC_USEC].last;
	}
	if (tm_sum_alive(last) && isfinite(j->bucket_last[J_USED]))
		j->old_after_gc_end = j->gc_cur;
	for (int k = 0; k < JN; k++)
		tm_facc_bucket(&j->f[k], &g[k]);
	first_values(j, v0);
}

/* The JVM's figures of sample P (its figures V), and its anon split
 * (jvmsplit.h) with the allocators' answer HELD: every figure from that one
 * sample. */
static void jvm_of(const struct pt *p, const double *v, double held, struct tm_summary *s)
{
	s->jvm_heap_used_end_bytes = v[J_USED];
	s->jvm_heap_committed_end_bytes = v[J_CAP];
	s->jvm_old_used_end_bytes = v[J_OLD];
	s->jvm_metaspace_used_end_bytes = v[J_META];
	if (isfinite(p->anon) && p->anon >= v[J_USED])
		s->anon_minus_jvm_heap_used_end_bytes = p->anon - v[J_USED];
	/* the Java heap's resident pages, when they were read of every JVM */
	double res = v[J_RES_PROCS] == v[J_PROCS] ? v[J_RES] : NAN;
	tm_jvm_split_resident(p->anon, v[J_USED], res, p->heap_live, held, &s->jvm_split);
}

/* The JVM's figures of the end: the last bucket's when the end is one,
 * else the last sample alive with them at or before the sample of held
 * after, the allocators' answer from its neighbours when it is among the
 * kept ones. */
static void end_figures(struct jvm_acc *j, const struct tm_acc_end *e, struct tm_summary *s)
{
	if (e->in_bucket) {
		if (e->end_alive && isfinite(j->bucket_last[J_USED]))
			jvm_of(e->end, j->bucket_last, e->end->heap_held, s);
		return;
	}
	for (int x = j->nkeep; x-- > 0;) {
		const struct jpt *q = &j->keep[x];
		int64_t k = q->i - e->base;
		if (q->i > e->held)
			continue;
		jvm_of(&q->p, q->v,
		       k >= 0 && k < (int64_t)e->n ? tm_sum_held_answer(e->w, e->n, (size_t)k)
		                                   : q->p.heap_held,
		       s);
		return;
	}
}

static void jvm_finish(void *st, const struct tm_acc_end *e, struct tm_summary *s)
{
	struct jvm_acc *j = st;

	end_figures(j, e, s);
	s->jvm_log_heap_before_end_bytes = j->f[J_LOG_BEFORE].last;
	s->jvm_log_heap_after_end_bytes = j->f[J_LOG_AFTER].last;
	s->jvm_log_heap_after_peak_bytes = j->f[J_LOG_AFTER].max;
	s->jvm_log_old_after_end_bytes = j->f[J_LOG_OLD].last;
	s->jvm_log_gcs = j->f[J_LOG_GCS].rises;
	s->jvm_procs_no_counters = j->f[J_NOCNT].max;
	s->jvm_gcs = j->f[J_GCS].rises;
	s->jvm_gc_usec = j->f[J_GC_USEC].rises;
	s->jvm_heap_used_peak_bytes = j->f[J_USED].max;
	if (e->from_start) {
		/* the JVMs' GC counts (hsperfdata) start with the JVMs we launched */
		if (isfinite(s->jvm_gcs) && j->first_seen) {
			s->jvm_gcs += j->gcs_first;
			s->jvm_gc_usec += isfinite(j->gc_usec_first) ? j->gc_usec_first : 0;
		}
		if (isfinite(s->jvm_log_gcs))
			s->jvm_log_gcs += j->f[J_LOG_GCS].first;
	}
	s->jvm_old_after_gc_end_bytes = j->old_after_gc_end;
}

const struct tm_rt_acc tm_rta_jvm = {
    .size = sizeof(struct jvm_acc),
    .init = jvm_init,
    .sample = jvm_sample,
    .bucket = jvm_bucket,
    .finish = jvm_finish,
};
