/* Which series of a scraped endpoint are kept, and their names; see scrapesel.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "runtime/scrapesel.h"
#include "base/banned.h"

/* ---- the option's text ---- */

/* The end of the item starting at P: the next comma outside braces and
 * quotes, or the end of the string. */
static const char *item_end(const char *p)
{
	bool quoted = false;
	int depth = 0;

	for (; *p; p++) {
		if (quoted && *p == '\\' && p[1])
			p++;
		else if (*p == '"' && depth)
			quoted = !quoted;
		else if (!quoted && *p == '{')
			depth++;
		else if (!quoted && *p == '}' && depth)
			depth--;
		else if (!quoted && !depth && *p == ',')
			return p;
	}
	return p;
}

static int url_check(const char *url, size_t n, struct tm_err *err)
{
	size_t scheme = !strncmp(url, "http://", 7) ? 7 : !strncmp(url, "https://", 8) ? 8 : 0;

	if (n == 0) {
		tm_err_set(err, 0, "expected URL[,metric...], e.g. http://127.0.0.1:9100/metrics");
		return -1;
	}
	if (n >= TM_SCRAPE_URL_MAX) {
		tm_err_set(err, 0, "the URL is longer than %d bytes", TM_SCRAPE_URL_MAX - 1);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f) {
			tm_err_set(err, 0, "'%.*s': a URL has no spaces or control characters",
			           (int)n, url);
			return -1;
		}
	if (!scheme || n == scheme || url[scheme] == '/' || url[scheme] == ':') {
		tm_err_set(err, 0, "'%.*s': expected an http:// or https:// URL with a host",
		           (int)n, url);
		return -1;
	}
	return 0;
}

struct one {
	struct tm_prom_sample s;
	int n;
};

static int take_one(void *ctx, const struct tm_prom_sample *s)
{
	struct one *o = ctx;
	o->s = *s;
	o->n++;
	return 0;
}

/* One metric of the list, [P, P+N), into W: parsed as a sample line
 * "ITEM 0" by the exposition parser, so it is spelled as the format does. */
static int want_parse(const char *p, size_t n, struct tm_scrape_want *w, struct tm_err *err)
{
	char line[TM_SCRAPE_SPEC_MAX + 4];
	struct tm_err perr = {0};
	struct one o = {.n = 0};
	size_t pos = 0;
	int rc;

	memset(w, 0, sizeof(*w));
	snprintf(line, sizeof(line), "%.*s 0", (int)n, p);
	if (n == 0 || memchr(p, '\n', n) || memchr(p, '#', 1) ||
	    tm_prom_parse(line, strlen(line), take_one, &o, &perr) || o.n != 1 ||
	    o.s.has_timestamp) {
		tm_err_set(err, 0, "'%.*s': expected a metric name, or name{label=\"value\",...}",
		           (int)n, p);
		return -1;
	}
	if (o.s.name_len >= sizeof(w->name)) {
		tm_err_set(err, 0, "'%.*s': a metric name of at most %d bytes", (int)n, p,
		           TM_SCRAPE_NAME_MAX - 1);
		return -1;
	}
	memcpy(w->name, o.s.name, o.s.name_len);
	for (;;) {
		char ln[64], lv[128];
		rc = tm_prom_label_next(o.s.labels, o.s.labels_len, &pos, ln, sizeof(ln), lv,
		                        sizeof(lv));
		if (rc <= 0 || w->nlabels == TM_SCRAPE_MAX_LABELS)
			break;
		memcpy(w->lname[w->nlabels], ln, sizeof(ln));
		memcpy(w->lvalue[w->nlabels], lv, sizeof(lv));
		w->nlabels++;
	}
	if (rc != 0) {
		tm_err_set(err, 0, "'%.*s': at most %d labels, names of 63 and values of 127 bytes",
		           (int)n, p, TM_SCRAPE_MAX_LABELS);
		return -1;
	}
	return 0;
}

