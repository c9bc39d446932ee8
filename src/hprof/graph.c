/* The reference graph of an HPROF dump, read in passes; see hprof/graph.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "hprof/graph.h"
#include "base/banned.h"

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
	TYPE_OBJECT = 2,
};

#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

static const unsigned prim_bytes[12] = {
    [4] = 1, [5] = 2, [6] = 4, [7] = 8, [8] = 1, [9] = 2, [10] = 4, [11] = 8};

/* One pass over the dump: 1 numbers objects and reads classes, 2 writes
 * references, 3 names the steps of paths. */
struct pass {
	struct tm_hgraph *g;
	struct tm_hp_in *in;
	int no;
	const struct tm_hprof_layout *layout;
	uint32_t ix; /* the next object's number */
	struct tm_hg_step *steps;
	size_t n_steps, at_step;
	uint64_t shown;
	bool heap_complete;
};

static int bad(struct pass *p, uint64_t off, const char *what)
{
	return tm_error("'%s' is not a valid HPROF dump: %s at offset %llu", p->g->origin, what,
	                (unsigned long long)off);
}

static unsigned dump_size(const struct tm_hgraph *g, unsigned type)
{
	return type == TYPE_OBJECT ? g->id : type < 12 ? prim_bytes[type] : 0;
}

/* ---- pass 3: how a parent refers to its child ---- */

/* The steps whose parent is object IX (or the roots: TM_HG_NONE), if any. */
static struct tm_hg_step *steps_of(struct pass *p, uint32_t ix, size_t *n)
{
	size_t i = 0, hi = p->n_steps;
	while (i < hi) { /* the first step of parent IX or later */
		size_t m = i + (hi - i) / 2;
		if (p->steps[m].parent < ix)
			i = m + 1;
		else
			hi = m;
	}
	size_t j = i;
	while (j < p->n_steps && p->steps[j].parent == ix)
		j++;
	*n = j - i;
	return p->steps + i;
}

static void name_ref(struct pass *p, uint32_t parent, uint64_t child, const char *fmt,
                     const char *a, const char *b)
{
	size_t n;
	struct tm_hg_step *s = steps_of(p, parent, &n);
	for (size_t i = 0; i < n; i++)
		if (s[i].child_id == child && !s[i].how[0])
			snprintf(s[i].how, sizeof(s[i].how), fmt, a ? a : "?", b ? b : "?");
}

static bool wanted(struct pass *p, uint32_t ix)
{
	size_t n;
	return p->no == 3 && (steps_of(p, ix, &n), n > 0);
}

/* ---- references, in pass 2 ---- */

static int edge(struct pass *p, uint64_t id)
{
	if (!id)
		return 0;
	uint32_t v = tm_hg_lookup(p->g, id);
	if (v == TM_HG_NONE) {
		p->g->dangling++;
		return 0;
	}
	p->g->edges++;
	return tm_spill_append(&p->g->succ, &v, sizeof(v));
}

/* Starts object ID of class CLS and SIZE bytes (-1 unknown): pass 1 numbers
 * it, pass 2 writes its row. */
static int object(struct pass *p, uint64_t id, uint32_t cls, int64_t size)
{
	struct tm_hgraph *g = p->g;
	if (p->ix == TM_HG_NONE - 1)
		return tm_error("'%s' holds more than %u objects", g->origin, TM_HG_NONE - 1);
	uint32_t ix = p->ix++;
	if (p->no == 1) {
		struct tm_hg_idix e = {id, ix, 0};
		return tm_spill_append(&g->ids, &e, sizeof(e));
	}
	if (p->no != 2)
		return 0;
	uint32_t s8 =
	    size < 0 || (uint64_t)size / 8 >= TM_HG_NONE ? TM_HG_NONE : (uint32_t)(size / 8);
	return tm_spill_append(&g->off, &g->edges, 8) || tm_spill_append(&g->oid, &id, 8) ||
	       tm_spill_append(&g->cls, &cls, 4) || tm_spill_append(&g->size, &s8, 4);
}

