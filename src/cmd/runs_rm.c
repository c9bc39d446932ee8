/* tidemark runs rm RUN...: remove runs and everything they recorded. */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "report/run/runjson.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark runs rm [-o DB] [--force] RUN...\n"
    "\n"
    "Removes runs from the store with everything they recorded (samples, rollups,\n"
    "events, progress, marks, bench notes), one transaction each.  A bench that\n"
    "had a removed run says so in its table.  A live run (its recorder still\n"
    "sampling) is refused unless --force.\n"
    "\n";

static const char usage_tail[] = "\n"
                                 "examples:\n"
                                 "  tidemark runs rm 3\n"
                                 "  tidemark runs rm 4 5 6 -o /var/lib/tidemark/pi.db\n";

static const struct tm_opt rm_options[] = {
    {.flag = "force",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = 0,
     .help = "remove a live run too (its recorder's next writes fail)"},
    {.type = TM_OPT_END},
};

/* Every operand a run id of the store, none live unless FORCE: 0, 2 (bad
 * operand), or 1 (store error). */
static int check_runs(struct tm_store *st, int argc, char **argv, int next, bool force)
{
	for (int i = next; i < argc; i++) {
		struct tm_run_info ri;
		int64_t id;
		int rc;
		if (tm_parse_int64(argv[i], &id) || id <= 0) {
			tm_error("'%s' is not a run id (see 'tidemark runs')", argv[i]);
			return 2;
		}
		rc = tm_store_run_get(st, id, &ri);
		if (rc < 0)
			return 1;
		if (rc > 0) {
			tm_error("no run %" PRId64 " in the store (see 'tidemark runs')", id);
			return 2;
		}
		bool live = tm_run_state(&ri, tm_now_wall_usec()) == TM_RUN_LIVE;
		tm_run_info_release(&ri);
		if (live && !force) {
			tm_error("run %" PRId64
			         " is live (its recorder is still sampling): stop it "
			         "first, or give --force",
			         id);
			return 2;
		}
	}
	return 0;
}

int cmd_runs_rm(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	bool force = false;
	const struct tm_optset sets[] = {{tm_cmd_db_options, ctx}, {rm_options, &force}};
	struct tm_store *st;
	int next, rc;

	/* argv[0] is "runs", argv[1] "rm" */
	rc = tm_opts_parse(sets, 2, TM_OPT_OTHER | TM_OPT_PERMUTE, "runs rm", argc - 1, argv + 1,
	                   &next);
	next++;
	if (rc) {
		if (rc < 0)
			return 2;
		tm_help_write(stdout, usage_head);
		tm_opts_help(stdout, sets, 2, TM_OPT_OTHER);
		tm_help_write(stdout, usage_tail);
		return 0;
	}
	if (next >= argc) {
		tm_error("runs rm: which runs? (see 'tidemark runs rm --help')");
		return 2;
	}
	if (!(st = tm_cmd_store(ctx, TM_CMD_WRITE)))
		return 1;
	if ((rc = check_runs(st, argc, argv, next, force)))
		return rc;
	for (int i = next; i < argc; i++) {
		int64_t id;
		tm_parse_int64(argv[i], &id);
		rc = tm_store_run_delete(st, id, "runs rm", tm_now_wall_usec());
		if (rc < 0)
			return 1;
		if (rc == 0)
			printf("removed run %" PRId64 "\n", id);
	}
	return 0;
}
