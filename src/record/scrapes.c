/*
 * record --scrape, the recorder's side: the targets' threads (serve/client/scrape.h,
 * in the network half) started with the run, what each has ready taken at
 * every sample (Go's series into the sample, the chosen series into the
 * store beside it), and what was never served said at the end.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "record/rec.h"
#include "store/scraped.h"
#include "store/store.h"
#include "base/banned.h"

/* The series ids of one target, by name, as the store gave them. */
#define IDS_MAX (TM_SCRAPE_MAX_SERIES + TM_SCRAPE_MAX_WANTS)

struct rec_scrape {
	struct tm_scrape_spec spec;
	struct tm_scraper *sc;
	struct tm_scrape_result res; /* this sample's, when HAVE */
	bool have;
	int64_t answer_wall;
	uint32_t matched; /* the list's metrics seen over the run */
	bool warned_fail, warned_drop;
	size_t nids;
	char names[IDS_MAX][TM_SCRAPE_NAME_MAX];
	int64_t ids[IDS_MAX];
};

int tm_rec_scrape_open(struct rec *r)
{
	const struct tm_record_opts *o = r->o;
	struct tm_err why = {0};

	for (int i = 0; i < o->nscrape; i++) {
		struct rec_scrape *t = calloc(1, sizeof(*t));
		if (!t)
			return tm_error("out of memory");
		r->scrapes[r->nscrapes++] = t;
		if (tm_scrape_spec_parse(o->scrape[i], &t->spec, &why))
			return tm_error("--scrape %s", why.msg);
		if (r->net.scraper_start(&t->spec, r->start_mono, r->interval, &t->sc))
			return -1;
	}
	return 0;
}

/* The name a value of target T is stored under: its own, unless an
 * earlier target already has a series of that name ("NAME@2" for the
 * second target's). */
static void stored_name(const struct rec *r, int t, const char *name, char *out, size_t size)
{
	for (int j = 0; j < t; j++)
		for (size_t k = 0; k < r->scrapes[j]->nids; k++)
			if (!strcmp(r->scrapes[j]->names[k], name)) {
				snprintf(out, size, "%s@%d", name, t + 1);
				return;
			}
	snprintf(out, size, "%s", name);
}

/* Target T's series NAME: its id (added to the store when new), or -1. */
static int64_t series_id(struct rec *r, int t, const char *name, const char *kind)
{
	struct rec_scrape *sc = r->scrapes[t];
	char stored[TM_SCRAPE_NAME_MAX + 8];
	int64_t id;

	for (size_t k = 0; k < sc->nids; k++)
		if (!strcmp(sc->names[k], name))
			return sc->ids[k];
	if (sc->nids == IDS_MAX)
		return -1;
	stored_name(r, t, name, stored, sizeof(stored));
	if (tm_rec_store(r,
	                 tm_store_scraped_series(r->st, r->run_id, stored, kind, sc->spec.url, &id),
	                 "scraped series"))
		return -1;
	snprintf(sc->names[sc->nids], sizeof(sc->names[0]), "%s", name);
	sc->ids[sc->nids++] = id;
	return id;
}

static void warn_miss(struct rec_scrape *t, const char *why)
{
	if (t->warned_fail)
		return;
	t->warned_fail = true;
	tm_warn("--scrape %s: %s; its values are missing (absent, not 0) while it does not answer",
	        t->spec.url, why);
}