/* A value of TYPE in a CLASS DUMP (after its index or name id): a static
 * or constant-pool reference is an edge of the class mirror. */
static int class_value(struct pass *p, uint32_t me, uint8_t type, uint64_t name_sid,
                       const char *cname)
{
	unsigned sz = dump_size(p->g, type);
	if (type != TYPE_OBJECT)
		return tm_hp_skip(p->in, sz, "a CLASS DUMP");
	if (tm_hp_need(p->in, sz, "a CLASS DUMP"))
		return -1;
	uint64_t v = tm_hp_id(p->in, p->g->id);
	if (p->no == 2)
		return edge(p, v);
	if (wanted(p, me))
		name_ref(p, me, v, name_sid ? "static %s.%s" : "%s constant pool%s", cname,
		         name_sid ? tm_hg_string(p->g, name_sid) : "");
	return 0;
}

static int class_values(struct pass *p, uint32_t me, unsigned head, const char *cname)
{
	if (tm_hp_need(p->in, 2, "a CLASS DUMP"))
		return -1;
	unsigned n = tm_hp_u2(p->in);
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = tm_hp_off(p->in), sid = 0;
		if (tm_hp_need(p->in, head + 1, "a CLASS DUMP"))
			return -1;
		if (head == 2)
			tm_hp_u2(p->in);
		else
			sid = tm_hp_id(p->in, p->g->id);
		uint8_t type = tm_hp_u1(p->in);
		if (!dump_size(p->g, type))
			return bad(p, at, "an unknown basic type");
		if (class_value(p, me, type, sid, cname))
			return -1;
	}
	return 0;
}

static int class_fields(struct pass *p, uint32_t cls)
{
	struct tm_hgraph *g = p->g;
	if (tm_hp_need(p->in, 2, "a CLASS DUMP"))
		return -1;
	unsigned nf = tm_hp_u2(p->in);
	if (p->no == 1 && cls != TM_HG_NONE && !g->classes[cls].dumped) {
		g->classes[cls].field0 = g->n_fields;
		g->classes[cls].n_fields = nf;
		g->classes[cls].dumped = true;
	} else {
		cls = TM_HG_NONE; /* a class dumped twice keeps its first fields */
	}
	for (unsigned i = 0; i < nf; i++) {
		uint64_t at = tm_hp_off(p->in);
		if (tm_hp_need(p->in, g->id + 1, "a CLASS DUMP"))
			return -1;
		uint64_t sid = tm_hp_id(p->in, g->id);
		uint8_t type = tm_hp_u1(p->in);
		if (!dump_size(g, type))
			return bad(p, at, "an unknown field type");
		if (cls != TM_HG_NONE && tm_hg_add_field(g, cls, sid, type))
			return -1;
	}
	return 0;
}

static int sub_class_dump(struct pass *p)
{
	struct tm_hgraph *g = p->g;
	uint64_t hdr[7];
	if (tm_hp_need(p->in, 7 * g->id + 8, "a CLASS DUMP"))
		return -1;
	hdr[0] = tm_hp_id(p->in, g->id);
	tm_hp_u4(p->in);
	for (int i = 1; i < 7; i++) /* super, loader, signers, domain, 2 reserved */
		hdr[i] = tm_hp_id(p->in, g->id);
	tm_hp_u4(p->in);
	uint32_t me = p->ix, cls = tm_hg_class_of(g, hdr[0]);
	if (cls == TM_HG_NONE || object(p, hdr[0], TM_HG_MIRROR, -1))
		return -1;
	if (p->no == 1)
		g->classes[cls].super_id = hdr[1];
	static const char *const what[] = {"", "%s superclass%s", "%s class loader%s",
	                                   "%s signers%s", "%s protection domain%s"};
	char cname[256];
	tm_hg_class_name(g, cls, cname, sizeof(cname));
	for (int i = 1; i < 5; i++) {
		if (p->no == 2 && edge(p, hdr[i]))
			return -1;
		if (wanted(p, me))
			name_ref(p, me, hdr[i], what[i], cname, "");
	}
	if (class_values(p, me, 2, cname) || class_values(p, me, g->id, cname))
		return -1;
	return class_fields(p, cls);
}

