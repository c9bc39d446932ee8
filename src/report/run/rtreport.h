/*
 * What `report` shows of a runtime beyond the summary's figures
 * (runtime/registry.h describes the runtime; this is its part of the
 * report): its lines in the text, its members of --json's figures, and how
 * its parts of the end are reset and withheld.  One entry per runtime that
 * has such a part, in rtreport.c's list; the generic report (runreport.c,
 * runjson.c, summary.c) walks the list and names no runtime.
 */
#ifndef TM_REPORT_RTREPORT_H
#define TM_REPORT_RTREPORT_H

#include <stdio.h>

#include <jansson.h>

#include "runtime/registry.h"

struct tm_summary;

struct tm_rt_report {
	/* its lines of report's text, after the heap's own (S's figures);
	 * NULL: none */
	void (*text)(FILE *out, const struct tm_summary *s);
	/* adds its members to FIGURES, --json's figures object (each a
	 * figure, or null when n/a); NULL: none */
	void (*json)(json_t *figures, const struct tm_summary *s);
	/* sets its parts of S to "not measured" before the samples are read;
	 * NULL: none beyond the summary's figures (report/run/summaryfigs.h) */
	void (*reset)(struct tm_summary *s);
	/* withholds its parts of the end: the sample they came from is not one
	 * after the work; NULL: none */
	void (*withhold)(struct tm_summary *s);
};

/* The runtimes with a part of their own in the report, one line each:
 * X(ENUM, descriptor), ENUM as in runtime/registry.h's lists, the
 * descriptor defined in the runtime's own file (jvmreport.c).  A line whose
 * descriptor is not defined fails to link; rtreport.c's table derives from
 * the list.  A runtime whose gc heap line and split are the report's own
 * (from its descriptor's .split) needs none. */
#define TM_RT_REPORT_LIST(X) X(JVM, tm_rtr_jvm)

#define TM_X_RTR_DECL(e, desc) extern const struct tm_rt_report desc;
TM_RT_REPORT_LIST(TM_X_RTR_DECL)
#undef TM_X_RTR_DECL

/* The report part of runtime RT, NULL when it has none (or RT is none). */
const struct tm_rt_report *tm_rt_report(enum tm_runtime rt);

/* Each runtime's part, in registry order: text to OUT, members into
 * FIGURES, reset and withhold of S. */
void tm_rt_report_text(FILE *out, const struct tm_summary *s);
void tm_rt_report_json(json_t *figures, const struct tm_summary *s);
void tm_rt_report_reset(struct tm_summary *s);
void tm_rt_report_withhold(struct tm_summary *s);

#endif
