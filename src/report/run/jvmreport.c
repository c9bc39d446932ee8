/* The JVM's part of `report` (report/run/rtreport.h): its Java heap lines
 * and their split of anon (jvmsplit.h), the reason the split is n/a in
 * --json, and its parts of the end reset and withheld. */
#include <math.h>
#include <stdio.h>

#include <jansson.h>

#include "base/util.h"
#include "report/run/jvmsplit.h"
#include "report/run/rtreport.h"
#include "report/run/summary.h"
#include "base/banned.h"

/* The JVM's own GC log, and why there is no Java heap line when its
 * counters are off. */
static void print_jvm_log(FILE *out, const struct tm_summary *s)
{
	char a[32], b[32], c[32], d[32], e[32];

	if (!isfinite(s->jvm_heap_used_peak_bytes) && s->jvm_procs_no_counters >= 1)
		fprintf(out,
		        "  java heap   n/a: the JVM publishes no hsperfdata counters "
		        "(-XX:-UsePerfData or -XX:+PerfDisableSharedMem)%s\n",
		        isfinite(s->jvm_log_heap_after_end_bytes)
		            ? "; its GC log below"
		            : "; start it with -Xlog:gc* for its GC log to be read");
	if (!isfinite(s->jvm_log_heap_after_end_bytes))
		return;
	if (isfinite(s->jvm_log_old_after_end_bytes))
		snprintf(e, sizeof(e), "%s",
		         tm_mib_text(d, sizeof(d), s->jvm_log_old_after_end_bytes));
	else
		snprintf(e, sizeof(e), "n/a (not logged in bytes)");
	fprintf(
	    out,
	    "  java gc log heap after the last GC %s (before it %s), peak after a GC %s, old gen "
	    "after the last GC %s; %s GCs (the JVM's -Xlog:gc lines; heap in whole MiB)\n",
	    tm_mib_text(a, sizeof(a), s->jvm_log_heap_after_end_bytes),
	    tm_mib_text(b, sizeof(b), s->jvm_log_heap_before_end_bytes),
	    tm_mib_text(c, sizeof(c), s->jvm_log_heap_after_peak_bytes), e,
	    tm_count_text(d, sizeof(d), s->jvm_log_gcs));
}

static void print_jvm(FILE *out, const struct tm_summary *s)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], line[512];

	print_jvm_log(out, s);
	if (!isfinite(s->jvm_heap_used_peak_bytes))
		return;
	fprintf(out,
	        "  java heap   used at the end %s of %s committed (old %s, metaspace %s), "
	        "peak used %s; %s GCs, %s in GC\n",
	        tm_mib_text(a, sizeof(a), s->jvm_heap_used_end_bytes),
	        tm_mib_text(b, sizeof(b), s->jvm_heap_committed_end_bytes),
	        tm_mib_text(c, sizeof(c), s->jvm_old_used_end_bytes),
	        tm_mib_text(d, sizeof(d), s->jvm_metaspace_used_end_bytes),
	        tm_mib_text(e, sizeof(e), s->jvm_heap_used_peak_bytes),
	        tm_count_text(f, sizeof(f), s->jvm_gcs),
	        tm_secs_text(g, sizeof(g), s->jvm_gc_usec));
	tm_jvm_split_text(&s->jvm_split, line, sizeof(line));
	fprintf(out, "              %s\n", line);
}

/* Why the JVM split is n/a; null when it was made or there was no JVM. */
static void jvm_json(json_t *o, const struct tm_summary *s)
{
	json_object_set_new(o, "jvm_split_na_reason",
	                    s->jvm_split.why == TM_JVM_SPLIT_OK ||
	                            s->jvm_split.why == TM_JVM_SPLIT_NO_JVM
	                        ? json_null()
	                        : json_string(tm_jvm_split_why_text(s->jvm_split.why)));
}

static void jvm_reset(struct tm_summary *s)
{
	tm_jvm_split_compute(NAN, NAN, NAN, NAN, &s->jvm_split); /* no JVM */
}

static void jvm_withhold(struct tm_summary *s)
{
	s->anon_minus_jvm_heap_used_end_bytes = NAN;
	if (s->jvm_split.why != TM_JVM_SPLIT_NO_JVM)
		tm_jvm_split_withhold(&s->jvm_split);
}

const struct tm_rt_report tm_rtr_jvm = {
    .text = print_jvm,
    .json = jvm_json,
    .reset = jvm_reset,
    .withhold = jvm_withhold,
};
