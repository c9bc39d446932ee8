/*
 * The bench table: statistics per arm and the text a terminal shows.
 * Loading from the store is benchload.c; JSON/CSV/Markdown benchexport.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/assert.h"
#include "base/util.h"
#include "report/bench/benchparam.h"
#include "base/term.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "report/run/limitnote.h"
#include "report/run/stats.h"
#include "base/banned.h"

/* The descriptors, from the registry (report/bench/benchfigs.h). */
#define TM_BF_INFO(id, key, label, unit, scale, noise, agg, param, rank, from)                     \
	[TM_BF_##id] = {key, label, unit, scale, noise, agg, param, rank},
static const struct tm_bench_fig_info figs[TM_BF_COUNT] = {TM_BENCH_FIG_LIST(TM_BF_INFO)};
#undef TM_BF_INFO

/* The figures by rank, each one place up (0: no figure of that rank).  A
 * rank given twice does not compile (-Woverride-init, in -Wextra), nor one
 * at TM_BF_RANK_LIMIT or above (beyond the array). */
#define TM_BF_BY_RANK(id, key, label, unit, scale, noise, agg, param, rank, from)                  \
	[rank] = TM_BF_##id + 1,
static const unsigned char by_rank[TM_BF_RANK_LIMIT] = {TM_BENCH_FIG_LIST(TM_BF_BY_RANK)};
#undef TM_BF_BY_RANK
_Static_assert(TM_BF_COUNT < 255, "by_rank holds a figure + 1 in a byte");

const struct tm_bench_fig_info *tm_bench_fig_info(enum tm_bench_fig f)
{
	return f < TM_BF_COUNT ? &figs[f] : NULL;
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void tm_bench_stat_of(const double *v, int n, struct tm_bench_stat *out)
{
	double *s = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
	int k = 0;

	out->n = 0;
	out->median = out->min = out->max = out->mad = NAN;
	if (!s)
		return;
	for (int i = 0; i < n; i++)
		if (isfinite(v[i]))
			s[k++] = v[i];
	if (k) {
		qsort(s, (size_t)k, sizeof(double), cmp_double);
		out->n = k;
		out->min = s[0];
		out->max = s[k - 1];
		out->median = median_sorted(s, k);
		for (int i = 0; i < k; i++)
			s[i] = fabs(s[i] - out->median);
		qsort(s, (size_t)k, sizeof(double), cmp_double);
		out->mad = median_sorted(s, k);
	}
	free(s);
}

bool tm_bench_run_outlier(const struct tm_bench_run_row *r, int f)
{
	return f >= 0 && f < TM_BF_COUNT && (r->outlier_mask[f / 8] >> f % 8 & 1);
}

bool tm_bench_overlap(const struct tm_bench_stat *a, const struct tm_bench_stat *b)
{
	if (!a->n || !b->n)
		return false;
	return a->min <= b->max && b->min <= a->max;
}

bool tm_bench_outlier(const struct tm_bench_stat *s, double x, double floor_raw)
{
	if (s->n < TM_BENCH_OUTLIER_MIN_N || !isfinite(x))
		return false;
	if (fabs(x - s->median) <= fmax(floor_raw, 0.02 * fabs(s->median)))
		return false;
	return fabs(tm_modified_z(x, s->median, s->mad)) > TM_BENCH_OUTLIER_Z;
}

const char *tm_bench_verdict_name(enum tm_bench_verdict v)
{
	switch (v) {
	case TM_BV_BELOW_FLOOR:
		return "below-noise-floor";
	case TM_BV_TOO_FEW:
		return "too-few-runs";
	case TM_BV_NOT_SIGNIFICANT:
		return "not-significant";
	case TM_BV_SIGNIFICANT:
		return "significant";
	case TM_BV_NONE:
		break;
	}
	return NULL;
}

/* ---- per arm ---- */

/* Whether a run counts at all (warmups, invalid and interrupted runs do not). */
static bool run_counts(const struct tm_bench_run_row *r)
{
	return !r->warmup && tm_outcome_counts(r->outcome);
}

static void count_outcome(struct tm_bench_arm_row *a, const struct tm_bench_run_row *r)
{
	if (r->warmup)
		return;
	switch (r->outcome) {
	case TM_OUTCOME_INVALID:
		a->invalid++;
		return;
	case TM_OUTCOME_INTERRUPTED:
	case TM_OUTCOME_LIVE:
		a->interrupted++;
		return;
	default:
		break;
	}
	a->runs++;
	if (r->outcome == TM_OUTCOME_COMPLETED)
		a->survived++;
	else if (r->outcome == TM_OUTCOME_OOM_KILLED)
		a->oom_killed++;
	else if (r->outcome == TM_OUTCOME_KILLED)
		a->killed++;
	else if (r->outcome == TM_OUTCOME_TIMEOUT)
		a->timeout++;
	else
		a->failed++;
}

bool tm_bench_run_killed(const struct tm_bench_run_row *r)
{
	return run_counts(r) &&
	       (r->outcome == TM_OUTCOME_OOM_KILLED || r->outcome == TM_OUTCOME_KILLED);
}

/* Figure F (or, with F < 0, the whole work's wall time) over arm AI's runs
 * that were killed, into OUT (BUF: scratch). */
static void killed_stat(const struct tm_bench_table *t, int ai, int f, double *buf,
                        struct tm_bench_stat *out)
{
	int n = 0;
	tm_assert(ai >= 0 && ai < t->n_arms && f < TM_BF_COUNT);
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai && tm_bench_run_killed(&t->runs[i]))
			buf[n++] = f < 0 ? t->runs[i].work_wall_usec : t->runs[i].fig[f];
	tm_bench_stat_of(buf, n, out);
}

/* The values of figure F over arm AI's survivors into BUF; their count. */
static int survivor_values(const struct tm_bench_table *t, int ai, int f, double *buf)
{
	int n = 0;
	tm_assert(ai >= 0 && ai < t->n_arms && f >= 0 && f < TM_BF_COUNT);
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai && run_counts(&t->runs[i]) &&
		    t->runs[i].outcome == TM_OUTCOME_COMPLETED)
			buf[n++] = t->runs[i].fig[f];
	return n;
}

