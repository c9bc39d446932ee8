/*
 * A run's figures, computed from its stored series: what `report` prints,
 * what `bench` compares, what the panel and HTML reports show.
 *
 * Every figure is a double; NAN means "not measured on this host or in this
 * run" (missing is not zero).  Bytes are bytes, times are usec.
 */
#ifndef TM_SUMMARY_H
#define TM_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "report/run/jvmsplit.h"
#include "report/run/summaryfigs.h"

struct tm_store;

/*
 * The stretch a summary covers.  Spelled on the command line as
 *   A:B          progress values (e.g. 100:500 blocks)
 *   10s:2m       times since the run started (any tm_parse_duration form)
 *   @MARK1:@MARK2  from the first mark with text MARK1 to the first MARK2
 * Either side may be empty ("100:" = from progress 100 to the end).
 */
enum tm_window_kind { TM_WIN_ALL, TM_WIN_PROGRESS, TM_WIN_TIME, TM_WIN_MARKS };
struct tm_window {
	enum tm_window_kind kind;
	bool has_a, has_b;
	double a, b; /* progress units, or usec since start */
	char mark_a[64], mark_b[64];
};

/* 0, or -1 after tm_error naming the spec. */
int tm_window_parse(const char *spec, struct tm_window *w);

/*
 * What a summary could not take from raw samples.  A run whose old samples
 * were pruned (tidemark prune, record --keep) is summarised from its
 * rollups there (store/rollup.h): peaks, counts, counter deltas and rises,
 * durations stay exact; what needs one sample is n/a, or given as bounds.
 */
struct tm_summary_approx {
	int64_t rollup_samples;       /* samples summarised from rollups, not raw */
	int64_t rollup_buckets;       /* how many buckets */
	bool minute, hour;            /* which levels were read */
	int64_t raw_from_wall_usec;   /* raw samples start here (0: none left) */
	bool long_run;                /* a long run's samples before raw_from_wall_usec are
	                                 kept, but read from their hour buckets (a
	                                 report's cost does not grow with the run) */
	double median_file_rel_error; /* 0: exact; else the streaming sketch's bound */
	/* the median from rollups: between the medians of the buckets' minima
	 * and maxima (each weighted by its samples); NAN when exact */
	double median_file_low_bytes, median_file_high_bytes;
	bool peak_in_rollups;     /* anon peaked in a rolled-up stretch: the figures of
	                             the peak's sample are n/a */
	bool end_in_rollups;      /* the run's end is rolled up: held is the last value
	                             of the last bucket the target was alive in */
	bool progress_in_rollups; /* progress points in a rolled-up stretch: per-unit
	                             slopes are n/a */
};

struct tm_summary {
	int64_t run_id;
	int64_t samples, late_samples;
	int64_t window_start_mono_usec, window_end_mono_usec; /* the stretch summarised */

	/* the exported figures, each a double (report/run/summaryfigs.h) */
#define TM_SUMMARY_MEMBER(name, start) double name;
#define TM_SUMMARY_NO_MEMBER(name, part)
	TM_SUMMARY_FIG_LIST(TM_SUMMARY_MEMBER, TM_SUMMARY_NO_MEMBER)
#undef TM_SUMMARY_MEMBER
#undef TM_SUMMARY_NO_MEMBER

