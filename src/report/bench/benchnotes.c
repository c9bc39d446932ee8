/*
 * The notes under the bench table: what the cells mean and which test made
 * the verdicts, noise floors, rows left out, too few runs for a verdict,
 * outliers, runs that did not complete, a busy machine.  Each note is one
 * line handed to a callback, so text, Markdown and JSON say the same.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "report/run/stats.h"
#include "base/banned.h"

struct line {
	char buf[2048];
	size_t n;
};

static void addf(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct line *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (l->n >= sizeof(l->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
	va_end(ap);
	if (n > 0)
		l->n = l->n + (size_t)n < sizeof(l->buf) ? l->n + (size_t)n : sizeof(l->buf) - 1;
}

struct emit {
	tm_bench_note_fn fn;
	void *ctx;
};

static void flush(struct emit *e, enum tm_bench_note kind, struct line *l)
{
	if (l->n)
		e->fn(e->ctx, kind, l->buf);
	l->n = 0;
	l->buf[0] = '\0';
}

static void legend(const struct tm_bench_table *t, struct emit *e)
{
	struct line l = {.n = 0};

	addf(&l,
	     "median [min–max] over the runs that survived; ×ratio of the medians to the "
	     "control's; *: an outlier run (modified Z-score beyond %.1f, judged in arms of %d or "
	     "more runs)",
	     TM_BENCH_OUTLIER_Z, TM_BENCH_OUTLIER_MIN_N);
	flush(e, TM_BN_LEGEND, &l);
	if (t->n_arms < 2)
		return;
	addf(&l,
	     "p=: two-sided Mann–Whitney U test against the control (exact up to %d runs in all, "
	     "normal approximation beyond), a difference at α %.2f; n.s.: p > %.2f, a difference "
	     "the runs do not show",
	     TM_MW_EXACT_MAX, TM_BENCH_ALPHA, TM_BENCH_ALPHA);
	flush(e, TM_BN_LEGEND, &l);
}

/* The shown rows for which an arm's median is under the noise floor. */
static void floor_note(const struct tm_bench_table *t, struct emit *e)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	struct line l = {.n = 0};
	char v[32];

	for (int r = 0; r < n_rows; r++) {
		int f = rows[r];
		bool below = false;
		if (f < 0)
			continue;
		for (int ai = 0; ai < t->n_arms; ai++)
			below |= t->arms[ai].verdict[f] == TM_BV_BELOW_FLOOR;
		if (!below)
			continue;
		const struct tm_bench_fig_info *fi = tm_bench_fig_info(f);
		addf(&l, "%s",
		     l.n ? ", " : "no ratio or test where a median is under the noise floor: ");
		if (fi->noise_raw > 0) {
			tm_bench_fmt_num(v, sizeof(v), fi->noise_raw * fi->scale);
			addf(&l, "%s under %s", fi->label, v);
		} else {
			addf(&l, "%s at 0", fi->label);
		}
	}
	flush(e, TM_BN_FLOOR, &l);
}

static void zero_and_ref_notes(const struct tm_bench_table *t, struct emit *e)
{
	struct line l = {.n = 0};

	for (int f = 0; f < TM_BF_COUNT; f++)
		if (tm_bench_row_has_data(t, f) && tm_bench_row_all_zero(t, f))
			addf(&l, "%s%s", l.n ? ", " : "not shown, 0 in every run: ",
			     tm_bench_fig_info(f)->label);
	flush(e, TM_BN_ZERO, &l);
	if (t->reference != 0)
		addf(&l,
		     "no run of the control '%s' survived: ×ratios and tests are to '%s' (marked "
		     "ref)",
		     t->arms[0].name, t->arms[t->reference].name);
	else if (t->n_arms > 1 && t->arms[0].survived == 0)
		addf(&l, "no ratios: no arm has a run that survived");
	flush(e, TM_BN_REF, &l);
}

