#include <math.h>
#include <stdio.h>

#include "base/util.h"

#include "report/jvmsplit.h"
#include "base/banned.h"

void tm_jvm_split_compute(double anon, double java_used, double live, double held,
                          struct tm_jvm_split *out)
{
	*out = (struct tm_jvm_split){TM_JVM_SPLIT_OK, anon, NAN, NAN, NAN, NAN, NAN, NAN};
	if (!isfinite(java_used)) {
		out->why = TM_JVM_SPLIT_NO_JVM;
		return;
	}
	if (!isfinite(anon)) {
		out->why = TM_JVM_SPLIT_NO_ANON;
		return;
	}
	if (java_used > anon) {
		out->why = TM_JVM_SPLIT_HEAP_OVER;
		out->over_bytes = java_used - anon;
		return;
	}
	out->java_heap_bytes = java_used;
	if (!isfinite(live)) {
		out->why = TM_JVM_SPLIT_NO_SHIM;
		return;
	}
	double m = live + (isfinite(held) && held > 0 ? held : 0);
	if (m > anon - java_used) {
		out->why = TM_JVM_SPLIT_MALLOC_OVER;
		out->over_bytes = m - (anon - java_used);
		out->java_heap_bytes = NAN;
		return;
	}
	out->malloc_live_bytes = live;
	out->malloc_held_bytes = isfinite(held) ? (held > 0 ? held : 0) : NAN;
	out->malloc_bytes = m;
	out->other_bytes = anon - java_used - m;
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
	}
	return "?";
}

void tm_jvm_split_text(const struct tm_jvm_split *sp, char *buf, size_t size)
{
	char a[32], j[32], m[32], l[32], h[32], o[32];

	tm_mib_text(a, sizeof(a), sp->anon_bytes);
	tm_mib_text(j, sizeof(j), sp->java_heap_bytes);
	if (sp->why == TM_JVM_SPLIT_OK && isfinite(sp->malloc_held_bytes))
		snprintf(buf, size,
		         "anon at the end %s = %s Java heap used + %s the JVM's malloc (%s live, "
		         "%s held by the allocator) + %s other anon (code cache, thread stacks, GC "
		         "data, free but touched heap)",
		         a, j, tm_mib_text(m, sizeof(m), sp->malloc_bytes),
		         tm_mib_text(l, sizeof(l), sp->malloc_live_bytes),
		         tm_mib_text(h, sizeof(h), sp->malloc_held_bytes),
		         tm_mib_text(o, sizeof(o), sp->other_bytes));
	else if (sp->why == TM_JVM_SPLIT_OK)
		snprintf(buf, size,
		         "anon at the end %s = %s Java heap used + %s the JVM's malloc (live; what "
		         "the allocator holds is not known and is in the rest) + %s other anon "
		         "(code cache, thread stacks, GC data, free but touched heap)",
		         a, j, tm_mib_text(m, sizeof(m), sp->malloc_bytes),
		         tm_mib_text(o, sizeof(o), sp->other_bytes));
	else if (sp->why == TM_JVM_SPLIT_NO_SHIM)
		snprintf(buf, size,
		         "anon at the end %s = %s Java heap used + %s the rest (the JVM's malloc, "
		         "code cache, thread stacks, GC data, free but touched heap; record --heap "
		         "splits the malloc out)",
		         a, j, tm_mib_text(o, sizeof(o), sp->anon_bytes - sp->java_heap_bytes));
	else if (sp->why == TM_JVM_SPLIT_HEAP_OVER || sp->why == TM_JVM_SPLIT_MALLOC_OVER)
		snprintf(buf, size, "anon at the end %s: its split is n/a, %s (by %s)", a,
		         tm_jvm_split_why_text(sp->why), tm_mib_text(o, sizeof(o), sp->over_bytes));
	else
		snprintf(buf, size, "anon at the end: its split is n/a, %s",
		         tm_jvm_split_why_text(sp->why));
}
