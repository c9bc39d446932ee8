/*
 * The experiment runner: plans per arm, the runs in order, hooks, the live
 * line, what a bench writes about itself.  See bench/runner.h and
 * docs/bench.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/term.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "bench/bench.h"
#include "bench/live.h"
#include "bench/param.h"
#include "bench/persist.h"
#include "record/pushthread.h"
#include "bench/restore.h"
#include "bench/runner.h"
#include "bench/target.h"
#include "record/launch.h"
#include "record/options.h"
#include "record/recorder.h"
#include "report/bench/benchtab.h"
#include "report/run/limitnote.h"
#include "report/run/summary.h"
#include "store/bench_params.h"
#include "store/store.h"
#include "base/banned.h"

extern char **environ;

/* What one arm runs: its argv, its environment, and how to show them. */
struct arm_plan {
	char **argv; /* malloc'd (from ExecStart=) or borrowed from the request */
	bool own_argv;
	char **envp;
	char *env_text; /* allocation-relevant "VAR=VAL ..." */
	struct tm_limits limits;
	int tried, survived;
};

static int check_spec(struct tm_bench_spec *sp, char *const *argv)
{
	if (sp->n_arms == 0)
		return tm_error("no arms: give --arm NAME (at least one) or -f FILE");
	if (tm_record_opts_check(&sp->rec, false))
		return -1;
	if (sp->window) {
		struct tm_window w;
		if (tm_window_parse(sp->window, &w))
			return -1;
		if (w.kind == TM_WIN_PROGRESS && !sp->rec.progress_regex)
			return tm_error(
			    "--window %s is in progress units: it needs --progress REGEX",
			    sp->window);
	}
	return tm_bench_target_for(sp)->check(sp, argv);
}

/* ---- per-arm plans ---- */