/* One line per pair of run counts too small for the test to show anything. */
static void too_few_notes(const struct tm_bench_table *t, struct emit *e)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	int seen_n[TM_BENCH_TAB_MAX_ARMS], seen_c[TM_BENCH_TAB_MAX_ARMS], n_seen = 0;
	const struct tm_bench_arm_row *ref = &t->arms[t->reference];

	for (int ai = 0; ai < t->n_arms; ai++)
		for (int r = 0; r < n_rows; r++) {
			int f = rows[r];
			if (f < 0 || t->arms[ai].verdict[f] != TM_BV_TOO_FEW)
				continue;
			int n = t->arms[ai].stat[f].n, c = ref->stat[f].n, k = 0;
			while (k < n_seen && !(seen_n[k] == n && seen_c[k] == c))
				k++;
			if (k == n_seen && n_seen < TM_BENCH_TAB_MAX_ARMS) {
				seen_n[n_seen] = n;
				seen_c[n_seen++] = c;
			}
		}
	for (int k = 0; k < n_seen; k++) {
		struct line l = {.n = 0};
		int n = seen_n[k], c = seen_c[k], each = 1,
		    m = tm_mann_whitney_min_n(c, TM_BENCH_ALPHA);
		while (tm_mann_whitney_min_p(each, each) > TM_BENCH_ALPHA)
			each++;
		addf(&l, "no verdict with %d vs %d runs (", n, c);
		bool first = true;
		for (int ai = 0; ai < t->n_arms; ai++) {
			bool hit = false;
			for (int r = 0; r < n_rows; r++)
				hit |=
				    rows[r] >= 0 && t->arms[ai].verdict[rows[r]] == TM_BV_TOO_FEW &&
				    t->arms[ai].stat[rows[r]].n == n && ref->stat[rows[r]].n == c;
			if (hit)
				addf(&l, "%s%s", first ? "" : ", ", t->arms[ai].name);
			first &= !hit;
		}
		addf(
		    &l,
		    " against %s): the smallest p Mann–Whitney can give them is %.3f, over α %.2f; "
		    "it takes %d runs per arm",
		    ref->name, tm_mann_whitney_min_p(n, c), TM_BENCH_ALPHA, each);
		if (m > 0 && (m != each || c != each))
			addf(&l, ", or %d against %d", m, c);
		flush(e, TM_BN_TOO_FEW, &l);
	}
}

/* "outlier: run 9 (jemalloc): wall s 3.94 (median 2.34), cpu s ...", in the
 * table's row order and only for its rows. */
static void outlier_note(const struct tm_bench_table *t, const struct tm_bench_run_row *r,
                         struct emit *e)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	struct line l = {.n = 0};
	char v[32], m[32];

	for (int i = 0; i < n_rows; i++) {
		int f = rows[i];
		if (f < 0 || !tm_bench_run_outlier(r, f))
			continue;
		const struct tm_bench_fig_info *fi = tm_bench_fig_info(f);
		tm_bench_fmt_num(v, sizeof(v), r->fig[f] * fi->scale);
		tm_bench_fmt_num(m, sizeof(m), t->arms[r->arm].stat[f].median * fi->scale);
		if (!l.n)
			addf(&l, "outlier: run %lld (%s): ", (long long)r->run_id,
			     t->arms[r->arm].name);
		else
			addf(&l, ", ");
		addf(&l, "%s %s (median %s)", fi->label, v, m);
	}
	flush(e, TM_BN_OUTLIER, &l);
}

/* One line for all the runs that shared the machine (or lost CPU to steal). */
static void noise_note(const struct tm_bench_table *t, struct emit *e)
{
	double lo = INFINITY, hi = 0, steal = 0;
	struct line l = {.n = 0};

	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		bool st, other;
		if (!tm_bench_run_noisy(r, &st, &other))
			continue;
		addf(&l, "%s%lld", l.n ? ", " : "noisy machine: runs ", (long long)r->run_id);
		if (other) {
			lo = fmin(lo, r->other_share);
			hi = fmax(hi, r->other_share);
		}
		if (st)
			steal = fmax(steal, r->steal_share);
	}
	if (!l.n)
		return;
	if (hi > 0)
		addf(&l, " ran beside other load (%.0f–%.0f%% of the CPUs)", lo * 100, hi * 100);
	if (steal > 0)
		addf(&l, "%s up to %.0f%% CPU steal", hi > 0 ? "; " : " saw", steal * 100);
	addf(&l, ": their times are less trustworthy");
	flush(e, TM_BN_NOISY, &l);
}

/* The runs whose KIND of allocator-held figure (tm_summary_held_kind) is
 * in the table's allocator-held row, as "ID (arm), ..." after PRE. */
