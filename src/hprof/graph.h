/*
 * The reference graph of an HPROF dump, for `tidemark hprof holders`: its
 * objects (instances, arrays and class mirrors) numbered in the order the
 * dump writes them, each object's references as a list of object numbers,
 * and the dump's GC roots, gathered under one node more, the super-root
 * (number n).  Built in two streaming passes over the dump: the first
 * numbers the objects and reads the classes, the second writes the
 * references.  Everything a object or reference is in file-backed arrays
 * (hprof/spill.h); only classes and strings are in memory, bounded.
 */
#ifndef TM_HPROF_GRAPH_H
#define TM_HPROF_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "hprof/hprof.h"
#include "hprof/idmap.h"
#include "hprof/spill.h"

#define TM_HG_NONE UINT32_MAX

/* The pseudo-classes before the dump's own: primitive arrays by basic
 * type (4..11), and the class mirrors (CLASS DUMP records). */
enum { TM_HG_MIRROR = 12, TM_HG_FIRST_CLASS = 13 };

struct tm_hg_class {
	uint64_t id, super_id, name_sid;
	uint32_t field0, n_fields; /* its own instance fields in fields[] */
	uint32_t ref0, n_refs;     /* the reference fields of its whole chain in refs[] */
	int64_t size;              /* an instance's bytes in the JVM; -1 unknown */
	uint64_t dump_bytes;       /* an instance's field bytes in the dump */
	bool dumped, laid_out;
};

struct tm_hg_field {
	uint64_t name_sid;
	uint32_t cls; /* declaring class */
	uint8_t type;
	uint32_t at; /* offset in the instance's dump bytes (refs[] only) */
};

struct tm_hgraph {
	const char *origin;
	char format[32];
	unsigned id;
	struct tm_hprof_sizes sz;
	uint64_t dump_bytes;
	uint32_t n;        /* objects; the super-root is n */
	uint64_t edges;    /* references between objects, root edges included */
	uint64_t roots;    /* root records naming an object of the dump */
	uint64_t dangling; /* references to ids that are not objects of the dump */
	uint64_t unlaid;   /* instances whose class the dump does not lay out */
	struct tm_spool pool;
	struct tm_spill ids;   /* struct tm_hg_idix[n], by id (pass 1), then released */
	struct tm_spill off;   /* uint64_t[n + 2]: node v's references are succ[off[v], off[v+1]) */
	struct tm_spill succ;  /* uint32_t[edges] */
	struct tm_spill cls;   /* uint32_t[n]: class index */
	struct tm_spill size;  /* uint32_t[n]: shallow bytes / 8; TM_HG_NONE unknown */
	struct tm_spill oid;   /* uint64_t[n]: the object's id in the dump */
	struct tm_spill rootv; /* uint32_t[roots] (pass 2), then copied into succ */
	uint32_t *bucket_lo;   /* ids[] index of each id bucket's first entry (pass 2) */
	uint64_t id_min;
	unsigned id_shift;
	struct tm_hg_class *classes;
	uint32_t n_classes, cap_classes;
	struct tm_hg_field *fields, *refs;
	uint32_t n_fields, cap_fields, n_refs;
	struct tm_idmap class_ix, str_ix;
	char *text;
	uint64_t *str_off;
	size_t text_used, text_cap, n_strs, cap_strs;
	uint64_t names_dropped;
	void (*progress)(const char *what, uint64_t done, uint64_t total);
	uint64_t file_bytes; /* for the progress bar: the file's size (0 unknown) */
};

struct tm_hg_idix {
	uint64_t id;
	uint32_t ix, pad;
};

/* Reads the dump at PATH into G (release with tm_hgraph_release) in two
 * passes.  PROGRESS, when not NULL, is called as passes advance.  0, or -1
 * after tm_error (a malformed or cut dump: the offset is said). */
int tm_hgraph_build(struct tm_hgraph *g, const char *path, const struct tm_hprof_layout *l,
                    void (*progress)(const char *, uint64_t, uint64_t));

void tm_hgraph_release(struct tm_hgraph *g);

/* The string of id SID, or NULL when the dump did not give it (or it was
 * over the bound). */
const char *tm_hg_string(const struct tm_hgraph *g, uint64_t sid);

/* Class CLS's name, dotted ("java.util.HashMap", "[B"), into BUF. */
const char *tm_hg_class_name(const struct tm_hgraph *g, uint32_t cls, char *buf, size_t len);

/* One step of a path: how object PARENT refers to CHILD_ID. */
struct tm_hg_step {
	uint32_t parent; /* TM_HG_NONE: the super-root (CHILD is a GC root) */
	uint64_t child_id;
	char how[160]; /* filled: "HashMap.table", "[12]", "static Holder.index", a root's kind */
};

/* Fills HOW of each of N STEPS (sorted by parent) in one more pass over
 * the dump.  0, or -1 after tm_error. */
int tm_hgraph_name_steps(struct tm_hgraph *g, const char *path, struct tm_hg_step *steps, size_t n);

/* The id of object V in the dump. */
static inline uint64_t tm_hg_id(const struct tm_hgraph *g, uint32_t v)
{
	return ((const uint64_t *)g->oid.map)[v];
}

/* ---- between graph.c and graph_cls.c ---- */

/* Class of id ID, created if new.  Its index, or TM_HG_NONE after tm_error. */
uint32_t tm_hg_class_of(struct tm_hgraph *g, uint64_t id);
/* Keeps string SID (its first bytes, within bounds) from IN: LEN bytes. */
int tm_hg_keep_string(struct tm_hgraph *g, struct tm_hp_in *in, uint64_t sid, uint64_t len);
/* After pass 1: each class's size and reference fields.  0 or -1. */
int tm_hg_lay_out(struct tm_hgraph *g);
/* Adds an instance field of TYPE named SID to class CLS.  0 or -1. */
int tm_hg_add_field(struct tm_hgraph *g, uint32_t cls, uint64_t sid, uint8_t type);
/* Object number of ID, or TM_HG_NONE (after pass 1's sort). */
uint32_t tm_hg_lookup(const struct tm_hgraph *g, uint64_t id);
/* Sorts ids[] and builds the bucket index.  0 or -1. */
int tm_hg_index_ids(struct tm_hgraph *g);

#endif
