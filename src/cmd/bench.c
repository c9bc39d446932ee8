/*
 * tidemark bench: run a command under several arms (allocator, environment,
 * limits), each run in a fresh memory-limited cgroup from the same restored
 * state, interleaved, and print the comparison table.  docs/bench.md.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/limits.h"
#include "bench/bench.h"
#include "bench/persist.h"
#include "bench/restore.h"
#include "cmd/cmds.h"
#include "record/launch.h"
#include "record/recorder.h"
#include "report/benchtab.h"
#include "report/limitnote.h"
#include "report/summary.h"
#include "store/store.h"
#include "base/banned.h"

extern char **environ;

#define MAX_EXPORTS 3

struct bench_cli {
	struct tm_bench_spec sp;
	const char *file;
	struct tm_cmd_ctx *ctx; /* the store (-o/--db) */
	char *const *argv;      /* after -- */
	const char *exports[MAX_EXPORTS];
	int n_exports;
	int64_t grace_usec, table_id;
	bool dry_run, json, show_output, seed_given;
};

/* What one arm runs: its argv, its environment, and how to show them. */
struct arm_plan {
	char **argv; /* malloc'd (from ExecStart=) or borrowed from cli->argv */
	bool own_argv;
	char **envp;
	char *env_text; /* allocation-relevant "VAR=VAL ..." */
	struct tm_limits limits;
	int tried, survived;
};

static const char usage_text[] =
    "usage: tidemark bench [options] --arm NAME[:KEY=VAL[,KEY=VAL...]] ... -- CMD ARGS...\n"
    "       tidemark bench [options] -f EXPERIMENT.ini [-- CMD ARGS...]\n"
    "       tidemark bench --table ID [--json] [--export FMT[:PATH]]\n"
    "\n"
    "Runs CMD under each arm, --runs times each, interleaved, every run in a fresh\n"
    "cgroup with the arm's limits, and prints the comparison table.  The first arm\n"
    "is the control.  Arm names jemalloc, mimalloc, tcmalloc (LD_PRELOAD of the\n"
    "library on this host), arena1 (MALLOC_ARENA_MAX=1) and glibc are shortcuts;\n"
    "KEY is an environment variable or Allocator, MemoryMax, MemoryHigh, MemorySwapMax.\n"
    "\n"
    "arms and runs:\n"
    "  -f, --file FILE         experiment file (INI; see docs/bench.md)\n"
    "  -a, --arm SPEC          add an arm (repeat; the first is the control)\n"
    "  -n, --runs N            measured runs per arm (default 3)\n"
    "      --warmup N          warmup rounds before them, not counted (default 0)\n"
    "      --name NAME         a name for the bench, shown with its table\n"
    "      --order ORDER       interleave (A B C A B C ..., default) or shuffle\n"
    "      --seed N            seed for --order shuffle (printed when not given)\n"
    "      --memory-max SIZE   default MemoryMax for every arm (e.g. 400M)\n"
    "      --memory-high SIZE  default MemoryHigh\n"
    "      --swap-max SIZE     default MemorySwapMax (0: no swap)\n"
    "      --inherit-env       keep allocation variables (LD_PRELOAD, MALLOC_*, ...) from\n"
    "                          our environment instead of refusing to start\n"
    "each run:\n"
    "      --restore SNAP:DIR  replace DIR by a copy of SNAP before every run (reflink\n"
    "                          where the filesystem allows)\n"
    "      --drop-caches       sync and drop the page cache before every run\n"
    "      --heap              every run under the heap shim: the table adds heap peak,\n"
    "                          live heap and retained memory, and the live heap of the\n"
    "                          killed runs when they died (time figures include its cost)\n"
    "      --prepare CMD       run `sh -c CMD` before every run (TIDEMARK_ARM, TIDEMARK_SEQ)\n"
    "      --cleanup CMD       run `sh -c CMD` after every run\n"
    "      --progress REGEX    progress in the command's output (one numeric group)\n"
    "      --progress-file F   match the regex in file F instead\n"
    "      --until-progress N  end the run (SIGTERM, then SIGKILL) once progress >= N\n"
    "      --timeout DURATION  end a run after this long (outcome timeout)\n"
    "      --grace DURATION    SIGTERM to SIGKILL (default 5s)\n"
    "      --settle DURATION   keep sampling this long after the work ends (held memory)\n"
    "  -i, --interval DURATION sampling interval (default 200ms)\n"
    "      --show-output       pass the command's output through (default: hidden)\n"
    "the table:\n"
    "  -w, --window A:B        compare this stretch: progress A:B, times 10s:2m, @MARK:@MARK\n"
    "      --export FMT[:PATH] also write the table as json, csv or md (default\n"
    "                          bench-ID.FMT); repeatable\n"
    "      --json              print the table as JSON instead of text\n"
    "      --table ID          print the table of an earlier bench and exit\n"
    "      --dry-run           print the arms and their environments, run nothing\n"
    "  -o, --db PATH           the store (default $" TM_DB_ENV " or ./" TM_DB_DEFAULT ")\n"
    "  -h, --help              this help\n"
    "\n"
    "TIDEMARK_LIB_PATH=DIR:DIR... replaces the directories searched for allocator libraries.\n"
    "Exit status: 0 when every run was recorded, whatever its outcome; 1 on a runtime\n"
    "failure or when interrupted (the table of the runs so far is printed); 2 on bad\n"
    "arguments, a bad experiment file, or when the guard refuses to start.\n"
    "\n"
    "examples:\n"
    "  # glibc as shipped vs one arena vs jemalloc, 3 runs each under 400 MiB\n"
    "  tidemark bench --arm glibc --arm arena1 --arm jemalloc --runs 3 \\\n"
    "      --memory-max 400M --progress 'height=([0-9]+)' -- build/churn\n"
    "  # tuned jemalloc, from the same snapshot each time, the busy stretch only\n"
    "  tidemark bench --arm jemalloc --arm 'tuned:Allocator=jemalloc,MALLOC_CONF=dirty_decay_ms:0' "
    "\\\n"
    "      --restore /srv/snap:/srv/node/db --window 64400:64800 --settle 30s -- ./node\n"
    "  # the same from a file, exporting the table\n"
    "  tidemark bench -f exp.ini --export md:table.md --export json\n"
    "  tidemark report --bench 3    # reprint a bench's table from the store\n";

