/*
 * The holders of a dump as one self-contained HTML page, rendered from the
 * same document --json prints (hprof/holders.h): nothing is computed here
 * that the JSON does not hold, and every name from the dump is escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "hprof/holders.h"
#include "base/banned.h"

#define MIB       (1024.0 * 1024.0)
#define MAX_ROWS  100 /* a table's rows; --json has them all */
#define MAX_PARTS 8   /* classes of a holder's histogram shown */

static const char page_head[] =
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'\">\n"
    "<style>\n"
    "body{font:14px system-ui,sans-serif;margin:1.5em;color:#1d2330}\n"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
    "th,td{border-bottom:1px solid #d8dce6;padding:3px 8px;text-align:left;"
    "vertical-align:top}\n"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    ".path,.retains{color:#4a5368;font-size:12px}\n"
    "code{font-size:13px}\n"
    "</style>\n";

/* TEXT with &, <, >, " and ' as entities. */
static void esc(FILE *out, const char *text)
{
	for (const char *c = text ? text : ""; *c; c++) {
		switch (*c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*c, out);
		}
	}
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static long long num(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* A cell of KEY's bytes in MiB, or n/a when null. */
static void mib_cell(FILE *out, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		fprintf(out, "<td class=\"n\">%.2f</td>", (double)json_integer_value(v) / MIB);
	else
		fputs("<td class=\"n\">n/a</td>", out);
}

/* The last cell of a class's row, its name as code, and the row's end. */
static void class_cell(FILE *out, const json_t *o)
{
	fputs("<td><code>", out);
	esc(out, str(o, "class"));
	fputs("</code></td></tr>\n", out);
}

/* Under a table that shows fewer rows than there are: MORE more WHAT, and
 * the option (HOW) that shows them WHERE; nothing when MORE <= 0. */
static void more_rows(FILE *out, long long more, const char *what, const char *how,
                      const char *where)
{
	if (more > 0)
		fprintf(out, "<p>&hellip; %lld more %s (<code>%s</code> %s).</p>\n", more, what,
		        how, where);
}

static void holder_path(FILE *out, const json_t *row)
{
	const json_t *path = json_object_get(row, "path"), *s;
	size_t i;

	if (!json_is_array(path))
		return;
	fputs("<div class=\"path\">path: ", out);
	json_array_foreach(path, i, s)
	{
		if (i == 0) {
			esc(out, str(s, "via"));
			fputs(": ", out);
			esc(out, str(s, "object"));
		} else {
			fputs(" \xe2\x86\x92 ", out);
			esc(out, str(s, "via"));
		}
		if (i == 3 && num(row, "path_elided"))
			fprintf(out, " \xe2\x86\x92 &hellip; %lld more &hellip;",
			        num(row, "path_elided"));
	}
	fputs("</div>", out);
}

static void holder_parts(FILE *out, const json_t *row)
{
	const json_t *parts = json_object_get(row, "retains"), *p;
	size_t i;

	if (!json_is_array(parts) || !json_array_size(parts))
		return;
	fputs("<div class=\"retains\">retains:", out);
	json_array_foreach(parts, i, p)
	{
		if (i == MAX_PARTS) {
			fprintf(out, ", &hellip; %zu more classes", json_array_size(parts) - i);
			break;
		}
		fprintf(out, "%s %.2f MiB ", i ? "," : "", (double)num(p, "bytes") / MIB);
		esc(out, str(p, "class"));
		fprintf(out, " (%lld)", num(p, "objects"));
	}
	fputs("</div>", out);
}

static void holders_table(FILE *out, const json_t *doc)
{
	const json_t *rows = json_object_get(doc, "top"), *row;
	size_t i;

	fputs("<h2>Top holders</h2>\n<p>The objects a GC root or a static field keeps alive, by "
	      "retained size: what a GC would free if each alone were gone.</p>\n"
	      "<table id=\"holders\">\n<tr><th class=\"n\">#</th><th class=\"n\">retained "
	      "MiB</th><th class=\"n\">shallow B</th><th class=\"n\">objects</th>"
	      "<th>class @ id</th></tr>\n",
	      out);
	json_array_foreach(rows, i, row)
	{
		fprintf(out, "<tr><td class=\"n\">%zu</td>", i + 1);
		mib_cell(out, row, "retained_bytes");
		const json_t *sh = json_object_get(row, "shallow_bytes");
		if (json_is_integer(sh))
			fprintf(out, "<td class=\"n\">%lld</td>",
			        (long long)json_integer_value(sh));
		else
			fputs("<td class=\"n\">n/a</td>", out);
		fprintf(out, "<td class=\"n\">%lld</td><td><code>", num(row, "retained_objects"));
		esc(out, str(row, "class"));
		fprintf(out, "</code> @ 0x%llx", (unsigned long long)num(row, "id"));
		holder_path(out, row);
		holder_parts(out, row);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	more_rows(out, num(doc, "holders") - (long long)json_array_size(rows), "holders", "-n 0",
	          "for all");
}

struct keyed {
	const json_t *o;
	long long key;
};

static int by_key(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return (x->key < y->key) - (x->key > y->key);
}

/* The classes with KEY > 0 (FILTER's value, when FILTER), largest KEY
 * first, at most MAX_ROWS: an array the caller frees, *N its length. */
static struct keyed *sorted(const json_t *classes, const char *key, const char *filter, size_t *n)
{
	struct keyed *k = malloc((json_array_size(classes) + 1) * sizeof(*k));
	const json_t *c;
	size_t i;

	*n = 0;
	if (!k)
		return NULL;
	json_array_foreach(classes, i, c)
	{
		if (filter && num(c, filter) <= 0)
			continue;
		k[*n].o = c;
		k[(*n)++].key = num(c, key);
	}
	qsort(k, *n, sizeof(*k), by_key);
	return k;
}

static void by_class_table(FILE *out, const json_t *doc)
{
	size_t n;
	struct keyed *k =
	    sorted(json_object_get(doc, "classes"), "holders_retained_bytes", "holders", &n);

	fputs("<h2>Holders by class</h2>\n<table id=\"by-class\">\n<tr><th class=\"n\">holders</th>"
	      "<th class=\"n\">retained MiB</th><th class=\"n\">shallow "
	      "MiB</th><th>class</th></tr>\n",
	      out);
	for (size_t i = 0; k && i < n && i < MAX_ROWS; i++) {
		fprintf(out, "<tr><td class=\"n\">%lld</td>", num(k[i].o, "holders"));
		mib_cell(out, k[i].o, "holders_retained_bytes");
		mib_cell(out, k[i].o, "holders_shallow_bytes");
		class_cell(out, k[i].o);
	}
	fputs("</table>\n", out);
	more_rows(out, (long long)n - MAX_ROWS, "classes", "--json", "has them");
	free(k);
}

static void live_table(FILE *out, const json_t *doc)
{
	size_t n;
	struct keyed *k = sorted(json_object_get(doc, "classes"), "live_bytes", NULL, &n);

	fputs(
	    "<h2>Live and unreachable, by class</h2>\n<p>Live: reachable from a GC root. "
	    "Unreachable: what a GC would free.</p>\n<table id=\"live\">\n<tr><th class=\"n\">live"
	    "</th><th class=\"n\">live MiB</th><th class=\"n\">unreachable</th>"
	    "<th class=\"n\">unreachable MiB</th><th>class</th></tr>\n",
	    out);
	for (size_t i = 0; k && i < n && i < MAX_ROWS; i++) {
		fprintf(out, "<tr><td class=\"n\">%lld</td>", num(k[i].o, "live"));
		mib_cell(out, k[i].o, "live_bytes");
		fprintf(out, "<td class=\"n\">%lld</td>", num(k[i].o, "unreachable"));
		mib_cell(out, k[i].o, "unreachable_bytes");
		class_cell(out, k[i].o);
	}
	fputs("</table>\n", out);
	more_rows(out, (long long)n - MAX_ROWS, "classes", "--json", "has them");
	free(k);
}

static void heading(FILE *out, const json_t *doc)
{
	fputs("<title>holders of ", out);
	esc(out, str(doc, "dump"));
	fputs("</title>\n</head>\n<body>\n<h1>What holds the heap of <code>", out);
	esc(out, str(doc, "dump"));
	fputs("</code></h1>\n<p id=\"dump\">", out);
	esc(out, str(doc, "format"));
	fprintf(out,
	        ", %.1f MiB, %lld-byte ids. Objects: %lld, %lld reachable from %lld GC roots "
	        "(%.2f MiB), %lld unreachable (%.2f MiB); %lld references.</p>\n",
	        (double)num(doc, "dump_bytes") / MIB, num(doc, "id_size"), num(doc, "objects"),
	        num(doc, "reachable"), num(doc, "gc_roots"),
	        (double)num(doc, "reachable_bytes") / MIB, num(doc, "unreachable"),
	        (double)num(doc, "unreachable_bytes") / MIB, num(doc, "references"));
}

int tm_holders_print_html(const struct tm_holders *h, const struct tm_hprof_layout *l, FILE *out)
{
	json_t *doc = tm_holders_json(h, l);

	if (!doc)
		return -1;
	fputs(page_head, out);
	heading(out, doc);
	holders_table(out, doc);
	by_class_table(out, doc);
	live_table(out, doc);
	fputs("<p>Made by <code>tidemark hprof holders</code>; docs/hprof.md says what each "
	      "figure means.</p>\n</body>\n</html>\n",
	      out);
	json_decref(doc);
	return ferror(out) ? tm_error("cannot write the HTML holders") : 0;
}
