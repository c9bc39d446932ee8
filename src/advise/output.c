/*
 * The advice written out: a short table per arm and regime (text), JSON,
 * and a systemd drop-in.  Every number's row says where it came from, in
 * the same words in all three (profile_rows).
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "advise/advise.h"
#include "advise/advise_int.h"
#include "base/error.h"
#include "base/routes.h"
#include "base/term.h"
#include "base/util.h"
#include "report/run/runjson.h"
#include "report/sweep/sweepcurve.h"
#include "store/store.h"
#include "base/banned.h"

enum row_kind { ROW_MEASURED, ROW_SETTING };

struct row {
	const char *key, *label;
	enum row_kind kind;
	double bytes; /* NAN: not measured */
	char value[32], from[640];
};

/* The rows of a profile, in the order they are shown. */
enum {
	R_ANON_PEAK,
	R_ANON_HELD,
	R_CACHE,
	R_CHARGE,
	R_NEEDED,
	R_HEADROOM,
	R_MARGIN,
	R_MAX,
	R_HIGH,
	R_SWAP,
	R_SUM,
	R_LEAVES,
	N_ROWS
};

static void mib(char *buf, size_t size, double bytes)
{
	if (!isfinite(bytes))
		snprintf(buf, size, "n/a");
	else if (fabs(bytes) >= 1024.0 * 1048576)
		snprintf(buf, size, "%.2f GiB", bytes / (1024.0 * 1048576));
	else
		snprintf(buf, size, "%.1f MiB", bytes / 1048576.0);
}

/* A unit file's spelling: whole MiB as NNNM. */
static void unit_size(char *buf, size_t size, double bytes)
{
	if (bytes == 0)
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%.0fM", bytes / 1048576.0);
}

size_t tm_advise_appendf(char *buf, size_t size, size_t n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (n >= size)
		return 0;
	va_start(ap, fmt);
	w = vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
	if (w < 0)
		return 0;
	return (size_t)w < size - n ? (size_t)w : size - n - 1;
}

static void cache_evidence(const struct tm_advise_profile *p, char *buf, size_t size)
{
	char k[32];
	size_t n = 0;

	n += tm_advise_appendf(
	    buf, size, n, "survivors' page cache at the anon peak (median of %d)", p->survivors);
	if (isfinite(p->refaults))
		n += tm_advise_appendf(buf, size, n, "; %.0f file refaults in the window",
		                       p->refaults);
	else
		n += tm_advise_appendf(buf, size, n, "; refaults not measured");
	if (isfinite(p->psi_io_share))
		n +=
		    tm_advise_appendf(buf, size, n, "; io pressure %.1f %%", 100 * p->psi_io_share);
	if (isfinite(p->killed_cache_bytes)) {
		mib(k, sizeof(k), p->killed_cache_bytes);
		/* too little cache shows only against survivors that had some */
		bool dying = isfinite(p->cache_bytes) && p->cache_bytes >= 8 * 1048576.0 &&
		             p->killed_cache_bytes < TM_ADVISE_DYING_CACHE_FRAC * p->cache_bytes;
		n += tm_advise_appendf(buf, size, n, "; killed runs had %s%s", k,
		                       dying ? " (near zero: the sign of too little)" : "");
	}
}

static void setting_rows(const struct tm_advise *a, const struct tm_advise_profile *p,
                         struct row *r);

static void set_row(struct row *r, const char *key, const char *label, enum row_kind kind,
                    double bytes)
{
	*r = (struct row){.key = key, .label = label, .kind = kind, .bytes = bytes};
}

/* The charge peak from the samples: what the kernel's watermark did. */
static void charge_sampled(const struct tm_advise_profile *p, char *buf, size_t size)
{
	char from[32], to[32], wm[160];
	double a = p->charge_wm_from_bytes, b = p->charge_wm_to_bytes;

	mib(from, sizeof(from), a);
	mib(to, sizeof(to), b);
	if (!isfinite(a) || !isfinite(b))
		snprintf(wm, sizeof(wm), "the kernel's watermark was not sampled");
	else if (b > a && b == p->charge_peak_bytes)
		snprintf(wm, sizeof(wm),
		         "the kernel's watermark rose from %s to %s in the window and equalled it",
		         from, to);
	else if (b > a)
		snprintf(wm, sizeof(wm),
		         "the kernel's watermark rose from %s to %s in the window, not above it",
		         from, to);
	else
		snprintf(wm, sizeof(wm), "the kernel's watermark stayed at %s through the window",
		         to);
	snprintf(buf, size,
	         "the worst survivor's whole charge at its peak in the window (run %" PRId64
	         "): the largest memory.current sampled (%s)",
	         p->charge_peak_run, wm);
}