static void compute_arm(struct tm_bench_table *t, int ai, double *buf)
{
	struct tm_bench_arm_row *a = &t->arms[ai];
	int n;

	a->runs = a->survived = a->oom_killed = a->killed = a->timeout = a->failed = 0;
	a->invalid = a->interrupted = 0;
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai)
			count_outcome(a, &t->runs[i]);
	for (int f = 0; f < TM_BF_COUNT; f++) {
		n = survivor_values(t, ai, f, buf);
		tm_bench_stat_of(buf, n, &a->stat[f]);
	}
	killed_stat(t, ai, TM_BF_PEAK_ANON, buf, &a->killed_peak);
	killed_stat(t, ai, TM_BF_HEAP_END, buf, &a->killed_heap);
	killed_stat(t, ai, TM_BF_PROGRESS, buf, &a->killed_progress);
	killed_stat(t, ai, -1, buf, &a->killed_wall);
}

/* The arm ratios are taken to: the control, or when none of its runs
 * survived, the first arm that has survivors (the notes say so). */
static int reference_arm(const struct tm_bench_table *t)
{
	for (int ai = 0; ai < t->n_arms; ai++)
		if (t->arms[ai].survived > 0)
			return ai;
	return 0;
}

bool tm_bench_above_floor(const struct tm_bench_stat *s, int f)
{
	tm_assert(f >= 0 && f < TM_BF_COUNT);
	return s->n > 0 && s->median != 0 && fabs(s->median) >= figs[f].noise_raw;
}

/* Arm AI's figure F against the reference: ratio, test, verdict.  BUF holds
 * twice the runs. */
