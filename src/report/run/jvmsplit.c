#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/util.h"

#include "report/run/jvmsplit.h"
#include "base/banned.h"

static struct tm_jvm_split all_nan(enum tm_jvm_split_why why)
{
	return (struct tm_jvm_split){.why = why,
	                             .anon_bytes = NAN,
	                             .java_heap_bytes = NAN,
	                             .java_resident_bytes = NAN,
	                             .java_free_bytes = NAN,
	                             .malloc_live_bytes = NAN,
	                             .malloc_held_bytes = NAN,
	                             .malloc_bytes = NAN,
	                             .other_bytes = NAN,
	                             .over_bytes = NAN};
}

void tm_jvm_split_compute(double anon, double java_used, double live, double held,
                          struct tm_jvm_split *out)
{
	tm_jvm_split_resident(anon, java_used, NAN, live, held, out);
}

/* The Java heap's part of anon: its resident pages when read, else used;
 * false (WHY and OVER set) when it does not fit in anon. */
static bool java_part(double anon, double used, double res, struct tm_jvm_split *out, double *part)
{
	if (isfinite(res)) {
		out->java_resident_bytes = res;
		if (used <= res) {
			out->java_heap_bytes = used;
			out->java_free_bytes = res - used;
		}
		if (res > anon) {
			out->why = TM_JVM_SPLIT_RES_OVER;
			out->over_bytes = res - anon;
			out->java_heap_bytes = out->java_free_bytes = out->java_resident_bytes =
			    NAN;
			return false;
		}
		*part = res;
		return true;
	}
	if (used > anon) {
		out->why = TM_JVM_SPLIT_HEAP_OVER;
		out->over_bytes = used - anon;
		return false;
	}
	out->java_heap_bytes = *part = used;
	return true;
}

void tm_jvm_split_resident(double anon, double java_used, double java_res, double live, double held,
                           struct tm_jvm_split *out)
{
	double java;

	*out = all_nan(TM_JVM_SPLIT_OK);
	out->anon_bytes = anon;
	if (!isfinite(java_used)) {
		out->why = TM_JVM_SPLIT_NO_JVM;
		return;
	}
	if (!isfinite(anon)) {
		out->why = TM_JVM_SPLIT_NO_ANON;
		return;
	}
	if (!java_part(anon, java_used, java_res, out, &java))
		return;
	if (!isfinite(live)) {
		out->why = TM_JVM_SPLIT_NO_SHIM;
		return;
	}
	double m = live + (isfinite(held) && held > 0 ? held : 0);
	if (m > anon - java) {
		out->why = TM_JVM_SPLIT_MALLOC_OVER;
		out->over_bytes = m - (anon - java);
		out->java_heap_bytes = out->java_resident_bytes = out->java_free_bytes = NAN;
		return;
	}
	out->malloc_live_bytes = live;
	out->malloc_held_bytes = isfinite(held) ? (held > 0 ? held : 0) : NAN;
	out->malloc_bytes = m;
	out->other_bytes = anon - java - m;
}

void tm_jvm_split_withhold(struct tm_jvm_split *sp)
{
	*sp = all_nan(TM_JVM_SPLIT_NO_END);
}

const char *tm_jvm_split_why_text(enum tm_jvm_split_why why)
{
	switch (why) {
	case TM_JVM_SPLIT_OK:
		return "";
	case TM_JVM_SPLIT_NO_JVM:
		return "no sample had a JVM's heap while the target lived";
	case TM_JVM_SPLIT_NO_ANON:
		return "the sample with the JVM's heap has no anon";
	case TM_JVM_SPLIT_NO_SHIM:
		return "no heap shim (record --heap): the JVM's malloc is not known apart from "
		       "other anon";
	case TM_JVM_SPLIT_HEAP_OVER:
		return "Java heap used is more than anon: used counts heap space never touched "
		       "(G1 fills the ends of regions and humongous objects' last regions)";
	case TM_JVM_SPLIT_MALLOC_OVER:
		return "Java heap used and the malloc the shim counts are more than anon: used "
		       "counts heap space never touched (G1 fills the ends of regions), and "
		       "malloc'd blocks need not be touched";
	case TM_JVM_SPLIT_RES_OVER:
		return "the Java heap's resident pages are more than anon (smaps and the cgroup "
		       "read at other moments)";
	case TM_JVM_SPLIT_NO_END:
		return "there is no sample after the work to split (held after the work is n/a)";
	}
	return "?";
}

