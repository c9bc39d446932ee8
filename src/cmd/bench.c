/*
 * tidemark bench: run a command under several arms (allocator, environment,
 * limits), each run in a fresh memory-limited cgroup from the same restored
 * state, interleaved, and print the comparison table.  docs/bench.md.
 * Options come from the tables of record/options.h and bench/bench.h; the
 * runs are bench/runner.h's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "bench/bench.h"
#include "bench/runner.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "base/banned.h"

struct bench_cli {
	char *file;
	int64_t table_id;
	bool dry_run;
	struct tm_bench_output out;
};

static const char usage_head[] =
    "usage: tidemark bench [options] --arm NAME[:KEY=VAL[,KEY=VAL...]] ... -- CMD ARGS...\n"
    "       tidemark bench [options] -f EXPERIMENT.ini [-- CMD ARGS...]\n"
    "       tidemark bench --table ID [--json] [--phases] [--export FMT[:PATH]]\n"
    "\n"
    "Runs CMD under each arm, --runs times each, interleaved, every run in a fresh\n"
    "cgroup with the arm's limits, and prints the comparison table.  The first arm\n"
    "is the control.  Arm names jemalloc, mimalloc, tcmalloc (LD_PRELOAD of the\n"
    "library on this host), arena1 (MALLOC_ARENA_MAX=1) and glibc are shortcuts;\n"
    "KEY is an environment variable or Allocator, MemoryMax, MemoryHigh, MemorySwapMax.\n"
    "The options of the runs are also keys of an experiment file's [bench] section\n"
    "(--runs is Runs=, --memory-max MemoryMax=; docs/bench.md lists them), read\n"
    "alike; the command line wins over the file.\n";

static const char usage_tail[] =
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
    "  tidemark report --bench 3    # reprint a bench's table from the store\n"
    "  tidemark bench --table 3 --phases    # and its arms compared phase by phase\n"
    "  # the heap per order at 10,000 to 1,000,000 orders: per value, bytes per order, growth\n"
    "  tidemark bench --arm glibc --arm jemalloc --heap --param N=10000..1000000:x10 \\\n"
    "      -- ./replica --orders {N}\n"
    "  # the smallest MemoryMax each arm survives, to 16 MiB, and its survival curve\n"
    "  tidemark bench --arm glibc --arm jemalloc --sweep MemoryMax=256M..1G --resolution 16M \\\n"
    "      --runs 3 -- ./node\n";

/* --export FMT[:PATH], up to TM_BENCH_MAX_EXPORTS times. */
static int parse_export(void *field, const char *value, struct tm_err *err)
{
	struct tm_bench_output *out = field;

	if (out->n_exports == TM_BENCH_MAX_EXPORTS)
		return tm_err_set(err, 0, "'%s': at most %d exports", value, TM_BENCH_MAX_EXPORTS);
	if (strncmp(value, "json", 4) && strncmp(value, "csv", 3) && strncmp(value, "md", 2))
		return tm_err_set(err, 0, "'%s': expected json, csv or md, optionally :PATH",
		                  value);
	out->exports[out->n_exports++] = value;
	return 0;
}

/* --phases-at V1,V2,...: checked now (tm_phase_split_parse says why). */
static int parse_phases_at(void *field, const char *value, struct tm_err *err)
{
	struct tm_bench_output *out = field;

	(void)err; /* tm_phase_split_parse said why */
	if (tm_phase_split_parse(value, &out->split))
		return -1;
	out->phases = true;
	return 0;
}

#define CLI(f) offsetof(struct bench_cli, f)

/* The command's own options (not in an experiment file). */
static const struct tm_opt cli_options[] = {
    {.flag = "file",
     .short_name = 'f',
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = CLI(file),
     .metavar = "FILE",
     .help = "experiment file (INI; see docs/bench.md)"},
    {.flag = "export",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_CUSTOM,
     .off = CLI(out),
     .parse = parse_export,
     .metavar = "FMT[:PATH]",
     .help = "also write the table as json, csv or md (default",
     .more = "bench-ID.FMT); repeatable"},
    {.flag = "json",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_BOOL,
     .off = CLI(out.json),
     .help = "print the table as JSON instead of text"},
    {.flag = "phases",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_BOOL,
     .off = CLI(out.phases),
     .help = "also compare the arms phase by phase (between the runs' marks;",
     .more = "docs/phases.md); with --json, that comparison instead of the table"},
    {.flag = "phases-at",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_CUSTOM,
     .off = CLI(out),
     .parse = parse_phases_at,
     .metavar = "V1,V2,...",
     .help = "--phases split where progress first reaches each value"},
    {.flag = "table",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_COUNT,
     .off = CLI(table_id),
     .min = 1,
     .max = TM_OPT_NO_MAX,
     .metavar = "ID",
     .help = "print the table of an earlier bench and exit"},
    {.flag = "dry-run",
     .scopes = TM_OPT_BENCH,
     .type = TM_OPT_BOOL,
     .off = CLI(dry_run),
     .help = "print the arms and their environments, run nothing"},
    {.type = TM_OPT_END},
};

