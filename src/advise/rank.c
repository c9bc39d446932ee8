/*
 * Which arm to run: survival first, then the memory it needs (anon peak
 * and anon held after the work), then the time it costs, each difference
 * stated as the bench table's ratio with its Mann–Whitney verdict; only
 * a significant difference changes the order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "advise/advise_int.h"
#include "base/banned.h"

/* Two medians closer than this share are the same for the ranking. */
#define SAME_SHARE 0.05

double tm_advise_round_up(double bytes)
{
	double mib = 1048576.0;
	return ceil(bytes / mib) * mib;
}

static double survival(const struct tm_advise_arm *arm)
{
	return arm->runs > 0 ? (double)arm->survived / arm->runs : 0;
}

/* Arm AI's figure F as the ranking sees it: its ratio to the reference arm
 * when the bench table finds the difference significant, else 1 (the
 * reference itself, too few runs, no difference shown). */
static double effective(const struct tm_advise *a, int ai, enum tm_bench_fig f)
{
	const struct tm_bench_arm_row *r = &a->table.arms[ai];
	return r->verdict[f] == TM_BV_SIGNIFICANT && isfinite(r->ratio[f]) ? r->ratio[f] : 1;
}

/* <0 when X beats Y (lower), >0 when Y beats X, 0 when within SAME_SHARE. */
static int cmp_lower(double x, double y)
{
	if (fabs(x - y) <= SAME_SHARE * fmax(fabs(x), fabs(y)))
		return 0;
	return x < y ? -1 : 1;
}

static int cmp_arms(const struct tm_advise *a, int x, int y)
{
	int c;
	double sx = survival(&a->arms[x]), sy = survival(&a->arms[y]);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	c = cmp_lower(effective(a, x, TM_BF_PEAK_ANON), effective(a, y, TM_BF_PEAK_ANON));
	if (c)
		return c;
	c = cmp_lower(effective(a, x, TM_BF_HELD_ANON), effective(a, y, TM_BF_HELD_ANON));
	if (c)
		return c;
	c = cmp_lower(effective(a, x, TM_BF_WALL), effective(a, y, TM_BF_WALL));
	return c ? c : x - y;
}

void tm_advise_rank(struct tm_advise *a)
{
	bool any = false;

	/* insertion sort: a handful of arms, and a stable order for equals */
	for (int i = 0; i < a->n_arms; i++) {
		int j = i;
		for (; j > 0 && cmp_arms(a, i, a->order[j - 1]) < 0; j--)
			a->order[j] = a->order[j - 1];
		a->order[j] = i;
	}
	for (int i = 0; i < a->n_arms; i++) {
		a->arms[a->order[i]].rank = i;
		any |= a->arms[i].survived > 0;
	}
	if (!any) {
		a->refusal = TM_AR_NONE_SURVIVED;
		snprintf(a->why, sizeof(a->why),
		         "no run survived: no limit the service can live under is known "
		         "(%d arm%s, none with a completed run)",
		         a->n_arms, a->n_arms == 1 ? "" : "s");
		return;
	}
	int best = a->order[0];
	if (a->arms[best].survived == a->arms[best].runs)
		a->recommended = best;
	else
		snprintf(a->why, sizeof(a->why),
		         "no arm survived every run (the best, %s, survived %d of %d): none is "
		         "recommended",
		         a->arms[best].name, a->arms[best].survived, a->arms[best].runs);
}

void tm_advise_ratio_text(const struct tm_advise *a, int arm, enum tm_bench_fig f, char *buf,
                          size_t size)
{
	const struct tm_bench_arm_row *r = &a->table.arms[arm];

	if (arm == a->table.reference) {
		snprintf(buf, size, "×1 (the reference)");
		return;
	}
	switch (r->verdict[f]) {
	case TM_BV_SIGNIFICANT:
		snprintf(buf, size, "×%.2f (p=%.2g)", r->ratio[f], r->p[f]);
		break;
	case TM_BV_NOT_SIGNIFICANT:
		snprintf(buf, size, "×%.2f (n.s., p=%.2g)", r->ratio[f], r->p[f]);
		break;
	case TM_BV_TOO_FEW:
		snprintf(buf, size, "×%.2f (too few runs for a test)", r->ratio[f]);
		break;
	case TM_BV_BELOW_FLOOR:
		snprintf(buf, size, "below the noise floor");
		break;
	case TM_BV_NONE:
		snprintf(buf, size, "n/a");
		break;
	}
}