/* The Java heap's part of SP's text into BUF, and what other anon holds. */
static const char *java_text(const struct tm_jvm_split *sp, char *buf, size_t size)
{
	char r[32], u[32], f[32];

	if (!isfinite(sp->java_resident_bytes)) {
		snprintf(buf, size, "%s Java heap used",
		         tm_mib_text(u, sizeof(u), sp->java_heap_bytes));
		return "code cache, thread stacks, GC data, free but touched heap";
	}
	tm_mib_text(r, sizeof(r), sp->java_resident_bytes);
	if (isfinite(sp->java_free_bytes))
		snprintf(buf, size, "%s Java heap resident (%s used, %s free but touched)", r,
		         tm_mib_text(u, sizeof(u), sp->java_heap_bytes),
		         tm_mib_text(f, sizeof(f), sp->java_free_bytes));
	else
		snprintf(
		    buf, size,
		    "%s Java heap resident (its used, as the collector counts it, is more than "
		    "these: used and free not told apart)",
		    r);
	return "code cache, thread stacks, GC data";
}

void tm_jvm_split_text(const struct tm_jvm_split *sp, char *buf, size_t size)
{
	char a[32], j[192], m[32], l[32], h[32], o[32];
	const char *other = java_text(sp, j, sizeof(j));
	double java =
	    isfinite(sp->java_resident_bytes) ? sp->java_resident_bytes : sp->java_heap_bytes;

	tm_mib_text(a, sizeof(a), sp->anon_bytes);
	if (sp->why == TM_JVM_SPLIT_OK && isfinite(sp->malloc_held_bytes))
		snprintf(buf, size,
		         "anon at the end %s = %s + %s the JVM's malloc (%s live, %s held by the "
		         "allocator) + %s other anon (%s)",
		         a, j, tm_mib_text(m, sizeof(m), sp->malloc_bytes),
		         tm_mib_text(l, sizeof(l), sp->malloc_live_bytes),
		         tm_mib_text(h, sizeof(h), sp->malloc_held_bytes),
		         tm_mib_text(o, sizeof(o), sp->other_bytes), other);
	else if (sp->why == TM_JVM_SPLIT_OK)
		snprintf(buf, size,
		         "anon at the end %s = %s + %s the JVM's malloc (live; what the allocator "
		         "holds is not known and is in the rest) + %s other anon (%s)",
		         a, j, tm_mib_text(m, sizeof(m), sp->malloc_bytes),
		         tm_mib_text(o, sizeof(o), sp->other_bytes), other);
	else if (sp->why == TM_JVM_SPLIT_NO_SHIM)
		snprintf(
		    buf, size,
		    "anon at the end %s = %s + %s the rest (the JVM's malloc, %s; record --heap "
		    "splits the malloc out)",
		    a, j, tm_mib_text(o, sizeof(o), sp->anon_bytes - java), other);
	else if (sp->why == TM_JVM_SPLIT_HEAP_OVER || sp->why == TM_JVM_SPLIT_MALLOC_OVER ||
	         sp->why == TM_JVM_SPLIT_RES_OVER)
		snprintf(buf, size, "anon at the end %s: its split is n/a, %s (by %s)", a,
		         tm_jvm_split_why_text(sp->why), tm_mib_text(o, sizeof(o), sp->over_bytes));
	else
		snprintf(buf, size, "anon at the end: its split is n/a, %s",
		         tm_jvm_split_why_text(sp->why));
}
