/* Self-contained HTML reports built from the same documents the API serves. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/routes.h"
#include "serve/api.h"
#include "serve/assets.h"
#include "serve/html/htmlreport.h"
#include "store/store.h"
#include "base/banned.h"

/* The series queries the panel's modules ask for (web/js/view_run.js runQuery,
 * view_bench.js BENCH_QUERY): a report embeds each document under the API
 * path that would have served it.  A bench report's run pages use the
 * bench's series, so each run is embedded once. */
#define RUN_QUERY   "?points=1500"
#define BENCH_QUERY "?points=600"

/* The JSON with <, > and & written as \u escapes: they only occur inside
 * strings, so the text stays the same JSON and cannot end the script block. */
static void put_json(FILE *f, const json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT);

	for (const char *c = s ? s : "null"; *c; c++) {
		if (*c == '<')
			fputs("\\u003c", f);
		else if (*c == '>')
			fputs("\\u003e", f);
		else if (*c == '&')
			fputs("\\u0026", f);
		else
			fputc(*c, f);
	}
	free(s);
}

/* The asset at PATH, checked to be inlinable, or NULL (said). */
static const struct tm_asset *inline_asset(const char *path)
{
	const struct tm_asset *a = tm_asset_find(path);

	if (!a) {
		tm_error("report asset '%s' missing from the build", path);
		return NULL;
	}
	if (strstr((const char *)a->data, "</script") || strstr((const char *)a->data, "</style")) {
		tm_error("report asset '%s' cannot be inlined", path);
		return NULL;
	}
	return a;
}

static int put_asset(FILE *f, const char *path)
{
	const struct tm_asset *a = inline_asset(path);

	if (!a)
		return -1;
	fwrite(a->data, 1, a->len, f);
	return 0;
}

/* The scripts a report runs, each inlined as "<script>\n" ASSET "\n</script>":
 * the page's CSP allows exactly these texts by their SHA-256 (computed
 * at build time by web/embed.sh). */
static const char *const report_scripts[] = {"/vendor/uPlot.iife.min.js", "/report.js"};

/* The report's Content-Security-Policy: nothing from the network, only its
 * own inline scripts (by hash) and styles. */
static int report_csp(char *out, size_t size)
{
	snprintf(out, size, "default-src 'none'; script-src");
	for (size_t i = 0; i < sizeof(report_scripts) / sizeof(report_scripts[0]); i++) {
		const struct tm_asset *a = inline_asset(report_scripts[i]);
		if (!a || !a->script_sha256[0])
			return a ? tm_error("no hash of report script '%s'", report_scripts[i])
			         : -1;
		size_t used = strlen(out);
		if (snprintf(out + used, size - used, " 'sha256-%s'", a->script_sha256) >=
		    (int)(size - used))
			return tm_error("report CSP too long");
	}
	size_t used = strlen(out);
	if (snprintf(out + used, size - used, "; style-src 'unsafe-inline'; img-src data:") >=
	    (int)(size - used))
		return tm_error("report CSP too long");
	return 0;
}

static int write_page(const char *path, const char *title, const json_t *data)
{
	char tmp[4096], csp[512];
	FILE *f;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return tm_error("path too long: '%s'", path);
	if (report_csp(csp, sizeof(csp)))
		return -1;
	f = fopen(tmp, "w");
	if (!f)
		return tm_error("cannot write '%s': %s", tmp, strerror(errno));
	fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"",
	      f);
	fputs(csp, f);
	fputs("\">\n<title>", f);
	fputs(title, f); /* ours: digits and fixed words only */
	fputs("</title>\n<style>\n", f);
	rc |= put_asset(f, "/vendor/uPlot.min.css");
	rc |= put_asset(f, "/app.css");
	fputs("</style>\n</head>\n<body>\n<header><span class=\"brand\">tidemark</span> <span>", f);
	fputs(title, f);
	fputs("</span> <span id=\"status\"></span></header>\n<main id=\"main\"></main>\n"
	      "<script type=\"application/json\" id=\"tm-data\">",
	      f);
	put_json(f, data);
	fputs("</script>\n", f);
	for (size_t i = 0; i < sizeof(report_scripts) / sizeof(report_scripts[0]); i++) {
		fputs("<script>\n", f);
		rc |= put_asset(f, report_scripts[i]); /* uPlot, then the panel's modules joined */
		fputs("\n</script>\n", f);
	}
	fputs("<!-- uPlot (MIT licence):\n", f);
	rc |= put_asset(f, "/vendor/uPlot.LICENSE");
	fputs("-->\n</body>\n</html>\n", f);
	if (fclose(f) != 0 || rc) {
		unlink(tmp);
		return rc ? -1 : tm_error("cannot write '%s': %s", tmp, strerror(errno));
	}
	if (rename(tmp, path) < 0) {
		unlink(tmp);
		return tm_error("cannot write '%s': %s", path, strerror(errno));
	}
	return 0;
}

