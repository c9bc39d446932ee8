/* tidemark runs check [RUN...]: find damaged samples, and move them aside. */
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark runs check [-o DB] [--quarantine] [RUN...]\n"
    "\n"
    "Checks the store's file (SQLite's quick_check) and decodes every sample of\n"
    "the runs named (default: all), and lists the samples whose stored bytes no\n"
    "longer decode (bit rot) with the samples after them that are deltas on\n"
    "them.  Reports and the server leave those out of their figures and say so;\n"
    "--quarantine moves them from the samples table to damaged_samples (kept,\n"
    "never deleted), so that they are no longer met at all.  Exit status: 0 when\n"
    "nothing is damaged (or all of it was moved aside), 1 when damage is left in\n"
    "place or the file itself is damaged, 2 for bad usage.\n"
    "\n";

static const char usage_tail[] =
    "\n"
    "examples:\n"
    "  tidemark runs check\n"
    "  tidemark runs check --quarantine 3 -o /var/lib/tidemark/pi.db\n";

static const struct tm_opt check_options[] = {
    {.flag = "quarantine",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = 0,
     .help = "move the damaged samples to the damaged_samples table"},
    {.type = TM_OPT_END},
};

struct check {
	bool quarantine;
	int64_t runs, damaged_runs, left_out;
	struct tm_store *st;
};

static void print_damage(int64_t run, const struct tm_sample_damage *d, bool moved)
{
	printf("run %" PRId64 ": %" PRId64 " damaged sample%s (seq", run, d->damaged,
	       d->damaged == 1 ? "" : "s");
	for (int i = 0; i < d->nseqs; i++)
		printf("%s%" PRId64, i ? ", " : " ", d->seqs[i]);
	printf("%s), %" PRId64 " samples with those that depend on them%s\n",
	       d->more ? ", ..." : "", d->left_out, moved ? ": moved to damaged_samples" : "");
}

static int check_run(void *ctx, const struct tm_run_info *ri)
{
	struct check *c = ctx;
	struct tm_sample_damage d;

	if (tm_store_check_samples(c->st, ri->id, c->quarantine, tm_now_wall_usec(), &d))
		return -1;
	c->runs++;
	if (d.damaged) {
		c->damaged_runs++;
		c->left_out += d.left_out;
		print_damage(ri->id, &d, c->quarantine);
	}
	return 0;
}

/* The runs named from argv[NEXT] on, or all of them. */
static int check_runs(struct check *c, int argc, char **argv, int next)
{
	if (next >= argc)
		return tm_store_each_run(c->st, 0, check_run, c) ? 1 : 0;
	for (int i = next; i < argc; i++) {
		struct tm_run_info ri;
		int64_t id;
		int rc;
		if (tm_parse_int64(argv[i], &id) || id <= 0) {
			tm_error("'%s' is not a run id (see 'tidemark runs')", argv[i]);
			return 2;
		}
		rc = tm_store_run_get(c->st, id, &ri);
		if (rc > 0)
			tm_error("no run %" PRId64 " in the store (see 'tidemark runs')", id);
		if (rc)
			return rc < 0 ? 1 : 2;
		rc = check_run(c, &ri);
		tm_run_info_release(&ri);
		if (rc)
			return 1;
	}
	return 0;
}

int cmd_runs_check(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct check c = {0};
	const struct tm_optset sets[] = {{tm_cmd_db_options, ctx}, {check_options, &c.quarantine}};
	int next, rc, file_ok;

	/* argv[0] is "runs", argv[1] "check" */
	rc = tm_opts_parse(sets, 2, TM_OPT_OTHER | TM_OPT_PERMUTE, "runs check", argc - 1, argv + 1,
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
	if (!(c.st = tm_cmd_store(ctx, c.quarantine ? TM_CMD_WRITE : TM_CMD_READ)))
		return 1;
	file_ok = tm_store_quick_check(c.st);
	if (file_ok < 0)
		return 1;
	if ((rc = check_runs(&c, argc, argv, next)))
		return rc;
	printf("%s: file %s; %" PRId64 " of %" PRId64 " runs with damaged samples, %" PRId64
	       " samples %s\n",
	       tm_cmd_db_path(ctx), file_ok ? "damaged (see above)" : "ok", c.damaged_runs, c.runs,
	       c.left_out, c.quarantine ? "moved aside" : "left out of figures");
	return file_ok || (c.damaged_runs && !c.quarantine) ? 1 : 0;
}