static void charge_evidence(const struct tm_advise_profile *p, char *buf, size_t size)
{
	if (!isfinite(p->charge_peak_bytes))
		snprintf(buf, size,
		         "not measured (no cgroup): the peak needed comes from samples only, and a "
		         "burst between two of them is missed");
	else if (p->charge_from_watermark)
		snprintf(buf, size,
		         "the worst survivor's whole charge at its peak in the window (run %" PRId64
		         "): the kernel's watermark (memory.peak), between samples too",
		         p->charge_peak_run);
	else
		charge_sampled(p, buf, size);
}

/* The headroom's rule: the largest of the runs' spread, the kernel's
 * granularity and the floor, and how far more runs could move it. */
static void headroom_evidence(const struct tm_advise *a, const struct tm_advise_profile *p,
                              char *buf, size_t size)
{
	char sp[32], gr[32];
	size_t n = 0;
	int k = p->survivors;

	mib(sp, sizeof(sp), p->needed_spread_bytes);
	if (a->opts.granule_bytes > 0 && a->opts.granule_bytes < 1048576)
		snprintf(gr, sizeof(gr), "%.0f KiB", a->opts.granule_bytes / 1024);
	else
		mib(gr, sizeof(gr), a->opts.granule_bytes > 0 ? a->opts.granule_bytes : NAN);
	n += tm_advise_appendf(
	    buf, size, n,
	    "the largest of the survivors' spread in their own peak needed (max - min) %s, the "
	    "kernel's granularity %s (%s) and %.0f MiB: a run may pass the worst seen by as much "
	    "as runs differ, and by a page the kernel charges at once",
	    sp, gr, a->opts.granule_from[0] ? a->opts.granule_from : "not read",
	    TM_ADVISE_HEADROOM_MIN_BYTES / 1048576);
	n += tm_advise_appendf(
	    buf, size, n, "; from %d run%s: another passes the worst of them about 1 time in %d", k,
	    k == 1 ? "" : "s", k + 1);
	if (k + 1 < 10)
		tm_advise_appendf(buf, size, n,
		                  ", so more runs would likely widen the spread "
		                  "and raise MemoryHigh");
}

/* The measured rows of profile P in A (the settings: setting_rows). */
static void profile_rows(const struct tm_advise *a, const struct tm_advise_profile *p,
                         struct row *r)
{
	set_row(&r[R_ANON_PEAK], "anon_peak_bytes", "anon peak", ROW_MEASURED, p->anon_peak_bytes);
	snprintf(r[R_ANON_PEAK].from, sizeof(r[0].from),
	         "the worst of %d survivor%s in the window, as sampled (run %" PRId64 ")",
	         p->survivors, p->survivors == 1 ? "" : "s", p->anon_peak_run);
	set_row(&r[R_ANON_HELD], "anon_held_bytes", "anon held", ROW_MEASURED, p->anon_held_bytes);
	snprintf(r[R_ANON_HELD].from, sizeof(r[0].from),
	         "median over survivors of their median anon in the window");
	set_row(&r[R_CACHE], "cache_bytes", "page cache needed", ROW_MEASURED, p->cache_bytes);
	cache_evidence(p, r[R_CACHE].from, sizeof(r[0].from));
	set_row(&r[R_CHARGE], "charge_peak_bytes", "charge peak", ROW_MEASURED,
	        p->charge_peak_bytes);
	charge_evidence(p, r[R_CHARGE].from, sizeof(r[0].from));
	set_row(&r[R_NEEDED], "needed_bytes", "peak needed", ROW_MEASURED, p->needed_bytes);
	snprintf(r[R_NEEDED].from, sizeof(r[0].from),
	         "the larger of anon peak + page cache needed and the charge peak: what the "
	         "regime needs at its busiest, not only at steady state");
	set_row(&r[R_HEADROOM], "headroom_bytes", "headroom", ROW_MEASURED, p->headroom_bytes);
	headroom_evidence(a, p, r[R_HEADROOM].from, sizeof(r[0].from));
	set_row(&r[R_MARGIN], "margin_bytes", "margin", ROW_MEASURED, p->margin_bytes);
	snprintf(r[R_MARGIN].from, sizeof(r[0].from),
	         "%.0f %% of the peak needed, at least %.0f MiB", 100 * a->opts.margin_frac,
	         TM_ADVISE_MARGIN_MIN_BYTES / 1048576);
	setting_rows(a, p, r);
	for (int i = 0; i < N_ROWS; i++) {
		if (r[i].kind == ROW_SETTING)
			unit_size(r[i].value, sizeof(r[i].value), r[i].bytes);
		else
			mib(r[i].value, sizeof(r[i].value), r[i].bytes);
	}
}

