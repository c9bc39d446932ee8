/*
 * The JVM's series in a phase row (report/phases/rtphases.h): the Java heap
 * used (hsperfdata), and the old gen used after the JVMs' latest GC,
 * derived from the old gen and the GC time of each sample.
 */
#include <math.h>

#include "report/phases/phases.h"
#include "base/banned.h"

#define NO TM_METRIC_COUNT

const struct tm_phase_series_desc tm_phs_jvm_heap = {
    .key = "jvm_heap_used",
    .label = "java heap",
    .src = {TM_PH_ONE, TM_M_JVM_HEAP_USED_BYTES, NO},
};

/* The inputs of old after GC. */
enum { GC_USEC, OLD };

/* V[S] of PTS[0..N): the old gen used in the sample where the JVMs' GC time
 * last rose (HotSpot adds a collection's time as it ends; the first time
 * seen counts as a rise when above 0), carried forward; NAN before any GC,
 * in a sample without the JVMs' counters, and after the time fell (a JVM
 * left). */
static void old_after_gc(struct tm_phase_pt *pts, size_t n, enum tm_phase_series s)
{
	double prev = NAN, cur = NAN;

	for (size_t i = 0; i < n; i++) {
		double g = pts[i].in[TM_PSI_JVM_OLD_GC + GC_USEC];
		if (!isfinite(g)) {
			pts[i].v[s] = NAN; /* unread: no GC figure either */
			continue;
		}
		if (isfinite(prev) && g < prev)
			cur = NAN; /* a JVM left the tree: its figure went with it */
		if (isfinite(prev) ? g > prev : g > 0)
			cur = pts[i].in[TM_PSI_JVM_OLD_GC +
			                OLD]; /* NAN when the old gen was not read */
		prev = g;
		pts[i].v[s] = cur;
	}
}

const struct tm_phase_series_desc tm_phs_jvm_old_gc = {
    .key = "jvm_old_after_gc",
    .label = "old after GC",
    .src = {TM_PH_NONE, NO, NO},
    .in = {[GC_USEC] = {TM_PH_SUM, TM_M_JVM_YOUNG_GC_USEC, TM_M_JVM_FULL_GC_USEC},
           [OLD] = {TM_PH_ONE, TM_M_JVM_OLD_USED_BYTES, NO}},
    .derive = old_after_gc,
    .note = "old after GC: the JVMs' old gen used in the first sample after their latest GC "
            "ended",
};
