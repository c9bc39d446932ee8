/* tidemark record: sample a command, a process tree or a cgroup into the store. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/limits.h"
#include "cmd/cmds.h"
#include "record/recorder.h"
#include "report/limitnote.h"
#include "report/summary.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark record [options] [--] CMD [ARGS...]\n"
    "       tidemark record [options] -p PID\n"
    "       tidemark record [options] --cgroup PATH\n"
    "\n"
    "Samples memory (anon, page cache, cgroup limits and events, PSI), CPU, I/O and\n"
    "the program's progress at a fixed interval into an SQLite store.\n"
    "\n"
    "target:\n"
    "  CMD ARGS...           launch it (in a fresh cgroup when the host allows), pass\n"
    "                        signals on, exit with its status\n"
    "  -p, --pid PID         a running process and all its descendants\n"
    "      --cgroup PATH     a cgroup directory (v1 memory or v2)\n"
    "options:\n"
    "  -o, --db PATH         the store (default $" TM_DB_ENV " or ./" TM_DB_DEFAULT ")\n"
    "  -i, --interval DUR    sampling interval, >= 50ms (default 1s)\n"
    "      --memory-max SIZE   hard limit (v2 memory.max, v1 memory.limit_in_bytes)\n"
    "      --memory-high SIZE  throttling limit (v2 memory.high, v1 soft_limit_in_bytes)\n"
    "      --swap-max SIZE     swap limit (v2 memory.swap.max, v1 memsw)\n"
    "      --no-cgroup       launch without a cgroup of its own\n"
    "      --progress REGEX  a number in the program's output, e.g. 'height=([0-9]+)'\n"
    "      --progress-file PATH  match REGEX on this file (followed like tail -F)\n"
    "      --until-progress N   stop the command once progress reaches N\n"
    "      --settle DUR      keep sampling this long after the work ends\n"
    "      --timeout DUR     stop the command after this long\n"
    "      --grace DUR       SIGTERM, then SIGKILL after this (default 5s)\n"
    "      --heap[=sites]    preload the heap shim: live heap and retention series\n"
    "                        (=sites: allocation sites only, no exact counters)\n"
    "      --heap-profile P  pprof heap profiles P.PID.final.pb.gz as each process\n"
    "                        exits or is killed (and P.PID.N.pb.gz with --heap-every)\n"
    "      --heap-every DUR  also a profile of each process this often\n"
    "  -q, --quiet           don't show the command's output\n"
    "      --push URL        also push to a tidemark server (needs --token-file)\n"
    "      --token-file F    the machine's write token for --push\n"
    "      --metrics-listen ADDR  serve Prometheus /metrics, e.g. 127.0.0.1:9464\n"
    "\n"
    "Marks: `tidemark mark TEXT` from any shell, or `echo TEXT > $TIDEMARK_MARK` from\n"
    "the command, records a phase boundary; the mark 'end' ends the work (--settle).\n"
    "\n"
    "examples:\n"
    "  tidemark record -- ./node --sync\n"
    "  tidemark record -i 100ms --memory-max 400M --progress 'height=([0-9]+)' -- ./churn\n"
    "  tidemark record -p $(pidof darkfid) --progress-file /var/log/darkfid.log \\\n"
    "      --progress 'height=([0-9]+)'\n"
    "  tidemark record --cgroup /sys/fs/cgroup/system.slice/darkfid.service\n"
    "  tidemark record --heap -- python3 my_service.py\n"
    "  tidemark record --heap --heap-profile /tmp/node --heap-every 10m -- ./node\n";

enum {
	OPT_CGROUP = 256,
	OPT_MEMORY_MAX,
	OPT_MEMORY_HIGH,
	OPT_SWAP_MAX,
	OPT_NO_CGROUP,
	OPT_PROGRESS,
	OPT_PROGRESS_FILE,
	OPT_UNTIL,
	OPT_SETTLE,
	OPT_TIMEOUT,
	OPT_GRACE,
	OPT_HEAP,
	OPT_HEAP_PROFILE,
	OPT_HEAP_EVERY,
	OPT_PUSH,
	OPT_TOKEN_FILE,
	OPT_METRICS_LISTEN,
};

static const struct option long_opts[] = {
    {"pid", required_argument, NULL, 'p'},
    {"cgroup", required_argument, NULL, OPT_CGROUP},
    {"db", required_argument, NULL, 'o'},
    {"interval", required_argument, NULL, 'i'},
    {"memory-max", required_argument, NULL, OPT_MEMORY_MAX},
    {"memory-high", required_argument, NULL, OPT_MEMORY_HIGH},
    {"swap-max", required_argument, NULL, OPT_SWAP_MAX},
    {"no-cgroup", no_argument, NULL, OPT_NO_CGROUP},
    {"progress", required_argument, NULL, OPT_PROGRESS},
    {"progress-file", required_argument, NULL, OPT_PROGRESS_FILE},
    {"until-progress", required_argument, NULL, OPT_UNTIL},
    {"settle", required_argument, NULL, OPT_SETTLE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"grace", required_argument, NULL, OPT_GRACE},
    {"heap", optional_argument, NULL, OPT_HEAP},
    {"heap-profile", required_argument, NULL, OPT_HEAP_PROFILE},
    {"heap-every", required_argument, NULL, OPT_HEAP_EVERY},
    {"quiet", no_argument, NULL, 'q'},
    {"push", required_argument, NULL, OPT_PUSH},
    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
    {"metrics-listen", required_argument, NULL, OPT_METRICS_LISTEN},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "tidemark record: bad %s '%s'\n", what, value);
	return 2;
}

/* Parses one option into O; 0, or the exit status for a bad one. */
static int parse_opt(int c, const char *arg, struct tm_record_opts *o, struct tm_cmd_ctx *ctx)
{
	int64_t v;

	switch (c) {
	case 'p':
		if (tm_parse_int64(arg, &v) || v <= 0 || v > INT_MAX)
			return bad("pid", arg);
		o->pid = (pid_t)v;
		return 0;
	case OPT_CGROUP:
		o->cgroup_path = arg;
		return 0;
	case 'o':
		tm_cmd_set_db(ctx, arg);
		return 0;
	case 'i':
		if (tm_parse_duration(arg, &o->interval_usec))
			return bad("interval", arg);
		return 0;
	case OPT_MEMORY_MAX:
		if (tm_parse_size(arg, &o->limits.memory_max_bytes))
			return bad("size", arg);
		return tm_limit_check("--memory-max", o->limits.memory_max_bytes) ? 2 : 0;
	case OPT_MEMORY_HIGH:
		if (tm_parse_size(arg, &o->limits.memory_high_bytes))
			return bad("size", arg);
		return tm_limit_check("--memory-high", o->limits.memory_high_bytes) ? 2 : 0;
	case OPT_SWAP_MAX:
		return tm_parse_size(arg, &o->limits.swap_max_bytes) ? bad("size", arg) : 0;
	case OPT_NO_CGROUP:
		o->new_cgroup = false;
		return 0;
	case OPT_PROGRESS:
		o->progress_regex = arg;
		return 0;
	case OPT_PROGRESS_FILE:
		o->progress_file = arg;
		return 0;
	case OPT_UNTIL: {
		char *end;
		errno = 0;
		o->until_progress = strtod(arg, &end);
		if (errno || end == arg || *end || !isfinite(o->until_progress))
			return bad("progress value", arg);
		o->stop_at_progress = true;
		return 0;
	}
	case OPT_SETTLE:
		return tm_parse_duration(arg, &o->settle_usec) ? bad("duration", arg) : 0;
	case OPT_TIMEOUT:
		return tm_parse_duration(arg, &o->timeout_usec) ? bad("duration", arg) : 0;
	case OPT_GRACE:
		return tm_parse_duration(arg, &o->term_grace_usec) ? bad("duration", arg) : 0;
	case OPT_HEAP:
		if (arg && strcmp(arg, "sites"))
			return bad("--heap value (only =sites)", arg);
		o->heap = true;
		o->heap_sites = arg != NULL;
		return 0;
	case OPT_HEAP_PROFILE:
		if (!*arg)
			return bad("--heap-profile prefix", arg);
		o->heap_profile = arg;
		return 0;
	case OPT_HEAP_EVERY:
		if (tm_parse_duration(arg, &o->heap_every_usec) || o->heap_every_usec < 1000000)
			return bad("--heap-every duration (at least 1s)", arg);
		return 0;
	case 'q':
		o->quiet_child = true;
		return 0;
	case OPT_PUSH:
		o->push_url = arg;
		return 0;
	case OPT_TOKEN_FILE:
		o->token_file = arg;
		return 0;
	case OPT_METRICS_LISTEN:
		o->metrics_listen = arg;
		return 0;
	}
	fprintf(stderr, "%s", usage_text);
	return 2;
}

