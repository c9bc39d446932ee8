/* tidemark report: a run's figures, readable in ten seconds; --json/--csv for machines. */
#include <stdbool.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/opt.h"
#include "advise/advise.h"
#include "base/util.h"
#include "bench/runner.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "report/bench/benchphases.h"
#include "report/bench/benchtab.h"
#include "report/phases/phases.h"
#include "report/runreport.h"
#include "report/run/summary.h"
#include "serve/html/htmlreport.h"
#include "store/store.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark report [options] [RUN]\n"
    "\n"
    "Summarises a run (default: the latest): outcome, peak and held anon, page cache,\n"
    "limits and their events, CPU, I/O, pressure, progress rate and cost per unit.\n"
    "\n";

static const char usage_tail[] =
    "  -h, --help            this help\n"
    "\n"
    "examples:\n"
    "  tidemark report\n"
    "  tidemark report 3 --window 100:500\n"
    "  tidemark report --json | jq .figures.peak_anon_bytes\n"
    "  tidemark report --series > run.csv\n"
    "  tidemark report --bench 2\n"
    "  tidemark report --phases            # one row per phase between marks\n"
    "  tidemark report --phases-at 1000,2000,4000 --json\n"
    "  tidemark report --bench 2 --phases  # the arms compared phase by phase\n"
    "  tidemark report --html run.html 3\n";

struct report_cli {
	struct tm_window win;
	struct tm_phase_split split;
	bool has_window, json, csv, series, phases;
	char series_name[512]; /* --series=NAME: one series ("" all) */
	int rollup;            /* --rollup: 0 none, 1 minute, 2 hour */
	char *html;
	int64_t bench;
};

/* --window A:B: checked now (tm_window_parse says why). */
static int parse_window(void *field, const char *value, struct tm_err *err)
{
	struct report_cli *cli = field;

	(void)err; /* tm_window_parse said why */
	if (tm_window_parse(value, &cli->win))
		return -1;
	cli->has_window = true;
	return 0;
}

/* --series or --series=NAME. */
static int parse_series(void *field, const char *value, struct tm_err *err)
{
	struct report_cli *cli = field;

	if (value && (!*value || strlen(value) >= sizeof(cli->series_name)))
		return tm_err_set(err, 0, "'%s': expected a series name", value);
	cli->series = true;
	snprintf(cli->series_name, sizeof(cli->series_name), "%s", value ? value : "");
	return 0;
}

/* --phases-at V1,V2,...: checked now (tm_phase_split_parse says why). */
static int parse_phases_at(void *field, const char *value, struct tm_err *err)
{
	struct report_cli *cli = field;

	(void)err; /* tm_phase_split_parse said why */
	if (tm_phase_split_parse(value, &cli->split))
		return -1;
	cli->phases = true;
	return 0;
}

#define ROFF(f) offsetof(struct report_cli, f)
#define O       TM_OPT_OTHER

static const char *const rollup_choices[] = {"none", "minute", "hour", NULL};

static const struct tm_opt report_options[] = {
    {.flag = "window",
     .short_name = 'w',
     .scopes = O,
     .type = TM_OPT_CUSTOM,
     .parse = parse_window,
     .metavar = "A:B",
     .help = "only a stretch: progress values (100:500), times since the",
     .more = "start (10s:2m) or marks (@busy-start:@busy-end)"},
    {.flag = "phases",
     .scopes = O,
     .type = TM_OPT_BOOL,
     .off = ROFF(phases),
     .help = "one row per phase between the run's marks: duration, anon and heap",
     .more = "at start and end, change, peak, per-unit cost, rate (docs/phases.md)"},
    {.flag = "phases-at",
     .scopes = O,
     .type = TM_OPT_CUSTOM,
     .parse = parse_phases_at,
     .metavar = "V1,V2,...",
     .help = "--phases split where progress first reaches each value instead"},
    {.flag = "json",
     .scopes = O,
     .type = TM_OPT_BOOL,
     .off = ROFF(json),
     .help = "the figures as JSON (raw bytes and usec)"},
    {.flag = "csv",
     .scopes = O,
     .type = TM_OPT_BOOL,
     .off = ROFF(csv),
     .help = "the figures as one CSV row with a header"},
    {.flag = "series",
     .scopes = O,
     .type = TM_OPT_CUSTOM,
     .optional_arg = true,
     .parse = parse_series,
     .metavar = "NAME",
     .help = "every sample of the run as CSV, one column per metric and scraped",
     .more = "series; --series NAME: only that one (seq,t_wall_usec,value)"},
    {.flag = "rollup",
     .scopes = O,
     .type = TM_OPT_CHOICE,
     .choices = rollup_choices,
     .off = ROFF(rollup),
     .metavar = "LEVEL",
     .help = "the --series of the run's minute or hour rollups (min, max, mean,",
     .more = "last of each metric per bucket) instead of its raw samples"},
    {.flag = "bench",
     .scopes = O,
     .type = TM_OPT_COUNT,
     .off = ROFF(bench),
     .min = 1,
     .max = TM_OPT_NO_MAX,
     .metavar = "ID",
     .help = "the comparison table of a bench instead of a run"},
    {.flag = "html",
     .scopes = O,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = ROFF(html),
     .metavar = "FILE",
     .help = "one self-contained HTML file with the plots and tables"},
    {.type = TM_OPT_END},
};

