/*
 * The bench comparison table: per arm, survival and the median [min–max]
 * of each figure over the runs that survived, the ratio to the control arm
 * (the first) and an exact Mann–Whitney U test against it where both
 * medians are above the figure's noise floor, outliers by modified Z-score
 * where an arm has enough runs, how far killed runs got, and a noisy
 * machine.  Schema: docs/bench.md.
 */
#ifndef TM_BENCHTAB_H
#define TM_BENCHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/outcome.h"
#include "report/bench/benchfigs.h"

struct tm_store;

/* The comparison table of bench BENCH_ID as JSON text (malloc'd, caller frees); schema in
 * docs/bench.md. 0 or -1. */
int tm_bench_table_json(struct tm_store *st, int64_t bench_id, char **json_out);
/* The table as text for a terminal (what `tidemark bench` and `tidemark report --bench ID` print):
 * 0, 1 when the store has no bench BENCH_ID (nothing printed: the caller
 * names the store), -1 after tm_error. */
int tm_bench_table_print(struct tm_store *st, int64_t bench_id, FILE *out);

/* ---- the model behind both (pure; the store only fills it) ---- */

/* The figures, from the registry (report/bench/benchfigs.h): TM_BF_PEAK_ANON, ...
 * in the order of the JSON's "figures"; the text table's rows follow their
 * rank.  docs/bench.md lists them. */
enum tm_bench_fig {
#define TM_BF_ENUM(id, ...) TM_BF_##id,
	TM_BENCH_FIG_LIST(TM_BF_ENUM)
#undef TM_BF_ENUM
	    TM_BF_COUNT
};

/* A figure's descriptor: one line of TM_BENCH_FIG_LIST (report/bench/benchfigs.h
 * says what each field means). */
struct tm_bench_fig_info {
	const char *key;   /* JSON/CSV name, with its unit */
	const char *label; /* text table row */
	enum tm_bench_fig_unit unit;
	double scale;     /* raw * scale = what the text table shows */
	double noise_raw; /* the noise floor (raw units) */
	enum tm_bench_agg agg;
	bool param; /* bench --param fits it against N */
	int rank;   /* the text table's rows sort by it */
};
/* F's descriptor; NULL when F is not a figure. */
const struct tm_bench_fig_info *tm_bench_fig_info(enum tm_bench_fig f);

struct tm_bench_stat {
	int n;
	double median, min, max, mad; /* NAN when n == 0 */
};

/* Over the finite values of V[0..N). */
void tm_bench_stat_of(const double *v, int n, struct tm_bench_stat *out);
/* Whether [min, max] of A and B overlap (both must have values). */
bool tm_bench_overlap(const struct tm_bench_stat *a, const struct tm_bench_stat *b);

/* Outliers are judged only in arms with at least this many survivors: the
 * MAD of fewer runs says too little about their spread. */
#define TM_BENCH_OUTLIER_MIN_N 5
/* |modified Z-score| above this is an outlier (Iglewicz and Hoaglin). */
#define TM_BENCH_OUTLIER_Z 3.5
/* X is an outlier of S: S has TM_BENCH_OUTLIER_MIN_N values or more, X's
 * modified Z-score on S's MAD is beyond TM_BENCH_OUTLIER_Z, and X lies more
 * than FLOOR_RAW and 2 % of the median from the median. */
bool tm_bench_outlier(const struct tm_bench_stat *s, double x, double floor_raw);

/* The significance level of the tests against the control. */
#define TM_BENCH_ALPHA 0.05

/* What the table can say about an arm's figure against the reference arm. */
enum tm_bench_verdict {
	TM_BV_NONE,            /* the reference itself, or an arm with no value */
	TM_BV_BELOW_FLOOR,     /* a median below the noise floor: no ratio, no test */
	TM_BV_TOO_FEW,         /* so few runs that no p can reach TM_BENCH_ALPHA */
	TM_BV_NOT_SIGNIFICANT, /* p > TM_BENCH_ALPHA */
	TM_BV_SIGNIFICANT,     /* p <= TM_BENCH_ALPHA */
};
/* "below-noise-floor", "too-few-runs", ... (JSON); NULL for TM_BV_NONE. */
const char *tm_bench_verdict_name(enum tm_bench_verdict v);