static void max_rule(const struct tm_advise_profile *p, char *buf, size_t size)
{
	char x[32];
	size_t n = 0;

	mib(x, sizeof(x), p->sweep_min_bytes);
	if (isfinite(p->sweep_min_bytes) && p->sweep_min_bytes > p->needed_bytes)
		n += tm_advise_appendf(
		    buf, size, n,
		    "the sweep's smallest surviving MemoryMax %s + margin (max kills; the "
		    "margin is for a burst)",
		    x);
	else
		n += tm_advise_appendf(
		    buf, size, n,
		    "peak needed + margin (max kills, and reclaims the cache below it; the "
		    "margin is for a burst)%s%s",
		    isfinite(p->sweep_min_bytes) ? "; above the sweep's smallest surviving " : "",
		    isfinite(p->sweep_min_bytes) ? x : "");
	if (p->memory_max_bytes <= p->memory_high_bytes)
		tm_advise_appendf(buf, size, n, "; not below MemoryHigh");
}

static void high_rule(const struct tm_advise_profile *p, char *buf, size_t size)
{
	char x[32];
	bool swept = isfinite(p->sweep_high_min_bytes);

	mib(x, sizeof(x), p->sweep_high_min_bytes);
	if (swept && p->sweep_high_min_bytes > p->needed_bytes + p->headroom_bytes)
		snprintf(
		    buf, size,
		    "the sweep's smallest MemoryHigh without throttle limbo %s (above the peak "
		    "needed + headroom)",
		    x);
	else
		snprintf(
		    buf, size,
		    "peak needed + headroom (high above anon plus a healthy cache at the busiest, "
		    "or the cgroup lives in reclaim and is throttled)%s%s",
		    swept ? "; at or above the sweep's smallest MemoryHigh without throttle limbo "
		          : "",
		    swept ? x : "");
}

/* The settings and what they leave of the machine. */
static void setting_rows(const struct tm_advise *a, const struct tm_advise_profile *p,
                         struct row *r)
{
	char x[32], y[32], z[32];

	set_row(&r[R_MAX], "memory_max_bytes", "MemoryMax", ROW_SETTING, p->memory_max_bytes);
	max_rule(p, r[R_MAX].from, sizeof(r[0].from));
	set_row(&r[R_HIGH], "memory_high_bytes", "MemoryHigh", ROW_SETTING, p->memory_high_bytes);
	high_rule(p, r[R_HIGH].from, sizeof(r[0].from));
	set_row(&r[R_SWAP], "memory_swap_max_bytes", "MemorySwapMax", ROW_SETTING, 0);
	snprintf(r[R_SWAP].from, sizeof(r[0].from),
	         "measured without swap; swap would hide retained anon");
	set_row(&r[R_SUM], "sum_bytes", "sum", ROW_MEASURED, p->sum_bytes);
	mib(x, sizeof(x), p->memory_max_bytes);
	mib(y, sizeof(y), a->reserve_bytes);
	mib(z, sizeof(z), a->opts.ram_bytes);
	snprintf(r[R_SUM].from, sizeof(r[0].from), "MemoryMax %s + reserved %s, of RAM %s (%s)", x,
	         y, z, a->opts.ram_from);
	set_row(&r[R_LEAVES], "leaves_bytes", "leaves", ROW_MEASURED, p->leaves_bytes);
	snprintf(r[R_LEAVES].from, sizeof(r[0].from), "%s",
	         p->leaves_bytes < 0 ? "does not fit: the sum is more than the machine's RAM"
	                             : "of the machine's RAM when every ceiling is reached");
}

