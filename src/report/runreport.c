/* tidemark report's figures of one run: text, JSON, CSV or its series. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "base/outcome.h"
#include "base/term.h"
#include "base/util.h"
#include "report/run/approxtext.h"
#include "report/run/endrule.h"
#include "report/run/limitnote.h"
#include "report/phases/phases.h"
#include "report/run/rtreport.h"
#include "report/run/runjson.h"
#include "report/run/guardsnaps.h"
#include "report/runreport.h"
#include "runtime/registry.h"
#include "report/run/runtext.h"
#include "report/run/scraped.h"
#include "report/run/seriescsv.h"
#include "report/run/summary.h"
#include "report/run/summary_fields.h"
#include "report/run/throttle.h"
#include "store/store.h"
#include "base/banned.h"

static const char *limit(char *buf, size_t size, double bytes)
{
	if (!isfinite(bytes))
		return "n/a";
	if (bytes < 0)
		return "none";
	return tm_mib_text(buf, size, bytes);
}

/* The outcome, in red or yellow when COLOR and it is not a success. */
static void print_outcome(FILE *out, const struct tm_run_info *ri, bool color)
{
	enum tm_outcome o = tm_outcome_of(ri->outcome);
	const char *name = o == TM_OUTCOME_LIVE ? tm_outcome_text(o)
	                   : ri->outcome        ? ri->outcome
	                                        : "?";
	enum tm_tone tone;

	fputs("  outcome     ", out);
	if (tm_term_outcome_tone(name, &tone))
		tm_term_put_if(out, color, tone, name);
	else
		fputs(name, out);
	if (o == TM_OUTCOME_OOM_KILLED)
		fprintf(out, " (confirmed by the oom_kill counter)");
	else if (ri->term_signal && o == TM_OUTCOME_COMPLETED)
		fprintf(out, " (the work was done; tidemark stopped it with signal %d)",
		        ri->term_signal);
	else if (ri->term_signal)
		fprintf(out, " (signal %d)", ri->term_signal);
	else if (ri->exit_code > 0)
		fprintf(out, " (exit status %d)", ri->exit_code);
	if (ri->reason) {
		char why[1024];
		fprintf(out, " — %s", tm_text_safe(why, sizeof(why), ri->reason));
	}
	fprintf(out, "\n");
}

/* The heap profiles the recorder wrote (events "heap_profile": value 1 for
 * a process's final one, 2 for its heap at its OOM kill, final too), as a
 * JSON array of {pid, path, final, oom_kill, t_wall_usec}, a final one with
 * "unwinder" (the event "heap_unwinder" that follows it): how its stacks
 * were unwound. */
