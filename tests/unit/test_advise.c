/* advise: profiles whose numbers follow from their windows, the rules, the refusals, JSON and the
 * drop-in. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"
#include <jansson.h>

#include "advise/advise.h"
#include "base/sample.h"
#include "kern/thp.h"
#include "store/store.h"
#include "base/banned.h"

#define MIB (1024.0 * 1024)

struct shape {
	const char *arm, *outcome, *env_json;
	int samples;  /* one a second */
	int steady_s; /* anon STEADY_MIB with FILE_MIB of cache until then */
	double steady_mib, steady_file_mib;
	double burst_mib, burst_file_mib;                     /* after it */
	double host_swap_mib, cg_swap_max_mib, proc_swap_mib; /* < 0: absent */
	bool watermark; /* the kernel's memory.peak is sampled */
	int spike_at;   /* anon SPIKE_MIB between samples SPIKE_AT - 1 and SPIKE_AT (0: none) */
	double spike_mib;
};

static int64_t add_run(struct tm_store *st, const struct shape *sh, int64_t n)
{
	struct tm_run_meta m = {
	    .target = "command",
	    .interval_usec = 1000000,
	    .started_wall_usec = 1000000000 + n * 100000000,
	    .started_mono_usec = 5000000 + n * 100000000,
	    .allocator = sh->arm, /* loose runs are grouped by allocator */
	    .env_json = sh->env_json,
	};
	int64_t id;
	struct tm_sample s;

	double wm = 0;

	assert_int_equal(tm_store_run_begin(st, &m, &id), 0);
	for (int i = 0; i < sh->samples; i++) {
		bool steady = i < sh->steady_s;
		tm_sample_clear(&s);
		s.seq = i;
		s.t_wall_usec = m.started_wall_usec + i * 1000000;
		s.t_mono_usec = m.started_mono_usec + i * 1000000;
		s.late_usec = 0;
		double anon = steady ? sh->steady_mib : sh->burst_mib;
		double file = steady ? sh->steady_file_mib : sh->burst_file_mib;
		tm_sample_set(&s, TM_M_CG_ANON_BYTES, (int64_t)(anon * MIB));
		tm_sample_set(&s, TM_M_CG_FILE_BYTES, (int64_t)(file * MIB));
		tm_sample_set(&s, TM_M_CG_CURRENT_BYTES, (int64_t)((anon + file) * MIB));
		wm = fmax(wm, anon + file);
		if (sh->spike_at && i == sh->spike_at)
			wm = fmax(wm, sh->spike_mib + file);
		if (sh->watermark)
			tm_sample_set(&s, TM_M_CG_PEAK_BYTES, (int64_t)(wm * MIB));
		tm_sample_set(&s, TM_M_CG_WORKINGSET_REFAULT_FILE, i * 10);
		if (sh->host_swap_mib >= 0)
			tm_sample_set(&s, TM_M_HOST_SWAP_TOTAL_BYTES,
			              (int64_t)(sh->host_swap_mib * MIB));
		if (sh->cg_swap_max_mib >= 0)
			tm_sample_set(&s, TM_M_CG_SWAP_MAX_BYTES,
			              (int64_t)(sh->cg_swap_max_mib * MIB));
		if (sh->proc_swap_mib >= 0)
			tm_sample_set(&s, TM_M_PROC_SWAP_BYTES, (int64_t)(sh->proc_swap_mib * MIB));
		assert_int_equal(tm_store_add_sample(st, id, &s), 0);
	}
	struct tm_run_end e = {
	    .ended_wall_usec = m.started_wall_usec + sh->samples * 1000000,
	    .outcome = tm_outcome_of(sh->outcome),
	    .term_signal = strcmp(sh->outcome, "completed") ? 9 : 0,
	};
	assert_int_equal(tm_store_run_end(st, id, &e), 0);
	assert_int_equal(tm_store_commit(st), 0);
	return id;
}

static struct tm_store *fresh(char *path, size_t size)
{
	struct tm_store *st;
	snprintf(path, size, "/tmp/test_advise_%d.db", (int)getpid());
	unlink(path);
	assert_int_equal(tm_store_open(path, &st), 0);
	return st;
}