static void arm_reasoning(const struct tm_advise *a, int ai, char *buf, size_t size)
{
	const struct tm_advise_arm *arm = &a->arms[ai];
	char p[64], h[64], t[64];

	tm_advise_ratio_text(a, ai, TM_BF_PEAK_ANON, p, sizeof(p));
	tm_advise_ratio_text(a, ai, TM_BF_HELD_ANON, h, sizeof(h));
	tm_advise_ratio_text(a, ai, TM_BF_WALL, t, sizeof(t));
	char sw[96] = "";
	if (isfinite(arm->sweep_min_bytes))
		snprintf(sw, sizeof(sw), " at MemoryMax >= %.0f MiB (a sweep; %d runs below it)",
		         arm->sweep_min_bytes / 1048576, arm->swept_below);
	else if (isfinite(arm->sweep_high_min_bytes))
		snprintf(sw, sizeof(sw), " at MemoryHigh >= %.0f MiB (a sweep; %d runs below it)",
		         arm->sweep_high_min_bytes / 1048576, arm->swept_below);
	snprintf(buf, size, "%s: %d/%d survived%s, peak %s, held after %s, time %s", arm->name,
	         arm->survived, arm->runs, sw, p, h, t);
}

static void write_settings_line(const struct tm_advise_arm *arm, FILE *out)
{
	if (arm->n_env == 0)
		fprintf(out, "  allocator   %s as shipped (no environment setting)\n",
		        arm->allocator[0] ? arm->allocator : "the program's own");
	for (int i = 0; i < arm->n_env; i++)
		fprintf(out, "  allocator   Environment=%s\n", arm->env[i]);
}

static void write_arm_text(const struct tm_advise *a, int ai, FILE *out)
{
	const struct tm_advise_arm *arm = &a->arms[ai];
	char buf[320];
	struct row r[N_ROWS];

	arm_reasoning(a, ai, buf, sizeof(buf));
	fprintf(out, "\n%s", buf);
	if (ai == a->recommended)
		tm_term_put(out, TM_TONE_GOOD, "   <- recommended"); /* green on a terminal */
	fputc('\n', out);
	fprintf(out, "  runs       ");
	for (int i = 0; i < arm->n_run_ids; i++)
		fprintf(out, " %" PRId64, arm->run_ids[i]);
	fprintf(out, "\n");
	write_settings_line(arm, out);
	for (int ri = 0; ri < a->opts.n_regimes; ri++) {
		const struct tm_advise_profile *p = &arm->prof[ri];
		const struct tm_advise_regime *rg = &a->opts.regimes[ri];
		fprintf(out, "  profile %s%s%s%s\n", rg->name, rg->spec[0] ? " (window " : "",
		        rg->spec, rg->spec[0] ? ")" : "");
		if (p->refusal != TM_AR_NONE) {
			fprintf(out, "    refused: %s\n", p->why);
			continue;
		}
		profile_rows(a, p, r);
		for (int i = 0; i < N_ROWS; i++)
			fprintf(out, "    %-18s %10s  %s\n", r[i].label, r[i].value, r[i].from);
	}
}

