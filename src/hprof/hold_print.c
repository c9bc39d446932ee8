/* The holders of a dump as text, JSON and CSV; see hprof/holders.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "hprof/holders.h"
#include "hprof/print.h"
#include "base/banned.h"

#define MIB        (1024.0 * 1024.0)
#define U32        TM_HDOM_U32
#define PARTS_TEXT 5 /* classes of a holder's histogram in text */

/* NAME with bytes that are not printable ASCII as \xNN (a dump is data). */
static void put(FILE *out, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (isprint(*p) && *p != '\\')
			fputc(*p, out);
		else
			fprintf(out, "\\x%02x", *p);
	}
}

static const char *cname(const struct tm_holders *h, uint32_t cls, char *buf, size_t len)
{
	return tm_hg_class_name(&h->g, cls, buf, len);
}

static void text_path(const struct tm_holder *o, FILE *out)
{
	fputs("      path: ", out);
	for (size_t j = 0; j < o->n_path; j++) {
		const struct tm_hold_step *s = &o->path[j];
		if (j == 0) {
			put(out, s->via);
			fputs(": ", out);
			put(out, s->label);
		} else {
			fputs(" \xe2\x86\x92 ", out);
			put(out, s->via);
		}
		if (j == 3 && o->path_elided)
			fprintf(out, " \xe2\x86\x92 ... %llu more ...",
			        (unsigned long long)o->path_elided);
	}
	fputc('\n', out);
}

static void text_parts(const struct tm_holders *h, const struct tm_holder *o, FILE *out)
{
	char buf[256];
	if (!o->parts)
		return;
	fputs("      retains:", out);
	for (size_t p = 0; p < o->n_parts && p < PARTS_TEXT; p++) {
		fprintf(out, "%s %.2f MiB ", p ? "," : "", (double)o->parts[p].bytes / MIB);
		put(out, cname(h, o->parts[p].cls, buf, sizeof(buf)));
		fprintf(out, " (%llu)", (unsigned long long)o->parts[p].objects);
	}
	if (o->n_parts > PARTS_TEXT)
		fprintf(out, ", ... %zu more classes", o->n_parts - PARTS_TEXT);
	fputc('\n', out);
}

static void text_rows(const struct tm_holders *h, FILE *out)
{
	char buf[256];
	fprintf(out,
	        "top holders (what a GC root or a static field keeps alive), by retained size:\n");
	fprintf(out, "%3s %13s %12s %10s  %s\n", "#", "retained MiB", "shallow B", "objects",
	        "class @ id");
	for (size_t r = 0; r < h->n_rows; r++) {
		const struct tm_holder *o = &h->rows[r];
		fprintf(out, "%3zu %13.2f ", r + 1, (double)o->retained_bytes / MIB);
		if (o->shallow_bytes < 0)
			fprintf(out, "%12s ", "n/a");
		else
			fprintf(out, "%12lld ", (long long)o->shallow_bytes);
		fprintf(out, "%10llu  ", (unsigned long long)o->retained_objects);
		put(out, cname(h, U32(h->g.cls)[o->node], buf, sizeof(buf)));
		fprintf(out, " @ 0x%llx\n", (unsigned long long)tm_hg_id(&h->g, o->node));
		if (o->path)
			text_path(o, out);
		text_parts(h, o, out);
	}
	if (h->candidates > h->n_rows)
		fprintf(out, "%3s ... %llu more holders (-n 0 for all)\n", "",
		        (unsigned long long)(h->candidates - h->n_rows));
}

/* The classes ordered by KEY (0: holders' retained bytes, 1: live bytes). */
static uint32_t *order(const struct tm_holders *h, int key, uint32_t *n)
{
	uint32_t *ix = malloc(h->g.n_classes * sizeof(*ix));
	*n = 0;
	if (!ix)
		return NULL;
	for (uint32_t c = 0; c < h->g.n_classes; c++) {
		const struct tm_hold_class *k = &h->by_class[c];
		if (key ? k->live + k->dead : k->holders)
			ix[(*n)++] = c;
	}
	for (uint32_t i = 1; i < *n; i++) { /* insertion: the classes are few */
		uint32_t x = ix[i], j = i;
		const struct tm_hold_class *a = &h->by_class[x];
		uint64_t va = key ? a->live_bytes + a->dead_bytes : a->holder_retained;
		while (j > 0) {
			const struct tm_hold_class *b = &h->by_class[ix[j - 1]];
			if ((key ? b->live_bytes + b->dead_bytes : b->holder_retained) >= va)
				break;
			ix[j] = ix[j - 1], j--;
		}
		ix[j] = x;
	}
	return ix;
}

