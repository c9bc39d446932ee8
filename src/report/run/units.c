/* A run's work in units, from its "units" event; see summary.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/run/summary.h"
#include "store/store.h"
#include "base/banned.h"

/* The last "units" event: the exact number in its detail ("12.5 --units"),
 * else its value. */
static int units_event(void *ctx, const struct tm_event *ev)
{
	struct tm_summary *s = ctx;
	char *end = NULL;

	if (!ev->kind || strcmp(ev->kind, "units"))
		return 0;
	double v = ev->detail ? strtod(ev->detail, &end) : NAN;
	if (!ev->detail || end == ev->detail || !isfinite(v))
		v = (double)ev->value;
	s->units = v;
	snprintf(s->units_source, sizeof(s->units_source), "%s", end && *end == ' ' ? end + 1 : "");
	return 0;
}

int tm_summary_units(struct tm_store *st, int64_t run_id, struct tm_summary *s)
{
	s->units = s->units_per_min = s->wall_usec_per_unit = NAN;
	s->units_source[0] = '\0';
	if (tm_store_each_event(st, run_id, units_event, s))
		return -1;
	if (!isfinite(s->units) || s->units <= 0) {
		s->units = NAN;
		return 0;
	}
	if (isfinite(s->duration_usec) && s->duration_usec > 0) {
		s->units_per_min = s->units / (s->duration_usec / 60e6);
		s->wall_usec_per_unit = s->duration_usec / s->units;
	}
	if (!isfinite(s->cpu_usec_per_unit) && isfinite(s->cpu_usec))
		s->cpu_usec_per_unit = s->cpu_usec / s->units;
	return 0;
}