/* The references of an instance of CLS whose LEN field bytes are next. */
static int instance_refs(struct pass *p, uint32_t me, uint32_t cls, uint64_t len)
{
	struct tm_hgraph *g = p->g;
	const struct tm_hg_class *c = &g->classes[cls];
	if (!c->laid_out || c->dump_bytes != len) {
		g->unlaid += p->no == 2;
		return tm_hp_skip(p->in, len, "an INSTANCE DUMP");
	}
	uint64_t at = 0;
	char cname[256];
	for (uint32_t r = c->ref0; r < c->ref0 + c->n_refs; r++) {
		const struct tm_hg_field *f = &g->refs[r];
		if (tm_hp_skip(p->in, f->at - at, "an INSTANCE DUMP") ||
		    tm_hp_need(p->in, g->id, "an INSTANCE DUMP"))
			return -1;
		uint64_t v = tm_hp_id(p->in, g->id);
		at = f->at + g->id;
		if (p->no == 2 && edge(p, v))
			return -1;
		if (wanted(p, me))
			name_ref(p, me, v, "%s.%s",
			         tm_hg_class_name(g, f->cls, cname, sizeof(cname)),
			         tm_hg_string(g, f->name_sid));
	}
	return tm_hp_skip(p->in, len - at, "an INSTANCE DUMP");
}

static int sub_instance(struct pass *p)
{
	struct tm_hgraph *g = p->g;
	if (tm_hp_need(p->in, 2 * g->id + 8, "an INSTANCE DUMP"))
		return -1;
	uint64_t id = tm_hp_id(p->in, g->id);
	tm_hp_u4(p->in);
	uint64_t cid = tm_hp_id(p->in, g->id);
	uint64_t len = tm_hp_u4(p->in);
	uint32_t me = p->ix, cls = tm_hg_class_of(g, cid);
	if (cls == TM_HG_NONE || object(p, id, cls, g->classes[cls].size))
		return -1;
	if (p->no == 1)
		return tm_hp_skip(p->in, len, "an INSTANCE DUMP");
	if (p->no == 2 && edge(p, cid))
		return -1;
	if (wanted(p, me))
		name_ref(p, me, cid, "%s%s", "<class>", "");
	return instance_refs(p, me, cls, len);
}

static int sub_obj_array(struct pass *p)
{
	struct tm_hgraph *g = p->g;
	if (tm_hp_need(p->in, 2 * g->id + 8, "an OBJECT ARRAY DUMP"))
		return -1;
	uint64_t id = tm_hp_id(p->in, g->id);
	tm_hp_u4(p->in);
	uint64_t n = tm_hp_u4(p->in), cid = tm_hp_id(p->in, g->id);
	uint32_t me = p->ix, cls = tm_hg_class_of(g, cid);
	if (cls == TM_HG_NONE ||
	    object(p, id, cls, (int64_t)ALIGN8(g->sz.array_base + n * g->sz.ref)))
		return -1;
	if (p->no == 1)
		return tm_hp_skip(p->in, n * g->id, "an OBJECT ARRAY DUMP");
	if (p->no == 2 && edge(p, cid))
		return -1;
	bool want = wanted(p, me);
	for (uint64_t i = 0; i < n; i++) {
		if (tm_hp_need(p->in, g->id, "an OBJECT ARRAY DUMP"))
			return -1;
		uint64_t v = tm_hp_id(p->in, g->id);
		if (p->no == 2 && edge(p, v))
			return -1;
		if (want) {
			char ix[24];
			snprintf(ix, sizeof(ix), "%llu", (unsigned long long)i);
			name_ref(p, me, v, "[%s]%s", ix, "");
		}
	}
	return 0;
}