/* Files DOC (whose reference it takes) in DOCS under the path the panel asks
 * for: ROUTE's for ID, then QUERY.  0, or -1 after tm_error. */
static int put_doc(json_t *docs, enum tm_route route, int64_t id, const char *query, json_t *doc)
{
	char path[128], key[256];

	if (tm_route_path(route, id, path, sizeof(path)) < 0 ||
	    (size_t)snprintf(key, sizeof(key), "%s%s", path, query) >= sizeof(key)) {
		json_decref(doc);
		return tm_error("report: no path for a document of %lld", (long long)id);
	}
	json_object_set_new(docs, key, doc);
	return 0;
}

/* Adds the run document and its series under the paths the panel asks for. */
static int add_run_docs(struct tm_store *st, json_t *docs, int64_t run_id, const char *query)
{
	struct tm_series_query q;
	struct tm_err err;
	int missing = 0;
	json_t *run = tm_api_run(st, run_id, &missing), *series;
	const char *p = strchr(query, '?');

	if (!run)
		return missing ? tm_error("no run %lld", (long long)run_id) : -1;
	if (put_doc(docs, TM_ROUTE_RUN, run_id, "", run) < 0 ||
	    put_doc(docs, TM_ROUTE_RUN_SUMMARY, run_id, "", tm_api_summary(st, run_id, &missing)) <
	        0)
		return -1;
	/* the query string the panel uses, parsed the way the server parses it */
	char metrics[256] = "", points[16] = "";
	const char *m = strstr(p, "metrics="), *n = strstr(p, "points=");
	if (m)
		snprintf(metrics, sizeof(metrics), "%.*s", (int)strcspn(m + 8, "&"), m + 8);
	if (n)
		snprintf(points, sizeof(points), "%.*s", (int)strcspn(n + 7, "&"), n + 7);
	if (tm_series_query_parse(m ? metrics : NULL, NULL, NULL, NULL, NULL, n ? points : NULL, &q,
	                          &err) < 0)
		return tm_error("report: %.127s", err.msg);
	series = tm_api_series(st, run_id, &q);
	if (!series)
		return -1;
	return put_doc(docs, TM_ROUTE_RUN_SERIES, run_id, query, series);
}

int tm_html_report_run(struct tm_store *st, int64_t run_id, const char *path)
{
	json_t *data = json_object(), *docs = json_object();
	char route[64], title[64];
	int rc;

	json_object_set_new(data, "docs", docs);
	snprintf(route, sizeof(route), "/run/%lld", (long long)run_id);
	json_object_set_new(data, "route", json_string(route));
	json_object_set_new(data, "run_query", json_string(RUN_QUERY));
	rc = add_run_docs(st, docs, run_id, RUN_QUERY);
	snprintf(title, sizeof(title), "run %lld", (long long)run_id);
	if (rc == 0)
		rc = write_page(path, title, data);
	json_decref(data);
	return rc;
}

int tm_html_report_bench(struct tm_store *st, int64_t bench_id, const char *path,
                         const json_t *extra)
{
	json_t *data = json_object(), *docs = json_object(), *bench, *runs, *r;
	char route[64], title[64];
	size_t i;
	int rc = 0;

	json_object_set_new(data, "docs", docs);
	snprintf(route, sizeof(route), "/bench/%lld", (long long)bench_id);
	json_object_set_new(data, "route", json_string(route));
	bench = tm_api_bench(st, bench_id);
	runs = bench ? json_object_get(bench, "runs") : NULL;
	if (!bench || !json_array_size(runs)) {
		json_decref(bench);
		json_decref(data);
		return tm_error("no bench %lld (or it has no runs)", (long long)bench_id);
	}
	if (put_doc(docs, TM_ROUTE_BENCH, bench_id, "", bench) < 0) {
		json_decref(data);
		return -1;
	}
	json_object_set_new(data, "run_query", json_string(BENCH_QUERY));
	json_array_foreach(runs, i, r)
	{
		int64_t id = json_integer_value(json_object_get(r, "id"));
		if (add_run_docs(st, docs, id, BENCH_QUERY) < 0) {
			rc = -1;
			break;
		}
	}
	if (extra)
		json_object_update(docs, (json_t *)extra);
	snprintf(title, sizeof(title), "bench %lld", (long long)bench_id);
	if (rc == 0)
		rc = write_page(path, title, data);
	json_decref(data);
	return rc;
}