	/* the kernel's peak of the cgroup's memory is above every sample's: the
	 * samples missed the peak, peak_anon_bytes is NAN (the samples' highest
	 * anon in peak_anon_sampled_bytes, a lower bound) */
	bool peak_anon_missed;
	double peak_anon_sampled_bytes;
	/* the kernel's peak is above every sample's by this much, more than
	 * noise but within one huge page that khugepaged charged while
	 * collapsing pages (thp_collapses > 0): anon never held it, and
	 * peak_anon_bytes stands; NAN otherwise */
	double peak_over_by_collapse_bytes;
	/* why held_anon_bytes, heap_live_end_bytes and anon's split at the end
	 * are NAN although samples exist: there was no after to measure (the
	 * rule: report/run/endrule.h) */
	enum tm_end_na {
		TM_END_MEASURED = 0,
		TM_END_OOM_KILLED, /* the OOM killer ended the work */
		TM_END_NO_END,     /* a launched command's run never ended (recorder died) */
		TM_END_EXITED,     /* the program ended by itself during the work */
		TM_END_GONE_AFTER, /* the work ended, but no sample after it found the program */
	} end_na;
	/* how the end's figures were measured when end_na is TM_END_MEASURED */
	enum tm_end_kind {
		TM_END_KIND_NONE = 0,
		TM_END_AFTER_WORK, /* a sample after the work's end ("end" mark, --until-progress)
		                    */
		TM_END_STOPPED,    /* the recording stopped with the program running (--timeout,
		                      interrupted, detached) */
		TM_END_RUNNING,    /* a watched unit or cgroup still running: measured now */
	} end_kind;
	/* the monotonic time of the sample of held after (-1: none), and of the
	 * work's end ("end" mark or --until-progress target; -1: none) */
	int64_t held_sample_mono_usec, work_end_mono_usec;
	/* the live heap of the last sample while the target was alive, kept when
	 * end_na withholds the end's figures (the bench's "heap at kill") */
	double heap_live_last_seen_bytes;
	/* whether anon_allocator_held_end_own_bytes is an upper bound
	 * (jemalloc's stats.resident and mimalloc's committed bytes count pages
	 * never touched) */
	bool anon_allocator_held_bound;
	/* the end's anon in three parts (report/run/jvmsplit.h): Java heap used +
	 * the shim's malloc (live + held by the allocators when they said) +
	 * other anon, each >= 0, adding up to its anon; NAN parts when not made,
	 * and .why says why */
	struct tm_jvm_split jvm_split;
	/* a GC runtime's live heap after GC as of the sample of held_anon_bytes,
	 * the part of anon a runtime's split gives it (runtime/registry.h's
	 * .split); not exported: the report's text only */
	double gc_heap_live_at_held_bytes;
	/* The window's progress points arrived in too few instants, or too many
	 * at one instant (a block-buffered program, base/bunch.h): their times
	 * say nothing of the work's pace, so the rate and the per-unit slopes
	 * are NAN. */
	bool progress_bunched;
	char units_source[16]; /* "--units", "--units-from", or "" */

	struct tm_summary_approx approx;
};

/*
 * Whether anon fell from BEFORE_BYTES to AFTER_BYTES by 1 MiB and 2 % at
 * least: more than a live program's noise, the kernel tearing an exiting
 * process's memory down.  The one rule behind "held after" (summary.c)
 * and a run's last phase (phases.c).  False when either is not finite.
 */
bool tm_anon_fell_steeply(double before_bytes, double after_bytes);

/* What anon_allocator_held_end_bytes is: NULL when it is not known, else
 * "capped" (the allocators said more than anon - live, and the part is that
 * cap), "upper bound" (their figure counts pages never touched) or "exact". */
const char *tm_summary_held_kind(const struct tm_summary *s);

/* Whether any figure of S is not exact (S->approx says which). */
bool tm_summary_approximate(const struct tm_summary *s);

/* 0, 1 when the run has no samples in the window, -1 after tm_error. */
/* Fills S's units figures from run RUN_ID's "units" event (record/units.h)
 * and S's duration and cpu (tm_summarize calls it for whole runs).  0 or -1. */
int tm_summary_units(struct tm_store *st, int64_t run_id, struct tm_summary *s);

int tm_summarize(struct tm_store *st, int64_t run_id, const struct tm_window *w,
                 struct tm_summary *out);

struct tm_throttle;
/* tm_summarize, also finding the throttled stretches of the window (as
 * tm_throttle_find) in the same pass over the samples when TH is not NULL.
 * A window over a stretch whose raw samples were pruned is an error. */
int tm_summarize_throttle(struct tm_store *st, int64_t run_id, const struct tm_window *w,
                          struct tm_summary *out, struct tm_throttle *th);

#endif