#define TM_BENCH_TAB_MAX_ARMS  16
#define TM_BENCH_SCRAPED_SLOTS 4
/* Rows other than figures (figures are rows 0..TM_BF_COUNT-1). */
enum tm_bench_tab_row {
	TM_BR_HEADER = -1,          /* the arms' names */
	TM_BR_SURVIVED = -2,        /* survived k/n (outcomes) */
	TM_BR_KILLED_ANON = -3,     /* peak anon of the killed runs */
	TM_BR_KILLED_HEAP = -4,     /* their live heap when last seen (--heap) */
	TM_BR_KILLED_PROGRESS = -5, /* their progress when killed */
	TM_BR_KILLED_WALL = -6,     /* their wall time when killed */
};
#define TM_BENCH_TAB_MAX_ROWS (TM_BF_COUNT + 6)

/* Bytes of a bitset with a bit per figure. */
#define TM_BF_MASK_BYTES ((TM_BF_COUNT + 7) / 8)

struct tm_bench_run_row {
	int64_t run_id, seq;
	int arm; /* index into arms */
	bool warmup;
	enum tm_outcome outcome;
	char reason[256];
	double fig[TM_BF_COUNT]; /* NAN when not measured */
	double work_wall_usec;   /* the whole work's wall time, whatever the window, or NAN */
	double steal_share;      /* CPU steal / machine CPU time during the run, or NAN */
	double other_share;      /* CPU used by others / machine CPU time, or NAN */
	/* a bit per figure (tm_bench_run_outlier), set by tm_bench_table_compute */
	uint8_t outlier_mask[TM_BF_MASK_BYTES];
	const char *held_kind; /* tm_summary_held_kind of its allocator-held figure, or NULL */
	int throttle_spans; /* throttle limbo stretches (report/run/throttle.h); 0 none or unknown
	                     */
	char throttle[224]; /* the first one as text, "" when none */
};

/* Marks run R's figure F (0 <= F < TM_BF_COUNT) an outlier among its arm's
 * runs; tm_bench_table_compute calls it. */
static inline void tm_bench_set_run_outlier(struct tm_bench_run_row *r, int f)
{
	r->outlier_mask[f / 8] |= (uint8_t)(1u << f % 8);
}

struct tm_bench_arm_row {
	char name[64];
	char allocator[64];
	char *env_text;    /* "VAR=VAL ..." the arm runs with (allocation-relevant), malloc'd */
	char *limits_text; /* "MemoryMax=400M ...", malloc'd */
	int runs;          /* measured runs that count (not warmup, invalid, interrupted) */
	int survived, oom_killed, killed, timeout, failed, invalid, interrupted;
	struct tm_bench_stat stat[TM_BF_COUNT]; /* over the survivors */
	double ratio[TM_BF_COUNT];              /* median / control's median, or NAN */
	bool overlap[TM_BF_COUNT];              /* range overlaps the control's */
	double p[TM_BF_COUNT];                  /* Mann–Whitney two-sided p, or NAN */
	enum tm_bench_verdict verdict[TM_BF_COUNT];
	struct tm_bench_stat killed_peak;     /* peak anon of the killed runs */
	struct tm_bench_stat killed_heap;     /* their live heap when last seen (--heap) */
	struct tm_bench_stat killed_progress; /* their last progress value */
	struct tm_bench_stat killed_wall;     /* usec: their work's wall time until the kill */
};

struct tm_bench_table {
	int64_t bench_id;
	char name[128], host[128], order[16], window[128];
	char cgroup_mode[16]; /* of the first run: "v1", "hybrid", "v2", or "" */
	char *command;        /* the shared command line, malloc'd or NULL */
	double units;         /* --units: the work of each run, or NAN */
	char *units_from;     /* --units-from REGEX, malloc'd or NULL */
	int64_t seed, started_wall_usec, ended_wall_usec;
	int64_t settle_usec; /* --settle: the "held after" row is shown only with it */
	int n_arms;
	struct tm_bench_arm_row arms[TM_BENCH_TAB_MAX_ARMS];
	int n_runs;
	struct tm_bench_run_row *runs; /* malloc'd */
	bool noisy;
	int reference; /* arm the ratios are to: 0, or the first with survivors */
	struct tm_bench_ptab
	    *param; /* bench --param: per value and fits (report/bench/benchparam.h), or NULL */
	/* the scraped series of rows TM_BF_SCRAPED_N_*: slot N-1's name, ""
	 * when unused (slots 0, 1: bytes; 2, 3: other values) */
	char scraped[TM_BENCH_SCRAPED_SLOTS][272];
};