static char *env_text(char *const *envp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	for (char *const *e = envp; *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[256];
		if (!eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = '\0';
		if (!tm_env_alloc_var(name))
			continue;
		fprintf(f, "%s%s", first ? "" : " ", *e);
		first = false;
	}
	fclose(f);
	return buf;
}

static int64_t pick(int64_t arm, int64_t dflt)
{
	return arm != TM_LIMIT_UNSET ? arm : dflt;
}

static int plan_arm(const struct tm_bench_spec *sp, const struct tm_bench_arm *arm,
                    char *const *argv, struct arm_plan *p)
{
	const char *line = arm->exec_start ? arm->exec_start : sp->exec_start;

	memset(p, 0, sizeof(*p));
	if (line && (arm->exec_start || !argv)) {
		if (!(p->argv = tm_bench_split_command(line)))
			return -1;
		p->own_argv = true;
	} else {
		p->argv = (char **)argv;
	}
	if (!(p->envp = tm_bench_arm_envp(arm, environ, sp->inherit_env)))
		return -1;
	p->env_text = env_text(p->envp);
	p->limits.memory_max_bytes = pick(arm->memory_max_bytes, sp->rec.limits.memory_max_bytes);
	p->limits.memory_high_bytes =
	    pick(arm->memory_high_bytes, sp->rec.limits.memory_high_bytes);
	p->limits.swap_max_bytes = pick(arm->swap_max_bytes, sp->rec.limits.swap_max_bytes);
	return 0;
}

static void plan_release(struct arm_plan *p)
{
	if (p->own_argv)
		tm_bench_env_free(p->argv);
	tm_bench_env_free(p->envp);
	free(p->env_text);
}

static void print_command(FILE *f, char *const *argv)
{
	for (char *const *a = argv; *a; a++)
		fprintf(f, a == argv ? "%s" : " %s", *a);
}

/* On cgroup v1, MemoryHigh does not throttle: say so before the runs. */
static void high_note(const struct tm_bench_spec *sp, FILE *f)
{
	struct tm_cg_host host;
	bool any = false;

	for (int i = 0; i < sp->n_arms; i++) {
		int64_t h = sp->arms[i].memory_high_bytes != TM_LIMIT_UNSET
		                ? sp->arms[i].memory_high_bytes
		                : sp->rec.limits.memory_high_bytes;
		any |= h != TM_LIMIT_UNSET && h != INT64_MAX;
	}
	if (any && tm_cg_host_detect(&host) == 0 && tm_mode_memory_v1(tm_cg_mode_name(host.mode)))
		fprintf(f, "  MemoryHigh: %s\n", TM_V1_HIGH_NOTE);
}

static void print_plan(const struct tm_bench_spec *sp, const struct arm_plan *plans,
                       char *const *shared, FILE *f)
{
	char limits[256];

	tm_bench_target_for(sp)->describe(sp, f);
	for (int i = 0; i < sp->n_arms; i++) {
		const struct tm_bench_arm *a = &sp->arms[i];
		tm_bench_limits_text(sp, a, limits, sizeof(limits));
		fprintf(f, "  %-14s allocator %-8s env: %s\n", a->name, tm_bench_arm_expect(a),
		        plans[i].env_text && *plans[i].env_text ? plans[i].env_text
		                                                : "(no allocator variables)");
		if (*limits)
			fprintf(f, "  %-14s limits: %s\n", "", limits);
		if (a->exec_start && plans[i].argv != shared) {
			fprintf(f, "  %-14s command: ", "");
			print_command(f, plans[i].argv);
			fputc('\n', f);
		}
	}
	if (sp->param.n) {
		fprintf(f, "  parameter %s: %d values,", sp->param.name, sp->param.n);
		for (int i = 0; i < sp->param.n; i++)
			fprintf(f, " %s", sp->param.texts[i]);
		fprintf(f, " ({%s} replaced in each run)\n", sp->param.name);
	}
	high_note(sp, f);
}

/* ---- hooks and per-run preparation ---- */

static int run_hook(const char *what, const char *cmd, const char *arm, int64_t seq,
                    int64_t bench_id)
{
	char a[128], s[64], b[64];
	pid_t pid;
	int status;

	snprintf(a, sizeof(a), "TIDEMARK_ARM=%s", arm);
	snprintf(s, sizeof(s), "TIDEMARK_SEQ=%lld", (long long)seq);
	snprintf(b, sizeof(b), "TIDEMARK_BENCH=%lld", (long long)bench_id);
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = calloc(n + 4, sizeof(char *));
	if (!envp)
		return tm_error("out of memory");
	memcpy(envp, environ, n * sizeof(char *));
	envp[n] = a;
	envp[n + 1] = s;
	envp[n + 2] = b;
	pid = fork();
	if (pid == 0) {
		char *args[] = {"sh", "-c", (char *)cmd, NULL};
		execve("/bin/sh", args, envp);
		_exit(127);
	}
	free(envp);
	if (pid < 0)
		return tm_error("%s: cannot fork: %s", what, strerror(errno));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return tm_error("%s: wait: %s", what, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return tm_error("%s '%s' failed (%s %d) before run %lld of arm '%s'", what, cmd,
		                WIFEXITED(status) ? "exit" : "signal",
		                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
		                (long long)seq, arm);
	return 0;
}

static int drop_caches(void)
{
	sync();
	if (tm_write_file("/proc/sys/vm/drop_caches", "3"))
		return tm_error("--drop-caches: cannot write /proc/sys/vm/drop_caches: %s",
		                strerror(errno));
	return 0;
}

/* ---- live progress ---- */

struct live {
	bool tty;
	const char *arm;
	int index, total, arm_run, arm_runs;
	bool warmup;
	char param[TM_BENCH_PARAM_NAME_MAX + TM_BENCH_PARAM_TEXT_MAX + 2]; /* " N=1000" or "" */
	int64_t start_mono_usec, last_print_usec;
	const struct tm_bench_spec *sp;
	const struct arm_plan *plans;
	struct tm_bench_eta eta; /* the runs so far, for the bar and the ETA */
	int samples;             /* the current run's */
	bool warned_short;       /* the short-run warning is said once */
};

static void survivors(const struct live *lv, FILE *f)
{
	fputs("  survived", f);
	for (int i = 0; i < lv->sp->n_arms; i++)
		fprintf(f, " %s %d/%d", lv->sp->arms[i].name, lv->plans[i].survived,
		        lv->plans[i].tried);
}

static void on_sample(void *ctx, const struct tm_sample *s, bool has_progress, double progress)
{
	struct live *lv = ctx;
	int64_t now = tm_now_mono_usec();
	char mib[32] = "?", eta[96], *line = NULL;
	size_t size = 0;
	FILE *m;

	lv->samples++;
	if (!lv->tty || now - lv->last_print_usec < 250000 || !(m = open_memstream(&line, &size)))
		return;
	lv->last_print_usec = now;
	if (tm_sample_has(s, TM_M_CG_ANON_BYTES))
		tm_fmt_mib(mib, sizeof(mib), s->v[TM_M_CG_ANON_BYTES]);
	else if (tm_sample_has(s, TM_M_PROC_RSS_ANON_BYTES))
		tm_fmt_mib(mib, sizeof(mib), s->v[TM_M_PROC_RSS_ANON_BYTES]);
	tm_bench_eta_text(&lv->eta, now - lv->start_mono_usec, eta, sizeof(eta));
	fprintf(m, "%s  %s%s %s %d/%d  %.1fs", eta, lv->arm, lv->param,
	        lv->warmup ? "warmup" : "run", lv->arm_run, lv->arm_runs,
	        (double)(now - lv->start_mono_usec) / 1e6);
	if (has_progress)
		fprintf(m, "  progress %.0f", progress);
	fprintf(m, "  anon %s", mib);
	survivors(lv, m);
	fclose(m);
	tm_bench_live_print(stderr, line);
	free(line);
}

static void run_done(struct live *lv, const struct tm_record_result *res)
{
	char *line = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&line, &size);

	if (m) {
		if (lv->tty)
			fputs("\r\033[K", m);
		fprintf(m, "[%d/%d] %s%s %s %d/%d: ", lv->index, lv->total, lv->arm, lv->param,
		        lv->warmup ? "warmup" : "run", lv->arm_run, lv->arm_runs);
		tm_bench_live_outcome(m, tm_term_color(stderr), res->outcome);
		fprintf(m, " in %.2f s", (double)res->wall_usec / 1e6);
		if (res->reason[0])
			fprintf(m, " (%s)", res->reason);
		fclose(m);
		tm_note("%s", line);
		free(line);
	}
	lv->eta.done++;
	lv->eta.done_usec += tm_now_mono_usec() - lv->start_mono_usec;
	if (!lv->warned_short && res->outcome == TM_OUTCOME_COMPLETED)
		lv->warned_short = tm_bench_warn_short(stderr, res->wall_usec, lv->samples,
		                                       lv->sp->rec.interval_usec);
}

/* ---- the runs ---- */

/* A bench ready to run (bench/runner.h): its spec, one plan per arm, and
 * what the runs share. */
struct tm_bench_plan {
	struct tm_bench_spec *sp;
	struct arm_plan plans[TM_BENCH_MAX_ARMS];
	int n_plans;
	char *const *shared; /* the command every arm without ExecStart= runs */
	struct tm_store *st;
	int64_t bench_id;
	struct tm_push_thread *pusher; /* --push: each run once noted */
	char snapshot[4096], restore_dir[4096];
	char host[256];
	struct tm_bench_target target; /* what the runs run (bench/target.h) */
};

/* CPU we (the rig) used so far, user + sys; -1 if unknown. */
static int64_t self_cpu_usec(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
	       ru.ru_stime.tv_usec;
}

/* What run SEQ of arm AI records with: the bench's options, the arm's
 * plan, and ARGV and ENVP (the plan's, or with {N} replaced). */
static void run_opts(const struct tm_bench_plan *b, int ai, int64_t seq, char *const *argv,
                     char *const *envp, char *cgname, size_t cgsize, struct live *lv,
                     struct tm_record_opts *o)
{
	const struct tm_bench_spec *sp = b->sp;
	const struct tm_bench_arm *arm = &sp->arms[ai];

	/* tidemark-PID-...: a later recorder removes it if we are killed */
	snprintf(cgname, cgsize, "tidemark-%d-bench-%lld-%lld", (int)getpid(),
	         (long long)b->bench_id, (long long)seq);
	*o = sp->rec;
	o->store = b->st;
	o->argv = (char **)argv;
	o->envp = (char **)envp;
	o->new_cgroup = true;
	o->limits = b->plans[ai].limits;
	o->cgroup_name = cgname;
	o->bench_id = b->bench_id;
	o->arm = arm->name;
	o->bench_seq = seq;
	/* the bench pushes its runs whole (record/pushthread.h) */
	o->push_url = o->token_file = NULL;
	o->expect_allocator = tm_bench_arm_expect(arm);
	if (o->units_from)
		o->progress_regex = o->units_from; /* the progress matcher reads it */
	o->watch.ctx = lv;
	o->watch.on_sample = on_sample;
}

/* Before a run: the restored state, dropped caches, --prepare.  0 or -1. */
static int before_run(struct tm_bench_plan *b, const char *arm, const char *prepare, int64_t seq)
{
	const struct tm_bench_spec *sp = b->sp;
	struct tm_restore_stats rs;

	if (sp->restore && tm_bench_restore(b->snapshot, b->restore_dir, &rs))
		return -1;
	if (sp->restore && seq == 0)
		tm_note(
		    "restore: %s from %s before every run: %lld files, %.1f MiB, %lld reflinked",
		    b->restore_dir, b->snapshot, (long long)rs.files, (double)rs.bytes / TM_MIB,
		    (long long)rs.reflinked);
	if (sp->drop_caches && drop_caches())
		return -1;
	if (prepare && run_hook("--prepare", prepare, arm, seq, b->bench_id))
		return -1;
	return 0;
}

/* Run SEQ of arm AI at parameter value VI (0 without --param).  0, 1 when
 * interrupted, -1 after tm_error. */
static int one_run(struct tm_bench_plan *b, int ai, int vi, int64_t seq, bool warmup,
                   struct live *lv)
{
	const struct tm_bench_spec *sp = b->sp;
	const struct tm_bench_arm *arm = &sp->arms[ai];
	struct arm_plan *p = &b->plans[ai];
	struct tm_bench_param_run pr = {0};
	struct tm_record_opts o;
	struct tm_record_result res;
	char cgname[128], target_cg[4200];
	int rc = -1;

	if (sp->param.n && tm_bench_param_run_new(sp, ai, vi, p->argv, environ, &pr))
		goto out;
	const struct tm_bench_target_ops *t = b->target.ops;
	struct tm_bench_target_run run = {b->st, b->bench_id, seq, arm, &p->limits};
	if (t->before && t->before(&b->target, &run))
		goto out;
	if (before_run(b, arm->name, sp->param.n ? pr.prepare : sp->prepare, seq))
		goto out;
	run_opts(b, ai, seq, pr.argv ? pr.argv : p->argv, pr.envp ? pr.envp : p->envp, cgname,
	         sizeof(cgname), lv, &o);
	lv->start_mono_usec = tm_now_mono_usec();
	lv->last_print_usec = 0;
	lv->samples = 0;
	memset(&res, 0, sizeof(res));
	int64_t rig0 = self_cpu_usec();
	int gone = t->start(&b->target, &o, target_cg, sizeof(target_cg));
	struct tm_bench_unrecorded ur = {
	    b->st, b->bench_id, seq, o.interval_usec, tm_now_wall_usec(), lv->start_mono_usec,
	    arm,   &p->limits};
	if (gone < 0 || (gone && t->unrecorded(&b->target, &ur, &res)) ||
	    (!gone && tm_record_run(&o, &res)) ||
	    (!gone && t->after && t->after(&b->target, &run, &res)))
		goto out;
	int64_t rig_cpu = self_cpu_usec() - rig0;
	if (!warmup && tm_outcome_counts(res.outcome)) {
		p->tried++;
		p->survived += res.outcome == TM_OUTCOME_COMPLETED;
	}
	run_done(lv, &res);
	struct tm_bench_run_note note = {
	    .bench_id = b->bench_id,
	    .run_id = res.run_id,
	    .seq = seq,
	    .arm_index = ai,
	    .warmup = warmup,
	    .wall_usec = res.wall_usec,
	    .rig_cpu_usec = rig0 >= 0 ? rig_cpu : -1,
	};
	if (tm_bench_store_run(b->st, &note) ||
	    (sp->param.n && tm_bench_params_store(b->st, b->bench_id, res.run_id, sp->param.name,
	                                          sp->param.values[vi], sp->param.texts[vi])))
		goto out;
	tm_push_thread_add(b->pusher, res.run_id);
	const char *cleanup = sp->param.n ? pr.cleanup : sp->cleanup;
	if (cleanup && run_hook("--cleanup", cleanup, arm->name, seq, b->bench_id))
		goto out;
	rc = res.outcome == TM_OUTCOME_INTERRUPTED ? 1 : 0;
out:
	tm_bench_param_run_release(&pr);
	return rc;
}

/* The runs in order: ROUNDS rounds of every arm at every value (cell
 * VI * N_ARMS + AI), each round interleaved or shuffled. */
static int run_all(struct tm_bench_plan *b)
{
	const struct tm_bench_spec *sp = b->sp;
	int nv = sp->param.n ? sp->param.n : 1, n = sp->n_arms * nv;
	int rounds = (int)(sp->warmup + sp->runs);
	int *order = calloc((size_t)rounds * (size_t)n, sizeof(int));
	int *done = calloc((size_t)n, sizeof(int));
	struct live lv = {.tty = isatty(2), .sp = sp, .plans = b->plans};
	int rc = 0;

	if (!order || !done) {
		free(order);
		free(done);
		return tm_error("out of memory");
	}
	tm_bench_order(n, rounds, sp->order == TM_ORDER_SHUFFLE, (uint64_t)sp->seed, order);
	lv.total = lv.eta.total = rounds * n;
	for (int i = 0; i < rounds * n && rc == 0; i++) {
		int cell = order[i], ai = cell % sp->n_arms, vi = cell / sp->n_arms;
		bool warmup = i / n < sp->warmup;
		lv.arm = sp->arms[ai].name;
		lv.index = i + 1;
		lv.warmup = warmup;
		lv.arm_runs = (int)(warmup ? sp->warmup : sp->runs);
		lv.arm_run = warmup ? i / n + 1 : ++done[cell];
		lv.param[0] = '\0';
		if (sp->param.n)
			snprintf(lv.param, sizeof(lv.param), " %s=%s", sp->param.name,
			         sp->param.texts[vi]);
		rc = one_run(b, ai, vi, i, warmup, &lv);
	}
	if (rc > 0)
		tm_note("bench interrupted: the table covers the runs so far");
	free(order);
	free(done);
	return rc; /* 1: interrupted, the table still follows */
}

static uint64_t fresh_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
		s = (uint64_t)tm_now_wall_usec() ^ (uint64_t)getpid();
	return s % 1000000000;
}

