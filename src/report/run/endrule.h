/*
 * Whether a run ended with its program alive to be measured, the one rule
 * behind "held after the work", "live at the end" and the splits of that
 * sample (issue 19): a program that exits by itself leaves only samples
 * taken during its work (it may free everything just before it exits), so
 * those figures are n/a unless the work ended while the program ran (an
 * "end" mark or --until-progress, with a sample after it: --settle), the
 * recording stopped while it ran (--timeout, an interrupt), or it is still
 * running (a unit or cgroup watched).  Pure: the facts come from the store.
 */
#ifndef TM_REPORT_ENDRULE_H
#define TM_REPORT_ENDRULE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/outcome.h"
#include "report/run/summary.h"

struct tm_end_facts {
	enum tm_outcome outcome;    /* the stored outcome (LIVE: none written) */
	bool ended;                 /* the run's end was written */
	bool command;               /* a launched command (not -p, --cgroup, --unit) */
	int64_t work_end_mono_usec; /* the first "end" mark or --until-progress target; -1 none */
	bool stopped;               /* a "timeout", "interrupted" or "invalid" event: tidemark
	                               stopped the recording while the target ran */
	int64_t held_mono_usec;     /* the sample of held after (the last alive); -1 none */
};

/*
 * Decides from F whether the end's figures are measured (TM_END_MEASURED,
 * *KIND says how) or n/a and why (*KIND is TM_END_KIND_NONE).
 */
enum tm_end_na tm_end_decide(const struct tm_end_facts *f, enum tm_end_kind *kind);

/* Why the end's figures are n/a, in words ("" for TM_END_MEASURED). */
const char *tm_end_na_text(enum tm_end_na na);

/* How they were measured, in words ("" for TM_END_KIND_NONE). */
const char *tm_end_kind_text(enum tm_end_kind kind);

/* A short stable name for JSON: "after_work_end", "recording_stopped",
 * "running"; NULL for TM_END_KIND_NONE. */
const char *tm_end_kind_name(enum tm_end_kind kind);

#endif
