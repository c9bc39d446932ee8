/*
 * The bench comparison table: per arm, survival and the median [min–max]
 * of each figure over the runs that survived, the ratio to the control arm
 * (the first), and flags (ranges that overlap the control's, outliers by
 * median absolute deviation, a noisy machine).  Schema: docs/bench.md.
 */
#ifndef TM_BENCHTAB_H
#define TM_BENCHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tm_store;

/* The comparison table of bench BENCH_ID as JSON text (malloc'd, caller frees); schema in
 * docs/bench.md. 0 or -1. */
int tm_bench_table_json(struct tm_store *st, int64_t bench_id, char **json_out);
/* The table as text for a terminal (what `tidemark bench` and `tidemark report --bench ID` print).
 */
int tm_bench_table_print(struct tm_store *st, int64_t bench_id, FILE *out);

/* ---- the model behind both (pure; the store only fills it) ---- */

/* Order of rows in the table; docs/bench.md lists them. */
enum tm_bench_fig {
	TM_BF_PEAK_ANON,     /* bytes */
	TM_BF_PEAK_MEM,      /* bytes: the cgroup's own peak of memory.current */
	TM_BF_HELD_ANON,     /* bytes: anon still held after the work (end of --settle) */
	TM_BF_FILE_AT_PEAK,  /* bytes: page cache when memory.current peaked */
	TM_BF_WALL,          /* usec */
	TM_BF_CPU,           /* usec, user + sys */
	TM_BF_HIGH_EVENTS,   /* memory.high throttle events */
	TM_BF_PSI_MEM,       /* usec some-stall */
	TM_BF_PSI_IO,        /* usec some-stall */
	TM_BF_IO,            /* bytes read + written */
	TM_BF_PROGRESS,      /* last progress value */
	TM_BF_RATE,          /* progress units per minute */
	TM_BF_WALL_PER_UNIT, /* usec per progress unit in the window */
	TM_BF_CPU_PER_UNIT,  /* usec per progress unit in the window */
	TM_BF_HEAP_PEAK,     /* bytes: the heap shim's peak of live heap (bench --heap) */
	TM_BF_HEAP_END,      /* bytes: live heap at the end of the work */
	TM_BF_RETAINED,      /* bytes: anon - live heap at the end: what the allocator keeps */
	TM_BF_COUNT
};

struct tm_bench_fig_info {
	const char *key;   /* JSON/CSV name, with its unit */
	const char *label; /* text table row */
	double scale;      /* raw * scale = what the text table shows */
	double noise_raw;  /* differences below this (raw units) are never outliers:
	                      a run 40 KiB off a median of 0 is not news */
};
const struct tm_bench_fig_info *tm_bench_fig_info(enum tm_bench_fig f);

struct tm_bench_stat {
	int n;
	double median, min, max, mad; /* NAN when n == 0 */
};

/* Over the finite values of V[0..N). */
void tm_bench_stat_of(const double *v, int n, struct tm_bench_stat *out);
/* Whether [min, max] of A and B overlap (both must have values). */
bool tm_bench_overlap(const struct tm_bench_stat *a, const struct tm_bench_stat *b);
/* X lies further than 3 scaled MADs (at least 2 % of the median, and at
 * least FLOOR_RAW) from the median. */
bool tm_bench_outlier(const struct tm_bench_stat *s, double x, double floor_raw);

#define TM_BENCH_TAB_MAX_ARMS 16
/* rows of a table: the header, survival, the figures, the killed runs' two */
#define TM_BENCH_TAB_MAX_ROWS (TM_BF_COUNT + 4)

struct tm_bench_run_row {
	int64_t run_id, seq;
	int arm; /* index into arms */
	bool warmup;
	char outcome[32], reason[256];
	double fig[TM_BF_COUNT]; /* NAN when not measured */
	double steal_share;      /* CPU steal / machine CPU time during the run, or NAN */
	double other_share;      /* CPU used by others / machine CPU time, or NAN */
	uint32_t outlier_mask;   /* bit per figure, set by tm_bench_table_compute */
};

struct tm_bench_arm_row {
	char name[64];
	char allocator[16];
	char *env_text;    /* "VAR=VAL ..." the arm runs with (allocation-relevant), malloc'd */
	char *limits_text; /* "MemoryMax=400M ...", malloc'd */
	int runs;          /* measured runs that count (not warmup, invalid, interrupted) */
	int survived, oom_killed, killed, timeout, failed, invalid, interrupted;
	struct tm_bench_stat stat[TM_BF_COUNT]; /* over the survivors */
	double ratio[TM_BF_COUNT];              /* median / control's median, or NAN */
	bool overlap[TM_BF_COUNT];              /* range overlaps the control's */
	struct tm_bench_stat killed_peak;       /* peak anon of the killed runs */
	struct tm_bench_stat killed_heap;       /* their live heap when last seen (--heap) */
};

struct tm_bench_table {
	int64_t bench_id;
	char name[128], host[128], order[16], window[128];
	char *command; /* the shared command line, malloc'd or NULL */
	int64_t seed, started_wall_usec, ended_wall_usec;
	int64_t settle_usec; /* --settle: the "held after" row is shown only with it */
	int n_arms;
	struct tm_bench_arm_row arms[TM_BENCH_TAB_MAX_ARMS];
	int n_runs;
	struct tm_bench_run_row *runs; /* malloc'd */
	bool noisy;
	int reference; /* arm the ratios are to: 0, or the first with survivors */
};

/* Fills the per-arm rows and the flags from the runs.  Arm 0 is the control. */
void tm_bench_table_compute(struct tm_bench_table *t);
void tm_bench_table_release(struct tm_bench_table *t);

/* Reads bench BENCH_ID and the summaries of its runs.  0, 1 when there is
 * no such bench, -1 after tm_error. */
int tm_bench_table_load(struct tm_store *st, int64_t bench_id, struct tm_bench_table *t);

void tm_bench_table_write_text(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_md(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_csv(const struct tm_bench_table *t, FILE *out);
/* For exporters: the rows shown (-1 header, -2 survived, -3 peak of killed
 * runs, -4 their live heap, else an enum tm_bench_fig; ROWS holds
 * TM_BENCH_TAB_MAX_ROWS), their labels and cells, the header lines, the
 * legend (what the cells' notation means) and the notes under the table
 * (each line ends in a newline).  The text table is: header, rows, a blank
 * line, legend, notes; tm_bench_table_text_json serves the same pieces. */
int tm_bench_table_rows(const struct tm_bench_table *t, int *rows);
const char *tm_bench_table_row_label(int row);
void tm_bench_table_cell(const struct tm_bench_table *t, int row, int arm, char *buf, size_t size);
void tm_bench_table_write_header(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_legend(const struct tm_bench_table *t, FILE *out);
void tm_bench_table_write_notes(const struct tm_bench_table *t, FILE *out);

/* malloc'd JSON text, or NULL when out of memory. */
char *tm_bench_table_to_json(const struct tm_bench_table *t);

#endif