static int start_bench(struct tm_bench_plan *b, char *const *shared_argv)
{
	struct tm_bench_spec *sp = b->sp;
	char **texts = calloc((size_t)sp->n_arms, sizeof(char *));
	char *spec_json;
	int rc;

	if (!texts)
		return tm_error("out of memory");
	for (int i = 0; i < sp->n_arms; i++)
		texts[i] = b->plans[i].env_text;
	spec_json = tm_bench_spec_json(sp, shared_argv, texts);
	free(texts);
	if (!spec_json)
		return tm_error("out of memory");
	gethostname(b->host, sizeof(b->host) - 1);
	struct tm_bench_row row = {
	    .name = sp->name,
	    .spec_json = spec_json,
	    .order = tm_bench_order_name(sp->order),
	    .host = b->host,
	    .seed = sp->seed,
	    .started_wall_usec = tm_now_wall_usec(),
	};
	rc = tm_bench_store_begin(b->st, &row, &b->bench_id);
	free(spec_json);
	return rc;
}

/* Allocator libraries: in $TIDEMARK_LIB_PATH (DIR:DIR...) when set, else
 * in this host's library directories. */
static int resolve_libs(struct tm_bench_spec *sp)
{
	const char *env = getenv("TIDEMARK_LIB_PATH");
	const char *dirs[17];
	char *copy, *save = NULL;
	int n = 0, rc;

	if (!env || !*env)
		return tm_bench_resolve_allocators(sp, tm_bench_lib_dirs());
	if (!(copy = strdup(env)))
		return tm_error("out of memory");
	for (char *d = strtok_r(copy, ":", &save); d && n < 16; d = strtok_r(NULL, ":", &save))
		dirs[n++] = d;
	dirs[n] = NULL;
	rc = tm_bench_resolve_allocators(sp, dirs);
	free(copy);
	return rc;
}

