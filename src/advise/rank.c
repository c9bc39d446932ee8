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
#include "report/run/stats.h"
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
 * reference itself, no difference shown). */
static double effective(const struct tm_advise *a, int ai, enum tm_bench_fig f)
{
	const struct tm_bench_arm_row *r = &a->table.arms[ai];
	return r->verdict[f] == TM_BV_SIGNIFICANT && isfinite(r->ratio[f]) ? r->ratio[f] : 1;
}

/* Arm AI's ratio for F as measured, tested or not (1: the reference, none). */
static double raw_ratio(const struct tm_advise *a, int ai, enum tm_bench_fig f)
{
	double r = a->table.arms[ai].ratio[f];
	return ai != a->table.reference && isfinite(r) ? r : 1;
}

static bool too_few(const struct tm_advise *a, int ai, enum tm_bench_fig f)
{
	return ai != a->table.reference && a->table.arms[ai].verdict[f] == TM_BV_TOO_FEW;
}

/* <0 when X beats Y (lower), >0 when Y beats X, 0 when within SAME_SHARE. */
static int cmp_lower(double x, double y)
{
	if (fabs(x - y) <= SAME_SHARE * fmax(fabs(x), fabs(y)))
		return 0;
	return x < y ? -1 : 1;
}

/* X against Y on figure F: decided (<0, >0), the same (0), or a difference
 * the runs are too few to test (0 and *UNDECIDED set). */
static int cmp_fig(const struct tm_advise *a, int x, int y, enum tm_bench_fig f, bool *undecided)
{
	if (too_few(a, x, f) || too_few(a, y, f)) {
		*undecided = cmp_lower(raw_ratio(a, x, f), raw_ratio(a, y, f)) != 0;
		return 0;
	}
	return cmp_lower(effective(a, x, f), effective(a, y, f));
}

static const enum tm_bench_fig rank_figs[] = {TM_BF_PEAK_ANON, TM_BF_HELD_ANON, TM_BF_WALL};
#define N_RANK_FIGS (int)(sizeof(rank_figs) / sizeof(rank_figs[0]))

/* X against Y as the runs decide it: survival, then each figure in turn;
 * 0 when they do not (the same, or *UNDECIDED: too few runs to test a
 * difference). */
static int cmp_decided(const struct tm_advise *a, int x, int y, bool *undecided)
{
	double sx = survival(&a->arms[x]), sy = survival(&a->arms[y]);

	*undecided = false;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	for (int i = 0; i < N_RANK_FIGS && !*undecided; i++) {
		int c = cmp_fig(a, x, y, rank_figs[i], undecided);
		if (c)
			return c;
	}
	return 0;
}

/* What the runs did not decide, never by the order of the arms: the arm as
 * shipped (no environment setting) first, then fewer settings, then the name. */
static int cmp_tie(const struct tm_advise *a, int x, int y)
{
	if (a->arms[x].n_env != a->arms[y].n_env)
		return a->arms[x].n_env - a->arms[y].n_env;
	int c = strcmp(a->arms[x].name, a->arms[y].name);
	return c ? c : x - y;
}

static int cmp_arms(const struct tm_advise *a, int x, int y)
{
	bool undecided;
	int c = cmp_decided(a, x, y, &undecided);
	return c ? c : cmp_tie(a, x, y);
}

/* The arms the best one was not decided against (same survival, a
 * difference too few runs could not test), into A->undecided. */
static void find_undecided(struct tm_advise *a, int best)
{
	a->n_undecided = 0;
	for (int i = 0; i < a->n_arms; i++) {
		bool undecided = false;
		if (i != best && a->arms[i].survived > 0 &&
		    cmp_decided(a, best, i, &undecided) == 0 && undecided)
			a->undecided[a->n_undecided++] = i;
	}
}

