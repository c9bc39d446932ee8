/*
 * From measured runs to the limits and allocator settings of a service:
 * per arm and per regime (a window of the runs), MemoryHigh, MemoryMax,
 * MemorySwapMax and the allocator's environment, each number with the
 * measurement and the rule it came from; which arm to run, and why; or a
 * refusal saying why the runs cannot support a number.  docs/advise.md
 * states every rule.
 *
 * Bytes are bytes, times usec; NAN means not measured (missing is not zero).
 */
#ifndef TM_ADVISE_H
#define TM_ADVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "report/bench/benchtab.h"
#include "report/run/summary.h"

struct tm_store;

#define TM_ADVISE_MAX_REGIMES  8
#define TM_ADVISE_MAX_RESERVES 8
#define TM_ADVISE_MAX_RUNS     512
#define TM_ADVISE_MAX_ENV      6

/* Defaults of the rules (docs/advise.md). */
#define TM_ADVISE_MARGIN_FRAC      0.25             /* of the anon peak */
#define TM_ADVISE_MARGIN_MIN_BYTES (16.0 * 1048576) /* the margin is never less */
#define TM_ADVISE_MIN_SAMPLES      5                /* per run in a window */
#define TM_ADVISE_HEADROOM_MIN_BYTES                                                               \
	(1.0 * 1048576) /* MemoryHigh above the peak needed by at least this */
#define TM_ADVISE_DYING_CACHE_FRAC                                                                 \
	0.05 /* a killed run's cache below this share of                                           \
	        the survivors': the sign of too little */

struct tm_advise_regime {
	char name[32];  /* "steady", "catch-up", "whole run" */
	char spec[128]; /* as given ("" for the whole run) */
	struct tm_window w;
};

struct tm_advise_reserve {
	char name[32];
	double bytes;
};

struct tm_advise_opts {
	int64_t runs[TM_ADVISE_MAX_RUNS]; /* the runs (a bench's are expanded by the caller) */
	int n_runs;
	struct tm_advise_regime regimes[TM_ADVISE_MAX_REGIMES];
	int n_regimes; /* 0: one regime, the whole run */
	struct tm_advise_reserve reserves[TM_ADVISE_MAX_RESERVES];
	int n_reserves;
	double ram_bytes;   /* the machine's memory (> 0) */
	char ram_from[64];  /* "/proc/meminfo" or "--ram" */
	double margin_frac; /* 0 means TM_ADVISE_MARGIN_FRAC */
	int min_samples;    /* 0 means TM_ADVISE_MIN_SAMPLES */
	/* the granularity the host's kernel charges memory in, which the
	 * headroom covers: a huge page with THP "always", else a page; 0: not
	 * known (tm_advise_host_granule fills it) */
	double granule_bytes;
	int thp_mode; /* enum tm_thp_mode (kern/thp.h) */
	char granule_from[96];
};

/* Why a profile or the whole advice has no numbers. */
enum tm_advise_refusal {
	TM_AR_NONE,
	TM_AR_NO_RUNS,       /* no run given */
	TM_AR_NONE_SURVIVED, /* no run of the arm (or of any arm) survived */
	TM_AR_FEW_SAMPLES,   /* a survivor has too few samples in the window */
	TM_AR_SWAP,          /* swap was on while measuring */
	TM_AR_NO_ANON,       /* anon was not measured */
};

struct tm_advise_profile {
	enum tm_advise_refusal refusal;
	char why[256];          /* the refusal's reason, with the run and the figure */
	int survivors;          /* runs the figures come from */
	int64_t min_samples;    /* fewest samples in the window over them */
	double anon_peak_bytes; /* worst (largest) anon peak of the survivors in the window */
	int64_t anon_peak_run;
	double anon_held_bytes;    /* median over survivors of their median anon in the window */
	double cache_bytes;        /* median over survivors of their page cache at the anon peak */
	double killed_cache_bytes; /* median over killed runs of theirs, NAN when none */
	/* the worst survivor's whole charge (memory.current) at its peak in the
	 * window: the kernel's watermark when it rose in the window (a burst
	 * between samples is in it), else the largest sampled; NAN: no cgroup */
	double charge_peak_bytes;
	int64_t charge_peak_run;
	bool charge_from_watermark;
	/* that run's watermark before the window (or at its first sample) and
	 * at its end, NAN: not sampled; what the charge row says happened */
	double charge_wm_from_bytes, charge_wm_to_bytes;
	int charge_measured; /* survivors with a charge figure */
	/* the peak the regime needs: max(anon peak + page cache needed, charge
	 * peak); MemoryHigh must sit above it, MemoryMax above it plus a margin */
	double needed_bytes;
	double needed_spread_bytes; /* max - min over survivors of each one's own */
	double headroom_bytes;      /* MemoryHigh above the peak needed */
	double refaults;            /* median over survivors of file refaults in the window */
	double psi_io_share;        /* median over survivors: io some stall / window length */
	double margin_bytes;
	double sweep_min_bytes;      /* smallest surviving MemoryMax of a sweep, NAN: none */
	double sweep_high_min_bytes; /* smallest MemoryHigh of a sweep without throttle limbo */
	double memory_high_bytes, memory_max_bytes, swap_max_bytes;
	double sum_bytes;    /* MemoryMax + the reserves */
	double leaves_bytes; /* RAM - sum (negative: does not fit) */
};

