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
#include "cmd/cmds.h"
#include "report/benchphases.h"
#include "report/benchtab.h"
#include "report/limitnote.h"
#include "report/phases.h"
#include "report/approxtext.h"
#include "report/runjson.h"
#include "report/runtext.h"
#include "report/scraped.h"
#include "report/seriescsv.h"
#include "report/summary.h"
#include "report/summary_fields.h"
#include "report/sweepcurve.h"
#include "report/throttle.h"
#include "serve/htmlreport.h"
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

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_SERIES };

static const char *mib(char *buf, size_t size, double bytes)
{
	if (!isfinite(bytes))
		return "n/a";
	snprintf(buf, size, "%.1f MiB", bytes / TM_MIB);
	return buf;
}

static const char *secs(char *buf, size_t size, double usec)
{
	if (!isfinite(usec))
		return "n/a";
	snprintf(buf, size, "%.1f s", usec / 1e6);
	return buf;
}

static const char *count(char *buf, size_t size, double v)
{
	if (!isfinite(v))
		return "n/a";
	snprintf(buf, size, "%.0f", v);
	return buf;
}

static const char *limit(char *buf, size_t size, double bytes)
{
	if (!isfinite(bytes))
		return "n/a";
	if (bytes < 0)
		return "none";
	return mib(buf, size, bytes);
}

static void print_outcome(const struct tm_run_info *ri)
{
	enum tm_outcome o = tm_outcome_of(ri->outcome);

	printf("  outcome     %s", o == TM_OUTCOME_LIVE ? tm_outcome_text(o)
	                           : ri->outcome        ? ri->outcome
	                                                : "?");
	if (o == TM_OUTCOME_OOM_KILLED)
		printf(" (confirmed by the oom_kill counter)");
	else if (ri->term_signal && o == TM_OUTCOME_COMPLETED)
		printf(" (the work was done; tidemark stopped it with signal %d)", ri->term_signal);
	else if (ri->term_signal)
		printf(" (signal %d)", ri->term_signal);
	else if (ri->exit_code > 0)
		printf(" (exit status %d)", ri->exit_code);
	if (ri->reason) {
		char why[1024];
		printf(" — %s", tm_text_safe(why, sizeof(why), ri->reason));
	}
	printf("\n");
}

/* The heap profiles the recorder wrote (events "heap_profile": value 1 for
 * a process's final one), as a JSON array of {pid, path, final, t_wall_usec}. */
static int add_heap_profile(void *ctx, const struct tm_event *ev)
{
	if (strcmp(ev->kind, "heap_profile") || !ev->detail)
		return 0;
	json_t *p = json_object();
	json_object_set_new(p, "pid", json_integer(ev->pid));
	json_object_set_new(p, "path", json_string(ev->detail));
	json_object_set_new(p, "final", json_boolean(ev->value == 1));
	json_object_set_new(p, "t_wall_usec", json_integer(ev->t_wall_usec));
	return json_array_append_new(ctx, p);
}