enum {
	OPT_WARMUP = 256,
	OPT_ORDER,
	OPT_SEED,
	OPT_MAX,
	OPT_HIGH,
	OPT_SWAP,
	OPT_INHERIT,
	OPT_HEAP,
	OPT_RESTORE,
	OPT_DROP,
	OPT_PREPARE,
	OPT_CLEANUP,
	OPT_PFILE,
	OPT_UNTIL,
	OPT_TIMEOUT,
	OPT_GRACE,
	OPT_SETTLE,
	OPT_SHOW,
	OPT_EXPORT,
	OPT_JSON,
	OPT_TABLE,
	OPT_DRY,
	OPT_PROGRESS,
	OPT_NAME,
};

static const struct option long_opts[] = {
    {"file", required_argument, NULL, 'f'},
    {"arm", required_argument, NULL, 'a'},
    {"runs", required_argument, NULL, 'n'},
    {"name", required_argument, NULL, OPT_NAME},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"order", required_argument, NULL, OPT_ORDER},
    {"seed", required_argument, NULL, OPT_SEED},
    {"memory-max", required_argument, NULL, OPT_MAX},
    {"memory-high", required_argument, NULL, OPT_HIGH},
    {"swap-max", required_argument, NULL, OPT_SWAP},
    {"inherit-env", no_argument, NULL, OPT_INHERIT},
    {"heap", no_argument, NULL, OPT_HEAP},
    {"restore", required_argument, NULL, OPT_RESTORE},
    {"drop-caches", no_argument, NULL, OPT_DROP},
    {"prepare", required_argument, NULL, OPT_PREPARE},
    {"cleanup", required_argument, NULL, OPT_CLEANUP},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"progress-file", required_argument, NULL, OPT_PFILE},
    {"until-progress", required_argument, NULL, OPT_UNTIL},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"settle", required_argument, NULL, OPT_SETTLE},
    {"interval", required_argument, NULL, 'i'},
    {"show-output", no_argument, NULL, OPT_SHOW},
    {"window", required_argument, NULL, 'w'},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"json", no_argument, NULL, OPT_JSON},
    {"table", required_argument, NULL, OPT_TABLE},
    {"dry-run", no_argument, NULL, OPT_DRY},
    {"db", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int bad_arg(const char *opt, const char *value, const char *want)
{
	return tm_error("%s '%s': expected %s", opt, value, want);
}

static int set_dup(char **dst, const char *value)
{
	char *d = strdup(value);
	if (!d)
		return tm_error("out of memory");
	free(*dst);
	*dst = d;
	return 0;
}

/* Options that only set something in the spec (the file's keys). */
static int spec_option(struct tm_bench_spec *sp, int c, const char *arg)
{
	char *end;

	switch (c) {
	case 'a':
		return tm_bench_add_arm(sp, arg);
	case 'n':
		if (tm_parse_int64(arg, &sp->runs) || sp->runs < 1 || sp->runs > 1000)
			return bad_arg("--runs", arg, "a count from 1 to 1000");
		return 0;
	case OPT_WARMUP:
		if (tm_parse_int64(arg, &sp->warmup) || sp->warmup < 0 || sp->warmup > 100)
			return bad_arg("--warmup", arg, "a count from 0 to 100");
		return 0;
	case OPT_ORDER:
		if (strcmp(arg, "interleave") && strcmp(arg, "shuffle"))
			return bad_arg("--order", arg, "interleave or shuffle");
		return set_dup(&sp->order, arg);
	case OPT_SEED:
		if (tm_parse_int64(arg, &sp->seed) || sp->seed < 0)
			return bad_arg("--seed", arg, "a non-negative integer");
		return 0;
	case OPT_MAX:
		return tm_parse_size(arg, &sp->memory_max_bytes)
		           ? bad_arg("--memory-max", arg, "a size like 400M")
		           : tm_limit_check("--memory-max", sp->memory_max_bytes);
	case OPT_HIGH:
		return tm_parse_size(arg, &sp->memory_high_bytes)
		           ? bad_arg("--memory-high", arg, "a size like 400M")
		           : tm_limit_check("--memory-high", sp->memory_high_bytes);
	case OPT_SWAP:
		return tm_parse_size(arg, &sp->swap_max_bytes)
		           ? bad_arg("--swap-max", arg, "a size like 0 or 1G")
		           : 0;
	case OPT_INHERIT:
		sp->inherit_env = 1;
		return 0;
	case OPT_HEAP:
		sp->heap = 1;
		return 0;
	case OPT_RESTORE:
		return set_dup(&sp->restore, arg);
	case OPT_DROP:
		sp->drop_caches = 1;
		return 0;
	case OPT_PREPARE:
		return set_dup(&sp->prepare, arg);
	case OPT_CLEANUP:
		return set_dup(&sp->cleanup, arg);
	case OPT_PROGRESS:
		return set_dup(&sp->progress_regex, arg);
	case OPT_NAME:
		return set_dup(&sp->name, arg);
	case OPT_PFILE:
		return set_dup(&sp->progress_file, arg);
	case OPT_UNTIL:
		errno = 0;
		sp->until_progress = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(sp->until_progress))
			return bad_arg("--until-progress", arg, "a number");
		sp->has_until_progress = true;
		return 0;
	case OPT_TIMEOUT:
		return tm_parse_duration(arg, &sp->timeout_usec)
		           ? bad_arg("--timeout", arg, "a duration like 90s")
		           : 0;
	case OPT_SETTLE:
		return tm_parse_duration(arg, &sp->settle_usec)
		           ? bad_arg("--settle", arg, "a duration like 30s")
		           : 0;
	case 'i':
		if (tm_parse_duration(arg, &sp->interval_usec) || sp->interval_usec < 50000)
			return bad_arg("--interval", arg, "a duration of at least 50ms");
		return 0;
	case 'w': {
		struct tm_window w;
		if (tm_window_parse(arg, &w))
			return -1;
		return set_dup(&sp->window, arg);
	}
	}
	return 1;
}

