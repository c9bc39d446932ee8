/*
 * A run split into phases: at its marks (default) or at progress values
 * (`report --phases`, `--phases-at 1000,2000`), one row per phase with its
 * duration, anon and live heap (and a runtime's heap) at its start and end
 * and their change, its peak anon, per-unit cost and rate.
 *
 * The rule that makes the rows add up (docs/phases.md): a phase ends with
 * the last reading of a series among its own samples, and the next phase
 * starts from that same value, so the changes of consecutive phases sum to
 * the run's end minus its start.  A phase whose samples hold no reading of
 * a series has start, end and change NAN (missing, never 0), and so has the
 * start and change of the phase after it.  A phase with no sample at all
 * (two marks within one interval) has every figure NAN but its duration;
 * its change would be 0 by construction, so the sum still holds.  A series
 * that begins after the run's first sample (a runtime's counters once it
 * is up, a figure of the first GC) has no start, nor change, in the phase
 * where it begins, nor in the run's total row.
 *
 * The pure part (tm_phases_compute) works on arrays, for unit tests; the
 * store's part (tm_phases_load) reads a run into them.
 */
#ifndef TM_PHASES_H
#define TM_PHASES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "base/metrics.h"
#include "report/phases/rtphases.h"

struct tm_store;

#define TM_PHASE_NAME_MAX 64
#define TM_PHASE_MAX_AT   64
#define TM_PHASE_NOTES    8

/* The series a phase row carries, start / end / change each, all bytes. */
enum tm_phase_series {
	TM_PS_ANON, /* the cgroup's anon, else the tree's RssAnon */
	TM_PS_HEAP, /* live heap (the heap shim, --heap) */
                    /* each runtime's own (rtphases.h) */
#define TM_X_PS_ENUM(id, desc, nin) TM_PS_##id,
	TM_RT_PHASE_SERIES_LIST(TM_X_PS_ENUM)
#undef TM_X_PS_ENUM
	    TM_PS_GC_LIVE, /* live after the last GC (--runtime go|ghc|node) */
	TM_PS_COUNT
};

/* "anon", "heap_live", ... (JSON/CSV key stem) and the text table's label. */
const char *tm_phase_series_key(enum tm_phase_series s);
const char *tm_phase_series_label(enum tm_phase_series s);

/* Where each derived series' inputs are in tm_phase_pt.in: TM_PSI_ID is
 * the first of series TM_PS_ID's NIN (rtphases.h), TM_PSI_COUNT all. */
enum tm_phase_in {
#define TM_X_PSI_ENUM(id, desc, nin) TM_PSI_##id, TM_PSI_##id##_LAST = TM_PSI_##id + (nin)-1,
	TM_RT_PHASE_SERIES_LIST(TM_X_PSI_ENUM)
#undef TM_X_PSI_ENUM
	    TM_PSI_COUNT
};

/* One sample, reduced: monotonic usec, each series (NAN when the sample
 * lacks it), and what the derived series come from (IN, at TM_PSI_*). */
struct tm_phase_pt {
	int64_t t_usec;
	double v[TM_PS_COUNT];
	double in[TM_PSI_COUNT > 0 ? TM_PSI_COUNT : 1];
	double procs; /* processes of the target; NAN unknown */
};

/* The most inputs a derived series reads. */
#define TM_PHASE_IN_MAX 4

/* Where a sample's figure comes from: metric A; the sum of A and B, both
 * present; A, else B; or nothing (a derived series). */
enum tm_phase_how { TM_PH_NONE, TM_PH_ONE, TM_PH_SUM, TM_PH_EITHER };
struct tm_phase_src {
	enum tm_phase_how how;
	enum tm_metric a, b;
};

/* One series: its key and label, its value in a sample (SRC), or, for a
 * derived one (SRC none), its inputs (IN[0 .. its NIN), into
 * tm_phase_pt.in from its TM_PSI_ID on) and DERIVE, which fills v[S] of
 * PTS[0..N) (time order) from them; a NOTE under the text table when some
 * sample had it (NULL: none). */
struct tm_phase_series_desc {
	const char *key, *label;
	struct tm_phase_src src, in[TM_PHASE_IN_MAX];
	void (*derive)(struct tm_phase_pt *pts, size_t n, enum tm_phase_series s);
	const char *note;
};