void tm_advise_write_text(const struct tm_advise *a, FILE *out)
{
	char ram[32], res[32];

	if (a->refusal == TM_AR_NO_RUNS) {
		fprintf(out, "no advice: %s\n", a->why);
		return;
	}
	mib(ram, sizeof(ram), a->opts.ram_bytes);
	fprintf(out, "advice from %d run%s in %d arm%s; RAM %s (%s)", a->table.n_runs,
	        a->table.n_runs == 1 ? "" : "s", a->n_arms, a->n_arms == 1 ? "" : "s", ram,
	        a->opts.ram_from);
	for (int i = 0; i < a->opts.n_reserves; i++) {
		mib(res, sizeof(res), a->opts.reserves[i].bytes);
		fprintf(out, "%s%s %s", i ? ", " : "; reserved for ", a->opts.reserves[i].name,
		        res);
	}
	fprintf(out, "\n");
	if (a->refusal != TM_AR_NONE) {
		fprintf(out, "no advice: %s\n", a->why);
		return;
	}
	struct tm_advise_undecided u;
	bool undecided = tm_advise_undecided_text(a, &u);
	if (a->recommended >= 0) {
		fputs("recommended: ", out);
		tm_term_put(out, TM_TONE_GOOD, a->arms[a->recommended].name);
	}
	if (undecided)
		fprintf(out,
		        ", not decided by the runs: %s; ties go to the arm as "
		        "shipped, then the one with fewer settings, then the name\n"
		        "  the runs show: %s\n  to decide: %s\n",
		        u.why, u.shows, u.decide);
	else if (a->recommended >= 0)
		fprintf(out,
		        " (survival first, then anon peak and held after, then "
		        "time; ratios of medians to %s, Mann–Whitney U test)\n",
		        a->arms[a->table.reference].name);
	else
		fprintf(out, "none recommended: %s\n", a->why);
	for (int i = 0; i < a->n_arms; i++)
		if (a->arms[a->order[i]].survived > 0)
			write_arm_text(a, a->order[i], out);
	for (int i = 0; i < a->n_arms; i++)
		if (a->arms[i].survived == 0)
			fprintf(out, "\n%s: 0/%d survived: no profile\n", a->arms[i].name,
			        a->arms[i].runs);
}

/* ---- JSON ---- */

static json_t *profile_json(const struct tm_advise *a, int ai, int ri)
{
	const struct tm_advise_profile *p = &a->arms[ai].prof[ri];
	json_t *o = json_object(), *figs;
	struct row r[N_ROWS];

	json_object_set_new(o, "regime", json_string(a->opts.regimes[ri].name));
	json_object_set_new(o, "window", json_string(a->opts.regimes[ri].spec));
	if (p->refusal != TM_AR_NONE) {
		json_object_set_new(o, "refused", json_string(tm_advise_refusal_name(p->refusal)));
		json_object_set_new(o, "reason", json_string(p->why));
		return o;
	}
	json_object_set_new(o, "refused", json_null());
	json_object_set_new(o, "survivors", json_integer(p->survivors));
	json_object_set_new(o, "min_samples", json_integer(p->min_samples));
	json_object_set_new(o, "refaults", tm_json_num(p->refaults));
	json_object_set_new(o, "psi_io_share", tm_json_num(p->psi_io_share));
	json_object_set_new(o, "killed_cache_bytes", tm_json_num(p->killed_cache_bytes));
	json_object_set_new(o, "sweep_min_bytes", tm_json_num(p->sweep_min_bytes));
	json_object_set_new(o, "sweep_high_min_bytes", tm_json_num(p->sweep_high_min_bytes));
	profile_rows(a, p, r);
	figs = json_object();
	for (int i = 0; i < N_ROWS; i++) {
		json_t *f = json_object();
		json_object_set_new(f, "value", tm_json_num(r[i].bytes));
		json_object_set_new(f, "from", json_string(r[i].from));
		/* the terminal's label and value, for the HTML report */
		json_object_set_new(f, "label", json_string(r[i].label));
		json_object_set_new(f, "text", json_string(r[i].value));
		json_object_set_new(figs, r[i].key, f);
	}
	json_object_set_new(o, "figures", figs);
	return o;
}

static json_t *arm_json(const struct tm_advise *a, int ai)
{
	const struct tm_advise_arm *arm = &a->arms[ai];
	json_t *o = json_object(), *env = json_array(), *runs = json_array(), *profs = json_array();
	char buf[320];

	json_object_set_new(o, "name", json_string(arm->name));
	json_object_set_new(o, "allocator", json_string(arm->allocator));
	json_object_set_new(o, "rank", json_integer(arm->rank));
	json_object_set_new(o, "recommended", json_boolean(ai == a->recommended));
	json_object_set_new(o, "runs", json_integer(arm->runs));
	json_object_set_new(o, "survived", json_integer(arm->survived));
	json_object_set_new(o, "killed", json_integer(arm->killed));
	arm_reasoning(a, ai, buf, sizeof(buf));
	json_object_set_new(o, "reasoning", json_string(buf));
	for (int i = 0; i < arm->n_env; i++)
		json_array_append_new(env, json_string(arm->env[i]));
	json_object_set_new(o, "environment", env);
	for (int i = 0; i < arm->n_run_ids; i++)
		json_array_append_new(runs, json_integer(arm->run_ids[i]));
	json_object_set_new(o, "run_ids", runs);
	for (int ri = 0; arm->survived > 0 && ri < a->opts.n_regimes; ri++)
		json_array_append_new(profs, profile_json(a, ai, ri));
	json_object_set_new(o, "profiles", profs);
	return o;
}

