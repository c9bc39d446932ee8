/* HPROF heap dumps into a class histogram; see hprof/hprof.h and docs/hprof.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "hprof/hprof.h"
#include "hprof/idmap.h"
#include "base/banned.h"

/* Top-level record tags and heap-dump sub-record tags (docs/hprof.md). */
enum {
	TAG_UTF8 = 0x01,
	TAG_LOAD_CLASS = 0x02,
	TAG_HEAP_DUMP = 0x0c,
	TAG_HEAP_DUMP_SEGMENT = 0x1c,
	TAG_HEAP_DUMP_END = 0x2c,
	SUB_CLASS_DUMP = 0x20,
	SUB_INSTANCE_DUMP = 0x21,
	SUB_OBJ_ARRAY_DUMP = 0x22,
	SUB_PRIM_ARRAY_DUMP = 0x23,
};

/* Basic types 2 (object) and 4..11. */
#define TYPE_OBJECT 2
#define N_TYPES     12
static const char *const prim_array_name[N_TYPES] = {
    [4] = "[Z", [5] = "[C", [6] = "[F",  [7] = "[D",
    [8] = "[B", [9] = "[S", [10] = "[I", [11] = "[J",
};
static const unsigned prim_bytes[N_TYPES] = {
    [4] = 1, [5] = 2, [6] = 4, [7] = 8, [8] = 1, [9] = 2, [10] = 4, [11] = 8};

struct cls {
	uint64_t id, super_id, name_sid;
	uint64_t own_field_bytes; /* in the JVM's layout, not the dump's */
	uint64_t instances;       /* instance dumps */
	uint64_t arrays, array_bytes;
	bool dumped; /* a CLASS DUMP was seen */
};

struct str {
	size_t off;
	uint32_t len;
};

struct hp {
	struct tm_hp_in *in;
	unsigned id;                      /* identifier size */
	unsigned ref, header, array_base; /* layout, in bytes */
	struct tm_idmap class_ix, str_ix;
	struct cls *cls;
	size_t n_cls, cap_cls;
	struct str *strs;
	size_t n_strs, cap_strs;
	size_t cap_rows;
	char *text;
	size_t text_used, text_cap;
	uint64_t prim_n[N_TYPES], prim_b[N_TYPES];
	uint64_t class_dumps;
	bool heap_complete; /* a HEAP DUMP record, or HEAP DUMP END after segments */
	struct tm_hprof_histogram *out;
};

#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

/* What one dump may make us hold, whatever it says: the first bytes of each
 * string (only class names are ever looked up, and none is this long), at
 * most this many strings' bytes in all (later strings are not kept: their
 * classes are named by id, and the output says how many), at most this
 * many classes. */
#define NAME_KEEP_BYTES 4096
#define TEXT_MAX_BYTES  (256u << 20)
#define CLASSES_MAX     (8u << 20)
#define STRINGS_MAX     (32u << 20)

void tm_hprof_layout_default(struct tm_hprof_layout *l)
{
	l->compressed_oops = true;
	l->compressed_class_pointers = true;
}

static int bad(struct hp *h, uint64_t off, const char *what)
{
	return tm_error("'%s' is not a valid HPROF dump: %s at offset %llu", h->in->origin, what,
	                (unsigned long long)off);
}

/* The size in the JVM of a field or array element of basic TYPE; 0 if TYPE is not one. */
static unsigned jvm_size(const struct hp *h, unsigned type)
{
	if (type == TYPE_OBJECT)
		return h->ref;
	return type < N_TYPES ? prim_bytes[type] : 0;
}

/* The size in the dump of a value of TYPE; 0 if TYPE is not one. */
static unsigned dump_size(const struct hp *h, unsigned type)
{
	if (type == TYPE_OBJECT)
		return h->id;
	return type < N_TYPES ? prim_bytes[type] : 0;
}