static void text_classes(const struct tm_holders *h, size_t top, FILE *out)
{
	char buf[256];
	uint32_t n, *ix = order(h, 0, &n);
	fprintf(out, "\nholders by class:\n%10s %13s %13s  %s\n", "holders", "retained MiB",
	        "shallow MiB", "class");
	for (uint32_t i = 0; ix && i < n && (!top || i < top); i++) {
		const struct tm_hold_class *c = &h->by_class[ix[i]];
		fprintf(out, "%10llu %13.2f %13.2f  ", (unsigned long long)c->holders,
		        (double)c->holder_retained / MIB, (double)c->holder_shallow / MIB);
		put(out, cname(h, ix[i], buf, sizeof(buf)));
		fputc('\n', out);
	}
	free(ix);
	ix = order(h, 1, &n);
	fprintf(out, "\nlive and unreachable, by class (what a GC would free):\n");
	fprintf(out, "%12s %10s %12s %10s  %s\n", "live", "live MiB", "unreachable", "unr. MiB",
	        "class");
	for (uint32_t i = 0; ix && i < n && (!top || i < top); i++) {
		const struct tm_hold_class *c = &h->by_class[ix[i]];
		bool na = ix[i] == TM_HG_MIRROR;
		fprintf(out, "%12llu ", (unsigned long long)c->live);
		na ? fprintf(out, "%10s ", "n/a")
		   : fprintf(out, "%10.2f ", (double)c->live_bytes / MIB);
		fprintf(out, "%12llu ", (unsigned long long)c->dead);
		na ? fprintf(out, "%10s  ", "n/a")
		   : fprintf(out, "%10.2f  ", (double)c->dead_bytes / MIB);
		put(out, cname(h, ix[i], buf, sizeof(buf)));
		fputc('\n', out);
	}
	if (ix && top && n > top)
		fprintf(out, "%12s ... %u more classes (-n 0 for all)\n", "", n - (uint32_t)top);
	free(ix);
}

void tm_holders_print_text(const struct tm_holders *h, const struct tm_hprof_layout *l, size_t top,
                           FILE *out)
{
	const struct tm_hgraph *g = &h->g;
	fputs(g->origin, out);
	fprintf(out, ": %s, %.1f MiB, %u-byte ids; layout: %s oops, %s class pointers\n", g->format,
	        (double)g->dump_bytes / MIB, g->id, l->compressed_oops ? "compressed" : "full",
	        l->compressed_class_pointers ? "compressed" : "full");
	fprintf(out,
	        "objects: %u, %u reachable from %llu GC roots (%.2f MiB), %llu unreachable "
	        "(%.2f MiB); %llu references\n",
	        g->n, h->d.n_live - 1, (unsigned long long)g->roots, (double)h->live_bytes / MIB,
	        (unsigned long long)h->dead_objects, (double)h->dead_bytes / MIB,
	        (unsigned long long)(g->edges - g->roots));
	text_rows(h, out);
	text_classes(h, top, out);
	fprintf(out, "\nretained sizes leave out java.lang.Class mirrors (their size is not in the "
	             "dump: n/a); they count as retained objects\n");
	if (g->dangling || g->unlaid || g->names_dropped)
		fprintf(out,
		        "%llu references to ids the dump does not hold (ignored), %llu instances "
		        "of classes it does not lay out (their references not read), %llu names "
		        "not kept\n",
		        (unsigned long long)g->dangling, (unsigned long long)g->unlaid,
		        (unsigned long long)g->names_dropped);
	fprintf(out, "temporary disk: %.1f MiB at the peak\n", (double)g->pool.bytes_peak / MIB);
}

static json_t *jclass(const struct tm_holders *h, uint32_t cls)
{
	char buf[256];
	return tm_hprof_name_json(cname(h, cls, buf, sizeof(buf)));
}

static json_t *json_holder(const struct tm_holders *h, const struct tm_holder *o)
{
	json_t *path = o->path ? json_array() : json_null();
	for (size_t j = 0; o->path && j < o->n_path; j++)
		json_array_append_new(path,
		                      json_pack("{s:I, s:o, s:o}", "id", (json_int_t)o->path[j].id,
		                                "object", tm_hprof_name_json(o->path[j].label),
		                                "via", tm_hprof_name_json(o->path[j].via)));
	json_t *parts = o->parts ? json_array() : json_null();
	for (size_t p = 0; o->parts && p < o->n_parts; p++)
		json_array_append_new(parts, json_pack("{s:o, s:I, s:I}", "class",
		                                       jclass(h, o->parts[p].cls), "objects",
		                                       (json_int_t)o->parts[p].objects, "bytes",
		                                       (json_int_t)o->parts[p].bytes));
	return json_pack("{s:I, s:o, s:I, s:o, s:I, s:o, s:I, s:o}", "id",
	                 (json_int_t)tm_hg_id(&h->g, o->node), "class",
	                 jclass(h, U32(h->g.cls)[o->node]), "retained_bytes",
	                 (json_int_t)o->retained_bytes, "shallow_bytes",
	                 o->shallow_bytes < 0 ? json_null() : json_integer(o->shallow_bytes),
	                 "retained_objects", (json_int_t)o->retained_objects, "path", path,
	                 "path_elided", (json_int_t)o->path_elided, "retains", parts);
}

