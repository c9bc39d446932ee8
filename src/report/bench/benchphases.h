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

/*
 * The phase figure registry: the figures compared per phase, once, in the
 * order of their rows (text) and keys (JSON).  The enum, the keys and
 * labels (tm_bench_phase_fig_key, _label) and the value taken from a phase
 * (benchphases.c) derive from it: a new figure is one line.
 * tests/unit/test_bench_phases.c walks it through the text and JSON.
 *
 * X(ID, "key", "label", SCALE, FLOOR, FROM)
 *   key    JSON name, with its unit in it
 *   label  the text's row (in the unit it shows)
 *   SCALE  raw * SCALE is shown
 *   FLOOR  no ratio for a median under it (raw units)
 *   FROM   the value of struct tm_phase *p (report/phases/phases.h)
 */
/* clang-format off */
#define TM_BENCH_PHASE_FIG_LIST(X)                                                                 \
	X(ANON_CHANGE, "anon_change_bytes", "anon change MiB", 1.0 / TM_MIB, TM_MIB,               \
	  p->change[TM_PS_ANON])                                                                   \
	X(PEAK_ANON, "peak_anon_bytes", "peak anon MiB", 1.0 / TM_MIB, TM_MIB, p->peak_anon_bytes) \
	/* live heap (--heap) */                                                                   \
	X(HEAP_CHANGE, "heap_live_change_bytes", "heap change MiB", 1.0 / TM_MIB, TM_MIB,          \
	  p->change[TM_PS_HEAP])                                                                   \
	/* Java heap used */                                                                       \
	X(JVM_HEAP_CHANGE, "jvm_heap_used_change_bytes", "java heap change MiB", 1.0 / TM_MIB,     \
	  TM_MIB, p->change[TM_PS_JVM_HEAP])                                                       \
	/* the JVMs' old gen after GC */                                                           \
	X(OLD_GC_CHANGE, "jvm_old_after_gc_change_bytes", "old after GC Δ MiB", 1.0 / TM_MIB,      \
	  TM_MIB, p->change[TM_PS_JVM_OLD_GC])                                                     \
	/* live after GC (--runtime go|ghc) */                                                     \
	X(GC_LIVE_CHANGE, "gc_heap_live_change_bytes", "gc live change MiB", 1.0 / TM_MIB,         \
	  TM_MIB, p->change[TM_PS_GC_LIVE])                                                        \
	/* always known: says the phase is there */                                                \
	X(DURATION, "duration_usec", "duration s", 1e-6, 50e3, p->duration_usec)                   \
	/* bytes per unit of progress */                                                           \
	X(ANON_PER_UNIT, "anon_bytes_per_unit", "anon MiB/unit", 1.0 / TM_MIB, 0,                  \
	  p->per_unit[TM_PS_ANON])
/* clang-format on */

enum tm_bench_phase_fig {
#define TM_BPF_ENUM(id, key, label, scale, floor, from) TM_BPF_##id,
	TM_BENCH_PHASE_FIG_LIST(TM_BPF_ENUM)
#undef TM_BPF_ENUM
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