static json_t *heap_profiles(struct tm_store *st, int64_t run)
{
	json_t *arr = json_array();
	if (arr && tm_store_each_event(st, run, add_heap_profile, arr)) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* "  profiles    5 heap profiles written; final: A, B" (at most 4 named). */
static void print_heap_profiles(const json_t *profiles)
{
	size_t n = json_array_size(profiles), finals = 0, named = 0;
	json_t *p;
	size_t i;

	if (n == 0)
		return;
	printf("  profiles    %zu heap profile%s written", n, n == 1 ? "" : "s");
	json_array_foreach(profiles, i, p)
	{
		if (!json_is_true(json_object_get(p, "final")))
			continue;
		if (named < 4)
			printf("%s%s", named ? ", " : "; final: ",
			       json_string_value(json_object_get(p, "path")));
		named += named < 4;
		finals++;
	}
	if (finals > named)
		printf(" and %zu more", finals - named);
	printf("\n");
}

/* The work a batch job did (--units, --units-from) and its cost per unit;
 * true when that is all there is to say about progress. */
static bool print_units(const struct tm_summary *s)
{
	if (!isfinite(s->units))
		return false;
	printf("  work        %g units (%s)", s->units, s->units_source);
	if (isfinite(s->units_per_min))
		printf(", %.1f units/min", s->units_per_min);
	putchar('\n');
	if (isfinite(s->progress_first) && s->progress_last > s->progress_first)
		return false; /* a progress line too: its per-unit fit follows */
	printf("  per unit    cpu %.3f ms", s->cpu_usec_per_unit / 1e3);
	if (isfinite(s->wall_usec_per_unit))
		printf(", wall %.3f ms", s->wall_usec_per_unit / 1e3);
	printf(" (totals over %g units)\n", s->units);
	return true;
}

/* When the launched process and the last process of the run left (usec
 * since the start; 0: not recorded), from the events "start", its "exit" or
 * "signal", and "last_left". */
struct lifetimes {
	int64_t start_mono, first_pid, first_exit, last_left;
};

static int add_lifetime(void *ctx, const struct tm_event *ev)
{
	struct lifetimes *l = ctx;
	if (!strcmp(ev->kind, "start")) {
		l->start_mono = ev->t_mono_usec;
		l->first_pid = ev->pid;
	} else if ((!strcmp(ev->kind, "exit") || !strcmp(ev->kind, "signal")) &&
	           ev->pid == l->first_pid && l->first_pid && !l->first_exit) {
		l->first_exit = ev->t_mono_usec - l->start_mono;
	} else if (!strcmp(ev->kind, "last_left") && l->start_mono) {
		l->last_left = ev->t_mono_usec - l->start_mono;
	}
	return 0;
}

/* "the first process exited after 0.1 s; recorded until the last one left
 * after 42 s", for a command that left processes behind (a daemon). */
static void print_lifetimes(struct tm_store *st, int64_t run)
{
	struct lifetimes l = {0};
	if (tm_store_each_event(st, run, add_lifetime, &l) || !l.first_exit ||
	    l.last_left <= l.first_exit + 50000)
		return;
	printf("  processes   the first process exited after %.1f s; recorded until the last one "
	       "left after %.1f s\n",
	       (double)l.first_exit / 1e6, (double)l.last_left / 1e6);
}

/* "  throttle    throttled by memory.high from ...", one line a stretch. */
static void print_throttle(const struct tm_throttle *th)
{
	char line[256];

	if (!th->known) {
		printf("  throttle    n/a: %s\n", th->why);
		return;
	}
	if (th->n == 0)
		printf("  throttle    none (no sustained memory.high throttling with memory full "
		       "stall and a falling rate)\n");
	for (int i = 0; i < th->n && i < TM_THROTTLE_MAX_SPANS; i++) {
		tm_throttle_span_text(&th->spans[i], line, sizeof(line));
		printf("  throttle    %s\n", line);
	}
	if (th->n > TM_THROTTLE_MAX_SPANS)
		printf("              and %d more stretches\n", th->n - TM_THROTTLE_MAX_SPANS);
}

/* The JVMs' own heap beside anon (hsperfdata), when the tree had a JVM. */
static void print_jvm(const struct tm_summary *s)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], g[32], line[512];

	if (!isfinite(s->jvm_heap_used_peak_bytes))
		return;
	printf("  java heap   used at the end %s of %s committed (old %s, metaspace %s), "
	       "peak used %s; %s GCs, %s in GC\n",
	       mib(a, sizeof(a), s->jvm_heap_used_end_bytes),
	       mib(b, sizeof(b), s->jvm_heap_committed_end_bytes),
	       mib(c, sizeof(c), s->jvm_old_used_end_bytes),
	       mib(d, sizeof(d), s->jvm_metaspace_used_end_bytes),
	       mib(e, sizeof(e), s->jvm_heap_used_peak_bytes), count(f, sizeof(f), s->jvm_gcs),
	       secs(g, sizeof(g), s->jvm_gc_usec));
	tm_jvm_split_text(&s->jvm_split, line, sizeof(line));
	printf("              %s\n", line);
}