static void held_runs(const struct tm_bench_table *t, const char *kind, const char *pre,
                      struct emit *e)
{
	struct line l = {.n = 0};
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		if (r->warmup || r->arm < 0 || r->arm >= t->n_arms || !r->held_kind ||
		    strcmp(r->held_kind, kind))
			continue;
		addf(&l, "%s%lld (%s)", l.n ? ", " : pre, (long long)r->run_id,
		     t->arms[r->arm].name);
	}
	flush(e, TM_BN_BOUND, &l);
}

/* Where the allocator-held row's figures are bounds or capped. */
static void bound_notes(const struct tm_bench_table *t, struct emit *e)
{
	if (!tm_bench_row_shown(t, TM_BF_ALLOC_HELD))
		return;
	held_runs(t, "upper bound",
	          "allocator held MiB is an upper bound (the allocator's figure counts pages it "
	          "never touched) in runs ",
	          e);
	held_runs(t, "capped",
	          "allocator held MiB is capped at anon - live heap (the allocator said more; "
	          "other anon is then 0) in runs ",
	          e);
}

void tm_bench_table_each_note(const struct tm_bench_table *t, tm_bench_note_fn fn, void *ctx)
{
	struct emit e = {fn, ctx};

	legend(t, &e);
	for (int i = 0; i < TM_BENCH_SCRAPED_SLOTS; i++) {
		struct line l = {.n = 0};
		if (t->scraped[i][0] && tm_bench_row_shown(t, TM_BF_SCRAPED_1_PEAK + 2 * i))
			addf(&l,
			     "scraped %d: %s, from the runs' own endpoint (record --scrape), its "
			     "peak "
			     "and last value over each whole run",
			     i + 1, t->scraped[i]);
		flush(&e, TM_BN_SCRAPED, &l);
	}
	floor_note(t, &e);
	bound_notes(t, &e);
	zero_and_ref_notes(t, &e);
	too_few_notes(t, &e);
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		struct line l = {.n = 0};
		if (r->warmup || r->arm < 0 || r->arm >= t->n_arms)
			continue;
		outlier_note(t, r, &e);
		if (r->outcome != TM_OUTCOME_COMPLETED && r->outcome != TM_OUTCOME_OOM_KILLED &&
		    r->reason[0])
			addf(&l, "run %lld (%s) %s: %s", (long long)r->run_id, t->arms[r->arm].name,
			     tm_outcome_name(r->outcome), r->reason);
		flush(&e, TM_BN_RUN, &l);
	}
	noise_note(t, &e);
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		struct line l = {.n = 0};
		if (r->throttle_spans == 0 || r->arm < 0 || r->arm >= t->n_arms)
			continue;
		addf(&l, "run %lld (%s) %s", (long long)r->run_id, t->arms[r->arm].name,
		     r->throttle);
		if (r->throttle_spans > 1)
			addf(&l, " (and %d more stretches)", r->throttle_spans - 1);
		flush(&e, TM_BN_THROTTLE, &l);
	}
}

static void print_note(void *ctx, enum tm_bench_note kind, const char *text)
{
	(void)kind;
	fprintf(ctx, "%s\n", text);
}

void tm_bench_table_write_notes(const struct tm_bench_table *t, FILE *out)
{
	fputc('\n', out);
	tm_bench_table_each_note(t, print_note, out);
}

bool tm_bench_runs_note(int runs, int n_arms, char *buf, size_t size)
{
	int each = 1;

	if (n_arms < 2 || runs < 1 || tm_mann_whitney_min_p(runs, runs) <= TM_BENCH_ALPHA)
		return false;
	while (tm_mann_whitney_min_p(each, each) > TM_BENCH_ALPHA)
		each++;
	int m = tm_mann_whitney_min_n(runs, TM_BENCH_ALPHA);
	snprintf(buf, size,
	         "note: %d run%s per arm cannot reach p < %.2f against the control (the smallest "
	         "p of the Mann–Whitney U test with %d against %d is %.2g): the table will show "
	         "ratios without a verdict, and advise cannot choose between arms on them; it "
	         "takes --runs %d",
	         runs, runs == 1 ? "" : "s", TM_BENCH_ALPHA, runs, runs,
	         tm_mann_whitney_min_p(runs, runs), each);
	if (m > 0 && m != each) {
		size_t n = strlen(buf);
		snprintf(buf + n, size > n ? size - n : 0, " (or %d runs of an arm against %d)", m,
		         runs);
	}
	return true;
}
