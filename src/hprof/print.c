/* The class histogram as text, JSON and CSV; see hprof/print.h. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "hprof/print.h"
#include "base/banned.h"

/* NAME with bytes that are not printable ASCII as \xNN: a dump's strings
 * are data, and must not drive the terminal. */
static void put_name(FILE *out, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (isprint(*p) && *p != '\\')
			fputc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
}

static size_t shown(const struct tm_hprof_histogram *h, size_t top)
{
	return top && top < h->n_rows ? top : h->n_rows;
}

void tm_hprof_print_text(const struct tm_hprof_histogram *h, const struct tm_hprof_layout *l,
                         const char *origin, size_t top, FILE *out)
{
	fprintf(out, "%s: %s, %.1f MiB, %u-byte ids; layout: %s oops, %s class pointers\n", origin,
	        h->format, (double)h->dump_bytes / (1024.0 * 1024.0), h->id_size,
	        l->compressed_oops ? "compressed" : "full",
	        l->compressed_class_pointers ? "compressed" : "full");
	if (h->partial)
		fprintf(out,
		        "PARTIAL: the dump is cut short after %llu bytes; these are the "
		        "records before the cut\n",
		        (unsigned long long)h->dump_bytes);
	fprintf(out, "%12s %12s %7s  %s\n", "instances", "shallow MiB", "share", "class");
	bool unknown = false;
	for (size_t i = 0; i < shown(h, top); i++) {
		const struct tm_hprof_row *r = &h->rows[i];
		fprintf(out, "%12llu ", (unsigned long long)r->instances);
		if (r->shallow_bytes < 0) {
			fprintf(out, "%12s %7s  ", "n/a", "");
			unknown = true;
		} else {
			fprintf(out, "%12.2f %6.1f%%  ",
			        (double)r->shallow_bytes / (1024.0 * 1024.0),
			        h->shallow_bytes
			            ? 100.0 * (double)r->shallow_bytes / (double)h->shallow_bytes
			            : 0.0);
		}
		put_name(out, r->name);
		fputc('\n', out);
	}
	if (shown(h, top) < h->n_rows)
		fprintf(out, "%12s  ... %zu more classes (-n 0 for all)\n", "",
		        h->n_rows - shown(h, top));
	fprintf(out, "total: %llu instances, %.2f MiB shallow, in %zu classes\n",
	        (unsigned long long)h->instances, (double)h->shallow_bytes / (1024.0 * 1024.0),
	        h->n_rows);
	if (h->names_dropped)
		fprintf(out,
		        "%llu strings of the dump were not kept (over tidemark's bound): classes "
		        "they named show as <class 0x...>\n",
		        (unsigned long long)h->names_dropped);
	if (unknown)
		fprintf(out,
		        "java.lang.Class: the classes the dump describes; their mirrors' size "
		        "is not in the dump (n/a, not in the total), and the JVM may hold more "
		        "mirrors than it dumps (a CDS archive's)\n");
}

json_t *tm_hprof_name_json(const char *name)
{
	json_t *j = json_string(name);
	if (j)
		return j;
	char buf[1024];
	size_t used = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p && used + 5 < sizeof(buf);
	     p++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
		                         *p < 0x80 && isprint(*p) ? "%c" : "\\x%02x", *p);
	return json_string(buf);
}

int tm_hprof_print_json(const struct tm_hprof_histogram *h, const struct tm_hprof_layout *l,
                        const char *origin, size_t top, FILE *out)
{
	json_t *rows = json_array();
	for (size_t i = 0; rows && i < shown(h, top); i++) {
		const struct tm_hprof_row *r = &h->rows[i];
		json_array_append_new(
		    rows,
		    json_pack("{s:o, s:I, s:o}", "class", tm_hprof_name_json(r->name), "instances",
		              (json_int_t)r->instances, "shallow_bytes",
		              r->shallow_bytes < 0 ? json_null() : json_integer(r->shallow_bytes)));
	}
	json_t *o =
	    json_pack("{s:o, s:s, s:i, s:I, s:{s:b, s:b}, s:I, s:I, s:I, s:o}", "dump",
	              tm_hprof_name_json(origin), "format", h->format, "id_size", (int)h->id_size,
	              "dump_bytes", (json_int_t)h->dump_bytes, "layout", "compressed_oops",
	              l->compressed_oops, "compressed_class_pointers", l->compressed_class_pointers,
	              "classes", (json_int_t)h->n_rows, "instances", (json_int_t)h->instances,
	              "shallow_bytes", (json_int_t)h->shallow_bytes, "rows", rows);
	if (!o)
		return tm_error("out of memory for the JSON histogram");
	json_object_set_new(o, "partial", json_boolean(h->partial));
	json_object_set_new(o, "names_dropped", json_integer((json_int_t)h->names_dropped));
	int rc = json_dumpf(o, out, JSON_INDENT(1)) ? tm_error("cannot write the histogram") : 0;
	fputc('\n', out);
	json_decref(o);
	return rc;
}

void tm_hprof_print_csv(const struct tm_hprof_histogram *h, size_t top, FILE *out)
{
	fputs("class,instances,shallow_bytes\n", out);
	for (size_t i = 0; i < shown(h, top); i++) {
		const struct tm_hprof_row *r = &h->rows[i];
		fputc('"', out);
		for (const char *p = r->name; *p; p++) {
			if (*p == '"')
				fputc('"', out);
			fputc(*p, out);
		}
		fprintf(out, "\",%llu,", (unsigned long long)r->instances);
		if (r->shallow_bytes >= 0)
			fprintf(out, "%lld", (long long)r->shallow_bytes);
		fputc('\n', out);
	}
}