/* The run's identity: command, machine, outcome, process lifetimes. */
static void print_header(struct tm_store *st, const struct tm_run_info *ri)
{
	char cmd[4096], mach[256], kern[256], alloc[512];

	printf("run %" PRId64 "  %s", ri->id, tm_run_command_text(ri, cmd, sizeof(cmd)));
	printf("\n  machine     %s, kernel %s, cgroup %s%s%s\n",
	       tm_text_safe(mach, sizeof(mach), ri->machine ? ri->machine : "?"),
	       tm_text_safe(kern, sizeof(kern), ri->kernel ? ri->kernel : "?"),
	       ri->cgroup_mode ? ri->cgroup_mode : "none", ri->allocator ? ", allocator " : "",
	       tm_text_safe(alloc, sizeof(alloc), ri->allocator ? ri->allocator : ""));
	print_outcome(ri);
	print_lifetimes(st, ri->id);
}

static void print_memory(const struct tm_run_info *ri, const struct tm_summary *s)
{
	char a[32], b[32], c[32], d[96];

	printf("  duration    %s  (%" PRId64 " samples every %.0f ms, %" PRId64 " late)\n",
	       secs(a, sizeof(a), s->duration_usec), s->samples, ri->interval_usec / 1e3,
	       s->late_samples);
	printf("  anon        peak %s, held after the work %s\n",
	       mib(a, sizeof(a), s->peak_anon_bytes), mib(b, sizeof(b), s->held_anon_bytes));
	printf("  cgroup      peak memory.current %s (kernel's peak %s); limits max %s, high %s\n",
	       mib(a, sizeof(a), s->peak_current_bytes), mib(b, sizeof(b), s->cg_peak_bytes),
	       limit(c, sizeof(c), s->limit_max_bytes), limit(d, sizeof(d), s->limit_high_bytes));
	if (isfinite(s->limit_high_bytes) && s->limit_high_bytes >= 0 &&
	    tm_mode_memory_v1(ri->cgroup_mode))
		printf("              %s\n", TM_V1_HIGH_NOTE);
	printf("  page cache  median %s, peak %s, at the anon peak %s\n",
	       tm_median_file_text(d, sizeof(d), s), mib(b, sizeof(b), s->peak_file_bytes),
	       mib(c, sizeof(c), s->file_at_peak_bytes));
	tm_approx_text(stdout, &s->approx);
}

static void print_heap(const struct tm_summary *s, const json_t *profiles)
{
	char a[32], b[32], c[32], d[32];

	if (isfinite(s->heap_live_peak_bytes) && isfinite(s->heap_peak_bytes))
		printf(
		    "  heap        live peak %s (exact; %s in the samples), live at the end %s\n",
		    mib(a, sizeof(a), s->heap_peak_bytes),
		    mib(d, sizeof(d), s->heap_live_peak_bytes),
		    mib(b, sizeof(b), s->heap_live_end_bytes));
	else if (isfinite(s->heap_live_peak_bytes))
		printf("  heap        live peak %s, live at the end %s\n",
		       mib(a, sizeof(a), s->heap_live_peak_bytes),
		       mib(b, sizeof(b), s->heap_live_end_bytes));
	if (isfinite(s->heap_live_peak_bytes))
		printf("  anon after  %s: live heap %s, held by the allocator %s, other anon %s\n",
		       mib(a, sizeof(a), s->held_anon_bytes),
		       mib(b, sizeof(b), s->anon_heap_live_end_bytes),
		       mib(c, sizeof(c), s->anon_allocator_held_end_bytes),
		       mib(d, sizeof(d), s->anon_other_end_bytes));
	print_jvm(s);
	if (isfinite(s->gc_heap_live_end_bytes))
		printf(
		    "  gc heap     live after the last GC %s, peak %s; %s GCs (the runtime's own "
		    "GC lines; Go prints whole MiB)\n",
		    mib(a, sizeof(a), s->gc_heap_live_end_bytes),
		    mib(b, sizeof(b), s->gc_heap_live_peak_bytes),
		    count(c, sizeof(c), s->gc_cycles));
	if (isfinite(s->heap_alloc_bytes))
		printf("  allocated   %s in %.0f allocations, %s/s\n",
		       mib(a, sizeof(a), s->heap_alloc_bytes), s->heap_allocs,
		       mib(b, sizeof(b), s->heap_alloc_bytes_per_sec));
	print_heap_profiles(profiles);
}