static struct cls *class_of(struct hp *h, uint64_t id)
{
	uint32_t ix;
	if (tm_idmap_get(&h->class_ix, id, &ix))
		return &h->cls[ix];
	if (h->n_cls >= CLASSES_MAX) {
		tm_error("'%s' names more than %u classes: not read further", h->in->origin,
		         CLASSES_MAX);
		return NULL;
	}
	if (h->n_cls == h->cap_cls) {
		size_t cap = h->cap_cls ? 2 * h->cap_cls : 1024;
		struct cls *c = realloc(h->cls, cap * sizeof(*c));
		if (!c) {
			tm_error("out of memory for the dump's classes");
			return NULL;
		}
		h->cls = c;
		h->cap_cls = cap;
	}
	if (tm_idmap_put(&h->class_ix, id, (uint32_t)h->n_cls)) {
		tm_error("out of memory for the dump's classes");
		return NULL;
	}
	struct cls *c = &h->cls[h->n_cls++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	return c;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t cap2 = *cap ? *cap : 1024;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(p, cap2 * elem);
	if (q)
		*cap = cap2;
	return q;
}

/* Appends N bytes of the dump to the string arena, growing it only as the
 * bytes arrive (a record claiming 4 GiB in a short file allocates little). */
static int copy_text(struct hp *h, size_t n)
{
	while (n > 0) {
		size_t step = n < 65536 ? n : 65536;
		char *t = grow(h->text, &h->text_cap, h->text_used + step + 1, 1);
		if (!t)
			return tm_error("out of memory for the dump's strings");
		h->text = t;
		if (tm_hp_copy(h->in, h->text + h->text_used, step, "a UTF8 record"))
			return -1;
		h->text_used += step;
		n -= step;
	}
	return 0;
}

/* UTF8: an id and the string's bytes (not NUL-terminated in the dump).
 * Only its first NAME_KEEP_BYTES are kept, and none once TEXT_MAX_BYTES or
 * STRINGS_MAX are reached (counted in names_dropped). */
static int rec_utf8(struct hp *h, uint64_t len)
{
	uint64_t at = tm_hp_off(h->in);
	if (len < h->id || len - h->id > UINT32_MAX)
		return bad(h, at, "a UTF8 record of impossible length");
	if (tm_hp_need(h->in, h->id, "a UTF8 record"))
		return -1;
	uint64_t sid = tm_hp_id(h->in, h->id);
	uint64_t n = len - h->id;
	size_t keep = n < NAME_KEEP_BYTES ? (size_t)n : NAME_KEEP_BYTES;
	if (h->text_used + keep + 1 > TEXT_MAX_BYTES || h->n_strs >= STRINGS_MAX) {
		h->out->names_dropped++;
		return tm_hp_skip(h->in, n, "a UTF8 record");
	}
	size_t start = h->text_used;
	struct str *s = grow(h->strs, &h->cap_strs, h->n_strs + 1, sizeof(*s));
	if (!s)
		return tm_error("out of memory for the dump's strings");
	h->strs = s;
	if (copy_text(h, keep) || tm_hp_skip(h->in, n - keep, "a UTF8 record"))
		return -1;
	char *t = grow(h->text, &h->text_cap, h->text_used + 1, 1);
	if (!t || tm_idmap_put(&h->str_ix, sid, (uint32_t)h->n_strs))
		return tm_error("out of memory for the dump's strings");
	h->text = t;
	h->strs[h->n_strs++] = (struct str){start, (uint32_t)keep};
	h->text[h->text_used++] = 0;
	return 0;
}

static int rec_load_class(struct hp *h, uint64_t len)
{
	uint64_t at = tm_hp_off(h->in);
	if (len != 8 + 2 * (uint64_t)h->id)
		return bad(h, at, "a LOAD CLASS record of the wrong length");
	if (tm_hp_need(h->in, (size_t)len, "a LOAD CLASS record"))
		return -1;
	tm_hp_u4(h->in); /* class serial */
	uint64_t id = tm_hp_id(h->in, h->id);
	tm_hp_u4(h->in); /* stack trace serial */
	uint64_t name = tm_hp_id(h->in, h->id);
	struct cls *c = class_of(h, id);
	if (!c)
		return -1; /* said by class_of */
	c->name_sid = name;
	return 0;
}

/* N values of TYPE (u2 index or an id first, per ENTRY_HEAD bytes) in a CLASS DUMP. */
static int skip_values(struct hp *h, unsigned n, unsigned head, bool with_value)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = tm_hp_off(h->in);
		if (tm_hp_need(h->in, head + 1, "a CLASS DUMP"))
			return -1;
		h->in->pos += head;
		unsigned type = tm_hp_u1(h->in), sz = dump_size(h, type);
		if (!sz)
			return bad(h, at, "an unknown basic type");
		if (with_value && tm_hp_skip(h->in, sz, "a CLASS DUMP"))
			return -1;
	}
	return 0;
}