char *tm_advise_to_json(const struct tm_advise *a, const struct tm_advise_verify *v)
{
	json_t *o = json_object(), *arms = json_array(), *res = json_object();
	char *text;

	json_object_set_new(o, "made_wall_usec", json_integer(a->made_wall_usec));
	json_object_set_new(o, "ram_bytes", tm_json_num(a->opts.ram_bytes));
	json_object_set_new(o, "ram_from", json_string(a->opts.ram_from));
	for (int i = 0; i < a->opts.n_reserves; i++)
		json_object_set_new(res, a->opts.reserves[i].name,
		                    json_real(a->opts.reserves[i].bytes));
	json_object_set_new(o, "reserved", res);
	json_object_set_new(o, "refused",
	                    a->refusal != TM_AR_NONE
	                        ? json_string(tm_advise_refusal_name(a->refusal))
	                        : json_null());
	json_object_set_new(o, "reason", a->why[0] ? json_string(a->why) : json_null());
	json_object_set_new(o, "recommended",
	                    a->recommended >= 0 ? json_string(a->arms[a->recommended].name)
	                                        : json_null());
	struct tm_advise_undecided u;
	bool undecided = tm_advise_undecided_text(a, &u);
	json_object_set_new(o, "decided", json_boolean(a->recommended >= 0 && !undecided));
	json_object_set_new(o, "undecided",
	                    undecided ? json_pack("{s:s, s:s, s:s}", "why", u.why, "shows", u.shows,
	                                          "to_decide", u.decide)
	                              : json_null());
	for (int i = 0; i < a->n_arms; i++)
		json_array_append_new(arms, arm_json(a, a->order[i]));
	json_object_set_new(o, "arms", arms);
	if (v)
		json_object_set_new(o, "verify",
		                    json_pack("{s:I, s:i, s:i, s:i, s:b, s:s}", "bench_id",
		                              (json_int_t)v->bench_id, "runs", v->tried, "survived",
		                              v->survived, "throttled", v->throttled, "verified",
		                              v->verified, "text", v->text));
	text = json_dumps(o, JSON_INDENT(2));
	json_decref(o);
	return text;
}

/* ---- the drop-in ---- */

int tm_advise_write_dropin(const struct tm_advise *a, int regime, const char *verified, FILE *out)
{
	struct row r[N_ROWS];
	char when[64];
	time_t t = (time_t)(a->made_wall_usec / 1000000);
	struct tm tm;

	if (a->recommended < 0)
		return tm_error("no drop-in: %s", a->why[0] ? a->why : "no arm is recommended");
	const struct tm_advise_arm *arm = &a->arms[a->recommended];
	const struct tm_advise_profile *p = &arm->prof[regime];
	const struct tm_advise_regime *rg = &a->opts.regimes[regime];
	if (p->refusal != TM_AR_NONE)
		return tm_error("no drop-in for regime %s: %s", rg->name, p->why);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	profile_rows(a, p, r);
	fprintf(out, "# written by tidemark advise on %s\n# arm %s, profile %s%s%s\n# runs", when,
	        arm->name, rg->name, rg->spec[0] ? ", window " : "", rg->spec);
	for (int i = 0; i < arm->n_run_ids; i++)
		fprintf(out, " %" PRId64, arm->run_ids[i]);
	fprintf(out, "\n");
	for (int i = 0; i < N_ROWS; i++)
		fprintf(out, "# %s %s: %s\n", r[i].label, r[i].value, r[i].from);
	fprintf(out, "# verified: %s\n[Service]\n",
	        verified ? verified : "no (tidemark advise --verify)");
	fprintf(out, "MemoryHigh=%s\nMemoryMax=%s\nMemorySwapMax=0\n", r[R_HIGH].value,
	        r[R_MAX].value);
	for (int i = 0; i < arm->n_env; i++)
		fprintf(out, "Environment=\"%s\"\n", arm->env[i]);
	return ferror(out) ? tm_error("cannot write the drop-in") : 0;
}

