/* The work a run did, as an event; see units.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/error.h"
#include "base/util.h"
#include "record/recorder.h"
#include "record/units.h"
#include "store/store.h"
#include "base/banned.h"

int tm_parse_units(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*out) || *out <= 0 ? -1 : 0;
}

int tm_record_units(struct tm_store *st, int64_t run_id, double units, const char *source)
{
	char detail[96];

	if (!isfinite(units) || units <= 0)
		return tm_error("units: %g is not a count of work done", units);
	snprintf(detail, sizeof(detail), "%.17g %s", units, source);
	struct tm_event ev = {
	    .t_wall_usec = tm_now_wall_usec(),
	    .t_mono_usec = tm_now_mono_usec(),
	    .kind = "units",
	    .value = units < 9e18 ? llround(units) : INT64_MAX,
	    .detail = detail,
	};
	if (tm_store_add_event(st, run_id, &ev) || tm_store_commit(st))
		return -1;
	return 0;
}

static int last_value(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value)
{
	(void)t_wall_usec;
	(void)t_mono_usec;
	*(double *)ctx = value;
	return 0;
}

int tm_record_last_match(struct tm_store *st, int64_t run_id, double *units)
{
	*units = NAN;
	if (tm_store_each_progress(st, run_id, last_value, units))
		return -1;
	return isfinite(*units) ? 0 : 1;
}

int tm_record_units_after(struct tm_store *st, int64_t run_id, const struct tm_record_opts *o)
{
	double v;
	int r;

	if (o->has_units)
		return tm_record_units(st, run_id, o->units, "--units");
	if (!o->units_from)
		return 0;
	if ((r = tm_record_last_match(st, run_id, &v)) < 0)
		return -1;
	if (r > 0 || !(v > 0)) {
		tm_warn(
		    "--units-from '%s': no line of the output gave a number above 0; the run has "
		    "no units",
		    o->units_from);
		return 0;
	}
	return tm_record_units(st, run_id, v, "--units-from");
}