static int cli_option(struct bench_cli *cli, int c, const char *arg)
{
	switch (c) {
	case 'f':
		cli->file = arg;
		return 0;
	case 'o':
		tm_cmd_set_db(cli->ctx, arg);
		return 0;
	case OPT_GRACE:
		return tm_parse_duration(arg, &cli->grace_usec)
		           ? bad_arg("--grace", arg, "a duration like 5s")
		           : 0;
	case OPT_SHOW:
		cli->show_output = true;
		return 0;
	case OPT_EXPORT:
		if (cli->n_exports == MAX_EXPORTS)
			return tm_error("--export: at most %d", MAX_EXPORTS);
		if (strncmp(arg, "json", 4) && strncmp(arg, "csv", 3) && strncmp(arg, "md", 2))
			return bad_arg("--export", arg, "json, csv or md, optionally :PATH");
		cli->exports[cli->n_exports++] = arg;
		return 0;
	case OPT_JSON:
		cli->json = true;
		return 0;
	case OPT_TABLE:
		if (tm_parse_int64(arg, &cli->table_id) || cli->table_id < 1)
			return bad_arg("--table", arg, "a bench id");
		return 0;
	case OPT_DRY:
		cli->dry_run = true;
		return 0;
	}
	return 1;
}

/* Options on the command line win over the file's: the file is read
 * first (into SP), then the options are applied over it. */
