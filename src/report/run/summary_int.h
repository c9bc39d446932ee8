/*
 * Inside the summary (summary.c, summary_acc.c): one sample reduced to what
 * the figures need, and the accumulator that takes the run's samples (and
 * the rollup buckets of a stretch whose raw samples were pruned) one at a
 * time, in bounded memory.
 */
#ifndef TM_SUMMARY_INT_H
#define TM_SUMMARY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "report/run/sketch.h"
#include "report/run/summary.h"
#include "report/run/throttle.h"
#include "runtime/registry.h"
#include "store/rollup.h"
#include "store/store.h"

/* One sample, reduced to what the figures need; the doubles from anon to
 * hpage are contiguous (PT_NF of them), NAN when absent.  A runtime's
 * own figures are not here: its part of the accumulator (rtacc.h) reads
 * them from the sample. */
struct pt {
	int64_t t, wall, late;
	double anon, file, current, cg_peak, rss, heap_live, heap_held, procs;
	double heap_alloc, heap_allocs, heap_frees, heap_procs, heap_peak, heap_peak_proven,
	    heap_skew;
	double cpu, io_r, io_w, psi_ms, psi_mf, psi_is, psi_if;
	double ev_high, ev_max, ev_oom, ev_oom_kill, failcnt, lim_max, lim_high;
	double gc_live, gc_cycles;   /* a GC runtime's own report (--runtime go|ghc|node) */
	double heap_exe;             /* processes whose malloc is the executable's own */
	double thp_collapses, hpage; /* khugepaged's collapses; the host's huge page */
};

#define PT_NF ((offsetof(struct pt, hpage) - offsetof(struct pt, anon)) / sizeof(double) + 1)

static inline double *pt_field(struct pt *p, size_t k)
{
	return &p->anon + k;
}

struct prog {
	int64_t t;
	double v;
};

struct progs {
	struct prog *p;
	size_t n, cap;
};

/* first, last, max of a field's finite values, and the sum of its rises */
struct facc {
	double first, last, max, rises;
};

#define TAIL      64 /* samples kept at the end of the window */
#define PEAK_HALF 32 /* samples kept after the anon peak (and up to as many before) */

struct acc {
	int64_t from, to;   /* the window, mono usec */
	int64_t late_usec;  /* a sample later than this is late */
	bool want_throttle; /* also find throttled stretches (th) */

	/* over every sample, in the window or not: for the progress points */
	const struct progs *pr;
	size_t pi;       /* next progress point to place */
	double *pa, *pc; /* [pr->n]: anon and CPU at each point's time */
	double anon_so_far, cpu_so_far;
	bool any_before; /* a sample before the window */

	/* the window */
	int64_t n, late, first_t, last_t;
	bool at_start; /* its first sample is the run's first */
	struct facc f[PT_NF];
	struct pt first_pt, last_pt;
	double heap_allocs_first;
	bool heap_first_seen;
	struct tm_sketch files, files_lo, files_hi;

	int64_t raw_base;     /* the window's first raw sample after buckets */
	struct pt ring[TAIL]; /* the last TAIL samples: ring[i % TAIL] is sample i */
	struct pt snap[TAIL]; /* the ring as it was 8 samples after last_af */
	int64_t snap_for;     /* the last_af snap was taken for (-1: none) */
	int64_t last_af;      /* the last sample alive with anon (-1: none) */

	double peak;    /* anon peak */
	int64_t peak_i; /* its sample (-1: none, or in a bucket) */
	struct pt peak_pt;
	struct pt peak_win[TAIL]; /* the ring PEAK_HALF samples after peak_i */
	bool peak_frozen;

	/* rollup buckets summarised instead of pruned raw samples */
	struct tm_summary_approx ap;
	bool end_in_bucket;
	struct pt bucket_end; /* the last bucket's last values */

	struct tm_throttle_stream *th;

	/* each runtime's part (rtacc.h): its state, NULL when it has no part */
	void *rt[TM_RUNTIME_COUNT];
};

/* A sample as a point. */
void tm_sum_point(const struct tm_sample *s, struct pt *p);

/* Sets A up for the window [FROM, TO] of a run of interval INTERVAL_USEC
 * with progress points PR.  0, or -1 when out of memory. */
int tm_acc_init(struct acc *a, int64_t from, int64_t to, int64_t interval_usec,
                const struct progs *pr);
void tm_acc_release(struct acc *a);
/* Takes the next sample (in the window or not) / rollup bucket. */
void tm_acc_sample(struct acc *a, const struct tm_sample *s);
void tm_acc_bucket(struct acc *a, const struct tm_rollup *r);
/* The figures into S (window, memory, heap, cost, each runtime's own: rtacc.h); progress is left to
 * the caller (it needs the run's info).  1 when the window had no samples. */
int tm_acc_finish(struct acc *a, struct tm_summary *s, const struct tm_run_info *ri);

/* The allocators' answer for sample I of P (N samples): its own, else the
 * nearest one's with the same heap counts; NAN when none has one. */
double tm_sum_held_answer(const struct pt *p, size_t n, size_t i);
/* Splits sample I of P[0..N) (summary.c, with its neighbours for the
 * allocator's answer); *SKEW: NAN, or how far the heap moved while anon
 * was read when that withheld the split; *OWN: the allocators' figure
 * before it was capped at anon - live. */
void tm_sum_split_anon(const struct pt *p, size_t n, size_t i, double *live, double *held,
                       double *other, double *skew, double *own);
/* The sample of "held after the work" in P[0..N), or N (summary.c). */
size_t tm_sum_held_index(const struct pt *p, size_t n);
bool tm_sum_alive(const struct pt *p);

#endif