void tm_rec_scrape_take(struct rec *r, int64_t deadline, struct tm_sample *s)
{
	struct tm_err why;
	/* the last look after the work is off the grid: no scrape was made for it */
	bool on_grid = deadline > r->start_mono && (deadline - r->start_mono) % r->interval == 0;

	for (int i = 0; i < r->nscrapes; i++) {
		struct rec_scrape *t = r->scrapes[i];
		t->have = false;
		if (!on_grid)
			continue;
		t->have = t->sc &&
		          r->net.scraper_take(t->sc, deadline, &t->res, &t->answer_wall, &why) == 0;
		if (!t->have) {
			/* a command that has left takes its endpoint with it */
			if (t->sc && !r->child_gone && r->phase == PH_WORK)
				warn_miss(t, why.msg);
			continue;
		}
		t->matched |= t->res.matched;
		tm_scrape_go_into(&t->res, s);
		if (t->res.dropped && !t->warned_drop) {
			t->warned_drop = true;
			tm_warn(
			    "--scrape %s: more than %d series chosen, %zu left out (name the ones "
			    "you want: --scrape URL,metric,...)",
			    t->spec.url, TM_SCRAPE_MAX_SERIES, t->res.dropped);
		}
	}
}

int tm_rec_scrape_store(struct rec *r, const struct tm_sample *s)
{
	for (int i = 0; i < r->nscrapes; i++) {
		struct rec_scrape *t = r->scrapes[i];
		for (size_t k = 0; t->have && k < t->res.n; k++) {
			const struct tm_scrape_value *v = &t->res.v[k];
			int64_t id = series_id(r, i, v->name, tm_prom_type_name(v->type));
			if (r->store_failed)
				return -1;
			if (id < 0)
				continue;
			if (tm_rec_store(r,
			                 tm_store_add_scraped(r->st, r->run_id, id, s->seq,
			                                      t->answer_wall, v->value),
			                 "scraped value"))
				return -1;
		}
	}
	return 0;
}

void tm_rec_scrape_export(struct rec *r)
{
	enum { MAX = TM_SCRAPE_MAX_TARGETS * TM_SCRAPE_MAX_SERIES };
	static const size_t name_size = TM_SCRAPE_NAME_MAX + 8;
	const char **names = NULL, **kinds = NULL;
	char *buf = NULL;
	double *values = NULL;
	size_t n = 0;

	if (!r->prom || !r->nscrapes)
		return;
	names = calloc(MAX, sizeof(*names));
	kinds = calloc(MAX, sizeof(*kinds));
	values = calloc(MAX, sizeof(*values));
	buf = malloc(MAX * name_size);
	for (int i = 0; names && kinds && values && buf && i < r->nscrapes; i++) {
		struct rec_scrape *t = r->scrapes[i];
		for (size_t k = 0; t->have && k < t->res.n && n < MAX; k++, n++) {
			stored_name(r, i, t->res.v[k].name, buf + n * name_size, name_size);
			names[n] = buf + n * name_size;
			kinds[n] = tm_prom_type_name(t->res.v[k].type);
			values[n] = t->res.v[k].value;
		}
	}
	if (names && kinds && values && buf)
		r->net.prom_scraped(r->prom, names, kinds, values, n);
	free(names);
	free(kinds);
	free(values);
	free(buf);
}

void tm_rec_scrape_end(struct rec *r)
{
	char name[TM_SCRAPE_NAME_MAX];

	for (int i = 0; i < r->nscrapes; i++) {
		struct rec_scrape *t = r->scrapes[i];
		r->net.scraper_stop(t->sc);
		t->sc = NULL;
		for (size_t w = 0; w < t->spec.nwant; w++) {
			if ((t->matched >> w) & 1 ||
			    tm_scrape_want_name(&t->spec.want[w], name, sizeof(name)))
				continue;
			tm_warn("--scrape %s: %s was never served with a value; stored as absent",
			        t->spec.url, name);
			if (!r->store_failed)
				series_id(r, i, name, "unknown");
		}
	}
	if (r->nscrapes && !r->store_failed)
		tm_rec_store(r, tm_store_commit(r->st), "commit");
}

void tm_rec_scrape_free(struct rec *r)
{
	for (int i = 0; i < r->nscrapes; i++) {
		if (r->scrapes[i]->sc)
			r->net.scraper_stop(r->scrapes[i]->sc);
		free(r->scrapes[i]);
	}
	r->nscrapes = 0;
}
