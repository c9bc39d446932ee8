/*
 * The curve of a sweep (bench --sweep MemoryMax=LO..HI or MemoryHigh=LO..HI):
 * one point per limit tried, its runs judged as the sweep judges a probe
 * (survived k/n; for MemoryHigh also held in throttle limbo or not), with
 * the survivors' median anon peak, wall time, progress rate and memory
 * pressure.  Shared by bench --sweep (which makes the runs), the HTML bench
 * report and the server's API (which read them back from the store).
 *
 * Bytes are bytes, times usec; NAN: not measured (JSON null).
 */
#ifndef TM_REPORT_SWEEPCURVE_H
#define TM_REPORT_SWEEPCURVE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

struct tm_store;

#define TM_SWEEP_MAX_POINTS     64
#define TM_SWEEP_MAX_POINT_RUNS 256

/* Which limit a curve is over. */
enum tm_sweep_kind { TM_SWEEP_KIND_MAX, TM_SWEEP_KIND_HIGH };

struct tm_sweep_point {
	int64_t limit; /* bytes */
	int64_t runs[TM_SWEEP_MAX_POINT_RUNS];
	int n_runs, reused; /* reused: runs found in the store, not made now */
	int tried, survived, throttled, throttle_unknown;
	double peak_anon, wall_usec, rate_per_min, psi_mem_share; /* medians, NAN: none */
	int64_t benches[8];
	int n_benches;
};

/* "MemoryMax" or "MemoryHigh". */
const char *tm_sweep_kind_name(enum tm_sweep_kind k);

/* Judges P's runs (P->runs): tried, survived, throttled (throttle limbo,
 * report/run/throttle.h), and the medians: anon peak and wall time of the
 * survivors (of the killed runs when none survived); progress rate and
 * memory psi (some) share of the wall time over every run, a run held in
 * limbo and stopped by its timeout too.  0, or -1 after tm_error. */
int tm_sweep_point_judge(struct tm_store *st, struct tm_sweep_point *p);

/* P passes: every run survived; for MemoryHigh, none was held in throttle
 * limbo and throttling was measured for each. */
bool tm_sweep_point_passed(const struct tm_sweep_point *p, enum tm_sweep_kind k);

/* The curve table's columns, as bench --sweep prints them and the panel
 * shows them: the limit, "survived", "peak anon MiB", "wall s"; for
 * MemoryHigh also "rate /min", "psi mem", "throttled".  Into HEAD; their
 * count. */
#define TM_SWEEP_CELLS     7
#define TM_SWEEP_CELL_SIZE 32
int tm_sweep_curve_head(enum tm_sweep_kind k, const char *head[TM_SWEEP_CELLS]);

/* Point P's cells in a curve over K, as its row of the table: "400.0 MiB",
 * "2/3", "310.2" (or "n/a", "(killed)" when none survived), "1.25", and for
 * MemoryHigh "1234", "12 %", "1/3".  Into CELLS; their count. */
int tm_sweep_point_cells(const struct tm_sweep_point *p, enum tm_sweep_kind k,
                         char cells[TM_SWEEP_CELLS][TM_SWEEP_CELL_SIZE]);

/* One arm's curve as bench --sweep --json prints it: {"arm", "smallest_passing_bytes",
 * "largest_failing_bytes", "interrupted", "verdict": the line above the
 * arm's table, "columns": tm_sweep_curve_head's, "curve": [points, each
 * with "text": its cells]} (SMALLEST or LARGEST_FAILED < 0: null).  POINTS
 * sorted by limit, over K.  New reference, or NULL when out of memory. */
json_t *tm_sweep_arm_json(const char *arm, enum tm_sweep_kind k, int64_t smallest,
                          int64_t largest_failed, bool interrupted,
                          const struct tm_sweep_point *points, int n);

/*
 * The curve of a sweep that bench BENCH_ID's arms were part of: every
 * stored run of the same arm, command and environment whose other limits
 * are the bench's, grouped by the limit that varies (MemoryMax, or
 * MemoryHigh when that is what the bench's runs were swept over: the one
 * of the two with more distinct values among those runs), judged as bench
 * --sweep judges a probe.  Returns {"limit": "MemoryMax"|"MemoryHigh",
 * "arms": [as bench --sweep --json]} (arms with two limits or more), JSON
 * null when no arm has one (no sweep: missing, not an empty curve), or
 * NULL after tm_error.  The curve's run ids go to RUNS (at most MAX_RUNS,
 * *N_RUNS of them; RUNS may be NULL when MAX_RUNS is 0).  The caller owns
 * the result.
 */
json_t *tm_sweep_stored_curve(struct tm_store *st, int64_t bench_id, int64_t *runs, int *n_runs,
                              int max_runs);

#endif