int tm_scrape_spec_parse(const char *text, struct tm_scrape_spec *out, struct tm_err *err)
{
	const char *p = text, *e = item_end(p);

	memset(out, 0, sizeof(*out));
	if (strlen(text) >= TM_SCRAPE_SPEC_MAX) {
		tm_err_set(err, 0, "longer than %d bytes", TM_SCRAPE_SPEC_MAX - 1);
		return -1;
	}
	if (url_check(p, (size_t)(e - p), err))
		return -1;
	memcpy(out->url, p, (size_t)(e - p));
	while (*e) {
		p = e + 1;
		e = item_end(p);
		if (out->nwant == TM_SCRAPE_MAX_WANTS) {
			tm_err_set(err, 0, "at most %d metrics a --scrape", TM_SCRAPE_MAX_WANTS);
			return -1;
		}
		if (want_parse(p, (size_t)(e - p), &out->want[out->nwant], err))
			return -1;
		out->nwant++;
	}
	return 0;
}

/* ---- choosing from an exposition ---- */

static bool name_is(const char *p, size_t n, const char *name)
{
	return strlen(name) == n && !memcmp(p, name, n);
}

static bool want_matches(const struct tm_scrape_want *w, const struct tm_prom_sample *s)
{
	char v[128];

	if (!name_is(s->name, s->name_len, w->name) &&
	    !((s->type == TM_PROM_HISTOGRAM || s->type == TM_PROM_SUMMARY) &&
	      name_is(s->name, s->family_len, w->name) &&
	      (name_is(s->name + s->family_len, s->name_len - s->family_len, "_sum") ||
	       name_is(s->name + s->family_len, s->name_len - s->family_len, "_count"))))
		return false;
	for (size_t i = 0; i < w->nlabels; i++)
		if (tm_prom_label(s->labels, s->labels_len, w->lname[i], v, sizeof(v)) ||
		    strcmp(v, w->lvalue[i]))
			return false;
	return true;
}

static bool chosen(const struct tm_scrape_spec *spec, const struct tm_prom_sample *s,
                   uint32_t *matched)
{
	bool any = false;

	if (!spec->nwant)
		return !(s->type == TM_PROM_HISTOGRAM &&
		         name_is(s->name + s->family_len, s->name_len - s->family_len, "_bucket"));
	for (size_t i = 0; i < spec->nwant; i++)
		if (want_matches(&spec->want[i], s)) {
			*matched |= (uint32_t)1 << i;
			any = true;
		}
	return any;
}

struct label {
	char name[64], value[128];
};

static int label_cmp(const void *a, const void *b)
{
	return strcmp(((const struct label *)a)->name, ((const struct label *)b)->name);
}

/* Appends V escaped as the format does (\\, \", \n) at *O of OUT. */
static void put_escaped(char *out, size_t size, size_t *o, const char *v)
{
	for (; *v && *o + 1 < size; v++) {
		const char *esc = *v == '\\'   ? "\\\\"
		                  : *v == '"'  ? "\\\""
		                  : *v == '\n' ? "\\n"
		                               : NULL;
		int n = esc ? snprintf(out + *o, size - *o, "%s", esc)
		            : snprintf(out + *o, size - *o, "%c", *v);
		*o += (size_t)n;
	}
}

/* NAME (N bytes) and its labels L (NL of them, sorted here) as a series'
 * name (scrapesel.h) into OUT; -1 when it does not fit. */
static int compose(const char *name, size_t n, struct label *l, size_t nl, char *out, size_t size)
{
	size_t o = n;

	if (n >= size)
		return -1;
	qsort(l, nl, sizeof(l[0]), label_cmp);
	memcpy(out, name, n);
	out[o] = 0;
	for (size_t i = 0; i < nl; i++) {
		o += (size_t)snprintf(out + o, size - o, "%s%s=\"", i ? "," : "{", l[i].name);
		if (o >= size)
			return -1;
		put_escaped(out, size, &o, l[i].value);
		o += (size_t)snprintf(out + o, size - o, "\"%s", i + 1 == nl ? "}" : "");
		if (o >= size - 1)
			return -1;
	}
	return 0;
}