static json_t *json_classes(const struct tm_holders *h)
{
	json_t *a = json_array();
	for (uint32_t c = 0; a && c < h->g.n_classes; c++) {
		const struct tm_hold_class *k = &h->by_class[c];
		if (!k->live && !k->dead)
			continue;
		bool na = c == TM_HG_MIRROR;
		json_array_append_new(
		    a, json_pack("{s:o, s:I, s:o, s:I, s:o, s:I, s:I, s:I}", "class", jclass(h, c),
		                 "live", (json_int_t)k->live, "live_bytes",
		                 na ? json_null() : json_integer((json_int_t)k->live_bytes),
		                 "unreachable", (json_int_t)k->dead, "unreachable_bytes",
		                 na ? json_null() : json_integer((json_int_t)k->dead_bytes),
		                 "holders", (json_int_t)k->holders, "holders_retained_bytes",
		                 (json_int_t)k->holder_retained, "holders_shallow_bytes",
		                 (json_int_t)k->holder_shallow));
	}
	return a;
}

json_t *tm_holders_json(const struct tm_holders *h, const struct tm_hprof_layout *l)
{
	const struct tm_hgraph *g = &h->g;
	json_t *rows = json_array();
	for (size_t r = 0; rows && r < h->n_rows; r++)
		json_array_append_new(rows, json_holder(h, &h->rows[r]));
	json_t *o = json_pack(
	    "{s:o, s:s, s:i, s:I, s:{s:b, s:b}, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
	    "dump", tm_hprof_name_json(g->origin), "format", g->format, "id_size", (int)g->id,
	    "dump_bytes", (json_int_t)g->dump_bytes, "layout", "compressed_oops",
	    l->compressed_oops, "compressed_class_pointers", l->compressed_class_pointers,
	    "objects", (json_int_t)g->n, "reachable", (json_int_t)(h->d.n_live - 1), "unreachable",
	    (json_int_t)h->dead_objects, "reachable_bytes", (json_int_t)h->live_bytes,
	    "unreachable_bytes", (json_int_t)h->dead_bytes, "references",
	    (json_int_t)(g->edges - g->roots), "gc_roots", (json_int_t)g->roots, "holders",
	    (json_int_t)h->candidates, "top", rows, "classes", json_classes(h));
	if (!o) {
		tm_error("out of memory for the JSON holders");
		return NULL;
	}
	json_object_set_new(o, "dangling_references", json_integer((json_int_t)g->dangling));
	json_object_set_new(o, "unlaid_instances", json_integer((json_int_t)g->unlaid));
	json_object_set_new(o, "names_dropped", json_integer((json_int_t)g->names_dropped));
	json_object_set_new(o, "temp_disk_peak_bytes",
	                    json_integer((json_int_t)g->pool.bytes_peak));
	return o;
}

int tm_holders_print_json(const struct tm_holders *h, const struct tm_hprof_layout *l, FILE *out)
{
	json_t *o = tm_holders_json(h, l);
	if (!o)
		return -1;
	int rc = json_dumpf(o, out, JSON_INDENT(1)) ? tm_error("cannot write the holders") : 0;
	fputc('\n', out);
	json_decref(o);
	return rc;
}

void tm_holders_print_csv(const struct tm_holders *h, FILE *out)
{
	char buf[256];
	const uint32_t *vertex = U32(h->d.vertex), *idom = U32(h->d.idom);
	const uint32_t *cls = U32(h->g.cls), *size = U32(h->g.size), *cnt = U32(h->d.cnt);
	const uint64_t *ret = TM_HDOM_U64(h->d.ret);
	fputs("id,class,shallow_bytes,retained_bytes,retained_objects,dominator\n", out);
	for (uint32_t i = 1; i < h->d.n_live; i++) {
		uint32_t v = vertex[i];
		fprintf(out, "%llu,\"", (unsigned long long)tm_hg_id(&h->g, v));
		for (const char *p = cname(h, cls[v], buf, sizeof(buf)); *p; p++)
			fprintf(out, *p == '"' ? "\"\"" : "%c", *p);
		fputs("\",", out);
		if (size[v] != TM_HG_NONE)
			fprintf(out, "%llu", 8ull * size[v]);
		fprintf(out, ",%llu,%u,", (unsigned long long)ret[i], cnt[i]);
		if (idom[i])
			fprintf(out, "%llu", (unsigned long long)tm_hg_id(&h->g, vertex[idom[i]]));
		fputc('\n', out);
	}
}
