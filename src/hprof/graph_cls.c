/* The classes, strings and object index of a dump's graph; see hprof/graph.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "hprof/graph.h"
#include "base/banned.h"

/* Bounds whatever the dump says (docs/hprof.md): strings are only looked
 * up as class and field names. */
#define NAME_KEEP_BYTES 1024
#define TEXT_MAX_BYTES  (32u << 20)
#define STRINGS_MAX     (1u << 20)
#define CLASSES_MAX     (1u << 20)
#define FIELDS_MAX      (8u << 20)
#define REFS_MAX        (16u << 20) /* reference fields over all classes' chains */
#define BUCKETS         (1u << 16)

#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

static const unsigned prim_bytes[12] = {
    [4] = 1, [5] = 2, [6] = 4, [7] = 8, [8] = 1, [9] = 2, [10] = 4, [11] = 8};

static int grow(void **p, uint64_t *cap, uint64_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint64_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, c * elem);
	if (!q)
		return tm_error("out of memory for the dump's classes and names");
	*p = q;
	*cap = c;
	return 0;
}

uint32_t tm_hg_class_of(struct tm_hgraph *g, uint64_t id)
{
	uint32_t ix;
	if (tm_idmap_get(&g->class_ix, id, &ix))
		return ix;
	if (g->n_classes >= CLASSES_MAX) {
		tm_error("'%s' names more than %u classes: not read further", g->origin,
		         CLASSES_MAX);
		return TM_HG_NONE;
	}
	uint64_t cap = g->cap_classes;
	if (grow((void **)&g->classes, &cap, g->n_classes + 1, sizeof(*g->classes)))
		return TM_HG_NONE;
	g->cap_classes = (uint32_t)cap;
	if (tm_idmap_put(&g->class_ix, id, g->n_classes)) {
		tm_error("out of memory for the dump's classes");
		return TM_HG_NONE;
	}
	struct tm_hg_class *c = &g->classes[g->n_classes];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->size = -1;
	return g->n_classes++;
}

int tm_hg_add_field(struct tm_hgraph *g, uint32_t cls, uint64_t sid, uint8_t type)
{
	if (g->n_fields >= FIELDS_MAX)
		return tm_error("'%s' declares more than %u fields: not read further", g->origin,
		                FIELDS_MAX);
	uint64_t cap = g->cap_fields;
	if (grow((void **)&g->fields, &cap, g->n_fields + 1, sizeof(*g->fields)))
		return -1;
	g->cap_fields = (uint32_t)cap;
	g->fields[g->n_fields++] = (struct tm_hg_field){.name_sid = sid, .cls = cls, .type = type};
	return 0;
}

int tm_hg_keep_string(struct tm_hgraph *g, struct tm_hp_in *in, uint64_t sid, uint64_t len)
{
	size_t keep = len < NAME_KEEP_BYTES ? (size_t)len : NAME_KEEP_BYTES;
	if (g->text_used + keep + 1 > TEXT_MAX_BYTES || g->n_strs >= STRINGS_MAX) {
		g->names_dropped++;
		return tm_hp_skip(in, len, "a UTF8 record");
	}
	uint64_t cap = g->text_cap, scap = g->cap_strs;
	if (grow((void **)&g->text, &cap, g->text_used + keep + 1, 1) ||
	    grow((void **)&g->str_off, &scap, g->n_strs + 1, sizeof(*g->str_off)))
		return -1;
	g->text_cap = cap, g->cap_strs = scap;
	if (tm_hp_copy(in, g->text + g->text_used, keep, "a UTF8 record") ||
	    tm_hp_skip(in, len - keep, "a UTF8 record"))
		return -1;
	if (tm_idmap_put(&g->str_ix, sid, (uint32_t)g->n_strs))
		return tm_error("out of memory for the dump's strings");
	g->str_off[g->n_strs++] = g->text_used;
	g->text_used += keep;
	g->text[g->text_used++] = 0;
	return 0;
}

const char *tm_hg_string(const struct tm_hgraph *g, uint64_t sid)
{
	uint32_t ix;
	return tm_idmap_get(&g->str_ix, sid, &ix) ? g->text + g->str_off[ix] : NULL;
}