static void compare_fig(struct tm_bench_table *t, int ai, int f, double *buf)
{
	struct tm_bench_arm_row *a = &t->arms[ai], *c = &t->arms[t->reference];
	struct tm_mann_whitney mw;

	tm_assert(ai >= 0 && ai < t->n_arms && t->reference >= 0 && t->reference < t->n_arms);
	a->ratio[f] = a->p[f] = NAN;
	a->overlap[f] = false;
	a->verdict[f] = TM_BV_NONE;
	if (ai == t->reference || !a->stat[f].n || !c->stat[f].n)
		return;
	a->overlap[f] = tm_bench_overlap(&a->stat[f], &c->stat[f]);
	if (!tm_bench_above_floor(&a->stat[f], f) || !tm_bench_above_floor(&c->stat[f], f)) {
		a->verdict[f] = TM_BV_BELOW_FLOOR;
		return;
	}
	a->ratio[f] = a->stat[f].median / c->stat[f].median;
	if (tm_mann_whitney_min_p(a->stat[f].n, c->stat[f].n) > TM_BENCH_ALPHA) {
		a->verdict[f] = TM_BV_TOO_FEW;
		return;
	}
	int na = survivor_values(t, ai, f, buf);
	int nc = survivor_values(t, t->reference, f, buf + na);
	if (tm_mann_whitney(buf, (size_t)na, buf + na, (size_t)nc, &mw) || !isfinite(mw.p))
		return;
	a->p[f] = mw.p;
	a->verdict[f] = mw.p <= TM_BENCH_ALPHA ? TM_BV_SIGNIFICANT : TM_BV_NOT_SIGNIFICANT;
}

/* Runs whose machine was busy with something else, or stolen from. */
bool tm_bench_run_noisy(const struct tm_bench_run_row *r, bool *steal, bool *other)
{
	*steal = isfinite(r->steal_share) && r->steal_share > TM_BENCH_NOISY_STEAL;
	*other = isfinite(r->other_share) && r->other_share > TM_BENCH_NOISY_OTHER;
	return *steal || *other;
}

void tm_bench_table_compute(struct tm_bench_table *t)
{
	double *buf = malloc(2 * sizeof(double) * (size_t)(t->n_runs > 0 ? t->n_runs : 1));

	if (!buf)
		return;
	for (int ai = 0; ai < t->n_arms; ai++)
		compute_arm(t, ai, buf);
	t->reference = reference_arm(t);
	for (int ai = 0; ai < t->n_arms; ai++)
		for (int f = 0; f < TM_BF_COUNT; f++)
			compare_fig(t, ai, f, buf);
	t->noisy = false;
	for (int i = 0; i < t->n_runs; i++) {
		struct tm_bench_run_row *r = &t->runs[i];
		memset(r->outlier_mask, 0, sizeof(r->outlier_mask));
		if (r->arm < 0 || r->arm >= t->n_arms || !run_counts(r))
			continue;
		if (r->outcome == TM_OUTCOME_COMPLETED)
			for (int f = 0; f < TM_BF_COUNT; f++)
				if (tm_bench_outlier(&t->arms[r->arm].stat[f], r->fig[f],
				                     figs[f].noise_raw))
					tm_bench_set_run_outlier(r, f);
		bool steal, other;
		if (tm_bench_run_noisy(r, &steal, &other))
			t->noisy = true;
	}
	free(buf);
}

void tm_bench_table_release(struct tm_bench_table *t)
{
	for (int i = 0; i < t->n_arms; i++) {
		free(t->arms[i].env_text);
		free(t->arms[i].limits_text);
	}
	free(t->runs);
	free(t->command);
	free(t->units_from);
	tm_bench_param_free(t->param);
	memset(t, 0, sizeof(*t));
}

/* ---- text ---- */

/* snprintf that may truncate (cells are bounded on purpose); returns what it wrote. */
size_t tm_bench_cellf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

const char *tm_bench_text_cell(const char *s)
{
	return strcmp(s, "—") ? s : "n/a";
}