static void print_costs(const struct tm_summary *s, const struct tm_throttle *th)
{
	char a[32], b[32], c[32], d[32];

	printf("  events      oom kills %s, memory.high throttling %s, memory.max hits %s\n",
	       count(a, sizeof(a), s->oom_kills), count(b, sizeof(b), s->high_events),
	       count(c, sizeof(c), s->max_events));
	print_throttle(th);
	printf("  cpu         %s   io read %s, written %s\n", secs(a, sizeof(a), s->cpu_usec),
	       mib(b, sizeof(b), s->io_read_bytes), mib(c, sizeof(c), s->io_write_bytes));
	printf("  pressure    memory some %s full %s, io some %s full %s\n",
	       secs(a, sizeof(a), s->psi_mem_some_usec), secs(b, sizeof(b), s->psi_mem_full_usec),
	       secs(c, sizeof(c), s->psi_io_some_usec), secs(d, sizeof(d), s->psi_io_full_usec));
}

static void print_progress(const struct tm_summary *s)
{
	if (print_units(s))
		return;
	if (!isfinite(s->progress_first)) {
		printf(
		    "  progress    none recorded (use --progress REGEX, or --units N for a batch "
		    "job)\n");
		return;
	}
	if (s->progress_bunched) {
		printf("  progress    %g -> %g; %.0f of its %.0f points arrived at once "
		       "(block-buffered "
		       "output): no rate, no per-unit figures\n",
		       s->progress_first, s->progress_last, s->progress_points_bunched,
		       s->progress_points);
		return;
	}
	printf("  progress    %g -> %g, %.1f units/min\n", s->progress_first, s->progress_last,
	       s->progress_rate_per_min);
	if (isfinite(s->anon_bytes_per_unit))
		printf("  per unit    anon %+.3f MiB (R² %.2f), cpu %.1f ms (R² %.2f)\n",
		       s->anon_bytes_per_unit / TM_MIB, s->anon_per_unit_r2,
		       s->cpu_usec_per_unit / 1e3, s->cpu_per_unit_r2);
}

static void print_text(struct tm_store *st, const struct tm_run_info *ri,
                       const struct tm_summary *s, const json_t *profiles,
                       const struct tm_throttle *th)
{
	print_header(st, ri);
	print_memory(ri, s);
	print_heap(s, profiles);
	print_costs(s, th);
	print_progress(s);
}

static int print_json(const struct tm_run_info *ri, const struct tm_summary *s, json_t *profiles,
                      const struct tm_throttle *th, json_t *scraped)
{
	json_t *root =
	    json_pack("{s:o?, s:o?, s:O, s:o?, s:o?}", "run", tm_run_json(ri, TM_RUN_JSON_FULL),
	              "figures", tm_summary_json(s), "heap_profiles", profiles, "throttle",
	              tm_throttle_json(th), "scraped", scraped);

	if (!root)
		return tm_error("out of memory");
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	putchar('\n');
	json_decref(root);
	return 0;
}

static void print_csv(const struct tm_run_info *ri, const struct tm_summary *s)
{
	printf("run,outcome,samples");
	for (size_t i = 0; i < TM_ARRAY_SIZE(tm_summary_fields); i++)
		printf(",%s", tm_summary_fields[i].name);
	printf("\n%" PRId64 ",%s,%" PRId64, ri->id, ri->outcome ? ri->outcome : "", s->samples);
	for (size_t i = 0; i < TM_ARRAY_SIZE(tm_summary_fields); i++) {
		double v = tm_summary_get(s, &tm_summary_fields[i]);
		if (isfinite(v))
			printf(",%.15g", v);
		else
			printf(",");
	}
	printf("\n");
}