/* Completes SP and checks it against our environment: 0 or -1. */
static int bench_prepare(struct tm_bench_spec *sp, char *const *argv)
{
	if (sp->order == TM_ORDER_SHUFFLE && sp->seed < 0)
		sp->seed = (int64_t)fresh_seed();
	if (sp->seed < 0)
		sp->seed = 0;
	if (check_spec(sp, argv))
		return -1;
	if (resolve_libs(sp))
		return -1;
	return tm_bench_guard(sp, environ, sp->inherit_env);
}

static void print_start(const struct tm_bench_plan *b, const char *store_name)
{
	const struct tm_bench_spec *sp = b->sp;

	char warmup[48] = "", seed[96] = "";

	if (sp->warmup)
		snprintf(warmup, sizeof(warmup), " (+%lld warmup)", (long long)sp->warmup);
	if (sp->order == TM_ORDER_SHUFFLE)
		snprintf(seed, sizeof(seed), " (seed %lld; repeat with --seed %lld)",
		         (long long)sp->seed, (long long)sp->seed);
	tm_note("bench %lld: %d arms x %lld runs%s, order %s%s, store %s", (long long)b->bench_id,
	        sp->n_arms, (long long)sp->runs, warmup, tm_bench_order_name(sp->order), seed,
	        store_name);
	char note[320];
	if (tm_bench_runs_note((int)sp->runs, sp->n_arms, note, sizeof(note)))
		tm_term_wrap(stderr, note, 0, 2, tm_term_width(stderr));
}