void tm_advise_rank(struct tm_advise *a)
{
	bool any = false;

	/* insertion sort: a handful of arms */
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
	find_undecided(a, best);
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

/* One figure of rival R against the recommended arm B, as the runs show it:
 * "anon peak ×0.31 of glibc's (18.9 [18.5–19.2] against 60.8 [60.1–61.0] MiB)". */
static size_t shown_fig(const struct tm_advise *a, int b, int r, enum tm_bench_fig f, bool first,
                        char *buf, size_t size, size_t n)
{
	static const char *const names[] = {[TM_BF_PEAK_ANON] = "anon peak",
	                                    [TM_BF_HELD_ANON] = "anon held after",
	                                    [TM_BF_WALL] = "time"};
	const struct tm_bench_stat *sb = &a->table.arms[b].stat[f], *sr = &a->table.arms[r].stat[f];
	bool bytes = f != TM_BF_WALL;
	double k = bytes ? 1.0 / 1048576 : 1e-6;

	if (sb->n == 0 || sr->n == 0 || !isfinite(sb->median) || !isfinite(sr->median) ||
	    sb->median <= 0)
		return 0;
	return tm_advise_appendf(
	    buf, size, n, "%s %s ×%.2f of %s's (%.1f [%.1f–%.1f] against %.1f [%.1f–%.1f] %s)",
	    first ? ":" : ",", names[f], sr->median / sb->median, a->arms[b].name, sr->median * k,
	    sr->min * k, sr->max * k, sb->median * k, sb->min * k, sb->max * k,
	    bytes ? "MiB" : "s");
}

/* The rivals of the recommended arm, by name (never by their order). */
static int rivals_by_name(const struct tm_advise *a, int *out)
{
	int n = a->n_undecided;

	for (int i = 0; i < n; i++) {
		int j = i, v = a->undecided[i];
		for (; j > 0 && strcmp(a->arms[v].name, a->arms[out[j - 1]].name) < 0; j--)
			out[j] = out[j - 1];
		out[j] = v;
	}
	return n;
}

bool tm_advise_undecided_text(const struct tm_advise *a, struct tm_advise_undecided *u)
{
	int riv[TM_BENCH_TAB_MAX_ARMS], n, b = a->recommended;
	size_t ns = 0, nd = 0;

	memset(u, 0, sizeof(*u));
	if (b < 0 || a->n_undecided == 0)
		return false;
	n = rivals_by_name(a, riv);
	int nb = a->table.arms[b].stat[TM_BF_PEAK_ANON].n;
	int nr = a->table.arms[riv[0]].stat[TM_BF_PEAK_ANON].n, c = nb < nr ? nb : nr, each = 1;
	while (tm_mann_whitney_min_p(each, each) > TM_BENCH_ALPHA)
		each++;
	int m = tm_mann_whitney_min_n(c, TM_BENCH_ALPHA);
	snprintf(u->why, sizeof(u->why),
	         "%d run%s against %d cannot reach p < %.2f in the Mann–Whitney U test (its "
	         "smallest p is %.2g)",
	         nr, nr == 1 ? "" : "s", nb, TM_BENCH_ALPHA, tm_mann_whitney_min_p(nr, nb));
	ns += tm_advise_appendf(u->shows, sizeof(u->shows), ns, "%s %d/%d survived",
	                        a->arms[b].name, a->arms[b].survived, a->arms[b].runs);
	for (int i = 0; i < n; i++)
		ns += tm_advise_appendf(u->shows, sizeof(u->shows), ns, ", %s %d/%d",
		                        a->arms[riv[i]].name, a->arms[riv[i]].survived,
		                        a->arms[riv[i]].runs);
	for (int i = 0; i < n; i++) {
		ns +=
		    tm_advise_appendf(u->shows, sizeof(u->shows), ns, "; %s", a->arms[riv[i]].name);
		size_t f0 = ns;
		for (int k = 0; k < N_RANK_FIGS; k++)
			ns += shown_fig(a, b, riv[i], rank_figs[k], ns == f0, u->shows,
			                sizeof(u->shows), ns);
	}
	nd += tm_advise_appendf(u->decide, sizeof(u->decide), nd, "--runs %d", each);
	if (m > 0 && m != each)
		tm_advise_appendf(u->decide, sizeof(u->decide), nd, " (or %d runs against %d)", m,
		                  c);
	return true;
}