static int report_run(struct tm_store *st, int64_t run, const struct tm_window *w, enum fmt fmt,
                      const char *series_name, int rollup)
{
	struct tm_run_info ri;
	struct tm_summary s;
	int rc = tm_store_run_get(st, run, &ri);

	if (rc)
		return rc > 0 ? tm_error("no run %" PRId64 " in the store", run) : -1;
	if (fmt == FMT_SERIES) {
		rc = tm_series_csv(st, run, series_name, rollup, stdout);
		tm_run_info_release(&ri);
		return rc;
	}
	struct tm_throttle th;
	rc = tm_summarize_throttle(st, run, w, &s, fmt == FMT_CSV ? NULL : &th);
	if (rc == 1)
		rc = tm_error("run %" PRId64 " has no samples%s", run, w ? " in that window" : "");
	json_t *profiles = rc || fmt == FMT_CSV ? NULL : heap_profiles(st, run);
	if (!rc && fmt != FMT_CSV && !profiles)
		rc = -1;
	struct tm_scraped_figs sf = {0};
	if (!rc && fmt != FMT_CSV)
		rc = tm_scraped_summarize(st, run, &sf);
	if (!rc && fmt == FMT_TEXT) {
		print_text(st, &ri, &s, profiles, &th);
		if (w && sf.n)
			printf("  scraped     (the whole run's figures, not only the window's)\n");
		tm_scraped_text(stdout, &sf, ri.sample_count);
	} else if (!rc && fmt == FMT_JSON)
		rc = print_json(&ri, &s, profiles, &th, tm_scraped_json(&sf, ri.sample_count));
	else if (!rc)
		print_csv(&ri, &s);
	tm_scraped_release(&sf);
	json_decref(profiles);
	tm_run_info_release(&ri);
	return rc;
}

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
static int parse_window(void *field, const char *value, char *why, size_t why_size)
{
	struct report_cli *cli = field;

	(void)why_size;
	why[0] = '\0';
	if (tm_window_parse(value, &cli->win))
		return -1;
	cli->has_window = true;
	return 0;
}

/* --series or --series=NAME. */
static int parse_series(void *field, const char *value, char *why, size_t why_size)
{
	struct report_cli *cli = field;

	if (value && (!*value || strlen(value) >= sizeof(cli->series_name))) {
		snprintf(why, why_size, "'%s': expected a series name", value);
		return -1;
	}
	cli->series = true;
	snprintf(cli->series_name, sizeof(cli->series_name), "%s", value ? value : "");
	return 0;
}

/* --phases-at V1,V2,...: checked now (tm_phase_split_parse says why). */
static int parse_phases_at(void *field, const char *value, char *why, size_t why_size)
{
	struct report_cli *cli = field;

	(void)why_size;
	why[0] = '\0';
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

	fputs(usage_head, stdout);
	tm_opts_help(stdout, sets, 2, O);
	fputs(usage_tail, stdout);
}

static int add_run(void *ctx, const struct tm_run_info *ri)
{
	struct tm_advise_opts *o = ctx;

	for (int i = 0; i < o->n_runs; i++)
		if (o->runs[i] == ri->id)
			return 0;
	if (o->n_runs < TM_ADVISE_MAX_RUNS)
		o->runs[o->n_runs++] = ri->id;
	return 0;
}

/* The advice document: its JSON TEXT with "header", the lines the
 * terminal prints above the arms. */
static int add_advice_doc(const struct tm_advise *a, const char *text, int64_t bench, json_t *docs)
{
	json_t *doc = json_loads(text, 0, NULL), *head = json_array();
	char key[64], *out = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!doc || !f) {
		if (f)
			fclose(f);
		free(out);
		json_decref(doc);
		json_decref(head);
		return tm_error("out of memory");
	}
	tm_advise_write_text(a, f);
	fclose(f);
	/* the lines before the first arm's (which follows a blank line) */
	for (char *l = out; l && *l != '\n'; l = save) {
		save = strchr(l, '\n');
		if (save)
			*save++ = '\0';
		json_array_append_new(head, json_string(l));
	}
	free(out);
	json_object_set_new(doc, "header", head);
	snprintf(key, sizeof(key), "/api/v1/bench/%lld/advice", (long long)bench);
	json_object_set_new(docs, key, doc);
	return 0;
}

