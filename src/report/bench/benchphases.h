/*
 * A bench's arms compared phase by phase: each run split as report
 * --phases splits it (report/phases/phases.h), phases matched by name across runs,
 * and per phase and figure each arm's median [min–max] over its survivors
 * that have the phase, the ratio to the bench table's reference arm and its
 * Mann–Whitney test, as the bench table does (report/bench/benchtab.h).  A run
 * without the phase (a mark it never sent) has no value for it: an arm
 * whose runs all lack it shows "—" (null in JSON), and the notes say which
 * runs lacked it.
 */
#ifndef TM_BENCHPHASES_H
#define TM_BENCHPHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/bench/benchtab.h"
#include "report/phases/phases.h"

struct tm_store;

/* The figures compared per phase, in the order of their rows. */
enum tm_bench_phase_fig {
	TM_BPF_ANON_CHANGE,     /* bytes */
	TM_BPF_PEAK_ANON,       /* bytes */
	TM_BPF_HEAP_CHANGE,     /* bytes: live heap (--heap) */
	TM_BPF_JVM_HEAP_CHANGE, /* bytes: Java heap used */
	TM_BPF_OLD_GC_CHANGE,   /* bytes: the JVMs' old gen after GC */
	TM_BPF_GC_LIVE_CHANGE,  /* bytes: live after GC (--runtime go|ghc) */
	TM_BPF_DURATION,        /* usec */
	TM_BPF_ANON_PER_UNIT,   /* bytes per unit of progress */
	TM_BPF_COUNT
};

struct tm_bench_phase_cell {
	struct tm_bench_stat stat; /* over the arm's survivors that have the phase */
	double ratio, p;           /* to the reference arm; NAN when none */
	enum tm_bench_verdict verdict;
};

struct tm_bench_phase_row {
	char name[TM_PHASE_NAME_MAX];
	struct tm_bench_phase_cell cell[TM_BENCH_TAB_MAX_ARMS][TM_BPF_COUNT];
	int without[TM_BENCH_TAB_MAX_ARMS]; /* survivors that lack the phase */
};

struct tm_bench_phases {
	struct tm_bench_table t; /* the bench table (arms, runs, reference) */
	enum tm_phase_split_kind kind;
	int n;
	struct tm_bench_phase_row *rows; /* malloc'd, in the order phases first come */
	/* bench --param: the arms compared per value of the parameter, each
	 * over the runs at that value (as the bench table's per-value blocks;
	 * runs at different values are never pooled): t.param->n of them, in
	 * its order, and N and ROWS above are 0.  NULL for a plain bench. */
	struct tm_bench_phases *per_value;
	int n_values;
	bool borrowed; /* T is the parent's per-value table: not released here */
};

/* "anon_change_bytes", ... (JSON) and "anon change MiB", ... (text). */
const char *tm_bench_phase_fig_key(enum tm_bench_phase_fig f);
const char *tm_bench_phase_fig_label(enum tm_bench_phase_fig f);

/*
 * The per-run values VALS[run][phase][fig] (NAN: the run lacks the phase
 * or the figure) of T's runs, N_ROWS phases, into OUT's cells: statistics
 * over each arm's survivors, ratios and tests against T->reference.  Pure;
 * OUT->t and OUT->rows must be set.
 */
void tm_bench_phases_compute(struct tm_bench_phases *out, const double *vals);

/* Bench BENCH_ID compared per phase, split as SPLIT says (a bench with
 * --param: per value, in OUT->per_value).  0, 1 when
 * there is no such bench, -1 after tm_error.  Release with
 * tm_bench_phases_release in every case. */
int tm_bench_phases_load(struct tm_store *st, int64_t bench_id, const struct tm_phase_split *split,
                         struct tm_bench_phases *out);
void tm_bench_phases_release(struct tm_bench_phases *bp);

void tm_bench_phases_write_text(const struct tm_bench_phases *bp, FILE *out);
/* malloc'd JSON text, or NULL when out of memory. */
char *tm_bench_phases_to_json(const struct tm_bench_phases *bp);

/* Loads and prints bench BENCH_ID's phase table (JSON when JSON): 0, 1
 * when there is no such bench (nothing printed), -1 after tm_error. */
int tm_bench_phases_print(struct tm_store *st, int64_t bench_id, const struct tm_phase_split *split,
                          bool json, FILE *out);

#endif
