/*
 * What holds a dump's heap: the objects that retain the most, found from
 * the dominator tree (hprof/dom.h).  A holder is an instance or array
 * whose immediate dominator is a GC root (the super-root) or a class
 * mirror: what a root, or a class's static fields, keeps alive.  Each comes
 * with its retained and shallow bytes, its count of retained objects, one
 * shortest path from a GC root (field names from the dump) and what it
 * retains by class.  Also: holders aggregated by class, and each class's
 * live (reachable) and unreachable objects.
 */
#ifndef TM_HPROF_HOLDERS_H
#define TM_HPROF_HOLDERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "hprof/dom.h"
#include "hprof/graph.h"

struct tm_hold_step {
	uint64_t id;
	uint32_t cls;    /* class index (TM_HG_MIRROR for a class mirror) */
	char label[256]; /* the class's name; for a mirror, "class X" */
	char via[160];   /* how the step before refers to it; for the first, the root kind */
};

struct tm_hold_part { /* what a holder retains of one class */
	uint32_t cls;
	uint64_t objects, bytes;
};

struct tm_holder {
	uint32_t node, pre;
	uint64_t retained_bytes, retained_objects;
	int64_t shallow_bytes; /* -1: n/a */
	struct tm_hold_step *path;
	size_t n_path;
	uint64_t path_elided;       /* steps left out of the middle of a long path */
	struct tm_hold_part *parts; /* largest first; NULL when not computed */
	size_t n_parts;
};

struct tm_hold_class { /* per class */
	uint64_t holders, holder_retained, holder_shallow;
	uint64_t live, live_bytes, dead, dead_bytes;
	uint64_t mirror_unknown; /* objects of unknown size (mirrors) */
};

struct tm_holders {
	struct tm_hgraph g;
	struct tm_hdom d;
	struct tm_holder *rows; /* largest retained first */
	size_t n_rows;
	uint64_t candidates;            /* holders in all (rows are the first of them) */
	struct tm_hold_class *by_class; /* g.n_classes entries */
	uint64_t live_bytes, dead_bytes, dead_objects;
	uint64_t anon_bytes_bound; /* not measured here: see bench */
};

/* Reads the dump at PATH and computes it all into H (release with
 * tm_holders_release).  TOP: the holders to list (0: all, up to 65536).
 * PROGRESS as for tm_hgraph_build.  0, or -1 after tm_error. */
int tm_holders_compute(struct tm_holders *h, const char *path, const struct tm_hprof_layout *l,
                       size_t top, void (*progress)(const char *, uint64_t, uint64_t));

void tm_holders_release(struct tm_holders *h);

/* Text, JSON (bytes; null where unknown) and CSV (one row a reachable
 * object: id, class, shallow, retained bytes and objects, dominator's id). */
void tm_holders_print_text(const struct tm_holders *h, const struct tm_hprof_layout *l, size_t top,
                           FILE *out);
int tm_holders_print_json(const struct tm_holders *h, const struct tm_hprof_layout *l, FILE *out);
void tm_holders_print_csv(const struct tm_holders *h, FILE *out);
/* The JSON document --json prints (new reference; NULL after tm_error). */
json_t *tm_holders_json(const struct tm_holders *h, const struct tm_hprof_layout *l);
/* The same figures as one self-contained HTML page (no script, nothing
 * loaded: a Content-Security-Policy says so): the dump, the TOP holders
 * with their paths and what they retain, holders by class, and the classes'
 * live and unreachable objects (the first 100 of each table).  0, or -1
 * after tm_error. */
int tm_holders_print_html(const struct tm_holders *h, const struct tm_hprof_layout *l, FILE *out);

#endif