static int sub_prim_array(struct pass *p)
{
	uint64_t at = tm_hp_off(p->in);
	if (tm_hp_need(p->in, p->g->id + 9, "a PRIMITIVE ARRAY DUMP"))
		return -1;
	uint64_t id = tm_hp_id(p->in, p->g->id);
	tm_hp_u4(p->in);
	uint64_t n = tm_hp_u4(p->in);
	unsigned type = tm_hp_u1(p->in);
	if (type == TYPE_OBJECT || !dump_size(p->g, type))
		return bad(p, at, "a primitive array of an unknown type");
	if (object(p, id, type, (int64_t)ALIGN8(p->g->sz.array_base + n * prim_bytes[type])))
		return -1;
	return tm_hp_skip(p->in, n * prim_bytes[type], "a PRIMITIVE ARRAY DUMP");
}

/* Roots: an id and this many more bytes (-1: not a root tag); *KIND its name. */
static int root_extra(unsigned tag, unsigned id, const char **kind)
{
	static const struct {
		int extra;
		const char *kind;
	} r[9] = {{0, NULL},           {-2, "JNI global"},  {8, "JNI local"},
	          {8, "Java frame"},   {4, "native stack"}, {0, "sticky class"},
	          {4, "thread block"}, {0, "monitor used"}, {8, "thread object"}};
	if (tag == 0xff) {
		*kind = "unknown root";
		return 0;
	}
	if (tag < 1 || tag > 8)
		return -1;
	*kind = r[tag].kind;
	return r[tag].extra == -2 ? (int)id : r[tag].extra;
}

static int sub_root(struct pass *p, unsigned tag, uint64_t at)
{
	const char *kind;
	int extra = root_extra(tag, p->g->id, &kind);
	if (extra < 0) {
		char what[64];
		snprintf(what, sizeof(what), "an unknown heap sub-record 0x%02x", tag);
		return bad(p, at, what);
	}
	if (tm_hp_need(p->in, p->g->id, "a GC root"))
		return -1;
	uint64_t id = tm_hp_id(p->in, p->g->id);
	if (p->no == 2) {
		uint32_t v = tm_hg_lookup(p->g, id);
		if (v != TM_HG_NONE) {
			p->g->roots++;
			if (tm_spill_append(&p->g->rootv, &v, 4))
				return -1;
		}
	}
	if (p->no == 3)
		name_ref(p, TM_HG_NONE, id, "%s%s", kind, "");
	return tm_hp_skip(p->in, (unsigned)extra, "a GC root");
}

static int sub_record(struct pass *p, unsigned tag, uint64_t at)
{
	switch (tag) {
	case SUB_CLASS_DUMP:
		return sub_class_dump(p);
	case SUB_INSTANCE_DUMP:
		return sub_instance(p);
	case SUB_OBJ_ARRAY_DUMP:
		return sub_obj_array(p);
	case SUB_PRIM_ARRAY_DUMP:
		return sub_prim_array(p);
	}
	return sub_root(p, tag, at);
}

static int rec_heap(struct pass *p, uint64_t len)
{
	uint64_t end = tm_hp_off(p->in) + len;
	while (tm_hp_off(p->in) < end) {
		uint64_t at = tm_hp_off(p->in);
		if (tm_hp_need(p->in, 1, "a heap dump segment"))
			return -1;
		if (sub_record(p, tm_hp_u1(p->in), at))
			return -1;
		if (p->g->progress && at - p->shown > (16u << 20)) {
			p->g->progress(p->no == 1   ? "reading objects"
			               : p->no == 2 ? "reading references"
			                            : "naming paths",
			               at, p->g->file_bytes);
			p->shown = at;
		}
	}
	if (tm_hp_off(p->in) != end)
		return bad(p, end, "a heap sub-record that runs past its segment");
	return 0;
}

