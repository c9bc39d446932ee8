/*
 * Garbage collectors' own log lines, one line at a time: Go's
 * GODEBUG=gctrace=1 lines and the GHC RTS's +RTS -S statistics lines
 * (and V8's --trace-gc lines, runtime/v8gclog.c, through its descriptor in
 * runtime/registry.h).
 * Pure: text in, figures out; a line that is not one of theirs is "not
 * mine" (1), never an error, since these lines share stderr with the
 * program's own output.
 */
#ifndef TM_GCLOG_H
#define TM_GCLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One collection as a runtime reported it. */
struct tm_gc_event {
	int64_t gc_number;         /* Go: the GC's number (1, 2, ...); GHC: -1 */
	int64_t live_bytes;        /* live heap after the collection; -1 when the
	                              line gives none (V8's minor GCs) */
	int64_t live_resolution;   /* the true value is in [live, live + resolution):
	                              1 MiB for Go's whole MiB, 1 for GHC's bytes;
	                              V8: 0.1 MiB, rounded, so within half of it */
	int64_t heap_before_bytes; /* Go, V8: heap at the start of the GC; GHC: -1 */
	int64_t goal_bytes;        /* Go: the next GC's goal; GHC: -1 */
	int64_t generation;        /* GHC: the generation collected; V8: 1 full,
	                              0 minor; Go: -1 */
	bool forced;               /* Go: "(forced)", runtime.GC() */
};

/*
 * Parses one Go gctrace line (LEN bytes, no newline needed):
 *   gc 5 @0.013s 1%: ... ms cpu, 32->32->32 MB, 59 MB goal, ... (forced)
 * 0 and OUT filled, or 1 when the line is not a gctrace line.
 */
int tm_gclog_go(const char *line, size_t len, struct tm_gc_event *out);

/*
 * Parses one GHC +RTS -S line:
 *   1069088     29368     47096  0.000  0.000    0.002    0.002    0    0  (Gen:  0)
 * (allocated, copied, live bytes, GC and total times, page faults, the
 * generation).  0 and OUT filled, or 1 when the line is not one.
 */
int tm_gclog_ghc(const char *line, size_t len, struct tm_gc_event *out);

/*
 * Whether LINE is the line the GHC RTS prints under +RTS -S as it exits,
 * after the collection it makes while shutting down (its "teardown" GC,
 * with every thread gone, so its live bytes are not the program's):
 *           0                      0.000  0.000
 * (bytes allocated since that GC, two blank columns, two zero times).
 * 0 when it is, 1 when not.
 */
int tm_gclog_ghc_exit(const char *line, size_t len);

/*
 * The stats file a GHC RTS option word names: "-S<file>" gives FILE, into
 * BUF (SIZE bytes); "-S" and "-Sstderr" (the RTS's stderr) give "".  0, 1
 * when WORD is not a -S option, -1 when the name does not fit.
 */
int tm_gclog_ghc_stats_file(const char *word, char *buf, size_t size);

#endif
