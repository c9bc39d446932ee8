/* tidemark record: sample a command, a process tree or a cgroup into the store. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "record/options.h"
#include "record/recorder.h"
#include "report/run/limitnote.h"
#include "report/run/summary.h"
#include "store/store.h"
#include "base/banned.h"

/* SQLite's page cache for a recording's connection, in KiB: 16 of the
 * store's 4 KiB pages, where a commit writes a handful, or about 13 for the
 * most rows that wait for a commit (32 KiB packed, store/pending.c); the
 * cache fills in a run's first minutes and then stays (bench/README.md,
 * "Flat over months"). */
#define TM_RECORD_STORE_CACHE_KIB 64

static const char usage_head[] =
    "usage: tidemark record [options] [--] CMD [ARGS...]\n"
    "       tidemark record [options] -p PID\n"
    "       tidemark record [options] --cgroup PATH\n"
    "       tidemark record [options] --unit NAME\n"
    "\n"
    "Samples memory (anon, page cache, cgroup limits and events, PSI), CPU, I/O and\n"
    "the program's progress at a fixed interval into an SQLite store.\n"
    "\n"
    "target:\n"
    "  CMD ARGS...             launch it (in a fresh cgroup when the host allows), pass\n"
    "                          signals on, exit with its status\n"
    "options:\n";

static const char usage_tail[] =
    "  -h, --help              this help\n"
    "\n"
    "Marks: `tidemark mark TEXT` from any shell, or `echo TEXT > $TIDEMARK_MARK` from\n"
    "the command, records a phase boundary; the mark 'end' ends the work (--settle).\n"
    "Exit status: the command's own; 0 when tidemark ended it because the work was\n"
    "done, 124 after --timeout, 128+N after signal N; 1 when it could not record;\n"
    "2 on bad arguments.\n"
    "\n"
    "examples:\n"
    "  tidemark record -- ./node --sync\n"
    "  tidemark record -i 100ms --memory-max 400M --progress 'height=([0-9]+)' -- ./churn\n"
    "  tidemark record -p $(pidof darkfid) --progress-file /var/log/darkfid.log \\\n"
    "      --progress 'height=([0-9]+)'\n"
    "  tidemark record --cgroup /sys/fs/cgroup/system.slice/darkfid.service\n"
    "  tidemark record --unit darkfid --progress 'height=([0-9]+)'   # its journal\n"
    "  tidemark record -p $(pidof node) --progress-cmd 'tail -F node.log' \\\n"
    "      --progress 'height=([0-9]+)'\n"
    "  tidemark record --heap -- python3 my_service.py\n"
    "  tidemark record --heap --heap-profile /tmp/node --heap-every 10m -- ./node\n";

static void usage(void)
{
	struct tm_record_opts o;
	const struct tm_optset sets[] = {{tm_record_options, &o}, {tm_cmd_db_options, NULL}};

	tm_record_opts_init(&o);
	tm_help_write(stdout, usage_head);
	tm_opts_help(stdout, sets, 2, TM_OPT_RECORD);
	tm_help_write(stdout, usage_tail);
}

/* One line on stderr: what happened, and how to see more. */
static void print_result(struct tm_store *st, const struct tm_record_result *res,
                         const struct tm_cmd_ctx *ctx)
{
	struct tm_summary s;
	const char *db = tm_cmd_db_nondefault(ctx);
	char peak[32] = "n/a", units[96] = "";
	bool have = tm_summarize(st, res->run_id, NULL, &s) == 0;

	if (have && isfinite(s.peak_anon_bytes))
		tm_fmt_mib(peak, sizeof(peak), (int64_t)s.peak_anon_bytes);
	if (have && isfinite(s.units) && isfinite(s.cpu_usec_per_unit))
		snprintf(units, sizeof(units), ", %g units, cpu %.3f ms/unit", s.units,
		         s.cpu_usec_per_unit / 1e3);
	fprintf(stderr,
	        "tidemark: run %" PRId64
	        " %s after %.1f s, peak anon %s%s (tidemark report %" PRId64 "%s%s)\n",
	        res->run_id, tm_outcome_name(res->outcome), (double)res->wall_usec / 1e6, peak,
	        units, res->run_id, db ? " --db " : "", db ? db : "");
	if (res->first_exit_usec && res->last_left_usec > res->first_exit_usec + 50000)
		fprintf(
		    stderr,
		    "tidemark: the first process exited after %.1f s; recorded until the last one "
		    "left after %.1f s\n",
		    (double)res->first_exit_usec / 1e6, (double)res->last_left_usec / 1e6);
	if (res->reason[0])
		fprintf(stderr, "tidemark: %s\n", res->reason);
}

/* The command's own status when it exited by itself; for what we ended,
 * what timeout(1) and shells say: 0 when the work was done, 124 for a
 * timeout, 128 + signal for a kill. */
static int exit_status(const struct tm_record_result *res)
{
	/* a failed store is in the run's outcome and said on stderr; the status
	 * stays the command's, as for every other way a recording stops */
	if (res->exit_code >= 0)
		return res->exit_code;
	if (res->outcome == TM_OUTCOME_COMPLETED || res->outcome == TM_OUTCOME_DETACHED)
		return 0;
	if (res->outcome == TM_OUTCOME_TIMEOUT)
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

/* Options in, one run, an exit status out. */
static int record_main(struct tm_record_opts *o, struct tm_cmd_ctx *ctx, int argc, char **argv)
{
	const struct tm_optset sets[] = {{tm_record_options, o}, {tm_cmd_db_options, ctx}};
	struct tm_record_result res;
	struct tm_store *st;
	int next, rc;

	rc = tm_opts_parse(sets, 2, TM_OPT_RECORD, "record", argc, argv, &next);
	if (rc)
		return rc > 0 ? (usage(), 0) : 2;
	if (next < argc)
		o->argv = argv + next;
	if (!o->argv && !o->pid && !o->cgroup_path && !o->unit[0]) {
		tm_error("nothing to record: give a command, -p PID, --cgroup PATH or --unit NAME "
		         "(see 'tidemark record --help')");
		return 2;
	}
	if (tm_record_opts_check(o, true) || tm_record_take_listen_socket(o))
		return 2;
	if (o->units_from)
		o->progress_regex = o->units_from; /* the progress matcher reads it */
	if (!(st = tm_cmd_store(ctx, TM_CMD_WRITE)))
		return 1;
	/* a recording appends: a small cache holds the pages it writes, and
	 * keeps the recorder's memory flat over months (bench/README.md) */
	if (tm_store_bound_cache(st, TM_RECORD_STORE_CACHE_KIB))
		return 1;
	tm_cmd_host_notice();
	o->store = st;
	o->store_path = tm_cmd_db_path(ctx);
	start_line(o);
	rc = o->unit[0] ? tm_record_unit(o, &res) : tm_record_run(o, &res);
	if (rc == 0 && res.run_id)
		print_result(st, &res, ctx);
	return rc ? 1 : exit_status(&res);
}

int cmd_record(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_record_opts o;
	int rc;

	tm_record_opts_init(&o);
	o.new_cgroup = true;
	rc = record_main(&o, ctx, argc, argv);
	if (o.units_from && o.progress_regex == o.units_from)
		o.progress_regex = NULL; /* one string, released once */
	tm_opts_release(&(struct tm_optset){tm_record_options, &o}, 1);
	return rc;
}
