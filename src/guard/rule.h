/*
 * guard/rule.h: the conditions `tidemark guard` watches for (docs/guard.md).
 * A rule is one line of a small language, "anon>90%max" or
 * "psi_full>10%for30s", parsed here without I/O; it is evaluated sample by
 * sample over a run's stored samples by a pure function, so that the live
 * guard and `--dry-run` over a stored run fire at the same samples.
 *
 * Each kind of condition is one line of TM_GUARD_KINDS: its name, what it
 * watches, its syntax and an example.  tests/unit/test_guard_rule.c parses
 * every kind's example and makes it fire over synthetic samples, and the
 * parser's and the evaluation's switches have no default, so a kind without
 * its descriptor, parser or evaluation fails to build (-Wswitch) or there.
 */
#ifndef TM_GUARD_RULE_H
#define TM_GUARD_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/metrics.h"
#include "base/sample.h"

struct tm_err;

/* X(ENUM, "name", "syntax", "example", "meaning") */
#define TM_GUARD_KINDS(X)                                                                          \
	X(LEVEL, "level", "anon|current>P%max|P%high|SIZE [for DUR]", "anon>90%max",               \
	  "the cgroup's anon (or memory.current) above a share of memory.max or memory.high, "     \
	  "or above a size")                                                                       \
	X(HIGH_RATE, "high_rate", "high_events>N/s [for DUR]", "high_events>5/s",                  \
	  "memory.events high rising faster than N a second between two samples "                  \
	  "(throttle limbo)")                                                                      \
	X(PSI_FULL, "psi_full", "psi_full|host_psi_full>P% [for DUR]", "psi_full>10%for30s",       \
	  "the share of wall time all tasks stalled on memory (PSI full), between two "            \
	  "samples, above P%")                                                                     \
	X(JVM_OLD, "jvm_old", "jvm_old>P%committed|SIZE [xN]", "jvm_old>85%committed x3",          \
	  "a JVM's old generation after GC (its GC log) above a share of its committed "           \
	  "size or a size, N GCs in a row")                                                        \
	X(HEAP_GROWS, "heap_grows", "heap_live grows for DUR", "heap_live grows for 5m",           \
	  "the live heap under the shim not below where it was DUR ago, and at its highest "       \
	  "since")

enum tm_guard_kind {
#define TM_GUARD_KIND_ENUM(e, n, s, x, m) TM_GUARD_##e,
	TM_GUARD_KINDS(TM_GUARD_KIND_ENUM)
#undef TM_GUARD_KIND_ENUM
	    TM_GUARD_KIND_COUNT
};

/* One kind as the registry describes it (all strings static). */
struct tm_guard_kind_desc {
	const char *name, *syntax, *example, *meaning;
};
/* The descriptor of K (< TM_GUARD_KIND_COUNT). */
const struct tm_guard_kind_desc *tm_guard_kind_desc(enum tm_guard_kind k);

/* What a threshold is measured against. */
enum tm_guard_ref {
	TM_GUARD_REF_BYTES,     /* an absolute size (bytes) */
	TM_GUARD_REF_MAX,       /* a share of memory.max */
	TM_GUARD_REF_HIGH,      /* a share of memory.high */
	TM_GUARD_REF_COMMITTED, /* a share of the JVM's old gen committed size */
	TM_GUARD_REF_NONE,      /* a rate or a share of time: no reference */
};

#define TM_GUARD_RULE_TEXT 128

/* A parsed rule.  Plain data; no ownership. */
struct tm_guard_rule {
	enum tm_guard_kind kind;
	enum tm_metric metric;         /* what is compared */
	enum tm_guard_ref ref;         /* LEVEL, JVM_OLD: against what */
	double share;                  /* in (0, 10]: the share of REF (or of time for PSI_FULL) */
	int64_t bytes;                 /* REF_BYTES: the size */
	double per_sec;                /* HIGH_RATE: events a second */
	int64_t for_usec;              /* how long it must hold (0: at one sample) */
	int64_t count;                 /* JVM_OLD: GCs in a row (>= 1) */
	char text[TM_GUARD_RULE_TEXT]; /* the rule as written, spaces removed */
};

/*
 * Parses TEXT (one rule; spaces anywhere are ignored) into *OUT.  0, or -1
 * with ERR saying what is wrong and what was expected
 * ("'anon>90%': a share needs max or high after it (anon>90%max)").  No I/O.
 */
int tm_guard_rule_parse(const char *text, struct tm_guard_rule *out, struct tm_err *err);

/* Evaluation state of one rule over one run; zero it (= {0}) to start. */
struct tm_guard_state {
	bool have_prev;
	int64_t prev_mono_usec, prev_counter; /* the previous sample's time and counter */
	bool prev_counter_known;
	int64_t since_mono_usec;  /* when the condition started holding (valid when holding) */
	bool holding;             /* the condition held at the last sample */
	bool fired;               /* fired since it last stopped holding */
	int64_t streak, last_gcs; /* JVM_OLD: GCs in a row, the GC count last seen */
	bool gcs_known;
	int64_t grow_t, grow_v, grow_max; /* HEAP_GROWS: where the rise started, its top */
	bool growing;
};

/*
 * Feeds one sample S (of a run, in seq order) to RULE with state *ST.
 * True when the rule fires at S: its condition holds at S (for its
 * duration, or its count of GCs) and had not fired since it last stopped
 * holding.  A figure absent from S makes the condition not hold (unknown is
 * not true).  Pure: the same samples give the same firings.
 */
bool tm_guard_rule_step(const struct tm_guard_rule *rule, struct tm_guard_state *st,
                        const struct tm_sample *s);

/* One line saying what RULE compares, for the report and dry-run
 * ("cg_anon_bytes > 90% of memory.max").  Into BUF; returns BUF. */
const char *tm_guard_rule_describe(const struct tm_guard_rule *rule, char *buf, size_t size);

#endif