static int parse_args(int argc, char **argv, struct bench_cli *cli, struct tm_bench_spec *cl)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+f:a:n:i:w:o:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == '?' || c == ':')
			return tm_error("bad option '%s' (see tidemark bench --help)",
			                argv[optind - 1]);
		int r = cli_option(cli, c, optarg);
		if (r > 0)
			r = spec_option(cl, c, optarg);
		if (r > 0)
			TM_BUG("bench: option %d has no handler", c);
		if (r < 0)
			return -1;
	}
	if (optind < argc)
		cli->argv = argv + optind;
	return 0;
}

/* Overlays the command line's settings (CL) on the file's (SP). */
static void take_str(char **dst, char **src)
{
	if (*src) {
		free(*dst);
		*dst = *src;
		*src = NULL;
	}
}

static int merge_spec(struct tm_bench_spec *sp, struct tm_bench_spec *cl)
{
	char **d[] = {&sp->name,    &sp->order,  &sp->restore,        &sp->prepare,
	              &sp->cleanup, &sp->window, &sp->progress_regex, &sp->progress_file};
	char **s[] = {&cl->name,    &cl->order,  &cl->restore,        &cl->prepare,
	              &cl->cleanup, &cl->window, &cl->progress_regex, &cl->progress_file};
	int64_t *dn[] = {&sp->runs,
	                 &sp->warmup,
	                 &sp->seed,
	                 &sp->memory_max_bytes,
	                 &sp->memory_high_bytes,
	                 &sp->swap_max_bytes,
	                 &sp->timeout_usec,
	                 &sp->settle_usec,
	                 &sp->interval_usec};
	int64_t *sn[] = {&cl->runs,
	                 &cl->warmup,
	                 &cl->seed,
	                 &cl->memory_max_bytes,
	                 &cl->memory_high_bytes,
	                 &cl->swap_max_bytes,
	                 &cl->timeout_usec,
	                 &cl->settle_usec,
	                 &cl->interval_usec};

	for (size_t i = 0; i < TM_ARRAY_SIZE(d); i++)
		take_str(d[i], s[i]);
	for (size_t i = 0; i < TM_ARRAY_SIZE(dn); i++)
		if (*sn[i] != -1)
			*dn[i] = *sn[i];
	if (cl->has_until_progress) {
		sp->has_until_progress = true;
		sp->until_progress = cl->until_progress;
	}
	if (cl->drop_caches > 0)
		sp->drop_caches = 1;
	if (cl->inherit_env > 0)
		sp->inherit_env = 1;
	if (cl->heap > 0)
		sp->heap = 1;
	for (int i = 0; i < cl->n_arms; i++) {
		if (sp->n_arms == TM_BENCH_MAX_ARMS)
			return tm_error("too many arms (at most %d)", TM_BENCH_MAX_ARMS);
		for (int j = 0; j < sp->n_arms; j++)
			if (!strcmp(sp->arms[j].name, cl->arms[i].name))
				return tm_error("arm '%s' given twice", cl->arms[i].name);
		sp->arms[sp->n_arms++] = cl->arms[i];
		memset(&cl->arms[i], 0, sizeof(cl->arms[i]));
	}
	cl->n_arms = 0;
	return 0;
}

