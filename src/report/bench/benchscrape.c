/*
 * The bench table's scraped rows: a gauge the runs' own endpoint served
 * (record --scrape) in every arm, its peak and last value per run, through
 * the table's statistics like any figure.  See benchtab.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "report/bench/benchtab.h"
#include "report/run/scraped.h"
#include "base/banned.h"

static bool is_gauge(const struct tm_scraped_fig *g)
{
	return g->values > 0 && (!strcmp(g->kind, "gauge") || !strcmp(g->kind, "untyped"));
}

static bool is_bytes(const char *name)
{
	const char *brace = strchr(name, '{');
	size_t n = brace ? (size_t)(brace - name) : strlen(name);
	return n >= 6 && !memcmp(name + n - 6, "_bytes", 6);
}

static bool counts(const struct tm_bench_run_row *r, int n_arms)
{
	return !r->warmup && r->arm >= 0 && r->arm < n_arms;
}

/* Whether every arm with runs has one in which NAME has a value. */
static bool in_every_arm(const struct tm_bench_table *t, const struct tm_scraped_figs *f,
                         const char *name)
{
	for (int a = 0; a < t->n_arms; a++) {
		bool runs = false, seen = false;
		for (int i = 0; i < t->n_runs && !seen; i++) {
			const struct tm_scraped_fig *g;
			if (t->runs[i].arm != a || !counts(&t->runs[i], t->n_arms))
				continue;
			runs = true;
			seen = (g = tm_scraped_find(&f[i], name)) && is_gauge(g);
		}
		if (runs && !seen)
			return false;
	}
	return true;
}

/* Puts NAME into the first free slot of its kind; false when none is left. */
static void take_slot(struct tm_bench_table *t, const char *name)
{
	int from = is_bytes(name) ? 0 : 2;

	for (int s = from; s < from + 2; s++) {
		if (!strcmp(t->scraped[s], name))
			return;
		if (!t->scraped[s][0]) {
			snprintf(t->scraped[s], sizeof(t->scraped[s]), "%s", name);
			return;
		}
	}
}

static void choose(struct tm_bench_table *t, const struct tm_scraped_figs *f)
{
	for (int i = 0; i < t->n_runs; i++) {
		if (t->runs[i].arm != 0 || !counts(&t->runs[i], t->n_arms))
			continue;
		for (size_t k = 0; k < f[i].n; k++)
			if (is_gauge(&f[i].f[k]) && in_every_arm(t, f, f[i].f[k].name))
				take_slot(t, f[i].f[k].name);
	}
}

int tm_bench_scraped_fill(struct tm_store *st, struct tm_bench_table *t)
{
	struct tm_scraped_figs *f = calloc((size_t)(t->n_runs ? t->n_runs : 1), sizeof(*f));
	int rc = f ? 0 : tm_error("out of memory");

	for (int i = 0; rc == 0 && i < t->n_runs; i++)
		rc = tm_scraped_summarize(st, t->runs[i].run_id, &f[i]);
	if (rc == 0)
		choose(t, f);
	for (int i = 0; rc == 0 && i < t->n_runs; i++)
		for (int s = 0; s < TM_BENCH_SCRAPED_SLOTS; s++) {
			const struct tm_scraped_fig *g =
			    t->scraped[s][0] ? tm_scraped_find(&f[i], t->scraped[s]) : NULL;
			bool have = g && is_gauge(g);
			t->runs[i].fig[TM_BF_SCRAPED_1_PEAK + 2 * s] = have ? g->max : NAN;
			t->runs[i].fig[TM_BF_SCRAPED_1_LAST + 2 * s] = have ? g->last : NAN;
		}
	for (int i = 0; f && i < t->n_runs; i++)
		tm_scraped_release(&f[i]);
	free(f);
	return rc;
}