#define TM_X_PS_DECL(id, desc, nin)                                                                \
	extern const struct tm_phase_series_desc desc;                                             \
	_Static_assert((nin) <= TM_PHASE_IN_MAX, #desc ": at most TM_PHASE_IN_MAX inputs");
TM_RT_PHASE_SERIES_LIST(TM_X_PS_DECL)
#undef TM_X_PS_DECL

/* The descriptor of series S (S < TM_PS_COUNT). */
const struct tm_phase_series_desc *tm_phase_series(enum tm_phase_series s);

/* How many inputs series S's derive reads (0: none), from tm_phase_pt.in[*AT]. */
int tm_phase_series_inputs(enum tm_phase_series s, int *at);

/* Fills the derived series of PTS[0..N) (time order), each by its
 * descriptor's derive. */
void tm_phase_pts_derive(struct tm_phase_pt *pts, size_t n);

struct tm_phase_prog {
	int64_t t_usec;
	double v;
};

struct tm_phase_mark {
	int64_t t_usec;
	char text[TM_PHASE_NAME_MAX];
};

enum tm_phase_split_kind { TM_SPLIT_MARKS, TM_SPLIT_PROGRESS };
struct tm_phase_split {
	enum tm_phase_split_kind kind;
	int n_at;
	double at[TM_PHASE_MAX_AT]; /* progress values, increasing */
};

/* "1000,2000,3000": increasing finite numbers.  0, or -1 after tm_error. */
int tm_phase_split_parse(const char *spec, struct tm_phase_split *out);

struct tm_phase {
	char name[TM_PHASE_NAME_MAX]; /* the mark's text, "(start)", or "A..B" */
	double start_offset_usec;     /* from the run's first sample */
	double duration_usec;
	int samples;
	double start[TM_PS_COUNT], end[TM_PS_COUNT], change[TM_PS_COUNT]; /* bytes */
	double peak_anon_bytes;
	double progress_start, progress_end, units; /* units = end - start */
	double per_unit[TM_PS_COUNT];               /* change / units; NAN when units <= 0 */
	double rate_per_min;                        /* NAN when progress arrived bunched */
	bool bunched; /* the phase's own points arrived in too few instants: no rate */
};

struct tm_phases {
	int64_t run_id;
	enum tm_phase_split_kind kind;
	int n;
	struct tm_phase *p;    /* malloc'd, N rows */
	struct tm_phase total; /* the run as one row: first reading to last */
	bool progress_bunched; /* the run's points arrived at once: no units, rates */
	bool has[TM_PS_COUNT]; /* some sample had the series */
	int n_notes;
	char notes[TM_PHASE_NOTES][160];
};

/*
 * Splits the samples PTS[0..N) (time order; the derived series derived),
 * progress points PR[0..NP) and marks MK[0..NM) (any order) as SPLIT says.
 * The run is the span from the first sample to the last one while the
 * target lived (procs > 0 or unknown), and not inside its last processes'
 * exit (report/run/summary.c's rule for "held after"); the samples after it
 * (the teardown) are left out.  Marks before the first sample open their phase at it; marks
 * after the span are left out; both with a note.  A progress value never
 * reached ends the split there (a note).  OUT is filled (release it with
 * tm_phases_release): 0, 1 when there are no samples, -1 after tm_error
 * (out of memory, or a progress split of bunched progress).
 */
int tm_phases_compute(const struct tm_phase_pt *pts, size_t n, const struct tm_phase_prog *pr,
                      size_t np, const struct tm_phase_mark *mk, size_t nm,
                      const struct tm_phase_split *split, struct tm_phases *out);
void tm_phases_release(struct tm_phases *ph);

/* Run RUN_ID's phases from the store.  0, 1 (no such run or no samples;
 * nothing said), -1 after tm_error. */
int tm_phases_load(struct tm_store *st, int64_t run_id, const struct tm_phase_split *split,
                   struct tm_phases *out);

/* The table for a terminal (sizes in MiB, n/a for missing), as JSON (raw
 * bytes and usec, null for missing; a new object or NULL), as CSV (a
 * header and one row per phase, then the run's total row). */
void tm_phases_write_text(const struct tm_phases *ph, FILE *out);
json_t *tm_phases_json(const struct tm_phases *ph);
void tm_phases_write_csv(const struct tm_phases *ph, FILE *out);

#endif