enum tm_bench_status tm_bench_plan_new(struct tm_bench_spec *sp, char *const *argv,
                                       struct tm_bench_plan **out)
{
	struct tm_bench_plan *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return tm_error("out of memory"), TM_BENCH_FAILED;
	b->sp = sp;
	b->target.ops = tm_bench_target_for(sp);
	if (bench_prepare(sp, argv) ||
	    (sp->restore && tm_bench_restore_parse(sp->restore, b->snapshot, b->restore_dir,
	                                           sizeof(b->snapshot)))) {
		free(b);
		return TM_BENCH_BAD_INPUT;
	}
	for (; b->n_plans < sp->n_arms; b->n_plans++)
		if (plan_arm(sp, &sp->arms[b->n_plans], argv, &b->plans[b->n_plans])) {
			tm_bench_plan_free(b);
			return TM_BENCH_BAD_INPUT;
		}
	b->shared = argv ? argv : sp->exec_start ? b->plans[0].argv : NULL;
	char *plan = NULL; /* fitted to the terminal, line by line */
	size_t plan_n = 0;
	FILE *pm = open_memstream(&plan, &plan_n);
	print_plan(sp, b->plans, argv ? argv : b->plans[0].argv, pm ? pm : stderr);
	if (pm)
		fclose(pm), tm_term_write_lines(stderr, plan, tm_term_width(stderr)), free(plan);
	*out = b;
	return TM_BENCH_OK;
}

