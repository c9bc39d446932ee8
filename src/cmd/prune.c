/* tidemark prune: drop raw samples and rollups older than the keep periods. */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "record/options.h"
#include "report/run/runjson.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark prune [-o DB] [--keep SPEC] [--force] [RUN...]\n"
    "\n"
    "Removes what the store keeps past its periods, for every run (or the RUNs\n"
    "given): raw samples older than raw=, per-minute rollups older than minute=,\n"
    "per-hour rollups older than hour= (default raw=7d,minute=90d,hour=forever).\n"
    "A run's rollups are brought up to its last sample first (a store written\n"
    "before rollups gets them here), so reports over pruned stretches still work.\n"
    "Events, progress, marks and bench tables are kept.  Live runs are skipped\n"
    "unless --force.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "examples:\n"
    "  tidemark prune\n"
    "  tidemark prune --keep raw=2d,minute=30d -o node.db\n"
    "  tidemark prune --keep raw=0s 3     # keep only run 3's rollups\n";

struct prune_cli {
	bool force;
};

static const struct tm_opt prune_options[] = {
    {.flag = "force",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = 0,
     .help = "prune live runs too"},
    {.type = TM_OPT_END},
};

struct walk {
	struct tm_store *st;
	const struct tm_keep *keep;
	bool force;
	int64_t only; /* 0: every run */
	int64_t now, runs, skipped;
	struct tm_prune_stats stats;
};

static int prune_one(void *ctx, const struct tm_run_info *ri)
{
	struct walk *w = ctx;

	if (w->only && ri->id != w->only)
		return 0;
	if (!w->force && tm_run_state(ri, w->now) == TM_RUN_LIVE) {
		printf("run %" PRId64 " is live: skipped (--force prunes it too)\n", ri->id);
		w->skipped++;
		return 0;
	}
	w->runs++;
	return tm_store_prune_run(w->st, ri->id, w->keep, w->now, &w->stats);
}

/* Run ids from the operands: 0, or 2 after tm_error. */
static int parse_runs(struct tm_store *st, int argc, char **argv, int next)
{
	for (int i = next; i < argc; i++) {
		struct tm_run_info ri;
		int64_t id;
		if (tm_parse_int64(argv[i], &id) || id <= 0) {
			tm_error("'%s' is not a run id (see 'tidemark runs')", argv[i]);
			return 2;
		}
		int rc = tm_store_run_get(st, id, &ri);
		if (rc)
			return rc > 0 ? (tm_error("no run %" PRId64 " in the store", id), 2) : 1;
		tm_run_info_release(&ri);
	}
	return 0;
}

int cmd_prune(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct prune_cli cli = {0};
	struct tm_record_opts ro;
	const struct tm_optset sets[] = {
	    {tm_cmd_db_options, ctx}, {tm_record_options, &ro}, {prune_options, &cli}};
	struct walk w = {0};
	int next, rc;

	tm_record_opts_init(&ro);
	rc = tm_opts_parse(sets, 3, TM_OPT_OTHER | TM_OPT_PERMUTE, "prune", argc, argv, &next);
	if (rc) {
		if (rc < 0)
			return 2;
		tm_help_write(stdout, usage_head);
		tm_opts_help(stdout, sets, 3, TM_OPT_OTHER);
		tm_help_write(stdout, usage_tail);
		return 0;
	}
	if (!ro.has_keep)
		tm_keep_default(&ro.keep);
	if (!(w.st = tm_cmd_store(ctx, TM_CMD_WRITE)))
		return 1;
	if ((rc = parse_runs(w.st, argc, argv, next)))
		return rc;
	w.keep = &ro.keep;
	w.force = cli.force;
	w.now = tm_now_wall_usec();
	for (int i = next; i < argc || (i == next && next == argc); i++) {
		if (i < argc)
			tm_parse_int64(argv[i], &w.only);
		if (tm_store_each_run(w.st, 0, prune_one, &w))
			return 1;
		if (i >= argc)
			break;
	}
	printf("pruned %" PRId64 " run%s: %" PRId64 " raw samples (%" PRId64
	       " scraped values), %" PRId64 " minute and %" PRId64 " hour rollups removed\n",
	       w.runs, w.runs == 1 ? "" : "s", w.stats.samples, w.stats.scraped_values,
	       w.stats.minute_rows, w.stats.hour_rows);
	return 0;
}