static const struct shape base_shape = {
    .arm = "jemalloc",
    .outcome = "completed",
    .env_json = "{\"LD_PRELOAD\":\"/usr/lib/libjemalloc.so.2\"}",
    .samples = 20,
    .steady_s = 10,
    .steady_mib = 100,
    .steady_file_mib = 50,
    .burst_mib = 300,
    .burst_file_mib = 20,
    .host_swap_mib = 0,
    .cg_swap_max_mib = -1,
    .proc_swap_mib = 0,
};

static void opts_two_regimes(struct tm_advise_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ram_bytes = 8192 * MIB;
	snprintf(o->ram_from, sizeof(o->ram_from), "--ram");
	o->reserves[0].bytes = 2560 * MIB;
	snprintf(o->reserves[0].name, sizeof(o->reserves[0].name), "miner");
	o->n_reserves = 1;
	snprintf(o->regimes[0].name, sizeof(o->regimes[0].name), "steady");
	assert_int_equal(tm_window_parse("0s:9s", &o->regimes[0].w), 0);
	snprintf(o->regimes[1].name, sizeof(o->regimes[1].name), "catch-up");
	assert_int_equal(tm_window_parse("10s:19s", &o->regimes[1].w), 0);
	o->n_regimes = 2;
}

/* The steady stretch and the burst give two profiles, each from its own window. */
static void test_two_profiles(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	(void)state;

	opts_two_regimes(&o);
	for (int i = 0; i < 3; i++)
		o.runs[o.n_runs++] = add_run(st, &base_shape, i);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	assert_int_equal(a->refusal, TM_AR_NONE);
	assert_int_equal(a->recommended, 0);
	const struct tm_advise_profile *steady = &a->arms[0].prof[0], *burst = &a->arms[0].prof[1];
	assert_int_equal(steady->refusal, TM_AR_NONE);
	assert_int_equal(burst->refusal, TM_AR_NONE);
	/* steady: anon 100, cache 50, no watermark: needed 150 (the charge sampled
	 * is the same), headroom 1 (the runs are alike): high 151; margin
	 * max(25 % of 150, 16) = 37.5: max 188 */
	assert_true(fabs(steady->anon_peak_bytes - 100 * MIB) < 1);
	assert_true(fabs(steady->anon_held_bytes - 100 * MIB) < 1);
	assert_true(fabs(steady->cache_bytes - 50 * MIB) < 1);
	assert_true(fabs(steady->charge_peak_bytes - 150 * MIB) < 1);
	assert_false(steady->charge_from_watermark);
	assert_true(fabs(steady->needed_bytes - 150 * MIB) < 1);
	assert_true(fabs(steady->headroom_bytes - 1 * MIB) < 1);
	assert_true(fabs(steady->memory_high_bytes - 151 * MIB) < 1);
	assert_true(fabs(steady->memory_max_bytes - 188 * MIB) < 1);
	assert_true(fabs(steady->refaults - 90) < 1e-9);
	/* catch-up: anon 300, cache 20: needed 320, high 321, margin 80, max 400 */
	assert_true(fabs(burst->anon_peak_bytes - 300 * MIB) < 1);
	assert_true(fabs(burst->memory_high_bytes - 321 * MIB) < 1);
	assert_true(fabs(burst->memory_max_bytes - 400 * MIB) < 1);
	assert_true(fabs(burst->leaves_bytes - (8192 - 2560 - 400) * MIB) < 1);
	assert_int_equal(a->arms[0].n_env, 1);
	assert_string_equal(a->arms[0].env[0], "LD_PRELOAD=/usr/lib/libjemalloc.so.2");

	char *j = tm_advise_to_json(a, NULL);
	json_t *doc = json_loads(j, 0, NULL);
	json_t *prof = json_array_get(
	    json_object_get(json_array_get(json_object_get(doc, "arms"), 0), "profiles"), 1);
	assert_string_equal(json_string_value(json_object_get(prof, "regime")), "catch-up");
	json_t *mm = json_object_get(json_object_get(prof, "figures"), "memory_max_bytes");
	assert_true(fabs(json_number_value(json_object_get(mm, "value")) - 400 * MIB) < 1);
	assert_non_null(strstr(json_string_value(json_object_get(mm, "from")), "margin"));
	json_decref(doc);
	free(j);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tm_advise_write_dropin(a, 1, NULL, f), 0);
	fclose(f);
	assert_non_null(
	    strstr(buf, "[Service]\nMemoryHigh=321M\nMemoryMax=400M\nMemorySwapMax=0\n"));
	assert_non_null(strstr(buf, "# peak needed 320.0 MiB: the larger of anon peak"));
	assert_non_null(strstr(buf, "Environment=\"LD_PRELOAD=/usr/lib/libjemalloc.so.2\"\n"));
	assert_non_null(strstr(buf, "# runs 1 2 3\n"));
	assert_non_null(strstr(buf, "window"));
	free(buf);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