void tm_bench_plan_free(struct tm_bench_plan *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n_plans; i++)
		plan_release(&b->plans[i]);
	free(b);
}

int tm_bench_push_begin(struct tm_bench_plan *b, const char *store_name)
{
	const struct tm_record_opts *o = &b->sp->rec;

	if (!o->push_url)
		return 0;
	return tm_push_thread_start(o->push_url, o->token_file, store_name, TM_PUSH_BENCH,
	                            &b->pusher);
}

void tm_bench_push_end(struct tm_bench_plan *b)
{
	tm_push_thread_finish(b->pusher, 10000000);
	b->pusher = NULL;
}

enum tm_bench_status tm_bench_execute(struct tm_bench_plan *b, struct tm_store *st,
                                      const char *store_name, const struct tm_bench_output *out)
{
	int rc;

	b->st = st;
	if (tm_bench_push_begin(b, store_name))
		return TM_BENCH_FAILED;
	if (tm_bench_store_init(st) || (b->sp->param.n && tm_bench_params_init(st)) ||
	    (b->target.ops->open && b->target.ops->open(&b->target, b->sp)) ||
	    start_bench(b, b->shared)) {
		if (b->target.ops->close)
			b->target.ops->close(&b->target);
		tm_bench_push_end(b);
		return TM_BENCH_FAILED;
	}
	print_start(b, store_name);
	rc = run_all(b);
	/* the drop-in goes whatever happened (a signal that kills us: the cleaner) */
	if (b->target.ops->close && b->target.ops->close(&b->target))
		rc = -1;
	if (tm_bench_store_end(st, b->bench_id, tm_now_wall_usec()))
		rc = -1;
	tm_bench_push_end(b);
	if (rc == 0)
		fputc('\n', stderr);
	if (tm_bench_show_table(st, store_name, b->bench_id, out))
		rc = -1;
	return rc ? TM_BENCH_FAILED : TM_BENCH_OK;
}