static void apply_defaults(struct tm_bench_spec *sp)
{
	if (sp->runs < 0)
		sp->runs = 3;
	if (sp->warmup < 0)
		sp->warmup = 0;
	if (sp->interval_usec < 0)
		sp->interval_usec = 200000;
	if (sp->timeout_usec < 0)
		sp->timeout_usec = 0;
	if (sp->settle_usec < 0)
		sp->settle_usec = 0;
	if (!sp->order)
		sp->order = strdup("interleave");
	if (sp->drop_caches < 0)
		sp->drop_caches = 0;
	if (sp->inherit_env < 0)
		sp->inherit_env = 0;
	if (sp->heap < 0)
		sp->heap = 0;
}

static int check_spec(const struct tm_bench_spec *sp, const struct bench_cli *cli)
{
	if (sp->n_arms == 0)
		return tm_error("no arms: give --arm NAME (at least one) or -f FILE");
	if (sp->has_until_progress && !sp->progress_regex)
		return tm_error("--until-progress needs --progress REGEX");
	if (sp->progress_file && !sp->progress_regex)
		return tm_error("--progress-file needs --progress REGEX");
	if (sp->window) {
		struct tm_window w;
		if (tm_window_parse(sp->window, &w))
			return -1;
		if (w.kind == TM_WIN_PROGRESS && !sp->progress_regex)
			return tm_error(
			    "--window %s is in progress units: it needs --progress REGEX",
			    sp->window);
	}
	for (int i = 0; i < sp->n_arms; i++)
		if (!sp->arms[i].exec_start && !sp->exec_start && !cli->argv)
			return tm_error("no command for arm '%s': give -- CMD ARGS or ExecStart=",
			                sp->arms[i].name);
	return 0;
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
	if (!(p->envp = tm_bench_arm_envp(arm, environ, sp->inherit_env > 0)))
		return -1;
	p->env_text = env_text(p->envp);
	p->limits.memory_max_bytes = pick(arm->memory_max_bytes, sp->memory_max_bytes);
	p->limits.memory_high_bytes = pick(arm->memory_high_bytes, sp->memory_high_bytes);
	p->limits.swap_max_bytes = pick(arm->swap_max_bytes, sp->swap_max_bytes);
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
		                : sp->memory_high_bytes;
		any |= h != TM_LIMIT_UNSET && h != INT64_MAX;
	}
	if (any && tm_cg_host_detect(&host) == 0 && tm_mode_memory_v1(tm_cg_mode_name(host.mode)))
		fprintf(f, "  MemoryHigh: %s\n", TM_V1_HIGH_NOTE);
}

static void print_plan(const struct tm_bench_spec *sp, const struct arm_plan *plans,
                       char *const *shared, FILE *f)
{
	char limits[256];

	fprintf(f, "arms (the first is the control), each run in a fresh cgroup:\n");
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
	int64_t start_mono_usec, last_print_usec;
	const struct tm_bench_spec *sp;
	const struct arm_plan *plans;
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
	char mib[32] = "?";

	if (!lv->tty || now - lv->last_print_usec < 250000)
		return;
	lv->last_print_usec = now;
	if (tm_sample_has(s, TM_M_CG_ANON_BYTES))
		tm_fmt_mib(mib, sizeof(mib), s->v[TM_M_CG_ANON_BYTES]);
	else if (tm_sample_has(s, TM_M_PROC_RSS_ANON_BYTES))
		tm_fmt_mib(mib, sizeof(mib), s->v[TM_M_PROC_RSS_ANON_BYTES]);
	fprintf(stderr, "\r\033[K[%d/%d] %s %s %d/%d  %.1fs", lv->index, lv->total, lv->arm,
	        lv->warmup ? "warmup" : "run", lv->arm_run, lv->arm_runs,
	        (double)(now - lv->start_mono_usec) / 1e6);
	if (has_progress)
		fprintf(stderr, "  progress %.0f", progress);
	fprintf(stderr, "  anon %s", mib);
	survivors(lv, stderr);
	fflush(stderr);
}