/* Whether tm_bench_table_compute found figure F of run R an outlier. */
bool tm_bench_run_outlier(const struct tm_bench_run_row *r, int f);

/* Fills the scraped rows (TM_BF_SCRAPED_*) of T's runs, loaded: the first
 * two gauges (kind gauge or untyped) ending in _bytes and the first two
 * others that have a value in at least one run of every arm, in the order
 * the first arm's runs saw them.  0, or -1 after tm_error. */
int tm_bench_scraped_fill(struct tm_store *st, struct tm_bench_table *t);

/* Fills the per-arm rows and the flags from the runs.  Arm 0 is the control. */
void tm_bench_table_compute(struct tm_bench_table *t);
void tm_bench_table_release(struct tm_bench_table *t);

/* Reads bench BENCH_ID and the summaries of its runs.  0, 1 when there is
 * no such bench, -1 after tm_error. */
int tm_bench_table_load(struct tm_store *st, int64_t bench_id, struct tm_bench_table *t);

/* The same table over runs RUN_IDS[0..N) of any benches or none (bench_id
 * 0, no spec): an arm per run's arm name, else allocator, else "run ID", in
 * the order they first come; the first is the control.  Figures over whole
 * runs.  0, or -1 after tm_error (a missing run is an error).  Release T
 * with tm_bench_table_release in either case. */
int tm_bench_table_of_runs(struct tm_store *st, const int64_t *run_ids, int n,
                           struct tm_bench_table *t);

void tm_bench_table_write_text(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_md(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_csv(const struct tm_bench_table *t, FILE *out);
/* For exporters: the rows shown (an enum tm_bench_tab_row, or an enum
 * tm_bench_fig; ROWS holds TM_BENCH_TAB_MAX_ROWS), their labels and cells,
 * the header lines and the notes under the table. */
int tm_bench_table_rows(const struct tm_bench_table *t, int *rows);
const char *tm_bench_table_row_label(int row);
void tm_bench_table_cell(const struct tm_bench_table *t, int row, int arm, char *buf, size_t size);
void tm_bench_table_write_header(const struct tm_bench_table *t, FILE *out);

/* Kinds of note under the table, in the order they come. */
enum tm_bench_note {
	TM_BN_LEGEND,   /* what the cells mean, which test, its alpha */
	TM_BN_FLOOR,    /* the noise floors below which no ratio is given */
	TM_BN_ZERO,     /* rows left out because they are 0 in every run */
	TM_BN_REF,      /* ratios are to another arm than the control */
	TM_BN_TOO_FEW,  /* arms with too few runs for any verdict, and how many it takes */
	TM_BN_OUTLIER,  /* one run's outlying figures (rows of the table only) */
	TM_BN_RUN,      /* a run that did not complete, and why */
	TM_BN_NOISY,    /* runs that shared the machine */
	TM_BN_THROTTLE, /* a run held in throttle limbo by memory.high */
	TM_BN_SCRAPED,  /* which scraped series the "scraped N" rows are */
	TM_BN_BOUND,    /* the allocator-held row: an upper bound, or capped, in which runs */
};
/* Calls FN once per note: one line of text without its newline, valid
 * during the call only. */
typedef void (*tm_bench_note_fn)(void *ctx, enum tm_bench_note kind, const char *text);
void tm_bench_table_each_note(const struct tm_bench_table *t, tm_bench_note_fn fn, void *ctx);
/* The notes as text, a blank line first, each line ended by a newline. */
void tm_bench_table_write_notes(const struct tm_bench_table *t, FILE *out);
/* What a bench of N_ARMS arms with RUNS runs each says at its start when
 * no difference between two arms can reach TM_BENCH_ALPHA (3 against 3):
 * the note, and what it takes, into BUF; false (BUF untouched) when the
 * runs can reach a verdict or there is one arm. */
bool tm_bench_runs_note(int runs, int n_arms, char *buf, size_t size);

/* malloc'd JSON text, or NULL when out of memory. */
char *tm_bench_table_to_json(const struct tm_bench_table *t);

#endif