/* The advice (as `advise --bench ID --json`, with the sweep's runs) under
 * PATH in DOCS.  0, or -1 after tm_error. */
static int add_advice(struct tm_store *st, int64_t bench, const int64_t *runs, int n, json_t *docs)
{
	struct tm_advise_opts *o = calloc(1, sizeof(*o));
	struct tm_advise *a = calloc(1, sizeof(*a));
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	char *text = NULL;
	int rc = o && a ? 0 : tm_error("out of memory");

	if (rc == 0)
		rc = tm_store_each_run(st, bench, add_run, o);
	for (int i = 0; rc == 0 && i < n; i++)
		add_run(o, &(struct tm_run_info){.id = runs[i]});
	if (rc == 0) {
		o->ram_bytes = pages > 0 && size > 0 ? (double)pages * (double)size : NAN;
		snprintf(o->ram_from, sizeof(o->ram_from), "this host");
		rc = tm_advise_compute(st, o, a);
		text = rc == 0 ? tm_advise_to_json(a, NULL) : NULL;
		if (rc == 0 && !text)
			rc = tm_error("out of memory");
		if (rc == 0)
			rc = add_advice_doc(a, text, bench, docs);
		tm_advise_release(a);
	}
	free(text);
	free(a);
	free(o);
	return rc;
}

/* The HTML bench report, with the survival curve of the sweep its arms were
 * part of (none: no section) and the advice. */
static int bench_html(struct tm_store *st, int64_t bench, const char *path)
{
	int64_t *runs = calloc(TM_ADVISE_MAX_RUNS, sizeof(*runs));
	json_t *docs = json_object(), *curve = NULL;
	char key[64];
	int n = 0, rc = runs ? 0 : tm_error("out of memory");

	if (rc == 0 && !(curve = tm_sweep_stored_curve(st, bench, runs, &n, TM_ADVISE_MAX_RUNS)))
		rc = -1;
	snprintf(key, sizeof(key), "/api/v1/bench/%lld/sweep", (long long)bench);
	if (curve && !json_is_null(curve))
		json_object_set(docs, key, curve);
	json_decref(curve);
	if (rc == 0)
		rc = add_advice(st, bench, runs, n, docs);
	if (rc == 0)
		rc = tm_html_report_bench(st, bench, path, docs);
	json_decref(docs);
	free(runs);
	return rc;
}

/* report --phases: the run's phases as text, JSON or CSV.  0 or -1. */
static int report_phases(struct tm_store *st, int64_t run, const struct report_cli *cli,
                         enum fmt fmt)
{
	struct tm_phases ph;
	int rc = tm_phases_load(st, run, &cli->split, &ph);

	if (rc == 1)
		return tm_error("run %" PRId64 " has no samples", run);
	if (rc)
		return -1;
	if (fmt == FMT_JSON) {
		json_t *o = tm_phases_json(&ph);
		rc = o ? 0 : tm_error("out of memory");
		if (o) {
			json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
			putchar('\n');
		}
		json_decref(o);
	} else if (fmt == FMT_CSV) {
		tm_phases_write_csv(&ph, stdout);
	} else {
		tm_phases_write_text(&ph, stdout);
	}
	tm_phases_release(&ph);
	return rc;
}

/* The run (RUN, or the latest) or the bench the options ask for. */
static int report_main(const struct report_cli *cli, int64_t run, struct tm_cmd_ctx *ctx)
{
	enum fmt fmt = cli->json     ? FMT_JSON
	               : cli->csv    ? FMT_CSV
	               : cli->series ? FMT_SERIES
	                             : FMT_TEXT;
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
		rc = report_phases(st, run, cli, fmt);
	else
		rc = cli->html
		         ? tm_html_report_run(st, run, cli->html)
		         : report_run(st, run, cli->has_window ? &cli->win : NULL, fmt,
		                      cli->series_name[0] ? cli->series_name : NULL, cli->rollup);
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
