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
	double duration_usec; /* of the window (the whole run by default) */

	/* memory: anon is the cgroup's anon when there is a cgroup, else the tree's RssAnon */
	double peak_anon_bytes, final_anon_bytes;
	/* the kernel's peak of the cgroup's memory is above every sample's: the
	 * samples missed the peak, peak_anon_bytes is NAN (the samples' highest
	 * anon in peak_anon_sampled_bytes, a lower bound) */
	bool peak_anon_missed;
	double peak_anon_sampled_bytes;
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
	double held_anon_bytes;    /* anon at the end of the work: the last sample after the
	                              last progress point or mark, or at exit; see docs */
	double peak_current_bytes; /* cgroup memory.current (v1 usage_in_bytes); for a whole
	                              run in its fresh cgroup, never below cg_peak_bytes */
	double cg_peak_bytes;      /* the kernel's own memory.peak / max_usage_in_bytes */
	double median_file_bytes, peak_file_bytes, file_at_peak_bytes;
	double peak_rss_bytes;

	/* heap shim, when present */
	double heap_live_peak_bytes, heap_live_end_bytes;
	/* anon = live heap + held by the allocator + other anon, from one sample
	 * (at the end of the work, at the anon peak): held is the allocators'
	 * own figure (heap_held_bytes) capped at anon - live, other the rest;
	 * none below 0; NAN when the allocators gave no figure */
	double anon_heap_live_end_bytes, anon_allocator_held_end_bytes, anon_other_end_bytes;
	double anon_heap_live_at_peak_bytes, anon_allocator_held_at_peak_bytes,
	    anon_other_at_peak_bytes;
	/* NAN, or how far the live heap moved while that sample read anon when
	 * that was more than noise: the split's parts are then NAN (not of one
	 * moment) */
	double anon_split_end_skew_bytes, anon_split_at_peak_skew_bytes;
	/* the allocators' own figure in the end's sample, before the cap at anon -
	 * live (above anon_allocator_held_end_bytes: capped); and whether it is
	 * an upper bound (jemalloc's stats.resident and mimalloc's committed
	 * bytes count pages never touched) */
	double anon_allocator_held_end_own_bytes;
	bool anon_allocator_held_bound;
	double heap_alloc_bytes; /* allocated over the window (usable bytes), and how many */
	double heap_allocs;
	double heap_alloc_bytes_per_sec;
	/* the shim's peak of the tree's live bytes, between samples too (whole run
	 * only): at most heap_peak_bytes, at least heap_peak_proven_bytes (what
	 * the counters show held at one moment); exact when they are equal
	 * (heap/heaptree.h).  Proven is NAN for a run recorded before it was kept */
	double heap_peak_bytes, heap_peak_proven_bytes;

	/* the JVMs of the tree (HotSpot's hsperfdata), when present: at the end of
	 * the work as held_anon_bytes is; GCs (young + full) over the window */
	double jvm_heap_used_peak_bytes, jvm_heap_used_end_bytes, jvm_heap_committed_end_bytes;
	double jvm_old_used_end_bytes, jvm_metaspace_used_end_bytes;
	/* the old gen used in the first sample after the JVMs' latest GC as of
	 * the end (their live old data, what compares JVM arms); NAN before any */
	double jvm_old_after_gc_end_bytes;
	double jvm_gcs, jvm_gc_usec;
	/* anon - Java heap used, at the end (the sample of jvm_heap_used_end_bytes):
	 * free but touched Java heap, the JVM's malloc, code cache, thread stacks,
	 * GC data; NAN when used is more than anon */
	double anon_minus_jvm_heap_used_end_bytes;
	/* that sample's anon in three parts (report/run/jvmsplit.h): Java heap used +
	 * the shim's malloc (live + held by the allocators when they said) +
	 * other anon, each >= 0, adding up to its anon; NAN parts when not made,
	 * and .why says why */
	struct tm_jvm_split jvm_split;

	/* a GC runtime's own report (record --runtime, runtime/registry.h): the live heap after
	 * its collections, the peak and the last in the window, and how many */
	double gc_heap_live_peak_bytes, gc_heap_live_end_bytes, gc_cycles;
	/* its live heap after GC as of the sample of held_anon_bytes, the part of
	 * anon a runtime's split gives it (runtime/registry.h's .split); not
	 * exported: the report's text only */
	double gc_heap_live_at_held_bytes;

	/* the launched JVM's own GC log (-Xlog:gc, runtime/jvmgclog.h): the heap
	 * used before and after its last pause (whole MiB as it prints them),
	 * the peak after a pause, the old gen after it (Parallel, Serial: KiB;
	 * G1 logs whole regions, not taken), the GCs seen; and the most JVMs seen
	 * at once without hsperfdata counters (-XX:-UsePerfData,
	 * -XX:+PerfDisableSharedMem) */
	double jvm_log_heap_before_end_bytes, jvm_log_heap_after_end_bytes;
	double jvm_log_heap_after_peak_bytes, jvm_log_old_after_end_bytes, jvm_log_gcs;
	double jvm_procs_no_counters;

	/* limits and events over the window */
	double limit_max_bytes, limit_high_bytes; /* last seen; -1 = none */
	double high_events, max_events, oom_events, oom_kills;

	/* cost */
	double cpu_usec; /* user + sys over the window */
	double io_read_bytes, io_write_bytes;
	double psi_mem_some_usec, psi_mem_full_usec, psi_io_some_usec, psi_io_full_usec;

	/* progress */
	double progress_first, progress_last;
	double progress_rate_per_min; /* NAN when the points arrived at once (bunched) */
	/* The window's progress points arrived in too few instants, or too many
	 * at one instant (a block-buffered program, base/bunch.h): their times
	 * say nothing of the work's pace, so the rate and the per-unit slopes
	 * are NAN. */
	bool progress_bunched;
	double progress_points, progress_points_bunched; /* how many; in the fullest instant */
	double progress_instants;                     /* distinct arrival instants (base/bunch.h) */
	double anon_bytes_per_unit, anon_per_unit_r2; /* least-squares slope of anon on progress */
	double cpu_usec_per_unit, cpu_per_unit_r2;

	/* work done as the run was told it (--units N) or read it from its
	 * output (--units-from REGEX): whole-run summaries only, else NAN.  With
	 * units and no progress line, cpu_usec_per_unit is cpu_usec / units
	 * (cpu_per_unit_r2 stays NAN: no fit). */
	double units;
	double units_per_min;      /* units over the duration */
	double wall_usec_per_unit; /* duration / units */
	char units_source[16];     /* "--units", "--units-from", or "" */

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
