/* What a summary could not take exactly, as text (report/run/approxtext.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "base/util.h"
#include "report/run/approxtext.h"
#include "base/banned.h"

/* The median of the page cache, with its bound when it is not exact. */
const char *tm_median_file_text(char *buf, size_t size, const struct tm_summary *s)
{
	const struct tm_summary_approx *ap = &s->approx;
	char lo[32], hi[32];

	if (ap->rollup_samples)
		snprintf(buf, size, "between %s and %s (from rollups)",
		         tm_mib_text(lo, sizeof(lo), ap->median_file_low_bytes),
		         tm_mib_text(hi, sizeof(hi), ap->median_file_high_bytes));
	else if (ap->median_file_rel_error > 0 && isfinite(s->median_file_bytes))
		snprintf(buf, size, "%s (±%.1f %%, streaming sketch)",
		         tm_mib_text(lo, sizeof(lo), s->median_file_bytes),
		         100 * ap->median_file_rel_error);
	else
		return tm_mib_text(buf, size, s->median_file_bytes);
	return buf;
}

/* What came from rollups instead of pruned raw samples, and what it leaves
 * inexact. */
void tm_approx_text(FILE *out, const struct tm_summary_approx *ap)
{
	char when[32] = "";

	if (!ap->rollup_samples)
		return;
	if (ap->raw_from_wall_usec) {
		time_t t = (time_t)(ap->raw_from_wall_usec / 1000000);
		struct tm tm;
		localtime_r(&t, &tm);
		strftime(when, sizeof(when), " before %Y-%m-%d %H:%M:%S", &tm);
	}
	if (ap->long_run)
		fprintf(
		    out,
		    "  rollups     %" PRId64 " samples%s summarised from their %" PRId64
		    " hour rollups (a run this long is read from them; peaks, counts, totals and "
		    "duration exact)\n",
		    ap->rollup_samples, when, ap->rollup_buckets);
	else
		fprintf(out,
		        "  rollups     %" PRId64 " samples%s were pruned: summarised from %" PRId64
		        " %s rollups (peaks, counts, totals and duration exact)\n",
		        ap->rollup_samples, when, ap->rollup_buckets,
		        ap->minute && ap->hour ? "minute and hour"
		        : ap->hour             ? "hour"
		                               : "minute");
	if (ap->peak_in_rollups)
		fprintf(out,
		        "              the anon peak is in a rolled-up stretch: the figures of its "
		        "sample are n/a\n");
	if (ap->end_in_rollups)
		fprintf(
		    out,
		    "              the run's end is rolled up: held is the last anon of the last "
		    "bucket, n/a when the target had left\n");
	if (ap->progress_in_rollups)
		fprintf(
		    out,
		    "              progress points in a rolled-up stretch: no per-unit slopes\n");
}
