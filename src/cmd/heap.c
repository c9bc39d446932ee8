/*
 * tidemark heap: profiles and counters of processes running with
 * libtidemark-heap.so (see docs/heap.md).
 */
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "heap/heapcli.h"
#include "heap/heapprof.h"
#include "heap/heapregion.h"
#include "tidemark-size.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark heap PID [-o FILE] [--collapsed [--alloc]]\n"
    "       tidemark heap PID --every DURATION [-o PREFIX]\n"
    "       tidemark heap stats PID [--json]\n"
    "       tidemark heap top FILE [-n N]\n"
    "       tidemark heap run [-o FILE] [--sample BYTES] [--sites] -- CMD [ARGS...]\n"
    "       tidemark heap attach PID [--dry-run] [--sample BYTES]\n"
    "       tidemark heap detach PID\n"
    "\n"
    "Heap profiles of programs running with the heap shim (LD_PRELOAD of\n"
    "libtidemark-heap.so, which `tidemark record --heap` sets up).  Symbols are\n"
    "resolved here with libdw, never inside the target.\n"
    "\n"
    "  PID             write a pprof profile (gzip'd profile.proto: alloc_objects,\n"
    "                  alloc_space, inuse_objects, inuse_space) of a running PID\n"
    "  stats PID       the shim's exact counters: live, peak, allocated bytes, counts\n"
    "  top FILE        the top allocation sites of a profile by in-use bytes\n"
    "  run -- CMD      run CMD under the shim and write its profile when it exits\n"
    "  attach PID      count a running PID's heap from now on without a restart: the\n"
    "                  agent is loaded through ptrace (docs/heap.md \"attach\"); read\n"
    "                  it with `heap stats PID`, `heap PID` (sites since the attach)\n"
    "                  or `record -p PID --heap`\n"
    "  detach PID      let go: the agent stops counting, nothing of it is called\n"
    "\n"
    "options:\n"
    "  -o, --output FILE  profile file (default heap.PID.pb.gz; '-' with --collapsed)\n"
    "      --collapsed    write 'outer;...;leaf BYTES' lines for flame graphs\n"
    "      --alloc        with --collapsed: allocated bytes instead of in-use bytes\n"
    "      --every DUR    write PREFIX.1.pb.gz, PREFIX.2.pb.gz ... every DUR until\n"
    "                     the process exits (default PREFIX heap.PID); SIGUSR1 to\n"
    "                     tidemark writes one at once\n"
    "      --json         stats as JSON\n"
    "  -n N               top: number of sites (default 20)\n"
    "      --sample BYTES run, attach: mean sampling interval (default 512K; 0 =\n"
    "                     counting only)\n"
    "      --dry-run      attach: check and say what would be done, stop nothing\n"
    "      --sites        run: libtidemark-heap-sites.so, sites without exact counters\n"
    "                     (cheaper: see docs/heap.md)\n"
    "  -h, --help         this help\n"
    "\n"
    "environment of the profiled program:\n"
    "  TIDEMARK_HEAP_SAMPLE=512K   mean bytes between samples (0: no sites)\n"
    "  TIDEMARK_HEAP_UNWIND=libunwind  unwind with libunwind instead of frame pointers\n"
    "  TIDEMARK_HEAP_KEEP=1        leave the region after exit (for a final profile)\n"
    "  TIDEMARK_HEAP_DIR=DIR       the regions' directory, mode 0700 (default\n"
    "                              /dev/shm/tidemark-heap-UID)\n"
    "\n"
    "examples:\n"
    "  LD_PRELOAD=build/libtidemark-heap.so ./server &\n"
    "  tidemark heap $! -o server.pb.gz && go tool pprof -top server.pb.gz\n"
    "  tidemark heap $! --collapsed -o - | flamegraph.pl > heap.svg\n"
    "  tidemark heap stats $!\n"
    "  tidemark heap $! --every 30s -o /tmp/server   # /tmp/server.1.pb.gz, ...\n"
    "  tidemark heap top server.pb.gz -n 10\n"
    "  tidemark heap run -o job.pb.gz -- python3 job.py\n"
    "  tidemark heap attach $(pidof redis-server) && tidemark heap stats $(pidof redis-server)\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "tidemark heap: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see 'tidemark heap --help')\n");
	return 2;
}