#define N_SETS (TM_BENCH_OPTSETS + 2)

static void optsets(struct tm_bench_spec *sp, struct bench_cli *cli, struct tm_cmd_ctx *ctx,
                    struct tm_optset sets[N_SETS])
{
	tm_bench_optsets(sp, sets);
	sets[TM_BENCH_OPTSETS] = (struct tm_optset){cli_options, cli};
	sets[TM_BENCH_OPTSETS + 1] = (struct tm_optset){tm_cmd_db_options, ctx};
}

static void usage(void)
{
	struct tm_bench_spec sp;
	struct bench_cli cli = {0};
	struct tm_optset sets[N_SETS];

	tm_bench_spec_init(&sp);
	optsets(&sp, &cli, NULL, sets);
	tm_help_write(stdout, usage_head);
	fputs("\narms and runs:\n", stdout);
	tm_opts_help(stdout, &sets[1], 1, TM_OPT_BENCH);
	fputs("each run (as in tidemark record):\n", stdout);
	tm_opts_help(stdout, &sets[0], 1, TM_OPT_BENCH);
	fputs("the file, the table and the store:\n", stdout);
	tm_opts_help(stdout, &sets[2], 2, TM_OPT_BENCH);
	fputs("  -h, --help              this help\n", stdout);
	tm_help_write(stdout, usage_tail);
	tm_bench_spec_release(&sp);
}

/* Parses the command line over SP: 0, 1 for --help, -1 after tm_error. */
static int parse(struct tm_bench_spec *sp, struct bench_cli *cli, struct tm_cmd_ctx *ctx, int argc,
                 char **argv, char *const **rest)
{
	struct tm_optset sets[N_SETS];
	int next, rc;

	tm_opts_release(&(struct tm_optset){cli_options, cli}, 1);
	*cli = (struct bench_cli){0};
	optsets(sp, cli, ctx, sets);
	rc = tm_opts_parse(sets, N_SETS, TM_OPT_BENCH, "bench", argc, argv, &next);
	*rest = rc == 0 && next < argc ? argv + next : NULL;
	return rc;
}

/* The table of an earlier bench, from the store read-only. */
static int show(struct tm_cmd_ctx *ctx, const struct bench_cli *cli)
{
	struct tm_store *st = tm_cmd_store(ctx, TM_CMD_READ);

	return !st || tm_bench_show_table(st, tm_cmd_db_path(ctx), cli->table_id, &cli->out) ? 1
	                                                                                     : 0;
}

/* Plans, then opens the store, then runs. */
static int run(struct tm_bench_spec *sp, const struct bench_cli *cli, struct tm_cmd_ctx *ctx,
               char *const *argv)
{
	struct tm_bench_plan *plan;
	struct tm_store *st;
	enum tm_bench_status rc = tm_bench_plan_new(sp, argv, &plan);

	if (rc == TM_BENCH_OK)
		tm_cmd_host_notice();
	if (rc == TM_BENCH_OK && !cli->dry_run) {
		if ((st = tm_cmd_store(ctx, TM_CMD_WRITE)))
			rc = sp->sweep.limit != TM_SWEEP_NONE
			         ? tm_bench_sweep(plan, st, tm_cmd_db_path(ctx), &cli->out)
			         : tm_bench_execute(plan, st, tm_cmd_db_path(ctx), &cli->out);
		else
			rc = TM_BENCH_FAILED;
	}
	tm_bench_plan_free(plan);
	return rc == TM_BENCH_OK ? 0 : rc == TM_BENCH_FAILED ? 1 : 2;
}

/* The file is read first, then the command line over it: the options are
 * parsed once to find the file (and to refuse bad ones before anything
 * starts), then again over what the file said. */
static int bench_main(struct tm_bench_spec *sp, struct bench_cli *cli, struct tm_cmd_ctx *ctx,
                      int argc, char **argv)
{
	char *const *rest;
	int rc = parse(sp, cli, ctx, argc, argv, &rest);

	if (rc)
		return rc > 0 ? (usage(), 0) : 2;
	if (cli->table_id)
		return show(ctx, cli);
	if (cli->file) {
		char *file = cli->file;
		cli->file = NULL;
		tm_bench_spec_release(sp);
		tm_bench_spec_init(sp);
		rc = tm_bench_load_file(sp, file) || parse(sp, cli, ctx, argc, argv, &rest);
		free(file);
		if (rc)
			return 2;
	}
	return run(sp, cli, ctx, rest);
}

int cmd_bench(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct bench_cli cli = {0};
	struct tm_bench_spec sp;
	int rc;

	tm_bench_spec_init(&sp);
	rc = bench_main(&sp, &cli, ctx, argc, argv);
	tm_opts_release(&(struct tm_optset){cli_options, &cli}, 1);
	tm_bench_spec_release(&sp);
	return rc;
}