static void usage(void)
{
	const struct tm_optset sets[] = {{tm_cmd_db_options, NULL}, {report_options, NULL}};

	tm_help_write(stdout, usage_head);
	tm_opts_help(stdout, sets, 2, O);
	tm_help_write(stdout, usage_tail);
}

/* The HTML bench report, with the survival curve of the sweep its arms were
 * part of and the advice. */
static int bench_html(struct tm_store *st, int64_t bench, const char *path)
{
	json_t *docs = json_object();
	int rc = docs ? tm_advise_bench_docs(st, bench, docs) : tm_error("out of memory");

	if (rc == 0)
		rc = tm_html_report_bench(st, bench, path, docs);
	json_decref(docs);
	return rc;
}

/* The run (RUN, or the latest) or the bench the options ask for. */
static int report_main(const struct report_cli *cli, int64_t run, struct tm_cmd_ctx *ctx)
{
	enum tm_report_fmt fmt = cli->json     ? TM_REPORT_JSON
	                         : cli->csv    ? TM_REPORT_CSV
	                         : cli->series ? TM_REPORT_SERIES
	                                       : TM_REPORT_TEXT;
	struct tm_store *st;
	int rc;

	if (!(st = tm_cmd_store(ctx, TM_CMD_READ)))
		return 1;
	if (cli->bench) {
		rc = cli->phases
		         ? tm_bench_phases_print(st, cli->bench, &cli->split, cli->json, stdout)
		     : cli->html ? bench_html(st, cli->bench, cli->html)
		                 : tm_bench_table_print(st, cli->bench, stdout);
		if (rc == 1)
			tm_error("no bench %lld in %s", (long long)cli->bench, tm_cmd_db_path(ctx));
		return rc ? 1 : 0;
	}
	if (!run && (rc = tm_store_latest_run(st, &run)) != 0) {
		if (rc > 0)
			tm_error("the store '%s' has no runs yet", tm_cmd_db_path(ctx));
		return 1;
	}
	if (cli->phases)
		rc = tm_report_phases(st, run, &cli->split, fmt, stdout);
	else
		rc = cli->html ? tm_html_report_run(st, run, cli->html)
		               : tm_report_run(st, run, cli->has_window ? &cli->win : NULL, fmt,
		                               cli->series_name[0] ? cli->series_name : NULL,
		                               cli->rollup, stdout);
	return rc ? 1 : 0;
}

/* `--series NAME` as well as --series=NAME: a series name never starts
 * with a digit, a run id always does, so the operand (before or after the
 * run id) that does not is the series.  The operands left start at the
 * index returned. */
static int series_operand(struct report_cli *cli, int argc, char **argv, int next)
{
	for (int i = next; cli->series && !cli->series_name[0] && i < argc; i++) {
		char c = argv[i][0];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':') ||
		    strlen(argv[i]) >= sizeof(cli->series_name))
			continue;
		snprintf(cli->series_name, sizeof(cli->series_name), "%s", argv[i]);
		for (int j = i; j > next; j--)
			argv[j] = argv[j - 1];
		return next + 1;
	}
	return next;
}

int cmd_report(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct report_cli cli = {0};
	const struct tm_optset sets[] = {{tm_cmd_db_options, ctx}, {report_options, &cli}};
	int64_t run = 0;
	int next, rc;

	/* options may follow the run id (tidemark report 3 --json) */
	rc = tm_opts_parse(sets, 2, O | TM_OPT_PERMUTE, "report", argc, argv, &next);
	cli.series |= cli.rollup > 0; /* --rollup LEVEL is a series of rollups */
	if (rc == 0 && cli.json + cli.csv + cli.series > 1)
		rc = tm_error("--json, --csv and --series: give one of them");
	if (rc == 0 && cli.phases && (cli.series || cli.html || cli.has_window))
		rc = tm_error("--phases (or --phases-at) with --%s: give one of them",
		              cli.series ? "series"
		              : cli.html ? "html"
		                         : "window");
	if (rc == 0 && cli.phases && cli.bench && cli.csv)
		rc = tm_error("--phases with --bench: text or --json (no CSV)");
	if (rc == 0)
		next = series_operand(&cli, argc, argv, next);
	if (rc == 0 && next < argc && (tm_parse_int64(argv[next], &run) || run <= 0))
		rc = tm_error("'%s' is not a run id (see 'tidemark report --help')", argv[next]);
	if (rc == 0 && next + 1 < argc)
		rc = tm_error("one run at a time: '%s' after run %s", argv[next + 1], argv[next]);
	if (rc == 0)
		rc = report_main(&cli, run, ctx);
	else
		rc = rc > 0 ? (usage(), 0) : 2;
	tm_opts_release(&sets[1], 1);
	return rc;
}