static int series_name(const struct tm_prom_sample *s, char *out, size_t size)
{
	struct label l[32];
	size_t n = 0, pos = 0;
	int rc = 0;

	while (n < 32 &&
	       (rc = tm_prom_label_next(s->labels, s->labels_len, &pos, l[n].name,
	                                sizeof(l[n].name), l[n].value, sizeof(l[n].value))) == 1)
		n++;
	if ((n == 32 && pos < s->labels_len) || (n < 32 && rc < 0))
		return -1;
	return compose(s->name, s->name_len, l, n, out, size);
}

int tm_scrape_want_name(const struct tm_scrape_want *w, char *out, size_t size)
{
	struct label l[TM_SCRAPE_MAX_LABELS];

	for (size_t i = 0; i < w->nlabels; i++) {
		memcpy(l[i].name, w->lname[i], sizeof(l[i].name));
		memcpy(l[i].value, w->lvalue[i], sizeof(l[i].value));
	}
	return compose(w->name, strlen(w->name), l, w->nlabels, out, size);
}

static const struct {
	const char *name;
	enum tm_metric m;
} go_map[] = {
    {"go_memstats_heap_alloc_bytes", TM_M_GO_HEAP_ALLOC_BYTES},
    {"go_memstats_heap_inuse_bytes", TM_M_GO_HEAP_INUSE_BYTES},
    {"go_gc_duration_seconds_count", TM_M_GC_CYCLES},
    {"go_gc_heap_live_bytes", TM_M_GC_HEAP_LIVE_BYTES},
};

static void go_value(const struct tm_prom_sample *s, struct tm_sample *go)
{
	if (s->labels_len || !(s->value >= 0 && s->value < 9.2e18))
		return;
	for (size_t i = 0; i < sizeof(go_map) / sizeof(go_map[0]); i++)
		if (name_is(s->name, s->name_len, go_map[i].name) &&
		    !tm_sample_has(go, go_map[i].m))
			tm_sample_set(go, go_map[i].m, (int64_t)s->value);
}

struct sel {
	const struct tm_scrape_spec *spec;
	struct tm_scrape_result *out;
};

static int on_sample(void *ctx, const struct tm_prom_sample *s)
{
	struct sel *c = ctx;
	struct tm_scrape_result *r = c->out;
	char name[TM_SCRAPE_NAME_MAX];
	double ignored;

	go_value(s, &r->go);
	if (!isfinite(s->value) || !chosen(c->spec, s, &r->matched))
		return 0;
	if (series_name(s, name, sizeof(name))) {
		r->dropped++;
		return 0;
	}
	if (tm_scrape_result_get(r, name, &ignored))
		return 0;
	if (r->n == TM_SCRAPE_MAX_SERIES) {
		r->dropped++;
		return 0;
	}
	memcpy(r->v[r->n].name, name, sizeof(name));
	r->v[r->n].value = s->value;
	r->v[r->n].type = s->type;
	r->n++;
	return 0;
}

int tm_scrape_select(const struct tm_scrape_spec *spec, const char *buf, size_t len,
                     struct tm_scrape_result *out, struct tm_err *err)
{
	struct sel c = {spec, out};

	out->n = 0;
	out->dropped = 0;
	out->matched = 0;
	tm_sample_clear(&out->go);
	if (tm_prom_parse(buf, len, on_sample, &c, err)) {
		out->n = 0;
		out->dropped = 0;
		out->matched = 0;
		tm_sample_clear(&out->go);
		return -1;
	}
	return 0;
}

int tm_scrape_result_get(const struct tm_scrape_result *r, const char *name, double *value)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name)) {
			*value = r->v[i].value;
			return 1;
		}
	return 0;
}

void tm_scrape_go_into(const struct tm_scrape_result *r, struct tm_sample *s)
{
	for (size_t i = 0; i < sizeof(go_map) / sizeof(go_map[0]); i++) {
		enum tm_metric m = go_map[i].m;
		if (tm_sample_has(&r->go, m) && !tm_sample_has(s, m))
			tm_sample_set(s, m, r->go.v[m]);
	}
}