static int add_heap_profile(void *ctx, const struct tm_event *ev)
{
	if (!strcmp(ev->kind, "heap_unwinder") && ev->detail) {
		for (size_t i = json_array_size(ctx); i-- > 0;) {
			json_t *p = json_array_get(ctx, i);
			if (json_integer_value(json_object_get(p, "pid")) == ev->pid)
				return json_object_set_new(p, "unwinder", json_string(ev->detail));
		}
		return 0;
	}
	if (strcmp(ev->kind, "heap_profile") || !ev->detail)
		return 0;
	json_t *p = json_object();
	json_object_set_new(p, "pid", json_integer(ev->pid));
	json_object_set_new(p, "path", json_string(ev->detail));
	json_object_set_new(p, "final", json_boolean(ev->value == 1 || ev->value == 2));
	json_object_set_new(p, "oom_kill", json_boolean(ev->value == 2));
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

/* "; LABEL: A, B and N more": the profiles whose "oom_kill" is OOM. */
static void print_profile_names(FILE *out, const json_t *profiles, bool oom, const char *label)
{
	size_t finals = 0, named = 0, i;
	json_t *p;

	json_array_foreach(profiles, i, p)
	{
		if (!json_is_true(json_object_get(p, "final")) ||
		    json_is_true(json_object_get(p, "oom_kill")) != oom)
			continue;
		if (named < 4)
			fprintf(out, "%s%s", named ? ", " : label,
			        json_string_value(json_object_get(p, "path")));
		named += named < 4;
		finals++;
	}
	if (finals > named)
		fprintf(out, " and %zu more", finals - named);
}

/* "  profiles    5 heap profiles written; final: A, B; at the OOM kill: C"
 * (at most 4 named of each), then how the stacks of up to 4 were unwound. */
static void print_heap_profiles(FILE *out, const json_t *profiles)
{
	size_t n = json_array_size(profiles), named, i;
	json_t *p;

	if (n == 0)
		return;
	fprintf(out, "  profiles    %zu heap profile%s written", n, n == 1 ? "" : "s");
	print_profile_names(out, profiles, false, "; final: ");
	print_profile_names(out, profiles, true, "; at the OOM kill: ");
	fprintf(out, "\n");
	named = 0;
	json_array_foreach(profiles, i, p)
	{
		const char *u = json_string_value(json_object_get(p, "unwinder"));
		if (u && named++ < 4)
			fprintf(out, "  unwinder    %s (pid %lld)\n", u,
			        (long long)json_integer_value(json_object_get(p, "pid")));
	}
}

/* The work a batch job did (--units, --units-from) and its cost per unit;
 * true when that is all there is to say about progress. */
static bool print_units(FILE *out, const struct tm_summary *s)
{
	if (!isfinite(s->units))
		return false;
	fprintf(out, "  work        %g units (%s)", s->units, s->units_source);
	if (isfinite(s->units_per_min))
		fprintf(out, ", %.1f units/min", s->units_per_min);
	fputc('\n', out);
	if (isfinite(s->progress_first) && s->progress_last > s->progress_first)
		return false; /* a progress line too: its per-unit fit follows */
	char a[32];

	fprintf(out, "  per unit    cpu %s",
	        tm_cost_usec_text(a, sizeof(a), s->cpu_usec_per_unit, false));
	if (isfinite(s->wall_usec_per_unit))
		fprintf(out, ", wall %s",
		        tm_cost_usec_text(a, sizeof(a), s->wall_usec_per_unit, false));
	fprintf(out, " (totals over %g units)\n", s->units);
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
static void print_lifetimes(FILE *out, struct tm_store *st, int64_t run)
{
	struct lifetimes l = {0};
	if (tm_store_each_event(st, run, add_lifetime, &l) || !l.first_exit ||
	    l.last_left <= l.first_exit + 50000)
		return;
	fprintf(out,
	        "  processes   the first process exited after %.1f s; recorded until the last one "
	        "left after %.1f s\n",
	        (double)l.first_exit / 1e6, (double)l.last_left / 1e6);
}

/* "  throttle    throttled by memory.high from ...", one line a stretch. */
static void print_throttle(FILE *out, const struct tm_throttle *th)
{
	char line[256];

	if (!th->known) {
		fprintf(out, "  throttle    n/a: %s\n", th->why);
		return;
	}
	if (th->n == 0)
		fprintf(out,
		        "  throttle    none (no sustained memory.high throttling with memory full "
		        "stall and a falling rate)\n");
	for (int i = 0; i < th->n && i < TM_THROTTLE_MAX_SPANS; i++) {
		tm_throttle_span_text(&th->spans[i], line, sizeof(line));
		fprintf(out, "  throttle    %s\n", line);
	}
	if (th->n > TM_THROTTLE_MAX_SPANS)
		fprintf(out, "              and %d more stretches\n",
		        th->n - TM_THROTTLE_MAX_SPANS);
}

/* The run's identity: command, machine, outcome, process lifetimes. */
static void print_header(FILE *out, struct tm_store *st, const struct tm_run_info *ri, bool color)
{
	char cmd[4096], mach[256], kern[256], alloc[512];

	fprintf(out, "run %" PRId64 "  %s", ri->id, tm_run_command_text(ri, cmd, sizeof(cmd)));
	fprintf(out, "\n  machine     %s, kernel %s, cgroup %s%s%s\n",
	        tm_text_safe(mach, sizeof(mach), ri->machine ? ri->machine : "?"),
	        tm_text_safe(kern, sizeof(kern), ri->kernel ? ri->kernel : "?"),
	        ri->cgroup_mode ? ri->cgroup_mode : "none", ri->allocator ? ", allocator " : "",
	        tm_text_safe(alloc, sizeof(alloc), ri->allocator ? ri->allocator : ""));
	print_outcome(out, ri, color);
	print_lifetimes(out, st, ri->id);
}

/* Why the anon line says n/a where samples exist. */
static void print_anon_why(FILE *out, const struct tm_summary *s)
{
	char a[32], b[32];
	if (s->peak_anon_missed)
		fprintf(
		    out,
		    "              peak n/a: the samples missed it (the kernel's peak of the "
		    "cgroup's memory %s; the samples' highest anon %s, a shorter -i sees more)\n",
		    tm_mib_text(a, sizeof(a), s->cg_peak_bytes),
		    tm_mib_text(b, sizeof(b), s->peak_anon_sampled_bytes));
	if (isfinite(s->peak_over_by_collapse_bytes))
		fprintf(
		    out,
		    "              peak: the kernel's peak of the cgroup's memory is %s above the "
		    "samples', within one %s huge page that khugepaged charges before freeing "
		    "the pages it collapses (%.0f collapses), a charge anon does not count\n",
		    tm_mib_text(a, sizeof(a), s->peak_over_by_collapse_bytes),
		    tm_mib_text(b, sizeof(b), s->hpage_bytes), s->thp_collapses);
	if (s->end_na != TM_END_MEASURED)
		fprintf(out, "              held after the work n/a: %s\n",
		        tm_end_na_text(s->end_na));
	else if (s->end_kind == TM_END_AFTER_WORK && s->held_sample_mono_usec >= 0)
		fprintf(out, "              held after the work: %.1f s %s\n",
		        (double)(s->held_sample_mono_usec - s->work_end_mono_usec) / 1e6,
		        tm_end_kind_text(s->end_kind));
	else if (s->end_kind != TM_END_KIND_NONE && isfinite(s->held_anon_bytes))
		fprintf(out, "              held after the work: %s\n",
		        tm_end_kind_text(s->end_kind));
}

static void print_memory(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s)
{
	char a[32], b[32], c[32], d[96];

	fprintf(out, "  duration    %s  (%" PRId64 " samples every %.0f ms, %" PRId64 " late)\n",
	        tm_secs_text(a, sizeof(a), s->duration_usec), s->samples, ri->interval_usec / 1e3,
	        s->late_samples);
	fprintf(out, "  anon        peak %s, held after the work %s\n",
	        tm_mib_text(a, sizeof(a), s->peak_anon_bytes),
	        tm_mib_text(b, sizeof(b), s->held_anon_bytes));
	print_anon_why(out, s);
	fprintf(out,
	        "  cgroup      peak memory.current %s (kernel's peak %s); limits max %s, high %s\n",
	        tm_mib_text(a, sizeof(a), s->peak_current_bytes),
	        tm_mib_text(b, sizeof(b), s->cg_peak_bytes),
	        limit(c, sizeof(c), s->limit_max_bytes), limit(d, sizeof(d), s->limit_high_bytes));
	if (isfinite(s->limit_high_bytes) && s->limit_high_bytes >= 0 &&
	    tm_mode_memory_v1(ri->cgroup_mode))
		fprintf(out, "              %s\n", TM_V1_HIGH_NOTE);
	fprintf(out, "  page cache  median %s, peak %s, at the anon peak %s\n",
	        tm_median_file_text(d, sizeof(d), s), tm_mib_text(b, sizeof(b), s->peak_file_bytes),
	        tm_mib_text(c, sizeof(c), s->file_at_peak_bytes));
	tm_approx_text(out, &s->approx);
}

/* The allocator-held part with what it is next to it: "(upper bound)", or
 * "(capped at anon - live; the allocator said X)". */
static const char *held_text(char *buf, size_t size, const struct tm_summary *s)
{
	const char *kind = tm_summary_held_kind(s);
	char m[32], b[32];
	const char *a = tm_mib_text(m, sizeof(m), s->anon_allocator_held_end_bytes);
	if (kind && !strcmp(kind, "capped"))
		snprintf(buf, size, "%s (capped at anon - live; the allocator said %s%s)", a,
		         tm_mib_text(b, sizeof(b), s->anon_allocator_held_end_own_bytes),
		         s->anon_allocator_held_bound ? ", an upper bound" : "");
	else if (kind && !strcmp(kind, "upper bound"))
		snprintf(buf, size, "%s (upper bound: it counts pages never touched)", a);
	else
		snprintf(buf, size, "%s", a);
	return buf;
}

/* A small difference of bytes in a unit that shows it: B, KiB or MiB. */
static const char *gap_text(char *buf, size_t size, double bytes)
{
	if (!(bytes >= 1048576))
		snprintf(buf, size, bytes < 1024 ? "%.0f B" : "%.1f KiB",
		         bytes < 1024 ? bytes : bytes / 1024);
	else
		return tm_mib_text(buf, size, bytes);
	return buf;
}

/* The runtime whose GC lines the run read (runtime/registry.h), by what
 * the recorder stored: the variable it set in the environment (Go's
 * gctrace=1) or the flag on the command line it launched (node
 * --trace-gc); NULL when none says so. */
static const struct tm_runtime_desc *gc_runtime(const struct tm_run_info *ri)
{
	for (int rt = TM_RUNTIME_NONE + 1; ri && rt < TM_RUNTIME_COUNT; rt++) {
		const struct tm_runtime_desc *d = tm_runtime_desc((enum tm_runtime)rt);
		if (d->gc_line &&
		    ((d->stored_env && ri->env_json && strstr(ri->env_json, d->stored_env)) ||
		     (d->stored_command && ri->command_json &&
		      strstr(ri->command_json, d->stored_command))))
			return d;
	}
	return NULL;
}

/* A runtime's own split of anon at the end (its .split): its live heap
 * after GC, from the sample of "held after the work", and the rest. */
static void print_gc_split(FILE *out, const struct tm_runtime_desc *d, const struct tm_summary *s)
{
	char a[32], b[32], c[32];

	if (!d || !d->split || !isfinite(s->held_anon_bytes) ||
	    !isfinite(s->gc_heap_live_at_held_bytes))
		return;
	if (s->gc_heap_live_at_held_bytes > s->held_anon_bytes)
		fprintf(out, "  anon after  %s: its split is n/a, the %s (%s) is more than anon\n",
		        tm_mib_text(a, sizeof(a), s->held_anon_bytes), d->split,
		        tm_mib_text(b, sizeof(b), s->gc_heap_live_at_held_bytes));
	else
		fprintf(
		    out, "  anon after  %s: %s %s, other anon %s\n",
		    tm_mib_text(a, sizeof(a), s->held_anon_bytes), d->split,
		    tm_mib_text(b, sizeof(b), s->gc_heap_live_at_held_bytes),
		    tm_mib_text(c, sizeof(c), s->held_anon_bytes - s->gc_heap_live_at_held_bytes));
}

/* The allocator named "NAME (static)" in the run's allocator text
 * ("jemalloc (static) (node)": jemalloc) into BUF, else "its allocator". */
static const char *exe_allocator(const struct tm_run_info *ri, char *buf, size_t size)
{
	const char *text = ri->allocator ? ri->allocator : "";
	const char *st = strstr(text, " (static)"), *start = st;
	while (start && start > text && start[-1] != ' ' && start[-1] != '+')
		start--;
	if (!st || st == start)
		return tm_text_safe(buf, size, "its allocator");
	char name[64];
	snprintf(name, sizeof(name), "%.*s", (int)(st - start), start);
	return tm_text_safe(buf, size, name);
}

/* Processes whose malloc is the executable's own (heap_exe_procs): live
 * from the allocator's statistics at each sample, no exact peak. */
static void print_heap_exe(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s)
{
	char a[32], b[32], who[96];
	exe_allocator(ri, who, sizeof(who));
	if (isfinite(s->heap_live_peak_bytes))
		fprintf(out,
		        "  heap        live peak n/a (%s is linked into the executable: live from "
		        "its own statistics at each sample, peak between samples unknown), live at "
		        "most %s in the samples, at the end %s\n",
		        who, tm_mib_text(a, sizeof(a), s->heap_live_peak_bytes),
		        tm_mib_text(b, sizeof(b), s->heap_live_end_bytes));
	else
		fprintf(out,
		        "  heap        live n/a (%s is linked into the executable, and it gives no "
		        "allocated figure tidemark can read: no "
		        "statistics entry point in its symbols (a stripped binary), or mimalloc, "
		        "whose mi_process_info says committed bytes only)\n",
		        who);
}

static void print_heap(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s,
                       const json_t *profiles)
{
	char a[32], b[32], c[32], d[32], e[128];
	const struct tm_runtime_desc *rt = gc_runtime(ri);

	if (isfinite(s->heap_exe_procs) && s->heap_exe_procs >= 1)
		print_heap_exe(out, ri, s);
	else if (isfinite(s->heap_live_peak_bytes) && isfinite(s->heap_peak_bytes) &&
	         isfinite(s->heap_peak_proven_bytes) &&
	         s->heap_peak_proven_bytes < s->heap_peak_bytes)
		fprintf(
		    out,
		    "  heap        live peak at most %s, at least %s less (processes that "
		    "overlapped peaked at moments the counters do not give; %s in the samples), "
		    "live at the end %s\n",
		    tm_mib_text(a, sizeof(a), s->heap_peak_bytes),
		    gap_text(c, sizeof(c), s->heap_peak_bytes - s->heap_peak_proven_bytes),
		    tm_mib_text(d, sizeof(d), s->heap_live_peak_bytes),
		    tm_mib_text(b, sizeof(b), s->heap_live_end_bytes));
	else if (isfinite(s->heap_live_peak_bytes) && isfinite(s->heap_peak_bytes))
		fprintf(
		    out,
		    "  heap        live peak %s (exact; %s in the samples), live at the end %s\n",
		    tm_mib_text(a, sizeof(a), s->heap_peak_bytes),
		    tm_mib_text(d, sizeof(d), s->heap_live_peak_bytes),
		    tm_mib_text(b, sizeof(b), s->heap_live_end_bytes));
	else if (isfinite(s->heap_live_peak_bytes))
		fprintf(out, "  heap        live peak %s, live at the end %s\n",
		        tm_mib_text(a, sizeof(a), s->heap_live_peak_bytes),
		        tm_mib_text(b, sizeof(b), s->heap_live_end_bytes));
	if (isfinite(s->heap_live_peak_bytes) && isfinite(s->anon_split_end_skew_bytes))
		fprintf(out,
		        "  anon after  %s: live heap, held by the allocator, other anon n/a (the "
		        "heap moved by %s while anon was read: not one moment)\n",
		        tm_mib_text(a, sizeof(a), s->held_anon_bytes),
		        tm_mib_text(b, sizeof(b), s->anon_split_end_skew_bytes));
	else if (isfinite(s->heap_live_peak_bytes))
		fprintf(out,
		        "  anon after  %s: live heap %s, held by the allocator %s, other anon %s\n",
		        tm_mib_text(a, sizeof(a), s->held_anon_bytes),
		        tm_mib_text(b, sizeof(b), s->anon_heap_live_end_bytes),
		        held_text(e, sizeof(e), s),
		        tm_mib_text(d, sizeof(d), s->anon_other_end_bytes));
	tm_rt_report_text(out, s); /* the lines of a runtime with a part of its own */
	if (isfinite(s->gc_heap_live_end_bytes))
		fprintf(
		    out,
		    "  gc heap     live after the last GC %s, peak %s; %s GCs (the runtime's own "
		    "GC lines%s)\n",
		    tm_mib_text(a, sizeof(a), s->gc_heap_live_end_bytes),
		    tm_mib_text(b, sizeof(b), s->gc_heap_live_peak_bytes),
		    tm_count_text(c, sizeof(c), s->gc_cycles), rt ? rt->gc_note : "");
	print_gc_split(out, rt, s);
	if (isfinite(s->heap_alloc_bytes))
		fprintf(out, "  allocated   %s in %.0f allocations, %s/s\n",
		        tm_mib_text(a, sizeof(a), s->heap_alloc_bytes), s->heap_allocs,
		        tm_mib_text(b, sizeof(b), s->heap_alloc_bytes_per_sec));
	print_heap_profiles(out, profiles);
}

static void print_costs(FILE *out, const struct tm_summary *s, const struct tm_throttle *th)
{
	char a[32], b[32], c[32], d[32];

	fprintf(out, "  events      oom kills %s, memory.high throttling %s, memory.max hits %s\n",
	        tm_count_text(a, sizeof(a), s->oom_kills),
	        tm_count_text(b, sizeof(b), s->high_events),
	        tm_count_text(c, sizeof(c), s->max_events));
	print_throttle(out, th);
	fprintf(out, "  cpu         %s   io read %s, written %s\n",
	        tm_secs_text(a, sizeof(a), s->cpu_usec),
	        tm_mib_text(b, sizeof(b), s->io_read_bytes),
	        tm_mib_text(c, sizeof(c), s->io_write_bytes));
	fprintf(out, "  pressure    memory some %s full %s, io some %s full %s\n",
	        tm_secs_text(a, sizeof(a), s->psi_mem_some_usec),
	        tm_secs_text(b, sizeof(b), s->psi_mem_full_usec),
	        tm_secs_text(c, sizeof(c), s->psi_io_some_usec),
	        tm_secs_text(d, sizeof(d), s->psi_io_full_usec));
}

static void print_progress(FILE *out, const struct tm_summary *s)
{
	char a[32], b[32];

	if (print_units(out, s))
		return;
	if (!isfinite(s->progress_first)) {
		fprintf(
		    out,
		    "  progress    none recorded (use --progress REGEX, or --units N for a batch "
		    "job)\n");
		return;
	}
	if (s->progress_bunched) {
		fprintf(out,
		        "  progress    %g -> %g; its %.0f points came at %.0f instants, up to %.0f "
		        "arrived at once (block-buffered output): no rate, no per-unit figures\n",
		        s->progress_first, s->progress_last, s->progress_points,
		        s->progress_instants, s->progress_points_bunched);
		return;
	}
	fprintf(out, "  progress    %g -> %g, %.1f units/min\n", s->progress_first,
	        s->progress_last, s->progress_rate_per_min);
	if (isfinite(s->anon_bytes_per_unit))
		fprintf(out, "  per unit    anon %s (R² %.2f), cpu %s (R² %.2f)\n",
		        tm_cost_bytes_text(a, sizeof(a), s->anon_bytes_per_unit, true),
		        s->anon_per_unit_r2,
		        tm_cost_usec_text(b, sizeof(b), s->cpu_usec_per_unit, false),
		        s->cpu_per_unit_r2);
}

static void print_text(FILE *out, struct tm_store *st, const struct tm_run_info *ri,
                       const struct tm_summary *s, const json_t *profiles,
                       const struct tm_throttle *th, bool color)
{
	print_header(out, st, ri, color);
	print_memory(out, ri, s);
	print_heap(out, ri, s, profiles);
	print_costs(out, s, th);
	print_progress(out, s);
}

/* The samples the figures left out because their bytes do not decode. */
static void print_damage(FILE *out, struct tm_store *st, int64_t run)
{
	struct tm_sample_damage d;
	int64_t moved;

	if (!tm_store_quarantined(st, run, &moved) && moved > 0)
		fprintf(out,
		        "  damaged     figures exclude %" PRId64 " samples moved aside as damaged"
		        " (the damaged_samples table)\n",
		        moved);
	tm_store_sample_damage(st, run, &d);
	if (!d.damaged)
		return;
	fprintf(out, "  damaged     figures exclude %" PRId64 " damaged samples: seq", d.left_out);
	for (int i = 0; i < d.nseqs; i++)
		fprintf(out, "%s%" PRId64, i ? ", " : " ", d.seqs[i]);
	fprintf(out,
	        "%s cannot be decoded, the others are deltas on them ('tidemark runs check"
	        " --quarantine' moves them aside)\n",
	        d.more ? " ..." : "");
}

/* The same as JSON, or NULL when the figures left nothing out. */
static json_t *damage_json(struct tm_store *st, int64_t run)
{
	struct tm_sample_damage d;
	json_t *seqs;

	tm_store_sample_damage(st, run, &d);
	if (!d.damaged || !(seqs = json_array()))
		return NULL;
	for (int i = 0; i < d.nseqs; i++)
		json_array_append_new(seqs, json_integer(d.seqs[i]));
	return json_pack("{s:I, s:I, s:o}", "left_out", (json_int_t)d.left_out, "damaged",
	                 (json_int_t)d.damaged, "seqs", seqs);
}

static int print_json(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s,
                      json_t *profiles, const struct tm_throttle *th, json_t *scraped,
                      json_t *damage, json_t *guard)
{
	json_t *root =
	    json_pack("{s:o?, s:o?, s:O, s:o?, s:o?}", "run", tm_run_json(ri, TM_RUN_JSON_FULL),
	              "figures", tm_summary_json(s), "heap_profiles", profiles, "throttle",
	              tm_throttle_json(th), "scraped", scraped);

	if (!root) {
		json_decref(damage);
		return tm_error("out of memory");
	}
	if (damage)
		json_object_set_new(root, "damaged_samples", damage);
	if (json_array_size(guard))
		json_object_set(root, "guard_snapshots", guard);
	json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
	return 0;
}

void tm_summary_write_csv(FILE *out, const struct tm_run_info *ri, const struct tm_summary *s)
{
	fprintf(out, "run,outcome,samples");
	for (size_t i = 0; i < TM_ARRAY_SIZE(tm_summary_fields); i++)
		fprintf(out, ",%s", tm_summary_fields[i].name);
	fprintf(out, "\n%" PRId64 ",%s,%" PRId64, ri->id, ri->outcome ? ri->outcome : "",
	        s->samples);
	for (size_t i = 0; i < TM_ARRAY_SIZE(tm_summary_fields); i++) {
		double v = tm_figure_out(tm_summary_fields[i].name,
		                         tm_summary_get(s, &tm_summary_fields[i]));
		if (isfinite(v))
			fprintf(out, ",%.15g", v);
		else
			fprintf(out, ",");
	}
	fprintf(out, "\n");
}

int tm_report_run(struct tm_store *st, int64_t run, const struct tm_window *w,
                  enum tm_report_fmt fmt, const char *series_name, int rollup, FILE *out)
{
	struct tm_run_info ri;
	struct tm_summary s;
	int rc = tm_store_run_get(st, run, &ri);

	if (rc)
		return rc > 0 ? tm_error("no run %" PRId64 " in the store", run) : -1;
	if (fmt == TM_REPORT_SERIES) {
		rc = tm_series_csv(st, run, series_name, rollup, out);
		tm_run_info_release(&ri);
		return rc;
	}
	struct tm_throttle th;
	rc = tm_summarize_throttle(st, run, w, &s, fmt == TM_REPORT_CSV ? NULL : &th);
	if (rc == 1)
		rc = tm_error("run %" PRId64 " has no samples%s", run, w ? " in that window" : "");
	json_t *profiles = rc || fmt == TM_REPORT_CSV ? NULL : heap_profiles(st, run);
	if (!rc && fmt != TM_REPORT_CSV && !profiles)
		rc = -1;
	struct tm_scraped_figs sf = {0};
	if (!rc && fmt != TM_REPORT_CSV)
		rc = tm_scraped_summarize(st, run, &sf);
	json_t *guard = rc || fmt == TM_REPORT_CSV ? NULL : tm_guard_snaps_json(st, run);
	if (!rc && fmt != TM_REPORT_CSV && !guard)
		rc = -1;
	if (!rc && fmt == TM_REPORT_TEXT) {
		/* gathered whole, then each line fitted to the terminal */
		char *buf = NULL;
		size_t size = 0;
		FILE *m = open_memstream(&buf, &size);
		if (!m) {
			rc = tm_error("out of memory");
		} else {
			print_text(m, st, &ri, &s, profiles, &th, tm_term_color(out));
			tm_guard_snaps_text(m, guard);
			if (w && sf.n)
				fprintf(m, "  scraped     (the whole run's figures, not only the "
				           "window's)\n");
			tm_scraped_text(m, &sf, ri.sample_count);
			print_damage(m, st, run);
			fclose(m);
			tm_term_write_lines(out, buf, tm_term_width(out));
			free(buf);
		}
	} else if (!rc && fmt == TM_REPORT_JSON)
		rc = print_json(out, &ri, &s, profiles, &th, tm_scraped_json(&sf, ri.sample_count),
		                damage_json(st, run), guard);
	else if (!rc)
		tm_summary_write_csv(out, &ri, &s);
	tm_scraped_release(&sf);
	json_decref(profiles);
	json_decref(guard);
	tm_run_info_release(&ri);
	return rc;
}

int tm_report_phases(struct tm_store *st, int64_t run, const struct tm_phase_split *split,
                     enum tm_report_fmt fmt, FILE *out)
{
	struct tm_phases ph;
	int rc = tm_phases_load(st, run, split, &ph);

	if (rc == 1)
		return tm_error("run %" PRId64 " has no samples", run);
	if (rc)
		return -1;
	if (fmt == TM_REPORT_JSON) {
		json_t *o = tm_phases_json(&ph);
		rc = o ? 0 : tm_error("out of memory");
		if (o) {
			json_dumpf(o, out, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
			fputc('\n', out);
		}
		json_decref(o);
	} else if (fmt == TM_REPORT_CSV) {
		tm_phases_write_csv(&ph, out);
	} else {
		tm_phases_write_text(&ph, out);
	}
	tm_phases_release(&ph);
	return rc;
}