static int add_advice_run(void *ctx, const struct tm_run_info *ri)
{
	struct tm_advise_opts *o = ctx;

	for (int i = 0; i < o->n_runs; i++)
		if (o->runs[i] == ri->id)
			return 0;
	if (o->n_runs < TM_ADVISE_MAX_RUNS)
		o->runs[o->n_runs++] = ri->id;
	return 0;
}

/* The advice document: its JSON TEXT with "header", the lines the
 * terminal prints above the arms. */
static int add_advice_doc(const struct tm_advise *a, const char *text, int64_t bench, json_t *docs)
{
	json_t *doc = json_loads(text, 0, NULL), *head = json_array();
	char key[64], *out = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!doc || !f) {
		if (f)
			fclose(f);
		free(out);
		json_decref(doc);
		json_decref(head);
		return tm_error("out of memory");
	}
	tm_advise_write_text(a, f);
	fclose(f);
	/* the lines before the first arm's (which follows a blank line) */
	for (char *l = out; l && *l != '\n'; l = save) {
		save = strchr(l, '\n');
		if (save)
			*save++ = '\0';
		json_array_append_new(head, json_string(l));
	}
	free(out);
	json_object_set_new(doc, "header", head);
	if (tm_route_path(TM_ROUTE_BENCH_ADVICE, bench, key, sizeof(key)) < 0) {
		json_decref(doc);
		return tm_error("advice: no path for bench %lld", (long long)bench);
	}
	json_object_set_new(docs, key, doc);
	return 0;
}

/* The advice (as `advise --bench ID --json`, with the sweep's runs) under
 * PATH in DOCS.  0, or -1 after tm_error. */
static int add_advice(struct tm_store *st, int64_t bench, const int64_t *runs, int n, json_t *docs)
{
	struct tm_advise_opts *o = calloc(1, sizeof(*o));
	struct tm_advise *a = calloc(1, sizeof(*a));
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	char *text = NULL;
	int rc = o && a ? 0 : tm_error("out of memory");

	if (rc == 0)
		rc = tm_store_each_run(st, bench, add_advice_run, o);
	for (int i = 0; rc == 0 && i < n; i++)
		add_advice_run(o, &(struct tm_run_info){.id = runs[i]});
	if (rc == 0) {
		o->ram_bytes = pages > 0 && size > 0 ? (double)pages * (double)size : NAN;
		snprintf(o->ram_from, sizeof(o->ram_from), "this host");
		tm_advise_host_granule("/", size, o);
		rc = tm_advise_compute(st, o, a);
		text = rc == 0 ? tm_advise_to_json(a, NULL) : NULL;
		if (rc == 0 && !text)
			rc = tm_error("out of memory");
		if (rc == 0)
			rc = add_advice_doc(a, text, bench, docs);
		tm_advise_release(a);
	}
	free(text);
	free(a);
	free(o);
	return rc;
}

int tm_advise_bench_docs(struct tm_store *st, int64_t bench, json_t *docs)
{
	int64_t *runs = calloc(TM_ADVISE_MAX_RUNS, sizeof(*runs));
	json_t *curve = NULL;
	char key[64];
	int n = 0, rc = runs ? 0 : tm_error("out of memory");

	if (rc == 0 && !(curve = tm_sweep_stored_curve(st, bench, runs, &n, TM_ADVISE_MAX_RUNS)))
		rc = -1;
	if (rc == 0 && tm_route_path(TM_ROUTE_BENCH_SWEEP, bench, key, sizeof(key)) < 0)
		rc = tm_error("advice: no path for bench %lld", (long long)bench);
	if (rc == 0 && curve && !json_is_null(curve))
		json_object_set(docs, key, curve);
	json_decref(curve);
	if (rc == 0)
		rc = add_advice(st, bench, runs, n, docs);
	free(runs);
	return rc;
}
