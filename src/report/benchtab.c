/*
 * The bench table: statistics per arm and the text a terminal shows.
 * Loading from the store is benchload.c; JSON/CSV/Markdown benchexport.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/benchtab.h"
#include "base/banned.h"

static const struct tm_bench_fig_info figs[TM_BF_COUNT] = {
    [TM_BF_PEAK_ANON] = {"peak_anon_bytes", "peak anon MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_PEAK_MEM] = {"peak_memory_bytes", "peak memory MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_HELD_ANON] = {"held_anon_bytes", "held after MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_FILE_AT_PEAK] = {"cache_at_peak_bytes", "cache at peak MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_WALL] = {"wall_usec", "wall s", 1e-6, 50e3},
    [TM_BF_CPU] = {"cpu_usec", "cpu s", 1e-6, 50e3},
    [TM_BF_HIGH_EVENTS] = {"high_events", "high throttles", 1, 1},
    [TM_BF_PSI_MEM] = {"psi_mem_some_usec", "psi mem stall s", 1e-6, 50e3},
    [TM_BF_PSI_IO] = {"psi_io_some_usec", "psi io stall s", 1e-6, 50e3},
    [TM_BF_IO] = {"io_bytes", "io MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_PROGRESS] = {"progress", "progress", 1, 0},
    [TM_BF_RATE] = {"progress_per_min", "rate /min", 1, 0},
    [TM_BF_WALL_PER_UNIT] = {"wall_usec_per_unit", "wall ms/unit", 1e-3, 0},
    [TM_BF_CPU_PER_UNIT] = {"cpu_usec_per_unit", "cpu ms/unit", 1e-3, 0},
    [TM_BF_HEAP_PEAK] = {"heap_peak_bytes", "heap peak MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_HEAP_END] = {"heap_live_end_bytes", "heap live after MiB", 1.0 / TM_MIB, TM_MIB},
    [TM_BF_RETAINED] = {"retained_end_bytes", "retained after MiB", 1.0 / TM_MIB, TM_MIB},
};

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

bool tm_bench_overlap(const struct tm_bench_stat *a, const struct tm_bench_stat *b)
{
	if (!a->n || !b->n)
		return false;
	return a->min <= b->max && b->min <= a->max;
}

bool tm_bench_outlier(const struct tm_bench_stat *s, double x, double floor_raw)
{
	if (s->n < 3 || !isfinite(x))
		return false;
	double limit = fmax(fmax(3 * 1.4826 * s->mad, 0.02 * fabs(s->median)), floor_raw);
	return fabs(x - s->median) > limit;
}

/* ---- per arm ---- */

/* Whether a run counts at all (warmups, invalid and interrupted runs do not). */
static bool run_counts(const struct tm_bench_run_row *r)
{
	return !r->warmup && strcmp(r->outcome, "invalid") && strcmp(r->outcome, "interrupted");
}

static void count_outcome(struct tm_bench_arm_row *a, const struct tm_bench_run_row *r)
{
	if (r->warmup)
		return;
	if (!strcmp(r->outcome, "invalid")) {
		a->invalid++;
		return;
	}
	if (!strcmp(r->outcome, "interrupted")) {
		a->interrupted++;
		return;
	}
	a->runs++;
	if (!strcmp(r->outcome, "completed"))
		a->survived++;
	else if (!strcmp(r->outcome, "oom-killed"))
		a->oom_killed++;
	else if (!strcmp(r->outcome, "killed"))
		a->killed++;
	else if (!strcmp(r->outcome, "timeout"))
		a->timeout++;
	else
		a->failed++;
}

/* Figure F over arm AI's runs that were killed, into OUT (BUF: scratch). */
static void killed_stat(const struct tm_bench_table *t, int ai, enum tm_bench_fig f, double *buf,
                        struct tm_bench_stat *out)
{
	int n = 0;
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai && run_counts(&t->runs[i]) &&
		    (!strcmp(t->runs[i].outcome, "oom-killed") ||
		     !strcmp(t->runs[i].outcome, "killed")))
			buf[n++] = t->runs[i].fig[f];
	tm_bench_stat_of(buf, n, out);
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
		n = 0;
		for (int i = 0; i < t->n_runs; i++)
			if (t->runs[i].arm == ai && run_counts(&t->runs[i]) &&
			    !strcmp(t->runs[i].outcome, "completed"))
				buf[n++] = t->runs[i].fig[f];
		tm_bench_stat_of(buf, n, &a->stat[f]);
	}
	killed_stat(t, ai, TM_BF_PEAK_ANON, buf, &a->killed_peak);
	killed_stat(t, ai, TM_BF_HEAP_END, buf, &a->killed_heap);
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