static void run_done(struct live *lv, const struct tm_record_result *res)
{
	if (lv->tty)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "[%d/%d] %s %s %d/%d: %s in %.2f s", lv->index, lv->total, lv->arm,
	        lv->warmup ? "warmup" : "run", lv->arm_run, lv->arm_runs, res->outcome,
	        (double)res->wall_usec / 1e6);
	if (res->reason[0])
		fprintf(stderr, " (%s)", res->reason);
	fputc('\n', stderr);
}

/* ---- the runs ---- */

struct bench_run_ctx {
	struct bench_cli *cli;
	struct tm_bench_spec *sp;
	struct arm_plan *plans;
	struct tm_store *st;
	int64_t bench_id;
	char snapshot[4096], restore_dir[4096];
	char host[256];
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

static int one_run(struct bench_run_ctx *b, int ai, int64_t seq, bool warmup, struct live *lv)
{
	const struct tm_bench_spec *sp = b->sp;
	const struct tm_bench_arm *arm = &sp->arms[ai];
	struct arm_plan *p = &b->plans[ai];
	struct tm_record_opts o;
	struct tm_record_result res;
	struct tm_restore_stats rs;
	char cgname[128];

	if (sp->restore && tm_bench_restore(b->snapshot, b->restore_dir, &rs))
		return -1;
	if (sp->restore && seq == 0)
		fprintf(
		    stderr,
		    "restore: %s from %s before every run: %lld files, %.1f MiB, %lld reflinked\n",
		    b->restore_dir, b->snapshot, (long long)rs.files, (double)rs.bytes / TM_MIB,
		    (long long)rs.reflinked);
	if (sp->drop_caches > 0 && drop_caches())
		return -1;
	if (sp->prepare && run_hook("--prepare", sp->prepare, arm->name, seq, b->bench_id))
		return -1;
	tm_record_opts_init(&o);
	/* tidemark-PID-...: a later recorder removes it if we are killed */
	snprintf(cgname, sizeof(cgname), "tidemark-%d-bench-%lld-%lld", (int)getpid(),
	         (long long)b->bench_id, (long long)seq);
	o.store = b->st;
	o.argv = p->argv;
	o.envp = p->envp;
	o.new_cgroup = true;
	o.limits = p->limits;
	o.cgroup_name = cgname;
	o.interval_usec = sp->interval_usec;
	o.progress_regex = sp->progress_regex;
	o.progress_file = sp->progress_file;
	o.stop_at_progress = sp->has_until_progress;
	o.until_progress = sp->until_progress;
	o.timeout_usec = sp->timeout_usec;
	o.settle_usec = sp->settle_usec;
	o.heap = sp->heap > 0;
	o.term_grace_usec = b->cli->grace_usec;
	o.quiet_child = !b->cli->show_output;
	o.bench_id = b->bench_id;
	o.arm = arm->name;
	o.bench_seq = seq;
	o.expect_allocator = tm_bench_arm_expect(arm);
	o.watch.ctx = lv;
	o.watch.on_sample = on_sample;
	lv->start_mono_usec = tm_now_mono_usec();
	lv->last_print_usec = 0;
	memset(&res, 0, sizeof(res));
	int64_t rig0 = self_cpu_usec();
	if (tm_record_run(&o, &res))
		return -1;
	int64_t rig_cpu = self_cpu_usec() - rig0;
	if (!warmup && strcmp(res.outcome, "invalid") && strcmp(res.outcome, "interrupted")) {
		p->tried++;
		p->survived += !strcmp(res.outcome, "completed");
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
	if (tm_bench_store_run(b->st, &note))
		return -1;
	if (sp->cleanup && run_hook("--cleanup", sp->cleanup, arm->name, seq, b->bench_id))
		return -1;
	return !strcmp(res.outcome, "interrupted") ? 1 : 0;
}

static int run_all(struct bench_run_ctx *b)
{
	const struct tm_bench_spec *sp = b->sp;
	int rounds = (int)(sp->warmup + sp->runs), n = sp->n_arms;
	int *order = calloc((size_t)rounds * (size_t)n, sizeof(int));
	int *done = calloc((size_t)n, sizeof(int));
	struct live lv = {.tty = isatty(2), .sp = sp, .plans = b->plans};
	int rc = 0;

	if (!order || !done) {
		free(order);
		free(done);
		return tm_error("out of memory");
	}
	tm_bench_order(n, rounds, !strcmp(sp->order, "shuffle"), (uint64_t)sp->seed, order);
	lv.total = rounds * n;
	for (int i = 0; i < rounds * n && rc == 0; i++) {
		int ai = order[i];
		bool warmup = i / n < sp->warmup;
		lv.arm = sp->arms[ai].name;
		lv.index = i + 1;
		lv.warmup = warmup;
		lv.arm_runs = (int)(warmup ? sp->warmup : sp->runs);
		lv.arm_run = warmup ? i / n + 1 : ++done[ai];
		rc = one_run(b, ai, i, warmup, &lv);
	}
	if (rc > 0)
		fprintf(stderr, "bench interrupted: the table covers the runs so far\n");
	free(order);
	free(done);
	return rc; /* 1: interrupted, the table still follows */
}

/* ---- output ---- */

static int export_one(struct tm_bench_table *t, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char fmt[8], path[4096];
	FILE *f;

	snprintf(fmt, sizeof(fmt), "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	if (colon && colon[1])
		snprintf(path, sizeof(path), "%s", colon + 1);
	else
		snprintf(path, sizeof(path), "bench-%lld.%s", (long long)t->bench_id, fmt);
	if (!(f = fopen(path, "w")))
		return tm_error("--export: cannot write '%s': %s", path, strerror(errno));
	if (!strcmp(fmt, "json")) {
		char *json = tm_bench_table_to_json(t);
		if (json)
			fprintf(f, "%s\n", json);
		free(json);
	} else if (!strcmp(fmt, "csv")) {
		tm_bench_table_write_csv(t, f);
	} else if (!strcmp(fmt, "md")) {
		tm_bench_table_write_md(t, f);
	} else {
		fclose(f);
		return tm_error("--export: unknown format '%s' (json, csv, md)", fmt);
	}
	if (fclose(f))
		return tm_error("--export: cannot write '%s': %s", path, strerror(errno));
	fprintf(stderr, "wrote %s\n", path);
	return 0;
}

static int show_table(struct tm_store *st, int64_t bench_id, const struct bench_cli *cli)
{
	struct tm_bench_table t;
	int rc = tm_bench_table_load(st, bench_id, &t);

	if (rc == 1)
		rc = tm_error("no bench %lld in %s", (long long)bench_id, tm_cmd_db_path(cli->ctx));
	if (rc == 0 && cli->json) {
		char *json = tm_bench_table_to_json(&t);
		if (json)
			printf("%s\n", json);
		free(json);
	} else if (rc == 0) {
		tm_bench_table_write_text(&t, stdout);
	}
	for (int i = 0; rc == 0 && i < cli->n_exports; i++)
		rc = export_one(&t, cli->exports[i]);
	tm_bench_table_release(&t);
	return rc;
}

/* ---- the command ---- */

static int load_file(struct tm_bench_spec *sp, const char *path)
{
	char *text = tm_read_file(path, NULL);
	int rc;

	if (!text)
		return tm_error("cannot read '%s': %s", path, strerror(errno));
	rc = tm_bench_parse_ini(sp, text, path);
	free(text);
	return rc;
}

static uint64_t fresh_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof(s), 0) != (ssize_t)sizeof(s))
		s = (uint64_t)tm_now_wall_usec() ^ (uint64_t)getpid();
	return s % 1000000000;
}