static int read_header(struct pass *p)
{
	char fmt[32];
	size_t i = 0;
	for (;;) {
		if (tm_hp_need(p->in, 1, "the header"))
			return -1;
		char ch = (char)tm_hp_u1(p->in);
		if (!ch)
			break;
		if (i + 1 >= sizeof(fmt))
			return bad(p, 0, "no 'JAVA PROFILE' header");
		fmt[i++] = ch;
	}
	fmt[i] = 0;
	if (strncmp(fmt, "JAVA PROFILE ", 13))
		return bad(p, 0, "no 'JAVA PROFILE' header");
	memcpy(p->g->format, fmt, sizeof(fmt));
	uint64_t at = tm_hp_off(p->in);
	if (tm_hp_need(p->in, 12, "the header"))
		return -1;
	unsigned id = tm_hp_u4(p->in);
	p->in->pos += 8; /* timestamp */
	if (id != 4 && id != 8)
		return bad(p, at, "an identifier size other than 4 or 8");
	p->g->id = id;
	if (p->layout)
		tm_hprof_sizes(id, p->layout, &p->g->sz);
	return 0;
}

static int rec_load_class(struct pass *p, uint64_t len)
{
	unsigned id = p->g->id;
	if (len != 8 + 2 * (uint64_t)id)
		return bad(p, tm_hp_off(p->in), "a LOAD CLASS record of the wrong length");
	if (tm_hp_need(p->in, (size_t)len, "a LOAD CLASS record"))
		return -1;
	tm_hp_u4(p->in);
	uint64_t cid = tm_hp_id(p->in, id);
	tm_hp_u4(p->in);
	uint64_t name = tm_hp_id(p->in, id);
	uint32_t cls = tm_hg_class_of(p->g, cid);
	if (cls == TM_HG_NONE)
		return -1;
	p->g->classes[cls].name_sid = name;
	return 0;
}

static int record(struct pass *p, unsigned tag, uint64_t len)
{
	if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_SEGMENT)
		return rec_heap(p, len);
	if (p->no == 1 && tag == TAG_UTF8) {
		if (len < p->g->id || tm_hp_need(p->in, p->g->id, "a UTF8 record"))
			return len < p->g->id ? bad(p, tm_hp_off(p->in), "a short UTF8 record")
			                      : -1;
		uint64_t sid = tm_hp_id(p->in, p->g->id);
		return tm_hg_keep_string(p->g, p->in, sid, len - p->g->id);
	}
	if (p->no == 1 && tag == TAG_LOAD_CLASS)
		return rec_load_class(p, len);
	return tm_hp_skip(p->in, len, "a record");
}

/* The records after the header.  A dump that ends before its heap does is
 * cut short: an error here (retained sizes of a part of a heap would not
 * mean what they say). */
static int read_records(struct pass *p)
{
	for (;;) {
		uint64_t at = tm_hp_off(p->in);
		int rc = tm_hp_more(p->in);
		if (rc < 0)
			return -1;
		if (rc == 0 && p->heap_complete)
			return 0;
		if (rc == 0)
			return tm_error("'%s' is truncated at offset %llu (it ends before its heap "
			                "dump does): no retained sizes of a part of a heap",
			                p->g->origin, (unsigned long long)at);
		if (tm_hp_need(p->in, 9, "a record header"))
			return -1;
		unsigned tag = tm_hp_u1(p->in);
		tm_hp_u4(p->in);
		uint64_t len = tm_hp_u4(p->in);
		if (record(p, tag, len))
			return -1;
		if (tag == TAG_HEAP_DUMP || tag == TAG_HEAP_DUMP_END)
			p->heap_complete = true;
		else if (tag == TAG_HEAP_DUMP_SEGMENT)
			p->heap_complete = false;
	}
}

/* One pass over the file at PATH. */
static int run_pass(struct pass *p, const char *path)
{
	struct tm_hp_in in;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return tm_error("cannot open '%s': %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return tm_error("'%s' is not a regular file (holders reads a dump in passes)",
		                path);
	}
	p->g->file_bytes = (uint64_t)st.st_size;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	p->in = &in;
	int rc = tm_hp_in_fd(&in, fd, 1 << 20, path);
	if (!rc)
		rc = read_header(p);
	if (!rc)
		rc = read_records(p);
	p->g->dump_bytes = tm_hp_off(&in);
	if (p->g->progress)
		p->g->progress(NULL, 0, 0);
	tm_hp_in_release(&in);
	p->in = NULL;
	close(fd);
	return rc;
}

