/*
 * HotSpot's performance counters: the hsperfdata file every JVM publishes
 * by default at /tmp/hsperfdata_USER/PID (the file jstat reads; no attach,
 * no flag).  docs/runtimes.md describes the layout.
 *
 * The parser is pure: it takes the bytes of the file (as read at one moment)
 * and picks out the counters tidemark stores.  A counter the JVM does not
 * publish (another collector lays its spaces out differently) is absent,
 * never 0.
 */
#ifndef TM_HSPERF_H
#define TM_HSPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"

struct tm_err;

/* The counters read; the comment is the hsperfdata name. */
enum tm_hs_field {
	TM_HS_EDEN_USED,   /* sun.gc.generation.0.space.0.used (bytes) */
	TM_HS_EDEN_CAP,    /* sun.gc.generation.0.space.0.capacity */
	TM_HS_S0_USED,     /* sun.gc.generation.0.space.1.used */
	TM_HS_S0_CAP,      /* sun.gc.generation.0.space.1.capacity */
	TM_HS_S1_USED,     /* sun.gc.generation.0.space.2.used */
	TM_HS_S1_CAP,      /* sun.gc.generation.0.space.2.capacity */
	TM_HS_OLD_USED,    /* sun.gc.generation.1.space.0.used */
	TM_HS_OLD_CAP,     /* sun.gc.generation.1.space.0.capacity */
	TM_HS_META_USED,   /* sun.gc.metaspace.used */
	TM_HS_META_CAP,    /* sun.gc.metaspace.capacity */
	TM_HS_YOUNG_GCS,   /* sun.gc.collector.0.invocations */
	TM_HS_YOUNG_TICKS, /* sun.gc.collector.0.time (hrt ticks) */
	TM_HS_FULL_GCS,    /* sun.gc.collector.1.invocations */
	TM_HS_FULL_TICKS,  /* sun.gc.collector.1.time (hrt ticks) */
	TM_HS_HRT_FREQ,    /* sun.os.hrt.frequency (ticks per second) */
	TM_HS_FIELD_COUNT
};

struct tm_hsperf {
	uint8_t major, minor; /* the file's format version */
	bool accessible;      /* the JVM has finished initialising the file */
	uint32_t entries;     /* entries walked */
	uint32_t present;     /* bit (1 << field) set when the counter was found */
	int64_t v[TM_HS_FIELD_COUNT];
};

/* The hsperfdata name of field F (as in the enum's comments). */
const char *tm_hsperf_name(enum tm_hs_field f);

static inline bool tm_hsperf_has(const struct tm_hsperf *h, enum tm_hs_field f)
{
	return (h->present >> f) & 1;
}

/*
 * Parses LEN bytes of an hsperfdata file into OUT.  0, or -1 with a reason
 * (quoting the byte offset) in ERR when the bytes are not an
 * hsperfdata file or an entry runs outside it.  Reads nothing outside BUF;
 * allocates nothing.  A file the JVM has not yet marked accessible parses
 * (accessible = false) but its counters should not be trusted.
 */
int tm_hsperf_parse(const void *buf, size_t len, struct tm_hsperf *out, struct tm_err *err);

/*
 * Looks up one long counter by NAME in an hsperfdata file: 0 and *OUT, or
 * -1 when the file does not parse or has no such long counter.
 */
int tm_hsperf_lookup(const void *buf, size_t len, const char *name, int64_t *out);

/*
 * Adds H's figures to S (a sum over the JVMs of a tree): JVM_PROCS + 1, the
 * heap used and committed (eden + survivors + old; present only when eden
 * and old are), each space, metaspace, and the GC counts and times (usec,
 * from the hrt frequency; absent without it).  Nothing when H is not
 * accessible.
 */
void tm_hsperf_to_sample(const struct tm_hsperf *h, struct tm_sample *s);

#endif