static int sub_class_dump(struct hp *h)
{
	size_t fixed = 7 * h->id + 8;
	if (tm_hp_need(h->in, fixed, "a CLASS DUMP"))
		return -1;
	uint64_t id = tm_hp_id(h->in, h->id);
	tm_hp_u4(h->in);
	uint64_t super = tm_hp_id(h->in, h->id);
	h->in->pos += 5 * h->id; /* loader, signers, protection domain, 2 reserved */
	tm_hp_u4(h->in);         /* instance size in the dump's units: not the JVM's */
	struct cls *c = class_of(h, id);
	if (!c)
		return -1; /* said by class_of */
	c->super_id = super;
	c->dumped = true;
	h->class_dumps++;
	if (tm_hp_need(h->in, 2, "a CLASS DUMP"))
		return -1;
	if (skip_values(h, tm_hp_u2(h->in), 2, true)) /* constant pool */
		return -1;
	if (tm_hp_need(h->in, 2, "a CLASS DUMP"))
		return -1;
	if (skip_values(h, tm_hp_u2(h->in), h->id, true)) /* statics */
		return -1;
	if (tm_hp_need(h->in, 2, "a CLASS DUMP"))
		return -1;
	unsigned nf = tm_hp_u2(h->in);
	c->own_field_bytes = 0;
	for (unsigned i = 0; i < nf; i++) {
		uint64_t at = tm_hp_off(h->in);
		if (tm_hp_need(h->in, h->id + 1, "a CLASS DUMP"))
			return -1;
		h->in->pos += h->id;
		unsigned sz = jvm_size(h, tm_hp_u1(h->in));
		if (!sz)
			return bad(h, at, "an unknown field type");
		c->own_field_bytes += sz;
	}
	return 0;
}

static int sub_instance(struct hp *h)
{
	if (tm_hp_need(h->in, 2 * h->id + 8, "an INSTANCE DUMP"))
		return -1;
	tm_hp_id(h->in, h->id);
	tm_hp_u4(h->in);
	struct cls *c = class_of(h, tm_hp_id(h->in, h->id));
	if (!c)
		return -1; /* said by class_of */
	c->instances++;
	return tm_hp_skip(h->in, tm_hp_u4(h->in), "an INSTANCE DUMP");
}

static int sub_obj_array(struct hp *h)
{
	if (tm_hp_need(h->in, 2 * h->id + 8, "an OBJECT ARRAY DUMP"))
		return -1;
	tm_hp_id(h->in, h->id);
	tm_hp_u4(h->in);
	uint64_t n = tm_hp_u4(h->in);
	struct cls *c = class_of(h, tm_hp_id(h->in, h->id));
	if (!c)
		return -1; /* said by class_of */
	c->arrays++;
	c->array_bytes += ALIGN8(h->array_base + n * h->ref);
	return tm_hp_skip(h->in, n * h->id, "an OBJECT ARRAY DUMP");
}

static int sub_prim_array(struct hp *h)
{
	uint64_t at = tm_hp_off(h->in);
	if (tm_hp_need(h->in, h->id + 9, "a PRIMITIVE ARRAY DUMP"))
		return -1;
	tm_hp_id(h->in, h->id);
	tm_hp_u4(h->in);
	uint64_t n = tm_hp_u4(h->in);
	unsigned type = tm_hp_u1(h->in);
	if (type == TYPE_OBJECT || !jvm_size(h, type))
		return bad(h, at, "a primitive array of an unknown type");
	h->prim_n[type]++;
	h->prim_b[type] += ALIGN8(h->array_base + n * prim_bytes[type]);
	return tm_hp_skip(h->in, n * prim_bytes[type], "a PRIMITIVE ARRAY DUMP");
}

/* Roots: an id and this many more bytes (-1: not a root tag). */
static int root_extra(unsigned tag, unsigned id)
{
	switch (tag) {
	case 0xff: /* unknown */
	case 0x05: /* sticky class */
	case 0x07: /* monitor used */
		return 0;
	case 0x01: /* JNI global: object and global ref ids */
		return (int)id;
	case 0x04: /* native stack: thread serial */
	case 0x06: /* thread block */
		return 4;
	case 0x02: /* JNI local, java frame, thread object: two u4 */
	case 0x03:
	case 0x08:
		return 8;
	}
	return -1;
}