static void compare_to_control(struct tm_bench_table *t, int ai)
{
	struct tm_bench_arm_row *a = &t->arms[ai], *c = &t->arms[t->reference];

	for (int f = 0; f < TM_BF_COUNT; f++) {
		a->ratio[f] = NAN;
		a->overlap[f] = false;
		if (ai == t->reference || !a->stat[f].n || !c->stat[f].n)
			continue;
		if (c->stat[f].median != 0)
			a->ratio[f] = a->stat[f].median / c->stat[f].median;
		a->overlap[f] = tm_bench_overlap(&a->stat[f], &c->stat[f]);
	}
}

/* Runs whose machine was busy with something else, or stolen from. */
#define NOISY_STEAL 0.05
#define NOISY_OTHER 0.25

void tm_bench_table_compute(struct tm_bench_table *t)
{
	double *buf = malloc(sizeof(double) * (size_t)(t->n_runs > 0 ? t->n_runs : 1));

	if (!buf)
		return;
	for (int ai = 0; ai < t->n_arms; ai++)
		compute_arm(t, ai, buf);
	t->reference = reference_arm(t);
	for (int ai = 0; ai < t->n_arms; ai++)
		compare_to_control(t, ai);
	t->noisy = false;
	for (int i = 0; i < t->n_runs; i++) {
		struct tm_bench_run_row *r = &t->runs[i];
		r->outlier_mask = 0;
		if (r->arm < 0 || r->arm >= t->n_arms || !run_counts(r))
			continue;
		if (!strcmp(r->outcome, "completed"))
			for (int f = 0; f < TM_BF_COUNT; f++)
				if (tm_bench_outlier(&t->arms[r->arm].stat[f], r->fig[f],
				                     figs[f].noise_raw))
					r->outlier_mask |= 1u << f;
		if ((isfinite(r->steal_share) && r->steal_share > NOISY_STEAL) ||
		    (isfinite(r->other_share) && r->other_share > NOISY_OTHER))
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
	memset(t, 0, sizeof(*t));
}

/* ---- text ---- */

/* snprintf that may truncate (cells are bounded on purpose); returns what it wrote. */
static size_t cellf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static size_t cellf(char *buf, size_t size, const char *fmt, ...)
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

/* Display width of UTF-8 text (our cells use – and × only). */
static int width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *out, const char *s, int w)
{
	fputs(s, out);
	for (int n = width(s); n < w; n++)
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

static void fmt_num(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		cellf(buf, size, "—");
	else
		cellf(buf, size, "%.*f", decimals_for(v, v == floor(v)), v);
}

/* median [min–max], all three with the median's precision. */
static void fmt_stat(char *buf, size_t size, const struct tm_bench_stat *s, double scale)
{
	double med = s->median * scale, lo = s->min * scale, hi = s->max * scale;
	int d;

	if (!s->n) {
		cellf(buf, size, "—");
		return;
	}
	d = decimals_for(med, med == floor(med) && lo == floor(lo) && hi == floor(hi));
	if (s->n == 1)
		cellf(buf, size, "%.*f", d, med);
	else
		cellf(buf, size, "%.*f [%.*f–%.*f]", d, med, d, lo, d, hi);
}

static bool arm_has_outlier(const struct tm_bench_table *t, int ai, int f)
{
	for (int i = 0; i < t->n_runs; i++)
		if (t->runs[i].arm == ai && (t->runs[i].outlier_mask >> f & 1))
			return true;
	return false;
}

/* One cell: median [min–max] ×ratio, n.s. when the ranges overlap, * for an outlier. */
static void fig_cell(char *buf, size_t size, const struct tm_bench_table *t, int ai, int f)
{
	const struct tm_bench_arm_row *a = &t->arms[ai];
	size_t n;

	fmt_stat(buf, size, &a->stat[f], figs[f].scale);
	n = strlen(buf);
	if (arm_has_outlier(t, ai, f))
		n += cellf(buf + n, size - n, "*");
	if (isfinite(a->ratio[f]))
		n += cellf(buf + n, size - n, " ×%.2f", a->ratio[f]);
	if (ai > 0 && a->overlap[f])
		cellf(buf + n, size - n, " n.s.");
}

static void survived_cell(char *buf, size_t size, const struct tm_bench_arm_row *a)
{
	size_t n = cellf(buf, size, "%d/%d", a->survived, a->runs);
	const struct {
		int count;
		const char *what;
	} parts[] = {
	    {a->oom_killed, "oom-killed"}, {a->killed, "killed"},   {a->timeout, "timeout"},
	    {a->failed, "failed"},         {a->invalid, "invalid"}, {a->interrupted, "interrupted"},
	};
	bool open = false;

	for (size_t i = 0; i < TM_ARRAY_SIZE(parts) && n < size; i++) {
		if (!parts[i].count)
			continue;
		n += cellf(buf + n, size - n, "%s%d %s", open ? ", " : " (", parts[i].count,
		           parts[i].what);
		open = true;
	}
	if (open && n < size)
		cellf(buf + n, size - n, ")");
}

#define CELL    96
#define LABEL_W 18

static bool row_has_data(const struct tm_bench_table *t, int f)
{
	for (int ai = 0; ai < t->n_arms; ai++)
		if (t->arms[ai].stat[f].n)
			return true;
	return false;
}

/* Every run of every arm measured exactly 0: the row says nothing. */
static bool row_all_zero(const struct tm_bench_table *t, int f)
{
	for (int ai = 0; ai < t->n_arms; ai++) {
		const struct tm_bench_stat *s = &t->arms[ai].stat[f];
		if (s->n && (s->min != 0 || s->max != 0))
			return false;
	}
	return true;
}

static bool row_shown(const struct tm_bench_table *t, int f)
{
	if (f == TM_BF_HELD_ANON && t->settle_usec <= 0)
		return false;
	return row_has_data(t, f) && !row_all_zero(t, f);
}

void tm_bench_table_cell(const struct tm_bench_table *t, int row, int ai, char *c, size_t size)
{
	if (row == -1)
		cellf(c, size, "%s%s%s", t->arms[ai].name, ai == 0 ? " (control)" : "",
		      ai != 0 && ai == t->reference ? " (ref)" : "");
	else if (row == -2)
		survived_cell(c, size, &t->arms[ai]);
	else if (row == -3)
		fmt_stat(c, size, &t->arms[ai].killed_peak, 1.0 / TM_MIB);
	else if (row == -4)
		fmt_stat(c, size, &t->arms[ai].killed_heap, 1.0 / TM_MIB);
	else
		fig_cell(c, size, t, ai, row);
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

	/* memory first, the heap's split of it next to what it splits */
	static const enum tm_bench_fig order[TM_BF_COUNT] = {
	    TM_BF_PEAK_ANON,    TM_BF_PEAK_MEM,    TM_BF_HELD_ANON,    TM_BF_HEAP_PEAK,
	    TM_BF_HEAP_END,     TM_BF_RETAINED,    TM_BF_FILE_AT_PEAK, TM_BF_WALL,
	    TM_BF_CPU,          TM_BF_HIGH_EVENTS, TM_BF_PSI_MEM,      TM_BF_PSI_IO,
	    TM_BF_IO,           TM_BF_PROGRESS,    TM_BF_RATE,         TM_BF_WALL_PER_UNIT,
	    TM_BF_CPU_PER_UNIT,
	};

	rows[n++] = -1;
	rows[n++] = -2;
	for (int i = 0; i < TM_BF_COUNT; i++)
		if (row_shown(t, order[i]))
			rows[n++] = order[i];
	bool killed_peak = false, killed_heap = false;
	for (int ai = 0; ai < t->n_arms; ai++) {
		killed_peak |= t->arms[ai].killed_peak.n > 0;
		killed_heap |= t->arms[ai].killed_heap.n > 0;
	}
	if (killed_peak)
		rows[n++] = -3;
	if (killed_heap)
		rows[n++] = -4;
	return n;
}

const char *tm_bench_table_row_label(int row)
{
	if (row == -1)
		return "";
	if (row == -2)
		return "survived";
	if (row == -3)
		return "killed at anon MiB";
	if (row == -4)
		return "heap at kill MiB";
	return figs[row].label;
}

#define ARMS_PER_BLOCK 4

static void write_block(const struct tm_bench_table *t, FILE *out, int from, int to)
{
	int rows[TM_BENCH_TAB_MAX_ROWS], n_rows = tm_bench_table_rows(t, rows);
	char cells[ARMS_PER_BLOCK][CELL];
	int w[ARMS_PER_BLOCK] = {0};

	for (int r = 0; r < n_rows; r++) {
		row_cells(t, rows[r], from, to, cells);
		for (int ai = 0; ai < to - from; ai++)
			if (width(cells[ai]) > w[ai])
				w[ai] = width(cells[ai]);
	}
	for (int r = 0; r < n_rows; r++) {
		row_cells(t, rows[r], from, to, cells);
		pad(out, tm_bench_table_row_label(rows[r]), LABEL_W + 2);
		for (int ai = 0; ai < to - from; ai++) {
			if (ai == to - from - 1)
				fputs(cells[ai], out);
			else
				pad(out, cells[ai], w[ai] + 3);
		}
		fputc('\n', out);
	}
}

void tm_bench_table_write_header(const struct tm_bench_table *t, FILE *out)
{
	int measured = 0, warm = 0;

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
	for (int ai = 0; ai < t->n_arms; ai++) {
		const struct tm_bench_arm_row *a = &t->arms[ai];
		fprintf(out, "  %-*s %s", LABEL_W, a->name,
		        a->env_text && *a->env_text ? a->env_text : "(no allocator variables)");
		if (a->limits_text && *a->limits_text)
			fprintf(out, "  %s", a->limits_text);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* "outlier: run 9 (jemalloc): wall s 3.94 (median 2.34), cpu s ..." */
static void outlier_note(const struct tm_bench_table *t, const struct tm_bench_run_row *r,
                         FILE *out)
{
	char v[32], m[32];
	bool first = true;

	for (int f = 0; f < TM_BF_COUNT; f++) {
		if (!(r->outlier_mask >> f & 1))
			continue;
		fmt_num(v, sizeof(v), r->fig[f] * figs[f].scale);
		fmt_num(m, sizeof(m), t->arms[r->arm].stat[f].median * figs[f].scale);
		if (first)
			fprintf(out, "outlier: run %lld (%s): ", (long long)r->run_id,
			        t->arms[r->arm].name);
		fprintf(out, "%s%s %s (median %s)", first ? "" : ", ", figs[f].label, v, m);
		first = false;
	}
	if (!first)
		fputc('\n', out);
}

/* One line for all the runs that shared the machine (or lost CPU to steal). */
static void noise_note(const struct tm_bench_table *t, FILE *out)
{
	double lo = INFINITY, hi = 0, steal = 0;
	bool first = true;

	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		bool st = isfinite(r->steal_share) && r->steal_share > NOISY_STEAL;
		bool other = isfinite(r->other_share) && r->other_share > NOISY_OTHER;
		if (!st && !other)
			continue;
		fprintf(out, "%s%lld", first ? "noisy machine: runs " : ", ", (long long)r->run_id);
		first = false;
		if (other) {
			lo = fmin(lo, r->other_share);
			hi = fmax(hi, r->other_share);
		}
		if (st)
			steal = fmax(steal, r->steal_share);
	}
	if (first)
		return;
	if (hi > 0)
		fprintf(out, " ran beside other load (%.0f–%.0f%% of the CPUs)", lo * 100,
		        hi * 100);
	if (steal > 0)
		fprintf(out, "%s up to %.0f%% CPU steal", hi > 0 ? "; " : " saw", steal * 100);
	fputs(": their times are less trustworthy\n", out);
}

void tm_bench_table_write_legend(const struct tm_bench_table *t, FILE *out)
{
	(void)t;
	fputs("median [min–max] over the runs that survived; ×ratio to the control's median; "
	      "n.s.: range overlaps the control's (not significant); *: outlier (> 3 MAD)\n",
	      out);
}

void tm_bench_table_write_notes(const struct tm_bench_table *t, FILE *out)
{
	bool first = true;

	for (int f = 0; f < TM_BF_COUNT; f++) {
		if (!row_has_data(t, f) || !row_all_zero(t, f))
			continue;
		fprintf(out, "%s%s", first ? "0 in every run: " : ", ", figs[f].label);
		first = false;
	}
	if (!first)
		fputc('\n', out);
	if (t->reference != 0)
		fprintf(out,
		        "no run of the control '%s' survived: ×ratios and n.s. are to '%s' (marked "
		        "ref)\n",
		        t->arms[0].name, t->arms[t->reference].name);
	else if (t->n_arms > 1 && t->arms[0].survived == 0)
		fprintf(out, "no ratios: no arm has a run that survived\n");
	for (int i = 0; i < t->n_runs; i++) {
		const struct tm_bench_run_row *r = &t->runs[i];
		if (r->warmup || r->arm < 0 || r->arm >= t->n_arms)
			continue;
		outlier_note(t, r, out);
		if (strcmp(r->outcome, "completed") && strcmp(r->outcome, "oom-killed") &&
		    r->reason[0])
			fprintf(out, "run %lld (%s) %s: %s\n", (long long)r->run_id,
			        t->arms[r->arm].name, r->outcome, r->reason);
	}
	noise_note(t, out);
}

void tm_bench_table_write_text(const struct tm_bench_table *t, FILE *out)
{
	tm_bench_table_write_header(t, out);
	for (int from = 0; from < t->n_arms; from += ARMS_PER_BLOCK) {
		int to = from + ARMS_PER_BLOCK < t->n_arms ? from + ARMS_PER_BLOCK : t->n_arms;
		if (from)
			fputc('\n', out);
		write_block(t, out, from, to);
	}
	fputc('\n', out);
	tm_bench_table_write_legend(t, out);
	tm_bench_table_write_notes(t, out);
}