/* Nothing survived: no advice at all, and no drop-in. */
static void test_none_survived(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	struct shape sh = base_shape;
	(void)state;

	opts_two_regimes(&o);
	sh.outcome = "oom-killed";
	for (int i = 0; i < 2; i++)
		o.runs[o.n_runs++] = add_run(st, &sh, i);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	assert_int_equal(a->refusal, TM_AR_NONE_SURVIVED);
	assert_int_equal(a->recommended, -1);
	assert_non_null(strstr(a->why, "no run survived"));
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(tm_advise_write_dropin(a, 0, NULL, f), -1);
	fclose(f);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

static enum tm_advise_refusal refusal_of(const struct shape *sh, char *why, size_t size)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));

	opts_two_regimes(&o);
	o.runs[o.n_runs++] = add_run(st, sh, 0);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	enum tm_advise_refusal r = a->arms[0].prof[0].refusal;
	snprintf(why, size, "%s", a->arms[0].prof[0].why);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
	return r;
}

/* Swap on while measuring: refused; the same host with the cgroup's swap at 0 is fine. */
static void test_swap_refused(void **state)
{
	struct shape sh = base_shape;
	char why[256];
	(void)state;

	sh.host_swap_mib = 1024;
	assert_int_equal(refusal_of(&sh, why, sizeof(why)), TM_AR_SWAP);
	assert_non_null(strstr(why, "swap was on while measuring"));
	sh.cg_swap_max_mib = 0;
	assert_int_equal(refusal_of(&sh, why, sizeof(why)), TM_AR_NONE);
	sh.proc_swap_mib = 12;
	assert_int_equal(refusal_of(&sh, why, sizeof(why)), TM_AR_SWAP);
	assert_non_null(strstr(why, "12.0 MiB in swap"));
	/* a host without swap: a swap figure is v1's memsw - usage noise */
	sh.host_swap_mib = 0;
	assert_int_equal(refusal_of(&sh, why, sizeof(why)), TM_AR_NONE);
}