static int parse_pid(const char *s, pid_t *pid)
{
	int64_t v;
	if (tm_parse_int64(s, &v) < 0 || v <= 0 || v > 4194304)
		return -1;
	*pid = (pid_t)v;
	return 0;
}

/* heap stats PID: 0, or 1 after tm_error. */
/* The step `heap attach` is to fail on purpose: a test build's hook
 * (build/tests/tidemark-hooks, Makefile), TIDEMARK_ATTACH_FAIL_AT=N; the
 * installed tool reads no such variable and fails none. */
static int attach_fail_at(void)
{
	int64_t n = 0;
#ifdef TM_TEST_HOOKS
	const char *v = getenv("TIDEMARK_ATTACH_FAIL_AT");
	if (v && tm_parse_int64(v, &n) < 0)
		n = 0;
#endif
	return n > 0 && n < 100 ? (int)n : 0;
}

static int heap_stats(pid_t pid, int json)
{
	return tm_heap_stats_print(pid, json, stdout) ? 1 : 0;
}

/* heap PID: 0, or 1 after tm_error. */
static int heap_profile(pid_t pid, const char *out, int collapsed, int alloc)
{
	return tm_heap_cli_profile(pid, out, collapsed, alloc) < 0 ? 1 : 0;
}

/* SIGUSR1 to tidemark during --every: a profile now (the only state a
 * signal handler can share). */
static volatile sig_atomic_t profile_now;

static void on_usr1(int sig)
{
	(void)sig;
	profile_now = 1;
}

/* heap PID --every: 0, or 1 after tm_error. */
static int heap_every(pid_t pid, const char *prefix, int64_t every_usec)
{
	struct sigaction sa = {.sa_handler = on_usr1};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	return tm_heap_cli_every(pid, prefix, every_usec, &profile_now) < 0 ? 1 : 0;
}

/* heap run -- CMD: CMD's exit status, 1 after tm_error, 2 on bad input. */
static int heap_run(char **cmd, const char *out, const char *sample, int sites)
{
	int status;
	if (sites && sample && !strcmp(sample, "0"))
		return usage_error("%s", "--sites with --sample 0 would measure nothing");
	if (tm_heap_cli_run(cmd, out, sample, sites, &status) < 0)
		return 1;
	return status;
}

static int heap_top(int argc, char **argv)
{
	int n = 20;
	const char *file = NULL;
	for (int i = 1; i < argc; i++) {
		int64_t v;
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			if (tm_parse_int64(argv[++i], &v) < 0 || v <= 0 || v > 100000)
				return usage_error("bad -n '%s'", argv[i]);
			n = (int)v;
		} else if (!file && argv[i][0] != '-') {
			file = argv[i];
		} else {
			return usage_error("unexpected argument '%s'", argv[i]);
		}
	}
	if (!file)
		return usage_error("%s", "top needs a profile FILE");
	return tm_heap_top(file, stdout, n) < 0 ? 1 : 0;
}

struct heap_cli {
	char *out;
	const char *sample; /* as given: the shim reads the same grammar */
	bool collapsed, alloc, json, sites, dry_run;
	int64_t every_usec;
};

/* --sample SIZE: checked with the shim's own grammar, passed on as text. */
static int parse_sample(void *field, const char *value, struct tm_err *err)
{
	int64_t v;

	if (tm_size_parse(value, &v) || v == INT64_MAX) {
		snprintf(err->msg, sizeof(err->msg),
		         "'%s': expected %s (but not max; 0: no sampling)", value, TM_SIZE_EXPECT);
		return -1;
	}
	*(const char **)field = value;
	return 0;
}

