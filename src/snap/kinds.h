/*
 * snap/kinds.h: the registry of snapshot kinds, one line a kind: its enum,
 * its name (as `tidemark guard --snapshot` and the store's snapshots.kind
 * say it), its taker (a tm_snap_fn, snap/snap.h) and which processes of a
 * run it applies to.  The takers are declared from this list, so a line
 * whose function is missing fails to link; tests/unit/test_guard_rule.c
 * checks every kind has a name, a taker and a description.
 */
#ifndef TM_SNAP_KINDS_H
#define TM_SNAP_KINDS_H

#include "snap/snap.h"

/* Which processes of a run a kind is taken of. */
enum tm_snap_target {
	TM_SNAP_SHIMMED, /* each process running with the heap shim (a region of its own) */
	TM_SNAP_JVM,     /* each HotSpot JVM (a libjvm.so in its maps) */
	TM_SNAP_GO_URL,  /* the run's main process, at the URL given (--go-url) */
};

/* X(ENUM, "name", taker, target, "what it writes") */
#define TM_SNAP_KINDS(X)                                                                           \
	X(HEAP_PROFILE, "heap_profile", tm_snap_heap_profile, TM_SNAP_SHIMMED,                     \
	  "the native heap profile (pprof, with allocation sites) of a process under the shim")    \
	X(JVM_HISTOGRAM, "jvm_histogram", tm_snap_jvm_histogram, TM_SNAP_JVM,                      \
	  "a JVM's class histogram (jcmd GC.class_histogram): instances and bytes per class")      \
	X(JVM_HEAP_DUMP, "jvm_heap_dump", tm_snap_jvm_heap_dump, TM_SNAP_JVM,                      \
	  "a JVM's heap dump (jcmd GC.heap_dump -gz=1) and, once it runs again, its holders")      \
	X(GO_HEAP, "go_heap", tm_snap_go_heap, TM_SNAP_GO_URL,                                     \
	  "a Go program's heap profile from its net/http/pprof /debug/pprof/heap")

#define TM_SNAP_DECLARE(e, n, fn, t, d) tm_snap_fn fn;
TM_SNAP_KINDS(TM_SNAP_DECLARE)
#undef TM_SNAP_DECLARE

enum tm_snap_kind {
#define TM_SNAP_ENUM(e, n, fn, t, d) TM_SNAP_##e,
	TM_SNAP_KINDS(TM_SNAP_ENUM)
#undef TM_SNAP_ENUM
	    TM_SNAP_KIND_COUNT
};

struct tm_snap_kind_desc {
	const char *name;
	tm_snap_fn *take;
	enum tm_snap_target target;
	const char *what;
};

/* The descriptor of K (< TM_SNAP_KIND_COUNT), else NULL. */
const struct tm_snap_kind_desc *tm_snap_kind_desc(enum tm_snap_kind k);

/* The kind called NAME (a '-' read as '_': `tidemark snap jvm-histogram`):
 * its enum, or -1. */
int tm_snap_kind_by_name(const char *name);

#endif