int tm_bench_text_width(const char *s)
{
	int w = 0;
	for (s = tm_bench_text_cell(s); *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void tm_bench_pad(FILE *out, const char *s, int w)
{
	s = tm_bench_text_cell(s);
	fputs(s, out);
	for (int n = tm_bench_text_width(s); n < w; n++)
		fputc(' ', out);
}

/* Decimals for numbers around V: 3 significant digits, whole numbers as such. */
static int decimals_for(double v, bool integral)
{
	double a = fabs(v);

	if (integral || a >= 100)
		return 0;
	return a >= 10 ? 1 : 2;
}

void tm_bench_fmt_num(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		tm_bench_cellf(buf, size, "—");
	else
		tm_bench_cellf(buf, size, "%.*f", decimals_for(v, v == floor(v)), v);
}

void tm_bench_fmt_estimate(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		tm_bench_cellf(buf, size, "—");
	else
		tm_bench_cellf(buf, size, "%.*f", decimals_for(v, false), v);
}

/* Whether S's figures, times SCALE, are whole numbers. */
static bool stat_integral(const struct tm_bench_stat *s, double scale)
{
	double med = s->median * scale, lo = s->min * scale, hi = s->max * scale;
	return !s->n || (med == floor(med) && lo == floor(lo) && hi == floor(hi));
}

/* median [min–max], all three with the median's precision; whole numbers
 * without decimals only when INTEGRAL (the whole row is: a row never shows
 * 0 [0–0] beside 0.00 [0.00–0.00]). */
static void fmt_stat(char *buf, size_t size, const struct tm_bench_stat *s, double scale,
                     bool integral)
{
	double med = s->median * scale, lo = s->min * scale, hi = s->max * scale;
	int d;

	if (!s->n) {
		tm_bench_cellf(buf, size, "—");
		return;
	}
	d = decimals_for(med, integral && stat_integral(s, scale));
	if (s->n == 1)
		tm_bench_cellf(buf, size, "%.*f", d, med);
	else
		tm_bench_cellf(buf, size, "%.*f [%.*f–%.*f]", d, med, d, lo, d, hi);
}

static bool arm_has_outlier(const struct tm_bench_table *t, int ai, int f)
{
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai && tm_bench_run_outlier(&t->runs[i], f))
			return true;
	return false;
}

/* One cell: median [min–max], * for an outlier, ×ratio to the reference,
 * then p=P when the test finds a difference, n.s. when it does not (nothing
 * when the runs are too few for any verdict). */
static void fig_cell(char *buf, size_t size, const struct tm_bench_table *t, int ai, int f)
{
	const struct tm_bench_arm_row *a = &t->arms[ai];
	bool integral = true;
	size_t n;

	for (int i = 0; i < t->n_arms; i++)
		integral &= stat_integral(&t->arms[i].stat[f], figs[f].scale);
	fmt_stat(buf, size, &a->stat[f], figs[f].scale, integral);
	n = strlen(buf);
	if (arm_has_outlier(t, ai, f))
		n += tm_bench_cellf(buf + n, size - n, "*");
	if (isfinite(a->ratio[f]))
		n += tm_bench_cellf(buf + n, size - n, " ×%.2f", a->ratio[f]);
	if (a->verdict[f] == TM_BV_NOT_SIGNIFICANT)
		tm_bench_cellf(buf + n, size - n, " n.s.");
	else if (a->verdict[f] == TM_BV_SIGNIFICANT && a->p[f] < 0.001)
		tm_bench_cellf(buf + n, size - n, " p<0.001");
	else if (a->verdict[f] == TM_BV_SIGNIFICANT)
		tm_bench_cellf(buf + n, size - n, " p=%.3f", a->p[f]);
}

static void survived_cell(char *buf, size_t size, const struct tm_bench_arm_row *a)
{
	size_t n = tm_bench_cellf(buf, size, "%d/%d", a->survived, a->runs);
	const struct {
		int count;
		enum tm_outcome what;
	} parts[] = {
	    {a->oom_killed, TM_OUTCOME_OOM_KILLED}, {a->killed, TM_OUTCOME_KILLED},
	    {a->timeout, TM_OUTCOME_TIMEOUT},       {a->failed, TM_OUTCOME_FAILED},
	    {a->invalid, TM_OUTCOME_INVALID},       {a->interrupted, TM_OUTCOME_INTERRUPTED},
	};
	bool open = false;

	for (size_t i = 0; i < TM_ARRAY_SIZE(parts) && n < size; i++) {
		if (!parts[i].count)
			continue;
		n += tm_bench_cellf(buf + n, size - n, "%s%d %s", open ? ", " : " (",
		                    parts[i].count, tm_outcome_name(parts[i].what));
		open = true;
	}
	if (open && n < size)
		tm_bench_cellf(buf + n, size - n, ")");
}

#define CELL    96
#define LABEL_W 18

bool tm_bench_row_has_data(const struct tm_bench_table *t, int f)
{
	for (int ai = 0; ai < t->n_arms; ai++)
		if (t->arms[ai].stat[f].n)
			return true;
	return false;
}

/* Every run of every arm measured exactly 0: the row says nothing. */
bool tm_bench_row_all_zero(const struct tm_bench_table *t, int f)
{
	for (int ai = 0; ai < t->n_arms; ai++) {
		const struct tm_bench_stat *s = &t->arms[ai].stat[f];
		if (s->n && (s->min != 0 || s->max != 0))
			return false;
	}
	return true;
}

bool tm_bench_row_shown(const struct tm_bench_table *t, int f)
{
	if (f == TM_BF_HELD_ANON && t->settle_usec <= 0)
		return false;
	return tm_bench_row_has_data(t, f) && !tm_bench_row_all_zero(t, f);
}

/* The killed runs' statistic a row shows, and its scale. */
static const struct tm_bench_stat *killed_row(const struct tm_bench_arm_row *a, int row,
                                              double *scale)
{
	*scale = 1.0 / TM_MIB;
	switch (row) {
	case TM_BR_KILLED_ANON:
		return &a->killed_peak;
	case TM_BR_KILLED_HEAP:
		return &a->killed_heap;
	case TM_BR_KILLED_PROGRESS:
		*scale = 1;
		return &a->killed_progress;
	case TM_BR_KILLED_WALL:
		*scale = 1e-6;
		return &a->killed_wall;
	default:
		return NULL;
	}
}

void tm_bench_table_cell(const struct tm_bench_table *t, int row, int ai, char *c, size_t size)
{
	const struct tm_bench_stat *k;
	double scale;

	if (row == TM_BR_HEADER)
		tm_bench_cellf(c, size, "%s%s%s", t->arms[ai].name, ai == 0 ? " (control)" : "",
		               ai != 0 && ai == t->reference ? " (ref)" : "");
	else if (row == TM_BR_SURVIVED)
		survived_cell(c, size, &t->arms[ai]);
	else if ((k = killed_row(&t->arms[ai], row, &scale)))
		fmt_stat(c, size, k, scale, true);
	else if (row >= 0 && row < TM_BF_COUNT)
		fig_cell(c, size, t, ai, row);
	else
		tm_bench_cellf(c, size, "—");
}

/* The cells of one row for arms [FROM, TO) into CELLS. */
static void row_cells(const struct tm_bench_table *t, int row, int from, int to, char cells[][CELL])
{
	for (int ai = from; ai < to; ai++)
		tm_bench_table_cell(t, row, ai, cells[ai - from], CELL);
}

int tm_bench_table_rows(const struct tm_bench_table *t, int *rows)
{
	int n = 0;

	/* how far killed runs got, next to the anon they were killed at */
	static const enum tm_bench_tab_row killed[] = {TM_BR_KILLED_ANON, TM_BR_KILLED_PROGRESS,
	                                               TM_BR_KILLED_WALL, TM_BR_KILLED_HEAP};

	rows[n++] = TM_BR_HEADER;
	rows[n++] = TM_BR_SURVIVED;
	/* by rank: memory first, the heap's split of it next to what it splits */
	for (int i = 0; i < TM_BF_RANK_LIMIT; i++)
		if (by_rank[i] && tm_bench_row_shown(t, by_rank[i] - 1))
			rows[n++] = by_rank[i] - 1;
	for (size_t i = 0; i < TM_ARRAY_SIZE(killed); i++) {
		bool any = false;
		double scale;
		/* the anon row whenever a run was killed: a kill whose peak no
		 * sample saw is a cell of —, not a missing row */
		for (int ai = 0; ai < t->n_arms; ai++)
			any |= killed_row(&t->arms[ai], killed[i], &scale)->n > 0 ||
			       (killed[i] == TM_BR_KILLED_ANON && t->arms[ai].oom_killed > 0);
		if (any)
			rows[n++] = killed[i];
	}
	return n;
}

const char *tm_bench_table_row_label(int row)
{
	switch (row) {
	case TM_BR_HEADER:
		return "";
	case TM_BR_SURVIVED:
		return "survived";
	case TM_BR_KILLED_ANON:
		return "killed at anon MiB";
	case TM_BR_KILLED_HEAP:
		return "heap at kill MiB";
	case TM_BR_KILLED_PROGRESS:
		return "killed at progress";
	case TM_BR_KILLED_WALL:
		return "killed after s";
	default:
		return row >= 0 && row < TM_BF_COUNT ? figs[row].label : "?";
	}
}

#define ARMS_PER_BLOCK 4

/* The tone of a cell on a terminal: a run that did not survive, and a
 * difference the test finds (better in green, worse in red: lower is
 * better but for progress and rate). */
static bool cell_tone(const struct tm_bench_table *t, int row, int ai, enum tm_tone *tone)
{
	const struct tm_bench_arm_row *a = &t->arms[ai];

	if (row == TM_BR_SURVIVED)
		return a->survived < a->runs && (*tone = TM_TONE_BAD, true);
	if (row < 0 || row >= TM_BF_COUNT || a->verdict[row] != TM_BV_SIGNIFICANT ||
	    !isfinite(a->ratio[row]) || a->ratio[row] == 1)
		return false;
	bool higher_better = row == TM_BF_PROGRESS || row == TM_BF_RATE;
	*tone = (a->ratio[row] > 1) == higher_better ? TM_TONE_GOOD : TM_TONE_BAD;
	return true;
}

/* The widest cell of each arm, over every row shown, into W. */
static void arm_widths(const struct tm_bench_table *t, const int *rows, int n_rows, int *w)
{
	char c[CELL];

	for (int ai = 0; ai < t->n_arms; ai++) {
		w[ai] = 0;
		for (int r = 0; r < n_rows; r++) {
			tm_bench_table_cell(t, rows[r], ai, c, sizeof(c));
			if (tm_bench_text_width(c) > w[ai])
				w[ai] = tm_bench_text_width(c);
		}
	}
}

static void write_block(const struct tm_bench_table *t, FILE *out, int from, int to, const int *w,
                        bool color)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	char cells[ARMS_PER_BLOCK][CELL];
	enum tm_tone tone;

	for (int r = 0; r < n_rows; r++) {
		row_cells(t, rows[r], from, to, cells);
		tm_bench_pad(out, tm_bench_table_row_label(rows[r]), LABEL_W + 2);
		for (int ai = 0; ai < to - from; ai++) {
			if (cell_tone(t, rows[r], from + ai, &tone))
				tm_term_put_if(out, color, tone, cells[ai]);
			else
				fputs(tm_bench_text_cell(cells[ai]), out);
			if (ai < to - from - 1)
				for (int n = tm_bench_text_width(cells[ai]); n < w[from + ai] + 3;
				     n++)
					fputc(' ', out);
		}
		fputc('\n', out);
	}
}