static int check_opts(const struct tm_record_opts *o)
{
	if (o->push_url && !o->token_file) {
		fprintf(stderr, "tidemark record: --push needs --token-file\n");
		return 2;
	}
	if (o->progress_file && !o->progress_regex) {
		fprintf(stderr, "tidemark record: --progress-file needs --progress REGEX\n");
		return 2;
	}
	if (o->stop_at_progress && !o->progress_regex) {
		fprintf(stderr, "tidemark record: --until-progress needs --progress REGEX\n");
		return 2;
	}
	return 0;
}

/* One line on stderr: what happened, and how to see more. */
static void print_result(struct tm_store *st, const struct tm_record_result *res,
                         const struct tm_cmd_ctx *ctx)
{
	struct tm_summary s;
	const char *db = tm_cmd_db_nondefault(ctx);
	char peak[32] = "n/a";

	if (tm_summarize(st, res->run_id, NULL, &s) == 0 && isfinite(s.peak_anon_bytes))
		tm_fmt_mib(peak, sizeof(peak), (int64_t)s.peak_anon_bytes);
	fprintf(stderr,
	        "tidemark: run %" PRId64 " %s after %.1f s, peak anon %s (tidemark report %" PRId64
	        "%s%s)\n",
	        res->run_id, res->outcome, (double)res->wall_usec / 1e6, peak, res->run_id,
	        db ? " --db " : "", db ? db : "");
	if (res->reason[0])
		fprintf(stderr, "tidemark: %s\n", res->reason);
}