static int sub_record(struct hp *h, unsigned tag, uint64_t at)
{
	switch (tag) {
	case SUB_CLASS_DUMP:
		return sub_class_dump(h);
	case SUB_INSTANCE_DUMP:
		return sub_instance(h);
	case SUB_OBJ_ARRAY_DUMP:
		return sub_obj_array(h);
	case SUB_PRIM_ARRAY_DUMP:
		return sub_prim_array(h);
	}
	int extra = root_extra(tag, h->id);
	if (extra < 0) {
		char what[64];
		snprintf(what, sizeof(what), "an unknown heap sub-record 0x%02x", tag);
		return bad(h, at, what);
	}
	return tm_hp_skip(h->in, h->id + (unsigned)extra, "a GC root");
}

static int rec_heap(struct hp *h, uint64_t len)
{
	uint64_t end = tm_hp_off(h->in) + len;
	while (tm_hp_off(h->in) < end) {
		uint64_t at = tm_hp_off(h->in);
		if (tm_hp_need(h->in, 1, "a heap dump segment"))
			return -1;
		if (sub_record(h, tm_hp_u1(h->in), at))
			return -1;
	}
	if (tm_hp_off(h->in) != end)
		return bad(h, end, "a heap sub-record that runs past its segment");
	h->out->heap_records++;
	return 0;
}

static int read_header(struct hp *h)
{
	size_t i = 0;
	for (;;) {
		if (tm_hp_off(h->in) == 0 && tm_hp_more(h->in) == 0)
			return bad(h, 0, "an empty file");
		if (tm_hp_need(h->in, 1, "the header"))
			return -1;
		char ch = (char)tm_hp_u1(h->in);
		if (!ch)
			break;
		if (i + 1 >= sizeof(h->out->format))
			return bad(h, 0, "no 'JAVA PROFILE' header");
		h->out->format[i++] = ch;
	}
	h->out->format[i] = 0;
	if (strncmp(h->out->format, "JAVA PROFILE ", 13))
		return bad(h, 0, "no 'JAVA PROFILE' header");
	uint64_t at = tm_hp_off(h->in);
	if (tm_hp_need(h->in, 12, "the header"))
		return -1;
	h->id = tm_hp_u4(h->in);
	h->in->pos += 8; /* timestamp */
	if (h->id != 4 && h->id != 8)
		return bad(h, at, "an identifier size other than 4 or 8");
	h->out->id_size = h->id;
	return 0;
}

static int read_records(struct hp *h)
{
	for (;;) {
		uint64_t at = tm_hp_off(h->in);
		int rc = tm_hp_more(h->in);
		if (rc < 0)
			return -1;
		if (rc == 0 && h->heap_complete)
			return 0;
		if (rc == 0) { /* HotSpot ends a dump with its heap: this one was cut */
			h->in->truncated = true;
			return tm_error("'%s' is truncated at offset %llu (it ends before its "
			                "heap dump does)",
			                h->in->origin, (unsigned long long)at);
		}
		if (tm_hp_need(h->in, 9, "a record header"))
			return -1;
		unsigned tag = tm_hp_u1(h->in);
		tm_hp_u4(h->in); /* time */
		uint64_t len = tm_hp_u4(h->in);
		h->out->records++;
		if (tag == TAG_UTF8)
			rc = rec_utf8(h, len);
		else if (tag == TAG_LOAD_CLASS)
			rc = rec_load_class(h, len);
		else if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT)
			rc = rec_heap(h, len);
		else if (tag == TAG_HEAP_DUMP_END)
			rc = tm_hp_skip(h->in, len, "a HEAP DUMP END record");
		else
			rc = tm_hp_skip(h->in, len, "a record");
		if (rc)
			return -1;
		/* one HEAP DUMP record, or segments up to their END */
		if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_END)
			h->heap_complete = true;
		else if (tag == TAG_HEAP_DUMP_SEGMENT)
			h->heap_complete = false;
		if (tag == TAG_LOAD_CLASS && tm_hp_off(h->in) != at + 9 + len)
			return bad(h, at, "a record of the wrong length");
	}
}