#define HOFF(f) offsetof(struct heap_cli, f)
#define H       TM_OPT_OTHER

static const struct tm_opt heap_options[] = {
    {.flag = "output",
     .short_name = 'o',
     .scopes = H,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = HOFF(out)},
    {.flag = "collapsed", .scopes = H, .type = TM_OPT_BOOL, .off = HOFF(collapsed)},
    {.flag = "alloc", .scopes = H, .type = TM_OPT_BOOL, .off = HOFF(alloc)},
    {.flag = "json", .scopes = H, .type = TM_OPT_BOOL, .off = HOFF(json)},
    {.flag = "sample",
     .scopes = H,
     .type = TM_OPT_CUSTOM,
     .off = HOFF(sample),
     .parse = parse_sample},
    {.flag = "every",
     .scopes = H,
     .type = TM_OPT_DURATION,
     .off = HOFF(every_usec),
     .min = 100000,
     .max = TM_OPT_NO_MAX},
    {.flag = "sites", .scopes = H, .type = TM_OPT_BOOL, .off = HOFF(sites)},
    {.flag = "dry-run", .scopes = H, .type = TM_OPT_BOOL, .off = HOFF(dry_run)},
    {.type = TM_OPT_END},
};

/* What the operands left after the options ask for. */
static int heap_dispatch(const struct heap_cli *o, char **rest, int nrest)
{
	pid_t pid;

	if (nrest < 1)
		return usage_error("%s", "needs a PID, 'stats PID', 'top FILE' or 'run -- CMD'");
	if (!strcmp(rest[0], "run")) {
		if (nrest < 2)
			return usage_error("%s", "run needs a command after --");
		return heap_run(rest + 1 + (!strcmp(rest[1], "--") && nrest > 2), o->out, o->sample,
		                o->sites);
	}
	if (!strcmp(rest[0], "attach") || !strcmp(rest[0], "detach")) {
		if (nrest != 2 || parse_pid(rest[1], &pid) < 0)
			return usage_error("attach and detach need one PID, not '%s'",
			                   nrest > 1 ? rest[1] : "");
		int rc = rest[0][0] == 'a' ? tm_heap_cli_attach(pid, o->dry_run, o->sample,
		                                                attach_fail_at(), stdout)
		                           : tm_heap_cli_detach(pid, stdout);
		return rc < 0 ? 1 : 0;
	}
	if (!strcmp(rest[0], "stats")) {
		if (nrest != 2 || parse_pid(rest[1], &pid) < 0)
			return usage_error("stats needs one PID, not '%s'",
			                   nrest > 1 ? rest[1] : "");
		return heap_stats(pid, o->json);
	}
	if (nrest != 1 || parse_pid(rest[0], &pid) < 0)
		return usage_error("'%s' is not a PID", rest[0]);
	if (o->every_usec)
		return heap_every(pid, o->out, o->every_usec);
	return heap_profile(pid, o->out, o->collapsed, o->alloc);
}

int cmd_heap(int argc, char **argv, struct tm_cmd_ctx *ctx __attribute__((unused)))
{
	struct heap_cli o = {0};
	const struct tm_optset set = {heap_options, &o};
	int next, rc;

	if (argc > 1 && !strcmp(argv[1], "top")) {
		for (int i = 2; i < argc; i++)
			if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
				return tm_help_write(stdout, usage_text), 0;
		return heap_top(argc - 1, argv + 1);
	}
	/* options may follow the PID (tidemark heap PID -o FILE); -- ends them */
	rc = tm_opts_parse(&set, 1, H | TM_OPT_PERMUTE, "heap", argc, argv, &next);
	if (rc == 0)
		rc = heap_dispatch(&o, argv + next, argc - next);
	else
		rc = rc > 0 ? (tm_help_write(stdout, usage_text), 0) : 2;
	tm_opts_release(&set, 1);
	return rc;
}