/* The command's own status when it exited by itself; for what we ended,
 * what timeout(1) and shells say: 0 when the work was done, 124 for a
 * timeout, 128 + signal for a kill. */
static int exit_status(const struct tm_record_result *res)
{
	if (res->exit_code >= 0)
		return res->exit_code;
	if (!strcmp(res->outcome, "completed") || !strcmp(res->outcome, "detached"))
		return 0;
	if (!strcmp(res->outcome, "timeout"))
		return 124;
	if (res->term_signal)
		return 128 + res->term_signal;
	return 1;
}

/* What a run is started with that the user may not expect: on cgroup v1,
 * --memory-high does not throttle. */
static void start_line(const struct tm_record_opts *o)
{
	struct tm_cg_host host;
	char high[32];
	int64_t h = o->limits.memory_high_bytes;

	if (!o->new_cgroup || h == TM_LIMIT_UNSET || h == INT64_MAX || tm_cg_host_detect(&host) ||
	    !tm_mode_memory_v1(tm_cg_mode_name(host.mode)))
		return;
	tm_fmt_mib(high, sizeof(high), h);
	fprintf(stderr, "tidemark: recording with --memory-high %s; %s\n", high, TM_V1_HIGH_NOTE);
}

int cmd_record(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_record_opts o;
	struct tm_record_result res;
	struct tm_store *st;
	int c, rc;

	tm_record_opts_init(&o);
	o.new_cgroup = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:o:i:qh", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if ((rc = parse_opt(c, optarg, &o, ctx)))
			return rc;
	}
	if (optind < argc)
		o.argv = argv + optind;
	if ((rc = check_opts(&o)))
		return rc;
	if (!o.argv && !o.pid && !o.cgroup_path) {
		fprintf(stderr,
		        "tidemark record: nothing to record: give a command, -p PID or "
		        "--cgroup PATH\n\n%s",
		        usage_text);
		return 2;
	}
	if (!(st = tm_cmd_store(ctx, TM_CMD_WRITE)))
		return 1;
	tm_cmd_host_notice();
	o.store = st;
	start_line(&o);
	rc = tm_record_run(&o, &res);
	if (rc == 0)
		print_result(st, &res, ctx);
	return rc ? 1 : exit_status(&res);
}