/* ---- the histogram ---- */

static const char *string_of(const struct hp *h, uint64_t sid)
{
	uint32_t ix;
	return tm_idmap_get(&h->str_ix, sid, &ix) ? h->text + h->strs[ix].off : NULL;
}

/*
 * Bytes HotSpot (checked on JDK 17) adds to instances of these classes beyond the
 * fields it dumps: fields it injects (javaClasses.hpp: a native pointer is
 * an id's size), and the padding of @Contended field groups (128 bytes on
 * each side).  A subclass inherits them.  docs/hprof.md lists the source.
 */
static const struct {
	const char *name;
	unsigned pointers, refs, shorts, padding;
} hotspot_hidden[] = {
    {"java/lang/ClassLoader", 1, 0, 0, 0},               /* loader_data */
    {"java/lang/Module", 1, 0, 0, 0},                    /* module_entry */
    {"java/lang/invoke/MemberName", 1, 0, 0, 0},         /* vmindex */
    {"java/lang/invoke/ResolvedMethodName", 1, 1, 0, 0}, /* vmtarget, vmholder */
    {"java/lang/invoke/MethodHandleNatives$CallSiteContext", 2, 0, 0, 0},
    {"java/lang/StackFrameInfo", 0, 0, 1, 0}, /* version */
    {"java/lang/Thread", 0, 0, 0, 256},       /* @Contended("tlr") */
};

/* The entry of hotspot_hidden for NAME, or NULL. */
static int hidden_index(const char *name)
{
	for (size_t i = 0; name && i < sizeof(hotspot_hidden) / sizeof(hotspot_hidden[0]); i++)
		if (!strcmp(name, hotspot_hidden[i].name))
			return (int)i;
	return -1;
}

uint64_t tm_hprof_class_end(const char *name, unsigned id_size, unsigned ref_bytes, uint64_t at)
{
	int k = hidden_index(name);
	if (k < 0)
		return at;
	at += hotspot_hidden[k].pointers * id_size + hotspot_hidden[k].refs * ref_bytes +
	      hotspot_hidden[k].shorts * 2 + hotspot_hidden[k].padding;
	return hotspot_hidden[k].padding ? ALIGN8(at) : at;
}

/*
 * An instance's size in the JVM: the header, then each class's fields from
 * the root of the chain down, aligned to 8.  A class with @Contended
 * padding ends aligned, so its subclasses' fields start after the padding.
 * -1 when a class of the chain was never dumped (or the chain is too deep
 * or loops).
 */
static int64_t instance_bytes(struct hp *h, const struct cls *c)
{
	const struct cls *chain[64];
	size_t n = 0;
	while (c) {
		uint32_t ix;
		if (!c->dumped || n == sizeof(chain) / sizeof(chain[0]))
			return -1;
		chain[n++] = c;
		c = c->super_id && tm_idmap_get(&h->class_ix, c->super_id, &ix) ? &h->cls[ix]
		                                                                : NULL;
		if (!c && chain[n - 1]->super_id)
			return -1; /* a superclass the dump does not describe */
	}
	uint64_t at = h->header;
	while (n--)
		at = tm_hprof_class_end(string_of(h, chain[n]->name_sid), h->id, h->ref,
		                        at + chain[n]->own_field_bytes);
	return (int64_t)ALIGN8(at);
}

static int add_row(struct hp *h, const char *name, uint64_t id, uint64_t n, int64_t bytes)
{
	struct tm_hprof_histogram *o = h->out;
	char fallback[40];
	struct tm_hprof_row *r = grow(o->rows, &h->cap_rows, o->n_rows + 1, sizeof(*r));
	if (!r)
		return tm_error("out of memory for the histogram");
	o->rows = r;
	if (!name) {
		snprintf(fallback, sizeof(fallback), "<class 0x%llx>", (unsigned long long)id);
		name = fallback;
	}
	r = &o->rows[o->n_rows];
	if (!(r->name = strdup(name)))
		return tm_error("out of memory for the histogram");
	for (char *p = r->name; *p; p++)
		if (*p == '/')
			*p = '.';
	r->instances = n;
	r->shallow_bytes = bytes;
	o->n_rows++;
	o->instances += n;
	if (bytes > 0)
		o->shallow_bytes += (uint64_t)bytes;
	return 0;
}

