/* tidemark runs: the runs in a store, one line each. */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "report/run/runtext.h"
#include "report/run/runjson.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark runs [-o DB] [--json]\n"
    "\n"
    "Lists the runs in the store, oldest first.  'tidemark runs rm RUN...'\n"
    "removes runs; 'tidemark runs check' finds damaged samples (--help of each).\n"
    "\n"
    "  -o, --db PATH   the store (default $" TM_DB_ENV " or ./" TM_DB_DEFAULT ")\n"
    "      --json      one JSON object per run\n"
    "\n"
    "examples:\n"
    "  tidemark runs\n"
    "  tidemark runs -o /var/lib/tidemark/pi.db --json\n";

static void when(char *buf, size_t size, int64_t wall_usec)
{
	time_t t = (time_t)(wall_usec / 1000000);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

static int print_line(void *ctx, const struct tm_run_info *ri)
{
	char started[32], cmd[61], dur[16] = "-", arm[48] = "";

	(void)ctx;
	when(started, sizeof(started), ri->started_wall_usec);
	if (ri->ended_wall_usec)
		snprintf(dur, sizeof(dur), "%.1f",
		         (ri->ended_wall_usec - ri->started_wall_usec) / 1e6);
	if (ri->bench_id)
		snprintf(arm, sizeof(arm), " [bench %" PRId64 " %s]", ri->bench_id,
		         ri->arm ? ri->arm : "");
	tm_run_command_text(ri, cmd, sizeof(cmd));
	/* no outcome yet: live, or stale when its recorder stopped sampling */
	printf("%5" PRId64 "  %s  %8s  %-12s %7" PRId64 "  %s%s\n", ri->id, started, dur,
	       ri->outcome ? ri->outcome : tm_run_state_name(tm_run_state(ri, tm_now_wall_usec())),
	       ri->sample_count, cmd, arm);
	return 0;
}

static int print_json(void *ctx, const struct tm_run_info *ri)
{
	json_t *o = tm_run_json(ri, TM_RUN_JSON_FULL);

	(void)ctx;
	if (!o)
		return tm_error("out of memory");
	json_dumpf(o, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(o);
	return 0;
}

static const struct tm_opt runs_options[] = {
    {.flag = "json",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = 0,
     .help = "one JSON object per run"},
    {.type = TM_OPT_END},
};

int cmd_runs(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	bool json = false;
	const struct tm_optset sets[] = {{tm_cmd_db_options, ctx}, {runs_options, &json}};
	struct tm_store *st;
	int next, rc;

	rc = tm_opts_parse(sets, 2, TM_OPT_OTHER | TM_OPT_PERMUTE, "runs", argc, argv, &next);
	if (rc)
		return rc > 0 ? (tm_help_write(stdout, usage_text), 0) : 2;
	if (next < argc) {
		tm_error("runs takes no operand: '%s' (see 'tidemark runs --help')", argv[next]);
		return 2;
	}
	if (!(st = tm_cmd_store(ctx, TM_CMD_READ)))
		return 1;
	if (!json)
		printf("%5s  %-19s  %8s  %-12s %7s  %s\n", "run", "started", "wall s", "outcome",
		       "samples", "command");
	rc = tm_store_each_run(st, 0, json ? print_json : print_line, NULL);
	return rc ? 1 : 0;
}