static int start_bench(struct bench_run_ctx *b, char *const *shared_argv)
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
	    .order = sp->order,
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

static int bench_prepare(struct bench_cli *cli, struct tm_bench_spec *sp, struct tm_bench_spec *cl)
{
	if (cli->file && load_file(sp, cli->file))
		return -1;
	if (merge_spec(sp, cl))
		return -1;
	apply_defaults(sp);
	if (!strcmp(sp->order, "shuffle") && sp->seed < 0)
		sp->seed = (int64_t)fresh_seed();
	if (sp->seed < 0)
		sp->seed = 0;
	if (check_spec(sp, cli))
		return -1;
	if (resolve_libs(sp))
		return -1;
	return tm_bench_guard(sp, environ, sp->inherit_env > 0);
}

static int bench_run(struct bench_cli *cli, struct tm_bench_spec *sp, struct arm_plan *plans)
{
	struct bench_run_ctx b = {.cli = cli, .sp = sp, .plans = plans};
	char *const *shared = cli->argv;
	int rc;

	if (sp->restore &&
	    tm_bench_restore_parse(sp->restore, b.snapshot, b.restore_dir, sizeof(b.snapshot)))
		return 2;
	if (!(b.st = tm_cmd_store(cli->ctx, TM_CMD_WRITE)) || tm_bench_store_init(b.st))
		return 1;
	if (!shared && sp->exec_start)
		shared = plans[0].argv;
	if (start_bench(&b, shared))
		return 1;
	fprintf(stderr, "bench %lld: %d arms x %lld runs", (long long)b.bench_id, sp->n_arms,
	        (long long)sp->runs);
	if (sp->warmup)
		fprintf(stderr, " (+%lld warmup)", (long long)sp->warmup);
	fprintf(stderr, ", order %s", sp->order);
	if (!strcmp(sp->order, "shuffle"))
		fprintf(stderr, " (seed %lld; repeat with --seed %lld)", (long long)sp->seed,
		        (long long)sp->seed);
	fprintf(stderr, ", store %s\n", tm_cmd_db_path(cli->ctx));
	rc = run_all(&b);
	tm_bench_store_end(b.st, b.bench_id, tm_now_wall_usec());
	if (rc == 0)
		fputc('\n', stderr);
	if (show_table(b.st, b.bench_id, cli))
		rc = -1;
	return rc ? 1 : 0;
}