int tm_bench_run_probe(struct tm_bench_plan *b, struct tm_store *st, int ai,
                       const struct tm_limits *limits, int n, const char *name,
                       struct tm_bench_probe *out)
{
	struct tm_bench_spec *sub = malloc(sizeof(*sub));
	struct tm_bench_plan *pb = malloc(sizeof(*pb));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!sub || !pb) {
		free(sub);
		free(pb);
		return tm_error("out of memory");
	}
	/* shallow copies: the probe borrows the arm's strings and plan */
	*sub = *b->sp;
	*pb = *b;
	sub->arms[0] = b->sp->arms[ai];
	sub->arms[0].memory_max_bytes = limits->memory_max_bytes;
	sub->arms[0].memory_high_bytes = limits->memory_high_bytes;
	sub->arms[0].swap_max_bytes = limits->swap_max_bytes;
	sub->n_arms = 1;
	sub->runs = n;
	sub->warmup = 0;
	sub->name = (char *)name;
	pb->sp = sub;
	pb->plans[0] = b->plans[ai];
	pb->plans[0].limits = *limits;
	pb->plans[0].tried = pb->plans[0].survived = 0;
	pb->n_plans = 1;
	pb->st = st;
	if (tm_bench_store_init(st) == 0 && start_bench(pb, pb->shared) == 0) {
		rc = run_all(pb);
		if (tm_bench_store_end(st, pb->bench_id, tm_now_wall_usec()))
			rc = -1;
	}
	out->bench_id = pb->bench_id;
	out->tried = pb->plans[0].tried;
	out->survived = pb->plans[0].survived;
	free(sub);
	free(pb);
	return rc;
}

int tm_bench_plan_arm(const struct tm_bench_plan *b, int ai, char *const **argv,
                      const char **env_text, struct tm_limits *limits)
{
	if (ai < 0 || ai >= b->n_plans)
		return -1;
	*argv = b->plans[ai].argv;
	*env_text = b->plans[ai].env_text ? b->plans[ai].env_text : "";
	*limits = b->plans[ai].limits;
	return 0;
}

const struct tm_bench_spec *tm_bench_plan_spec(const struct tm_bench_plan *b)
{
	return b->sp;
}
