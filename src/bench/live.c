/* The bench's live line, its ETA, and short runs (bench/live.h). */
#include <stdio.h>
#include <string.h>

#include "base/opt.h"
#include "base/term.h"
#include "bench/live.h"
#include "base/banned.h"

#define BAR_W 20

/* "45s", "3m05s", "1h02m": a wait, to the second. */
static void fmt_wait(char *buf, size_t size, int64_t usec)
{
	long long s = (usec + 500000) / 1000000;

	if (s < 60)
		snprintf(buf, size, "%llds", s);
	else if (s < 3600)
		snprintf(buf, size, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, size, "%lldh%02lldm", s / 3600, s / 60 % 60);
}

void tm_bench_eta_text(const struct tm_bench_eta *e, int64_t cur_usec, char *buf, size_t size)
{
	char bar[BAR_W + 1], eta[32] = "?";
	double mean = e->done > 0 ? (double)e->done_usec / e->done : 0, part = 0;

	if (cur_usec < 0)
		cur_usec = 0;
	if (mean > 0) {
		part = (double)cur_usec / mean;
		part = part > 0.99 ? 0.99 : part;
		double left = mean * (e->total - e->done) - (double)cur_usec;
		fmt_wait(eta, sizeof(eta), left > 0 ? (int64_t)left : 0);
	}
	double frac = e->total > 0 ? (e->done + part) / e->total : 0;
	int full = (int)(frac * BAR_W);
	full = full > BAR_W ? BAR_W : full < 0 ? 0 : full;
	memset(bar, '#', (size_t)full);
	memset(bar + full, '-', (size_t)(BAR_W - full));
	bar[BAR_W] = '\0';
	snprintf(buf, size, "[%s] %d/%d ETA %s", bar, e->done, e->total, eta);
}

bool tm_bench_short_run_note(int64_t wall_usec, int samples, int64_t interval_usec, char *buf,
                             size_t size)
{
	static const int64_t nice[] = {10000000, 5000000, 2000000, 1000000,
	                               500000,   200000,  100000,  50000};
	char now[32], use[32];
	int64_t pick = 50000;

	if (samples >= TM_BENCH_FEW_SAMPLES || wall_usec <= 0 || interval_usec <= 0)
		return false;
	for (size_t i = 0; i < sizeof(nice) / sizeof(nice[0]); i++)
		if (nice[i] < interval_usec && wall_usec / nice[i] >= 20) {
			pick = nice[i];
			break;
		}
	tm_fmt_duration(now, sizeof(now), interval_usec);
	tm_fmt_duration(use, sizeof(use), pick);
	int at_pick = (int)(wall_usec / pick) + 1;
	if (pick >= interval_usec)
		snprintf(buf, size,
		         "warning: a run of %.2f s took %d sample%s at -i %s, too few to show its "
		         "shape; -i %s is the least interval: give the runs more work to see more",
		         wall_usec / 1e6, samples, samples == 1 ? "" : "s", now, use);
	else
		snprintf(buf, size,
		         "warning: a run of %.2f s took %d sample%s at -i %s, too few to show its "
		         "shape (its chart may stop at the peak); use -i %s (about %d samples)%s",
		         wall_usec / 1e6, samples, samples == 1 ? "" : "s", now, use, at_pick,
		         at_pick < TM_BENCH_FEW_SAMPLES ? ", the least interval, or more work"
		                                        : "");
	return true;
}

void tm_bench_live_print(FILE *f, const char *text)
{
	int width = tm_term_width(f) - 1, col = 0;
	const char *p = text;

	for (; *p && col < width; p++)
		col += ((unsigned char)*p & 0xc0) != 0x80;
	/* P is the first byte past WIDTH columns: never cut a code point */
	while (*p && ((unsigned char)*p & 0xc0) == 0x80)
		p++;
	fprintf(f, "\r\033[K%.*s", (int)(p - text), text);
	fflush(f);
}

bool tm_bench_warn_short(FILE *f, int64_t wall_usec, int samples, int64_t interval_usec)
{
	char note[400];

	if (!tm_bench_short_run_note(wall_usec, samples, interval_usec, note, sizeof(note)))
		return false;
	tm_term_wrap(f, note, 0, 2, tm_term_width(f));
	return true;
}

void tm_bench_live_outcome(FILE *f, bool color, enum tm_outcome o)
{
	enum tm_tone tone;

	if (tm_term_outcome_tone(tm_outcome_name(o), &tone))
		tm_term_put_if(f, color, tone, tm_outcome_name(o));
	else
		fputs(tm_outcome_name(o), f);
}