/* A window with fewer samples than the rule needs is refused. */
static void test_few_samples(void **state)
{
	struct shape sh = base_shape;
	char why[256];
	(void)state;

	sh.samples = 13; /* the steady window 0s:9s holds 10; the burst's 10s:19s only 3 */
	assert_int_equal(refusal_of(&sh, why, sizeof(why)), TM_AR_NONE);
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	opts_two_regimes(&o);
	o.runs[o.n_runs++] = add_run(st, &sh, 0);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	assert_int_equal(a->arms[0].prof[1].refusal, TM_AR_FEW_SAMPLES);
	assert_non_null(strstr(a->arms[0].prof[1].why, "has 3, the rule needs 5"));
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

/* Survival ranks first: an arm that lost a run is not recommended over one that did not. */
static void test_survival_first(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	struct shape glibc = base_shape, dead = base_shape;
	(void)state;

	opts_two_regimes(&o);
	glibc.arm = "glibc";
	glibc.env_json = NULL;
	glibc.burst_mib = 200; /* a smaller peak, but one run of two dies */
	dead = glibc;
	dead.outcome = "oom-killed";
	dead.burst_file_mib = 0;
	o.runs[o.n_runs++] = add_run(st, &glibc, 0);
	o.runs[o.n_runs++] = add_run(st, &dead, 1);
	o.runs[o.n_runs++] = add_run(st, &base_shape, 2);
	o.runs[o.n_runs++] = add_run(st, &base_shape, 3);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	assert_string_equal(a->arms[a->recommended].name, "jemalloc");
	assert_int_equal(a->arms[0].survived, 1);
	assert_eq(a->arms[0].prof[1].killed_cache_bytes, 0);
	/* the dying run's cache near zero against the survivors' 20 MiB is said */
	char *j = tm_advise_to_json(a, NULL);
	assert_non_null(strstr(j, "killed runs had 0.0 MiB (near zero: the sign of too little)"));
	free(j);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

/* A burst shorter than the interval: the samples show anon 300 MiB in the
 * catch-up window, the kernel's watermark a spike to 360 (380 and 390 with
 * the 20 MiB of cache, in two runs).  MemoryHigh sits above the spike's anon
 * and the cache it needs, plus the runs' spread; a window after the burst,
 * where the watermark no longer rises, does not take it. */
static void test_burst_between_samples(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	struct shape sh = base_shape;
	(void)state;

	opts_two_regimes(&o);
	snprintf(o.regimes[2].name, sizeof(o.regimes[2].name), "after");
	assert_int_equal(tm_window_parse("15s:19s", &o.regimes[2].w), 0);
	o.n_regimes = 3;
	sh.watermark = true;
	sh.spike_at = 12;
	sh.spike_mib = 360;
	o.runs[o.n_runs++] = add_run(st, &sh, 0);
	sh.spike_mib = 370;
	o.runs[o.n_runs++] = add_run(st, &sh, 1);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	const struct tm_advise_profile *steady = &a->arms[0].prof[0], *burst = &a->arms[0].prof[1],
	                               *after = &a->arms[0].prof[2];
	assert_int_equal(burst->refusal, TM_AR_NONE);
	assert_true(fabs(burst->anon_peak_bytes - 300 * MIB) < 1); /* as sampled */
	assert_true(fabs(burst->cache_bytes - 20 * MIB) < 1);
	assert_true(fabs(burst->charge_peak_bytes - 390 * MIB) < 1);
	assert_true(burst->charge_from_watermark);
	assert_int_equal(burst->charge_peak_run, o.runs[1]);
	assert_true(fabs(burst->needed_bytes - 390 * MIB) < 1);
	assert_true(fabs(burst->headroom_bytes - 10 * MIB) < 1);
	/* the rule: high at or above the burst's anon peak + the cache it needs */
	assert_true(burst->memory_high_bytes >= (370 + 20) * MIB);
	assert_true(fabs(burst->memory_high_bytes - 400 * MIB) < 1);
	/* max: above the worst peak plus the margin (25 % of 390) */
	assert_true(fabs(burst->memory_max_bytes - 488 * MIB) < 1);
	/* the steady window before the burst and the stretch after it */
	assert_true(fabs(steady->memory_high_bytes - 151 * MIB) < 1);
	assert_false(after->charge_from_watermark);
	assert_true(fabs(after->charge_peak_bytes - 320 * MIB) < 1);
	assert_true(fabs(after->memory_high_bytes - 321 * MIB) < 1);

	char *j = tm_advise_to_json(a, NULL);
	json_t *doc = json_loads(j, 0, NULL);
	json_t *prof = json_array_get(
	    json_object_get(json_array_get(json_object_get(doc, "arms"), 0), "profiles"), 1);
	json_t *figs = json_object_get(prof, "figures");
	json_t *cp = json_object_get(figs, "charge_peak_bytes");
	assert_true(fabs(json_number_value(json_object_get(cp, "value")) - 390 * MIB) < 1);
	assert_non_null(strstr(json_string_value(json_object_get(cp, "from")), "watermark"));
	json_t *mh = json_object_get(figs, "memory_high_bytes");
	assert_non_null(strstr(json_string_value(json_object_get(mh, "from")), "peak needed"));
	json_decref(doc);
	free(j);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

/* Two arms, glibc as shipped (peak 300 MiB) and arena1 (MALLOC_ARENA_MAX=1,
 * peak ARENA_MIB), N_GLIBC and N_ARENA runs, arena1's first when ARENA_FIRST.
 * The advice's text into *TEXT (malloc'd). */
static void two_arms(int n_glibc, int n_arena, double arena_mib, bool arena_first,
                     struct tm_advise *a, char **text)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct shape g = base_shape, r = base_shape;
	size_t len = 0;

	opts_two_regimes(&o);
	o.n_regimes = 0;
	g.arm = "glibc";
	g.env_json = NULL;
	r.arm = "arena1";
	r.env_json = "{\"MALLOC_ARENA_MAX\":\"1\"}";
	r.burst_mib = arena_mib;
	for (int k = 0; k < 2; k++) {
		bool arena = (k == 0) == arena_first;
		for (int i = 0; i < (arena ? n_arena : n_glibc); i++)
			o.runs[o.n_runs] = add_run(st, arena ? &r : &g, o.n_runs), o.n_runs++;
	}
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	FILE *f = open_memstream(text, &len);
	tm_advise_write_text(a, f);
	fclose(f);
	tm_store_close(st);
	unlink(path);
}

/* 3 runs against 3 cannot reach p < 0.05: the recommended line says so, what
 * the runs show and what it takes to decide, and the order of the arms does
 * not change the advice. */
static void test_undecided_three_runs(void **state)
{
	struct tm_advise *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char *ta = NULL, *tb = NULL;
	(void)state;

	two_arms(3, 3, 100, false, a, &ta);
	two_arms(3, 3, 100, true, b, &tb);
	print_message("glibc first:\n%s\narena1 first:\n%s\n", ta, tb);
	assert_int_equal(a->n_undecided, 1);
	assert_string_equal(a->arms[a->recommended].name, "glibc");
	assert_string_equal(b->arms[b->recommended].name, "glibc");
	assert_non_null(strstr(ta, "recommended: glibc, not decided by the runs: 3 runs against "
	                           "3 cannot reach p < 0.05"));
	assert_non_null(strstr(ta, "  to decide: --runs 4 (or 5 runs against 3)\n"));
	assert_non_null(strstr(ta, "  the runs show: glibc 3/3 survived, arena1 3/3; arena1: "
	                           "anon peak ×0.33 of glibc's (100.0 [100.0–100.0] against "
	                           "300.0 [300.0–300.0] MiB)"));
	/* the same lines whichever arm came first */
	const char *sa = strstr(ta, "recommended:"), *sb = strstr(tb, "recommended:");
	const char *ea = strstr(sa, "\n\n"), *eb = strstr(sb, "\n\n");
	assert_int_equal(ea - sa, eb - sb);
	assert_memory_equal(sa, sb, (size_t)(ea - sa));
	char *j = tm_advise_to_json(a, NULL);
	assert_non_null(strstr(j, "\"decided\": false"));
	assert_non_null(strstr(j, "\"to_decide\": \"--runs 4 (or 5 runs against 3)\""));
	free(j);
	free(ta);
	free(tb);
	tm_advise_release(a);
	tm_advise_release(b);
	free(a);
	free(b);
}

/* 4 runs against 4 decide (p = 0.029): arena1's smaller peak wins in either
 * order; with the same peak the tie goes to the arm as shipped, not the first. */
static void test_decided_four_runs(void **state)
{
	struct tm_advise *a = calloc(1, sizeof(*a));
	char *t = NULL;
	(void)state;

	for (int first = 0; first < 2; first++) {
		two_arms(4, 4, 100, first, a, &t);
		assert_string_equal(a->arms[a->recommended].name, "arena1");
		assert_int_equal(a->n_undecided, 0);
		assert_non_null(strstr(t, "recommended: arena1 (survival first"));
		free(t);
		tm_advise_release(a);
		two_arms(4, 4, 300, first, a, &t);
		if (strcmp(a->arms[a->recommended].name, "glibc"))
			fail_msg("same figures, arena1 first=%d: recommended %s, want glibc", first,
			         a->arms[a->recommended].name);
		free(t);
		tm_advise_release(a);
	}
	free(a);
}

/* The charge row says what the kernel's watermark did: over the whole run it
 * rose from the first sample's 150 MiB to the burst's 320 MiB and equalled
 * the largest memory.current sampled; in the steady window it stayed put;
 * without memory.peak it was not sampled. */
static void test_watermark_wording(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	struct shape sh = base_shape;
	(void)state;

	sh.watermark = true;
	opts_two_regimes(&o);
	o.regimes[1] = o.regimes[0];
	snprintf(o.regimes[1].name, sizeof(o.regimes[1].name), "whole run");
	o.regimes[1].w.kind = TM_WIN_ALL;
	o.runs[o.n_runs++] = add_run(st, &sh, 0);
	sh.watermark = false;
	o.runs[o.n_runs++] = add_run(st, &sh, 1);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	char *j = tm_advise_to_json(a, NULL);
	print_message("%s\n", j);
	assert_non_null(strstr(j, "the largest memory.current sampled (the kernel's watermark rose "
	                          "from 150.0 MiB to 320.0 MiB in the window and equalled it)"));
	assert_non_null(strstr(j, "the largest memory.current sampled (the kernel's watermark "
	                          "stayed at 150.0 MiB through the window)"));
	assert_null(strstr(j, "did not rise"));
	free(j);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* THP's mode and huge page size, read under a host root: "always" makes the
 * granularity a huge page, "madvise" a page; the parser takes the bracketed word. */
static void test_host_granule(void **state)
{
	char root[64], dir[160];
	struct tm_advise_opts o;
	enum tm_thp_mode m;
	int64_t sz;
	(void)state;

	assert_int_equal(tm_parse_thp_enabled("always [madvise] never\n", 23, &m), 0);
	assert_int_equal(m, TM_THP_MADVISE);
	assert_int_equal(tm_parse_thp_enabled("[always] madvise never", 22, &m), 0);
	assert_int_equal(m, TM_THP_ALWAYS);
	assert_int_equal(tm_parse_thp_enabled("always madvise never", 20, &m), -1);
	assert_int_equal(tm_parse_thp_enabled("[sometimes] never", 17, &m), -1);
	assert_int_equal(tm_parse_thp_enabled("always [madv", 12, &m), -1);
	assert_int_equal(tm_parse_thp_size("2097152\n", 8, &sz), 0);
	assert_int_equal(sz, 2097152);
	assert_int_equal(tm_parse_thp_size("2M\n", 3, &sz), -1);
	assert_int_equal(tm_parse_thp_size("0\n", 2, &sz), -1);

	snprintf(root, sizeof(root), "/tmp/test_advise_root_%d", (int)getpid());
	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/transparent_hugepage", root);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
	assert_int_equal(system(cmd), 0);
	put_file(dir, "enabled", "[always] madvise never\n");
	put_file(dir, "hpage_pmd_size", "2097152\n");
	memset(&o, 0, sizeof(o));
	tm_advise_host_granule(root, 4096, &o);
	assert_true(o.granule_bytes == 2 * MIB);
	assert_string_equal(o.granule_from, "THP always on this host: 2048 KiB huge pages");
	put_file(dir, "enabled", "always [madvise] never\n");
	tm_advise_host_granule(root, 4096, &o);
	assert_true(o.granule_bytes == 4096);
	assert_string_equal(o.granule_from, "THP madvise on this host: 4 KiB pages");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	tm_advise_host_granule(root, 4096, &o);
	assert_string_equal(o.granule_from, "THP unknown on this host: 4 KiB pages");
}

/* Headroom covers a huge page under THP always even when the runs are alike
 * (the issue: 3 runs 1 MiB apart, later runs 2 MiB above them), and says
 * how likely another run is to pass the worst seen. */
static void test_headroom_granule(void **state)
{
	char path[64];
	struct tm_store *st = fresh(path, sizeof(path));
	struct tm_advise_opts o;
	struct tm_advise *a = calloc(1, sizeof(*a));
	(void)state;

	opts_two_regimes(&o);
	o.granule_bytes = 2 * MIB;
	snprintf(o.granule_from, sizeof(o.granule_from),
	         "THP always on this host: 2048 KiB huge pages");
	for (int i = 0; i < 3; i++)
		o.runs[o.n_runs++] = add_run(st, &base_shape, i);
	assert_int_equal(tm_advise_compute(st, &o, a), 0);
	const struct tm_advise_profile *p = &a->arms[0].prof[0];
	if (fabs(p->headroom_bytes - 2 * MIB) > 1 || fabs(p->memory_high_bytes - 152 * MIB) > 1)
		fail_msg("headroom %.0f, MemoryHigh %.0f; want 2 MiB and 152 MiB",
		         p->headroom_bytes, p->memory_high_bytes);
	char *j = tm_advise_to_json(a, NULL);
	assert_non_null(strstr(j, "the kernel's granularity 2.0 MiB (THP always on this host: "
	                          "2048 KiB huge pages)"));
	assert_non_null(strstr(j, "from 3 runs: another passes the worst of them about 1 time in "
	                          "4, so more runs would likely widen the spread and raise "
	                          "MemoryHigh"));
	free(j);
	tm_advise_release(a);
	free(a);
	tm_store_close(st);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_profiles),
	    cmocka_unit_test(test_none_survived),
	    cmocka_unit_test(test_swap_refused),
	    cmocka_unit_test(test_few_samples),
	    cmocka_unit_test(test_survival_first),
	    cmocka_unit_test(test_burst_between_samples),
	    cmocka_unit_test(test_undecided_three_runs),
	    cmocka_unit_test(test_decided_four_runs),
	    cmocka_unit_test(test_watermark_wording),
	    cmocka_unit_test(test_host_granule),
	    cmocka_unit_test(test_headroom_granule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
