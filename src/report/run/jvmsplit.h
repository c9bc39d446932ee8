/*
 * A JVM's anon in parts, from one sample: the Java heap, the malloc the
 * heap shim counts (live, plus what the allocators hold when they said)
 * and other anon (the remainder).  The Java heap is its mappings' resident
 * anonymous pages when they were read (sample/jvmresident.h), themselves
 * HotSpot's "used" (hsperfdata) + free but touched; other anon is then
 * code cache, thread stacks and GC data only.  Without them the Java heap
 * is "used" and other anon holds its free but touched pages too.  When the
 * parts do not fit in anon the split is not made (rule 2).
 */
#ifndef TM_REPORT_JVMSPLIT_H
#define TM_REPORT_JVMSPLIT_H

#include <stddef.h>

/* Why the split was not made; TM_JVM_SPLIT_OK when it was. */
enum tm_jvm_split_why {
	TM_JVM_SPLIT_OK = 0,
	TM_JVM_SPLIT_NO_JVM,      /* no sample with a JVM's heap while the target lived */
	TM_JVM_SPLIT_NO_ANON,     /* that sample has no anon */
	TM_JVM_SPLIT_NO_SHIM,     /* no heap shim: malloc and other anon are not known apart */
	TM_JVM_SPLIT_HEAP_OVER,   /* Java heap used > anon */
	TM_JVM_SPLIT_MALLOC_OVER, /* Java heap used + malloc > anon */
	TM_JVM_SPLIT_NO_END,      /* no after the work to measure (held after is n/a) */
	TM_JVM_SPLIT_RES_OVER,    /* the Java heap's resident pages > anon */
};

struct tm_jvm_split {
	enum tm_jvm_split_why why;
	double anon_bytes;      /* the sample's anon */
	double java_heap_bytes; /* Java heap used; NAN unless OK or NO_SHIM (and, with the
	                           resident pages, unless used fits in them) */
	/* the Java heap mappings' resident anon, and its part not used (free but
	 * touched); NAN without them (and free NAN when used counts pages never
	 * touched, more than the resident) */
	double java_resident_bytes, java_free_bytes;
	double malloc_live_bytes; /* the shim's live bytes; NAN unless OK */
	double malloc_held_bytes; /* held by the allocators; NAN unless OK and known */
	double malloc_bytes;      /* live + held (when known); NAN unless OK */
	double other_bytes;       /* anon - the Java heap - malloc; NAN unless OK */
	double over_bytes;        /* HEAP_OVER, MALLOC_OVER: by how much they exceed anon */
};

/*
 * Splits ANON (bytes) of one sample with the JVMs' heap used JAVA_USED, the
 * shim's live LIVE and the allocators' held HELD (each NAN when absent;
 * HELD may be NAN with LIVE present: malloc is then the live bytes only).
 * Every part it gives is finite and >= 0 and they add up to anon; parts it
 * cannot give are NAN, and WHY says which case it was.
 */
void tm_jvm_split_compute(double anon, double java_used, double live, double held,
                          struct tm_jvm_split *out);

/*
 * tm_jvm_split_compute with the Java heap's resident pages JAVA_RES (bytes;
 * NAN: not read, as tm_jvm_split_compute): the Java heap part is then
 * JAVA_RES (used + free but touched when used fits in it), so that other
 * anon holds none of the heap.
 */
void tm_jvm_split_resident(double anon, double java_used, double java_res, double live, double held,
                           struct tm_jvm_split *out);

/* Withholds SP's parts: the sample it was made from is not one after the
 * work (why becomes TM_JVM_SPLIT_NO_END; anon_bytes NAN). */
void tm_jvm_split_withhold(struct tm_jvm_split *sp);

/* The reason of WHY, in words for `report` and --json ("" for OK). */
const char *tm_jvm_split_why_text(enum tm_jvm_split_why why);

/*
 * SP as one line of text into BUF (SIZE bytes, truncated to fit, always
 * terminated): "anon at the end A = J Java heap used + M the JVM's malloc
 * (...) + O other anon (...)", or the rest without the shim, or n/a and the
 * reason.  Sizes in MiB.
 */
void tm_jvm_split_text(const struct tm_jvm_split *sp, char *buf, size_t size);

#endif