static int bench_main(struct bench_cli *cli, struct tm_bench_spec *sp, struct tm_bench_spec *cl,
                      int argc, char **argv)
{
	struct arm_plan plans[TM_BENCH_MAX_ARMS];
	int rc, n_plans = 0;

	rc = parse_args(argc, argv, cli, cl);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (cli->table_id) {
		struct tm_store *st = tm_cmd_store(cli->ctx, TM_CMD_READ);
		if (!st)
			return 1;
		return show_table(st, cli->table_id, cli) ? 1 : 0;
	}
	if (bench_prepare(cli, sp, cl))
		return 2;
	for (; n_plans < sp->n_arms; n_plans++)
		if (plan_arm(sp, &sp->arms[n_plans], cli->argv, &plans[n_plans])) {
			rc = 2;
			goto out;
		}
	print_plan(sp, plans, cli->argv ? cli->argv : plans[0].argv, stderr);
	tm_cmd_host_notice();
	rc = cli->dry_run ? 0 : bench_run(cli, sp, plans);
out:
	for (int i = 0; i < n_plans; i++)
		plan_release(&plans[i]);
	return rc;
}

int cmd_bench(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct bench_cli cli = {.grace_usec = 5000000, .ctx = ctx};
	struct tm_bench_spec sp, cl;
	int rc;

	tm_bench_spec_init(&sp);
	tm_bench_spec_init(&cl);
	rc = bench_main(&cli, &sp, &cl, argc, argv);
	tm_bench_spec_release(&sp);
	tm_bench_spec_release(&cl);
	return rc;
}