/* After pass 2: the super-root's references (the roots) after every
 * object's, and the offsets' two last entries. */
static int close_graph(struct tm_hgraph *g)
{
	if (tm_spill_append(&g->off, &g->edges, 8))
		return -1;
	if (tm_spill_map(&g->rootv))
		return -1;
	const uint32_t *r = g->rootv.map;
	for (uint64_t i = 0; i < g->roots; i++)
		if (tm_spill_append(&g->succ, &r[i], 4))
			return -1;
	g->edges += g->roots;
	tm_spill_release(&g->rootv);
	if (tm_spill_append(&g->off, &g->edges, 8))
		return -1;
	return tm_spill_map(&g->off) || tm_spill_map(&g->succ) || tm_spill_map(&g->cls) ||
	       tm_spill_map(&g->size) || tm_spill_map(&g->oid);
}

static int open_spills(struct tm_hgraph *g)
{
	return tm_spill_open(&g->off, &g->pool) || tm_spill_open(&g->succ, &g->pool) ||
	       tm_spill_open(&g->cls, &g->pool) || tm_spill_open(&g->size, &g->pool) ||
	       tm_spill_open(&g->oid, &g->pool) || tm_spill_open(&g->rootv, &g->pool);
}

int tm_hgraph_build(struct tm_hgraph *g, const char *path, const struct tm_hprof_layout *l,
                    void (*progress)(const char *, uint64_t, uint64_t))
{
	memset(g, 0, sizeof(*g));
	struct tm_spill *all[] = {&g->ids,  &g->off, &g->succ, &g->cls,
	                          &g->size, &g->oid, &g->rootv};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tm_spill_init(all[i]);
	g->origin = path;
	g->progress = progress;
	g->n_classes = TM_HG_FIRST_CLASS; /* the pseudo-classes: never looked up by id */
	g->cap_classes = 0;
	if (!(g->classes = calloc(TM_HG_FIRST_CLASS, sizeof(*g->classes))))
		return tm_error("out of memory");
	g->cap_classes = TM_HG_FIRST_CLASS;
	struct pass p1 = {.g = g, .no = 1, .layout = l}, p2 = {.g = g, .no = 2};
	if (tm_spill_open(&g->ids, &g->pool))
		return -1;
	int rc = run_pass(&p1, path);
	g->n = p1.ix;
	if (!rc)
		rc = tm_spill_map(&g->ids) || tm_hg_index_ids(g) || tm_hg_lay_out(g) ||
		     open_spills(g);
	if (!rc)
		rc = run_pass(&p2, path);
	if (!rc && p2.ix != p1.ix)
		rc = tm_error("'%s' changed while it was read", path);
	if (!rc)
		rc = close_graph(g);
	tm_spill_release(&g->ids);
	free(g->bucket_lo);
	g->bucket_lo = NULL;
	return rc;
}

int tm_hgraph_name_steps(struct tm_hgraph *g, const char *path, struct tm_hg_step *steps, size_t n)
{
	struct pass p3 = {.g = g, .no = 3, .steps = steps, .n_steps = n};
	for (size_t i = 0; i < n; i++)
		steps[i].how[0] = 0;
	return run_pass(&p3, path);
}

void tm_hgraph_release(struct tm_hgraph *g)
{
	struct tm_spill *all[] = {&g->ids,  &g->off, &g->succ, &g->cls,
	                          &g->size, &g->oid, &g->rootv};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tm_spill_release(all[i]);
	tm_idmap_release(&g->class_ix);
	tm_idmap_release(&g->str_ix);
	free(g->classes);
	free(g->fields);
	free(g->refs);
	free(g->text);
	free(g->str_off);
	free(g->bucket_lo);
	g->classes = NULL, g->fields = g->refs = NULL, g->text = NULL, g->str_off = NULL;
	g->bucket_lo = NULL;
}