/* The arms from FROM that fit in WIDTH columns beside the labels (at
 * least one, at most ARMS_PER_BLOCK): a table wider than the terminal is
 * stacked, a block of arms under the other. */
static int block_end(const struct tm_bench_table *t, int from, const int *w, int width)
{
	int to = from + 1, used = LABEL_W + 2 + w[from];

	while (to < t->n_arms && to - from < ARMS_PER_BLOCK && used + 3 + w[to] <= width)
		used += 3 + w[to++];
	return to;
}

void tm_bench_table_write_header(const struct tm_bench_table *t, FILE *out)
{
	int measured = 0, warm = 0;
	bool soft = false;

	for (int i = 0; i < t->n_runs; i++)
		t->runs[i].warmup ? warm++ : measured++;
	fprintf(out, "bench %lld", (long long)t->bench_id);
	if (t->name[0])
		fprintf(out, " \"%s\"", t->name);
	if (t->host[0])
		fprintf(out, " on %s", t->host);
	fprintf(out, ": %d arms, %d runs", t->n_arms, measured);
	if (t->n_arms > 0 && measured % t->n_arms == 0)
		fprintf(out, " (%d per arm)", measured / t->n_arms);
	if (warm)
		fprintf(out, " (+%d warmup)", warm);
	fprintf(out, ", order %s", t->order[0] ? t->order : "interleave");
	if (!strcmp(t->order, "shuffle"))
		fprintf(out, " (seed %lld)", (long long)t->seed);
	fprintf(out, ", window %s\n", t->window[0] ? t->window : "whole run");
	if (t->command)
		fprintf(out, "command: %s\n", t->command);
	if (t->units > 0)
		fprintf(out, "work: %g units a run (--units), no progress line\n", t->units);
	else if (t->units_from)
		fprintf(out,
		        "work: the last number '%s' matched in each run's output (--units-from)\n",
		        t->units_from);
	for (int ai = 0; ai < t->n_arms; ai++) {
		const struct tm_bench_arm_row *a = &t->arms[ai];
		fprintf(out, "  %-*s %s", LABEL_W, a->name,
		        a->env_text && *a->env_text ? a->env_text : "(no allocator variables)");
		if (a->limits_text && *a->limits_text)
			fprintf(out, "  %s", a->limits_text);
		fputc('\n', out);
		const char *h = a->limits_text ? strstr(a->limits_text, "MemoryHigh=") : NULL;
		soft |= h && strncmp(h, "MemoryHigh=max", 14) && tm_mode_memory_v1(t->cgroup_mode);
	}
	if (soft)
		fprintf(out, "  MemoryHigh: %s\n", TM_V1_HIGH_NOTE);
	fputc('\n', out);
}