static bool is_class_class(const struct hp *h, const struct cls *c)
{
	const char *name = string_of(h, c->name_sid);
	return name && !strcmp(name, "java/lang/Class");
}

static int class_rows(struct hp *h)
{
	bool mirrors_done = false;
	for (size_t i = 0; i < h->n_cls; i++) {
		struct cls *c = &h->cls[i];
		const char *name = string_of(h, c->name_sid);
		uint64_t n = c->instances + c->arrays;
		int64_t bytes = (int64_t)c->array_bytes;
		if (is_class_class(h, c) && !mirrors_done) {
			/* every CLASS DUMP is a java.lang.Class mirror; HotSpot adds
			 * fields to those that the dump does not show */
			n += h->class_dumps;
			bytes = -1;
			mirrors_done = true;
		} else if (c->instances) {
			int64_t size = instance_bytes(h, c);
			bytes = size < 0 ? -1 : (int64_t)c->instances * size;
		}
		if (n && add_row(h, name, c->id, n, bytes))
			return -1;
	}
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct tm_hprof_row *x = a, *y = b;
	if (x->shallow_bytes != y->shallow_bytes)
		return x->shallow_bytes < y->shallow_bytes ? 1 : -1;
	if (x->instances != y->instances)
		return x->instances < y->instances ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int build_rows(struct hp *h)
{
	if (class_rows(h))
		return -1;
	for (unsigned t = 0; t < N_TYPES; t++)
		if (h->prim_n[t] &&
		    add_row(h, prim_array_name[t], 0, h->prim_n[t], (int64_t)h->prim_b[t]))
			return -1;
	if (h->out->n_rows > 1)
		qsort(h->out->rows, h->out->n_rows, sizeof(*h->out->rows), by_bytes);
	return 0;
}

void tm_hprof_sizes(unsigned id_size, const struct tm_hprof_layout *l, struct tm_hprof_sizes *s)
{
	if (id_size == 4) { /* a 32-bit JVM */
		*s = (struct tm_hprof_sizes){.ref = 4, .header = 8, .array_base = 12};
		return;
	}
	s->ref = l->compressed_oops ? 4 : 8;
	s->header = l->compressed_class_pointers ? 12 : 16;
	s->array_base = l->compressed_class_pointers ? 16 : 24;
}

static void set_layout(struct hp *h, const struct tm_hprof_layout *l)
{
	struct tm_hprof_sizes s;
	tm_hprof_sizes(h->id, l, &s);
	h->ref = s.ref, h->header = s.header, h->array_base = s.array_base;
}

int tm_hprof_histogram_read(struct tm_hp_in *in, const struct tm_hprof_layout *layout,
                            struct tm_hprof_histogram *out)
{
	struct hp h = {.in = in, .out = out};
	memset(out, 0, sizeof(*out));
	int rc = read_header(&h), partial = 0;
	if (!rc) {
		set_layout(&h, layout);
		rc = read_records(&h);
		/* cut short: what was read is still a histogram, marked so */
		if (rc && in->truncated)
			rc = 0, partial = 1;
	}
	if (!rc)
		rc = build_rows(&h);
	out->partial = partial && !rc;
	free(h.strs);
	out->dump_bytes = tm_hp_off(in);
	tm_idmap_release(&h.class_ix);
	tm_idmap_release(&h.str_ix);
	free(h.cls);
	free(h.text);
	if (rc)
		tm_hprof_histogram_release(out);
	return rc ? -1 : partial;
}

int tm_hprof_histogram_file(const char *path, const struct tm_hprof_layout *layout,
                            struct tm_hprof_histogram *out)
{
	struct tm_hp_in in;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return tm_error("cannot open '%s': %s", path, strerror(errno));
	/* sequential: let the kernel read ahead, and not keep the dump cached */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	int rc = tm_hp_in_fd(&in, fd, 1 << 20, path);
	if (!rc)
		rc = tm_hprof_histogram_read(&in, layout, out);
	tm_hp_in_release(&in);
	close(fd);
	return rc;
}

void tm_hprof_histogram_release(struct tm_hprof_histogram *h)
{
	for (size_t i = 0; i < h->n_rows; i++)
		free(h->rows[i].name);
	free(h->rows);
	h->rows = NULL;
	h->n_rows = 0;
}