const char *tm_hg_class_name(const struct tm_hgraph *g, uint32_t cls, char *buf, size_t len)
{
	static const char *const prim[12] = {[4] = "[Z", [5] = "[C", [6] = "[F",  [7] = "[D",
	                                     [8] = "[B", [9] = "[S", [10] = "[I", [11] = "[J"};
	const char *name = NULL;
	if (cls < 12)
		name = prim[cls];
	else if (cls == TM_HG_MIRROR)
		name = "java.lang.Class";
	else if (cls < g->n_classes)
		name = tm_hg_string(g, g->classes[cls].name_sid);
	if (!name)
		snprintf(buf, len, "<class 0x%llx>",
		         cls < g->n_classes ? (unsigned long long)g->classes[cls].id : 0ULL);
	else
		snprintf(buf, len, "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '.';
	return buf;
}

/* The chain of CLS from itself up; its length, 0 when a class of it was
 * not dumped (or it is too deep or loops). */
static size_t chain_of(const struct tm_hgraph *g, uint32_t cls, uint32_t *chain, size_t max)
{
	size_t n = 0;
	while (cls != TM_HG_NONE) {
		const struct tm_hg_class *c = &g->classes[cls];
		if (!c->dumped || n == max)
			return 0;
		chain[n++] = cls;
		uint32_t up = TM_HG_NONE;
		if (c->super_id && !tm_idmap_get(&g->class_ix, c->super_id, &up))
			return 0;
		cls = up;
	}
	return n;
}

static unsigned dump_size(const struct tm_hgraph *g, uint8_t type)
{
	return type == 2 ? g->id : type < 12 ? prim_bytes[type] : 0;
}

/* Class CLS's size and its chain's reference fields (appended to refs[]). */
static int lay_out_one(struct tm_hgraph *g, uint32_t cls, uint64_t *cap_refs)
{
	uint32_t chain[64];
	struct tm_hg_class *c = &g->classes[cls];
	size_t n = chain_of(g, cls, chain, 64);
	if (!n)
		return 0;
	uint64_t dump_at = 0, jvm_at = g->sz.header;
	c->ref0 = g->n_refs;
	for (size_t k = 0; k < n; k++) { /* the dump: own fields first, then up */
		const struct tm_hg_class *d = &g->classes[chain[k]];
		for (uint32_t f = d->field0; f < d->field0 + d->n_fields; f++) {
			if (g->fields[f].type == 2) {
				if (g->n_refs >= REFS_MAX)
					return tm_error("'%s': its classes declare more than %u "
					                "reference fields, their superclasses' "
					                "counted in each: not read further",
					                g->origin, REFS_MAX);
				if (grow((void **)&g->refs, cap_refs, g->n_refs + 1,
				         sizeof(*g->refs)))
					return -1;
				g->refs[g->n_refs] = g->fields[f];
				g->refs[g->n_refs++].at = (uint32_t)dump_at;
			}
			dump_at += dump_size(g, g->fields[f].type);
		}
	}
	for (size_t k = n; k-- > 0;) { /* the JVM: from the top of the chain down */
		const struct tm_hg_class *d = &g->classes[chain[k]];
		for (uint32_t f = d->field0; f < d->field0 + d->n_fields; f++)
			jvm_at +=
			    g->fields[f].type == 2 ? g->sz.ref : prim_bytes[g->fields[f].type];
		jvm_at = tm_hprof_class_end(tm_hg_string(g, d->name_sid), g->id, g->sz.ref, jvm_at);
	}
	c->n_refs = g->n_refs - c->ref0;
	c->dump_bytes = dump_at;
	c->size = (int64_t)ALIGN8(jvm_at);
	c->laid_out = true;
	return 0;
}

int tm_hg_lay_out(struct tm_hgraph *g)
{
	uint64_t cap = 0;
	for (uint32_t i = TM_HG_FIRST_CLASS; i < g->n_classes; i++)
		if (lay_out_one(g, i, &cap))
			return -1;
	return 0;
}

/* ---- the object index: ids sorted, with a bucket table over them ---- */

static void swap(struct tm_hg_idix *a, struct tm_hg_idix *b)
{
	struct tm_hg_idix t = *a;
	*a = *b;
	*b = t;
}

/* In place (the array is a mapped file: no scratch memory), by id. */
static void sort_ids(struct tm_hg_idix *a, uint64_t n)
{
	while (n > 16) {
		uint64_t m = n / 2;
		if (a[m].id < a[0].id)
			swap(&a[m], &a[0]);
		if (a[n - 1].id < a[0].id)
			swap(&a[n - 1], &a[0]);
		if (a[n - 1].id < a[m].id)
			swap(&a[n - 1], &a[m]);
		uint64_t pivot = a[m].id, i = 0, j = n - 1;
		for (;;) {
			while (a[i].id < pivot)
				i++;
			while (a[j].id > pivot)
				j--;
			if (i >= j)
				break;
			swap(&a[i++], &a[j--]);
		}
		/* recurse into the smaller side, loop on the larger */
		if (j + 1 < n - j - 1) {
			sort_ids(a, j + 1);
			a += j + 1, n -= j + 1;
		} else {
			sort_ids(a + j + 1, n - j - 1);
			n = j + 1;
		}
	}
	for (uint64_t i = 1; i < n; i++)
		for (uint64_t k = i; k > 0 && a[k].id < a[k - 1].id; k--)
			swap(&a[k], &a[k - 1]);
}

int tm_hg_index_ids(struct tm_hgraph *g)
{
	struct tm_hg_idix *a = g->ids.map;
	if (!g->n)
		return 0;
	sort_ids(a, g->n);
	g->id_min = a[0].id;
	uint64_t span = a[g->n - 1].id - g->id_min;
	g->id_shift = 0;
	while ((span >> g->id_shift) >= BUCKETS)
		g->id_shift++;
	if (!(g->bucket_lo = malloc((BUCKETS + 1) * sizeof(*g->bucket_lo))))
		return tm_error("out of memory for the object index");
	uint32_t i = 0;
	for (uint32_t b = 0; b <= BUCKETS; b++) {
		while (i < g->n && ((a[i].id - g->id_min) >> g->id_shift) < b)
			i++;
		g->bucket_lo[b] = i;
	}
	return 0;
}

uint32_t tm_hg_lookup(const struct tm_hgraph *g, uint64_t id)
{
	const struct tm_hg_idix *a = g->ids.map;
	if (!g->n || id < g->id_min || ((id - g->id_min) >> g->id_shift) >= BUCKETS)
		return TM_HG_NONE;
	uint64_t b = (id - g->id_min) >> g->id_shift;
	uint32_t lo = g->bucket_lo[b], hi = g->bucket_lo[b + 1];
	while (lo < hi) {
		uint32_t m = lo + (hi - lo) / 2;
		if (a[m].id < id)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < g->n && a[lo].id == id ? a[lo].ix : TM_HG_NONE;
}
