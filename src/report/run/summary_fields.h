/* The figures of struct tm_summary by name, for JSON and CSV output: the
 * registry report/run/summaryfigs.h as a table. */
#ifndef TM_SUMMARY_FIELDS_H
#define TM_SUMMARY_FIELDS_H

#include <stddef.h>
#include <string.h>

#include "report/run/summary.h"

struct tm_summary_field {
	const char *name; /* as in --json and --csv; the unit is in the name */
	size_t offset;    /* of a double in struct tm_summary */
};

/* one entry a figure of the registry (report/run/summaryfigs.h), in its order */
#define TM_SF(f, start)   {#f, offsetof(struct tm_summary, f)},
#define TM_SJ(name, part) {#name, offsetof(struct tm_summary, jvm_split.part)},
static const struct tm_summary_field tm_summary_fields[] = {TM_SUMMARY_FIG_LIST(TM_SF, TM_SJ)};
#undef TM_SF
#undef TM_SJ

static inline double tm_summary_get(const struct tm_summary *s, const struct tm_summary_field *f)
{
	double v;
	memcpy(&v, (const char *)s + f->offset, sizeof(v));
	return v;
}

#endif
