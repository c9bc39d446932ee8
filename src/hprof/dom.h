/*
 * Dominators of a dump's reference graph (hprof/graph.h), from its
 * super-root: which objects the GC roots reach, each one's immediate
 * dominator (Lengauer-Tarjan, the simple version with path compression:
 * O(E log N)), its retained size (its own shallow bytes and those of all
 * it dominates), and one shortest path to it from a root (breadth-first).
 * Every array is a file-backed one (hprof/spill.h): per object about 60
 * bytes and per reference 8 at the peak (docs/hprof.md).
 */
#ifndef TM_HPROF_DOM_H
#define TM_HPROF_DOM_H

#include <stdint.h>

#include "hprof/graph.h"

struct tm_hdom {
	uint32_t n_live;        /* objects the roots reach, the super-root included (number 0) */
	struct tm_spill pre;    /* uint32_t[n+1]: node -> preorder number + 1; 0 unreachable */
	struct tm_spill vertex; /* uint32_t[n_live]: preorder number -> node */
	struct tm_spill idom;   /* uint32_t[n_live]: preorder number of the immediate dominator */
	struct tm_spill ret;    /* uint64_t[n_live]: retained bytes (mirrors: 0, n/a) */
	struct tm_spill cnt;    /* uint32_t[n_live]: retained objects, itself included */
	struct tm_spill bfs;    /* uint32_t[n+1]: node -> its parent on a shortest path + 1 */
	struct tm_spill work;   /* uint32_t[n_live]: scratch for the caller */
};

/* Computes all of D over G.  0, or -1 after tm_error (temporary disk). */
int tm_hdom_compute(struct tm_hdom *d, struct tm_hgraph *g);

void tm_hdom_release(struct tm_hdom *d);

#define TM_HDOM_U32(s) ((uint32_t *)(s).map)
#define TM_HDOM_U64(s) ((uint64_t *)(s).map)

#endif