/* What WRITE writes of T, each line fitted to WIDTH (tm_term_write_lines). */
static void write_fitted(const struct tm_bench_table *t, FILE *out, int width,
                         void (*write)(const struct tm_bench_table *, FILE *))
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m) {
		write(t, out);
		return;
	}
	write(t, m);
	fclose(m);
	tm_term_write_lines(out, buf, width);
	free(buf);
}

void tm_bench_table_write_text(const struct tm_bench_table *t, FILE *out)
{
	if (t->param) {
		tm_bench_param_write_text(t, out);
		return;
	}
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	int *w = calloc((size_t)t->n_arms + 1, sizeof(*w)), width = tm_term_width(out);

	/* the header and the notes are text, fitted to the terminal line by
	 * line; the rows are a table, its arms stacked in blocks that fit */
	write_fitted(t, out, width, tm_bench_table_write_header);
	if (w)
		arm_widths(t, rows, n_rows, w);
	for (int from = 0, to; w && from < t->n_arms; from = to) {
		to = block_end(t, from, w, width);
		if (from)
			fputc('\n', out);
		write_block(t, out, from, to, w, tm_term_color(out));
		if (LABEL_W + 2 + w[from] > width)
			fprintf(out,
			        "(%s's column is wider than the terminal's %d: COLUMNS=%d shows "
			        "its rows whole)\n",
			        t->arms[from].name, width, LABEL_W + 2 + w[from]);
	}
	free(w);
	write_fitted(t, out, width, tm_bench_table_write_notes);
}