struct tm_advise_arm {
	char name[64], allocator[64];
	char env[TM_ADVISE_MAX_ENV][192]; /* "LD_PRELOAD=/usr/lib/...", "MALLOC_ARENA_MAX=1" */
	int n_env;
	int runs, survived, killed;
	int64_t run_ids[32];
	int n_run_ids;
	struct tm_advise_profile prof[TM_ADVISE_MAX_REGIMES];
	int rank;                    /* 0: recommended */
	double sweep_min_bytes;      /* the smallest MemoryMax its runs survived at, above every one
	                                they did not (a sweep: two limits or more), NAN: none */
	double sweep_high_min_bytes; /* the same for a MemoryHigh sweep (every run completed,
	                                none held in throttle limbo), NAN: none */
	int swept_below; /* runs of the sweep below it (not counted in runs and survived) */
};

struct tm_advise {
	struct tm_advise_opts opts;     /* a copy, with the defaults filled and the regimes */
	enum tm_advise_refusal refusal; /* of the whole advice */
	char why[256];
	int64_t made_wall_usec;
	int recommended;                  /* arm index, or -1 */
	int order[TM_BENCH_TAB_MAX_ARMS]; /* arms by rank */
	/* arms the recommended one was not decided against: as many survived,
	 * and a difference the runs are too few to test (docs/advise.md) */
	int undecided[TM_BENCH_TAB_MAX_ARMS];
	int n_undecided;
	struct tm_bench_table table; /* the runs' comparison (ratios, tests) */
	struct tm_advise_arm arms[TM_BENCH_TAB_MAX_ARMS];
	int n_arms;
	double reserve_bytes; /* sum of the reserves */
};

/* Computes the advice for OPTS's runs.  0 (A may still be a refusal: see
 * A->refusal and each profile's), or -1 after tm_error (store errors, a
 * missing run).  Release A with tm_advise_release in either case. */
int tm_advise_compute(struct tm_store *st, const struct tm_advise_opts *opts, struct tm_advise *a);
void tm_advise_release(struct tm_advise *a);

/* Fills O's granule from the host under ROOT ("/" or a directory laid out
 * like one): THP's mode (sys/kernel/mm/transparent_hugepage/enabled) and
 * huge page size (hpage_pmd_size), else PAGE_BYTES (0: not known).  Never
 * fails: what cannot be read is said in O->granule_from. */
void tm_advise_host_granule(const char *root, long page_bytes, struct tm_advise_opts *o);

/* "no-runs", "none-survived", ... (JSON); NULL for TM_AR_NONE. */
const char *tm_advise_refusal_name(enum tm_advise_refusal r);

/* What advise --verify ran and found. */
struct tm_advise_verify {
	struct tm_store *st; /* for the walk over its runs */
	int64_t bench_id;
	int tried, survived, throttled, throttle_unknown;
	bool verified;  /* every run survived and none was held in throttle limbo */
	char why[160];  /* why throttling could not be measured */
	char text[512]; /* "yes: bench 9, 3/3 runs survived under ..., none throttled" */
};

/* Runs the recommended arm RUNS times under REGIME's proposed limits, as
 * a bench of its own with the command, hooks and restored state of the
 * bench its runs came from (the bench's table goes nowhere; the runs are
 * stored as usual).  0 with V filled, or -1 after tm_error (no
 * recommendation, runs not from a bench, a runtime failure, interrupted). */
int tm_advise_verify(struct tm_store *st, const struct tm_advise *a, int regime, int runs,
                     struct tm_advise_verify *v);

/* The advice as a short table per arm and regime, with the rules. */
void tm_advise_write_text(const struct tm_advise *a, FILE *out);
/* As JSON text (malloc'd), with the verification V when not NULL, or NULL
 * when out of memory. */
char *tm_advise_to_json(const struct tm_advise *a, const struct tm_advise_verify *v);

/*
 * What the HTML report of bench BENCH shows beside its table, added to
 * DOCS under the API paths the panel reads them from: the survival curve
 * of the sweep its arms were part of ("/api/v1/bench/ID/sweep"; none when
 * there was no sweep) and the advice over its runs and the sweep's
 * ("/api/v1/bench/ID/advice": as `advise --bench ID --json`, with
 * "header", the lines the terminal prints above the arms).  0, or -1
 * after tm_error.
 */
int tm_advise_bench_docs(struct tm_store *st, int64_t bench, json_t *docs);
/* A systemd drop-in for the recommended arm and regime REGIME (index):
 * [Service] with the settings and a comment block saying where each number
 * came from.  VERIFIED (NULL: not verified) says whether a bench proved it
 * (struct tm_advise_verify's text).  0, or -1 after
 * tm_error (no recommendation, a refused profile). */
int tm_advise_write_dropin(const struct tm_advise *a, int regime, const char *verified, FILE *out);

#endif
