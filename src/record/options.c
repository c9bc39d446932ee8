/* The recorder's options: one table for record, bench and experiment files. */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/limits.h"
#include "record/gcwatch.h"
#include "record/options.h"
#include "record/units.h"
#include "sysd/unit.h"
#include "base/banned.h"

#define OFF(f) offsetof(struct tm_record_opts, f)
#define R      TM_OPT_RECORD
#define B      TM_OPT_BENCH
#define F      TM_OPT_FILE
#define NOMAX  TM_OPT_NO_MAX

/* The smallest interval the sampler keeps up with. */
#define MIN_INTERVAL_USEC 50000

static int parse_pid(void *field, const char *value, struct tm_err *err)
{
	int64_t v;

	if (tm_parse_int64(value, &v) || v <= 0 || v > INT_MAX)
		return tm_err_set(err, 0, "'%s': expected a process id", value);
	*(pid_t *)field = (pid_t)v;
	return 0;
}

/* --heap or --heap=sites: the whole struct (two fields). */
static int parse_heap(void *field, const char *value, struct tm_err *err)
{
	struct tm_record_opts *o = field;

	if (value && strcmp(value, "sites"))
		return tm_err_set(err, 0, "'%s': expected nothing or =sites", value);
	o->heap = true;
	o->heap_sites = value != NULL;
	return 0;
}

/* --units N, Units=N: the count and that it was given (the whole struct). */
static int parse_units(void *field, const char *value, struct tm_err *err)
{
	struct tm_record_opts *o = field;

	if (tm_parse_units(value, &o->units))
		return tm_err_set(err, 0, "'%s': expected a count above 0", value);
	o->has_units = true;
	return 0;
}

/* --machine NAME: a name the server and Prometheus labels accept. */
static int parse_machine(void *field, const char *value, struct tm_err *err)
{
	if (!tm_name_valid(value))
		return tm_err_set(
		    err, 0, "'%s': expected 1-%d of A-Z a-z 0-9 . _ - (not starting with . or -)",
		    value, TM_NAME_MAX);
	*(const char **)field = value;
	return 0;
}

/* --keep raw=7d,minute=90d,hour=forever (store/store.h): the whole struct. */
static int parse_keep(void *field, const char *value, struct tm_err *err)
{
	struct tm_record_opts *o = field;

	if (!o->has_keep)
		tm_keep_default(&o->keep);
	if (tm_keep_parse(value, &o->keep, err))
		return -1;
	o->has_keep = true;
	return 0;
}

/* --unit NAME: checked as systemd checks a unit name, ".service" added
 * when it has no type (as systemctl does). */
static int parse_unit(void *field, const char *value, struct tm_err *err)
{
	_Static_assert(sizeof(((struct tm_record_opts *)0)->unit) == TM_SDUNIT_NAME_MAX,
	               "the unit's name field");
	return tm_sdunit_name_normalize(value, field, err);
}

/* --scrape URL[,metric...], Scrape=...: one more target (the whole struct). */
static int parse_scrape(void *field, const char *value, struct tm_err *err)
{
	struct tm_record_opts *o = field;
	struct tm_scrape_spec *spec = malloc(sizeof(*spec));
	int rc;

	if (!spec)
		return tm_err_set(err, 0, "out of memory");
	rc = tm_scrape_spec_parse(value, spec, err);
	free(spec);
	if (rc)
		return -1;
	if (o->nscrape == TM_SCRAPE_MAX_TARGETS)
		return tm_err_set(err, 0, "'%s': at most %d --scrape targets", value,
		                  TM_SCRAPE_MAX_TARGETS);
	snprintf(o->scrape[o->nscrape++], sizeof(o->scrape[0]), "%s", value);
	return 0;
}

const struct tm_opt tm_record_options[] = {
    {.flag = "pid",
     .short_name = 'p',
     .scopes = R,
     .type = TM_OPT_CUSTOM,
     .off = OFF(pid),
     .parse = parse_pid,
     .metavar = "PID",
     .help = "a running process and all its descendants"},
    {.flag = "cgroup",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(cgroup_path),
     .metavar = "PATH",
     .help = "a cgroup directory (v1 memory or v2)"},
    {.flag = "unit",
     .short_name = 'u',
     .scopes = R,
     .type = TM_OPT_CUSTOM,
     .off = OFF(unit),
     .parse = parse_unit,
     .metavar = "NAME",
     .help = "a systemd unit's cgroup (found over D-Bus); each start of the",
     .more = "unit is a new run; waits while it is stopped; never stops it"},
    {.flag = "until-stop",
     .scopes = R,
     .type = TM_OPT_BOOL,
     .off = OFF(until_stop),
     .help = "--unit: end when the unit stops, not wait for its next start"},
    {.flag = "interval",
     .short_name = 'i',
     .key = "Interval",
     .scopes = R | B | F,
     .type = TM_OPT_DURATION,
     .off = OFF(interval_usec),
     .min = MIN_INTERVAL_USEC,
     .max = NOMAX,
     .metavar = "DUR",
     .help = "sampling interval, at least 50ms"},
    {.flag = "memory-max",
     .key = "MemoryMax",
     .scopes = R | B | F,
     .type = TM_OPT_SIZE,
     .off = OFF(limits.memory_max_bytes),
     .check = tm_limit_floor_why,
     .max = NOMAX,
     .metavar = "SIZE",
     .help = "hard limit (v2 memory.max, v1 memory.limit_in_bytes)"},
    {.flag = "memory-high",
     .key = "MemoryHigh",
     .scopes = R | B | F,
     .type = TM_OPT_SIZE,
     .off = OFF(limits.memory_high_bytes),
     .check = tm_limit_floor_why,
     .max = NOMAX,
     .metavar = "SIZE",
     .help = "throttling limit (v2 memory.high, v1 soft_limit_in_bytes)"},
    {.flag = "swap-max",
     .key = "MemorySwapMax",
     .scopes = R | B | F,
     .type = TM_OPT_SIZE,
     .off = OFF(limits.swap_max_bytes),
     .max = NOMAX,
     .metavar = "SIZE",
     .help = "swap limit (v2 memory.swap.max, v1 memsw; 0: no swap)"},
    {.flag = "no-cgroup",
     .scopes = R,
     .type = TM_OPT_BOOL,
     .invert = true,
     .off = OFF(new_cgroup),
     .help = "launch without a cgroup of its own"},
    {.flag = "progress",
     .key = "Progress",
     .scopes = R | B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(progress_regex),
     .metavar = "REGEX",
     .help = "a number in the program's output, e.g. 'height=([0-9]+)'"},
    {.flag = "progress-file",
     .key = "ProgressFile",
     .scopes = R | B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(progress_file),
     .metavar = "PATH",
     .help = "match REGEX on this file (followed like tail -F)"},
    {.flag = "progress-cmd",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(progress_cmd),
     .metavar = "CMD",
     .help = "match REGEX on the output of this shell command, e.g.",
     .more = "'journalctl -fu x' or 'tail -F log' (stopped at the run's end)"},
    {.flag = "until-progress",
     .key = "UntilProgress",
     .scopes = R | B | F,
     .type = TM_OPT_NUMBER,
     .off = OFF(until_progress),
     .set_off = OFF(stop_at_progress),
     .metavar = "N",
     .help = "stop the command (SIGTERM, then SIGKILL) once progress >= N"},
    {.flag = "units",
     .key = "Units",
     .scopes = R | B | F,
     .type = TM_OPT_CUSTOM,
     .parse = parse_units,
     .metavar = "N",
     .help = "the work the command does, for one with no progress line",
     .more = "(a batch job): cost per unit in the report and the bench table"},
    {.flag = "units-from",
     .key = "UnitsFrom",
     .scopes = R | B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(units_from),
     .metavar = "REGEX",
     .help = "the work done: the number REGEX's group finds in the last",
     .more = "line of the output it matches (e.g. 'rows=([0-9]+)')"},
    {.flag = "runtime",
     .key = "Runtime",
     .scopes = R | B | F,
     .type = TM_OPT_CHOICE,
     .off = OFF(runtime),
     .choices = tm_runtime_names,
     .metavar = "NAME",
     .help = "go: set GODEBUG=gctrace=1, ghc: GHCRTS=-S (needs -rtsopts), node: run",
     .more = "node --trace-gc; store the live heap after each GC from its lines"},
    {.flag = "scrape",
     .key = "Scrape",
     .scopes = R | B | F,
     .type = TM_OPT_CUSTOM,
     .parse = parse_scrape,
     .metavar = "URL[,M..]",
     .help = "store the target's own Prometheus series M (all when none; repeatable),",
     .more = "read each interval; Go's go_memstats_* fill go_heap_* and gc_cycles"},
    {.flag = "settle",
     .key = "Settle",
     .scopes = R | B | F,
     .type = TM_OPT_DURATION,
     .off = OFF(settle_usec),
     .max = NOMAX,
     .metavar = "DUR",
     .help = "keep sampling this long after the work ends (held memory)"},
    {.flag = "timeout",
     .key = "Timeout",
     .scopes = R | B | F,
     .type = TM_OPT_DURATION,
     .off = OFF(timeout_usec),
     .max = NOMAX,
     .metavar = "DUR",
     .help = "stop the command after this long (0: never)"},
    {.flag = "grace",
     .key = "Grace",
     .scopes = R | B | F,
     .type = TM_OPT_DURATION,
     .off = OFF(term_grace_usec),
     .max = NOMAX,
     .metavar = "DUR",
     .help = "SIGTERM, then SIGKILL after this"},
    {.flag = "heap",
     .scopes = R,
     .type = TM_OPT_CUSTOM,
     .optional_arg = true,
     .parse = parse_heap,
     .metavar = "sites",
     .help = "preload the heap shim: live heap and what the allocator holds",
     .more = "(=sites: sites only, no exact counters); -p, --unit: attaches (sites from then on)"},
    {.flag = "heap",
     .key = "Heap",
     .scopes = B | F,
     .type = TM_OPT_BOOL,
     .off = OFF(heap),
     .help = "every run under the heap shim: the table adds heap peak,",
     .more = "live heap, allocator-held and other anon (time figures include its cost)"},
    {.flag = "heap-profile",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(heap_profile),
     .metavar = "P",
     .help = "pprof profiles P.PID.final.pb.gz as each process exits",
     .more = "or is killed (and P.PID.N.pb.gz with --heap-every)"},
    {.flag = "heap-every",
     .scopes = R,
     .type = TM_OPT_DURATION,
     .off = OFF(heap_every_usec),
     .min = 1000000,
     .max = NOMAX,
     .metavar = "DUR",
     .help = "also a profile of each process this often"},
    {.flag = "quiet",
     .short_name = 'q',
     .scopes = R,
     .type = TM_OPT_BOOL,
     .off = OFF(quiet_child),
     .help = "don't pass the command's output on"},
    {.flag = "no-pty",
     .scopes = R | B,
     .type = TM_OPT_BOOL,
     .off = OFF(no_pty),
     .help = "--progress: stdout through a pipe, not a pty"},
    {.flag = "until-first-exit",
     .scopes = R | B,
     .type = TM_OPT_BOOL,
     .off = OFF(until_first_exit),
     .help = "end at the first process's exit, leave the rest"},
    {.flag = "stay-when-empty",
     .scopes = R,
     .type = TM_OPT_BOOL,
     .off = OFF(stay_when_empty),
     .help = "--cgroup: go on when it has no process"},
    {.flag = "show-output",
     .scopes = B,
     .type = TM_OPT_BOOL,
     .invert = true,
     .off = OFF(quiet_child),
     .help = "pass the command's output through (default: hidden)"},
    {.flag = "push",
     .scopes = R | B,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(push_url),
     .metavar = "URL",
     .help = "also push to a tidemark server (needs --token-file; bench: each run once "
             "it ends, with its bench)"},
    {.flag = "token-file",
     .scopes = R | B,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(token_file),
     .metavar = "F",
     .help = "the machine's write token for --push"},
    {.flag = "remote-write",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(rw_url),
     .metavar = "URL",
     .help = "also send the samples to a Prometheus remote write receiver, e.g.",
     .more = "http://prom:9090/api/v1/write (nothing lost while it is down: docs/fleet.md)"},
    {.flag = "remote-write-token-file",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(rw_token_file),
     .metavar = "F",
     .help = "--remote-write: a bearer token, read from F"},
    {.flag = "remote-write-basic-auth-file",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(rw_basic_auth_file),
     .metavar = "F",
     .help = "--remote-write: basic auth, 'user:password' read from F"},
    {.flag = "machine",
     .scopes = R,
     .type = TM_OPT_CUSTOM,
     .off = OFF(machine),
     .parse = parse_machine,
     .metavar = "NAME",
     .help = "the machine name stored with the run (default: the host name)",
     .more = "(with --push, the name of the token on the server, and no other)"},
    {.flag = "keep",
     .key = "Keep",
     .scopes = R | TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .parse = parse_keep,
     .metavar = "SPEC",
     .help = "keep raw samples, minute and hour rollups this long (raw=7d,",
     .more = "minute=90d,hour=forever; periods 30s, 12h, 7d, forever; record prunes as it goes)"},
    {.flag = "commit-every",
     .scopes = R,
     .type = TM_OPT_DURATION,
     .off = OFF(commit_every_usec),
     .max = 3600000000LL,
     .metavar = "DUR",
     .help = "samples wait in memory up to this long, then are written together",
     .more = "(0: each at once; default: each at once for a minute, 1min until the"
             " tenth minute, then 5min);"
             " a kill -9 loses at most this much"},
    {.flag = "metrics-listen",
     .scopes = R,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(metrics_listen),
     .metavar = "ADDR",
     .help = "serve Prometheus /metrics, e.g. 127.0.0.1:9464",
     .more = "(a listening socket systemd passes, as tidemark-record@.socket does, is"
             " served without it)"},
    {.type = TM_OPT_END},
};

int tm_record_opts_check(const struct tm_record_opts *o, bool need_target)
{
	int targets = !!o->argv + !!o->pid + !!o->cgroup_path + !!o->unit[0];

	if (need_target && targets != 1)
		return tm_error(
		    "record one target: a command, -p PID, --cgroup PATH or --unit NAME");
	if (o->until_stop && !o->unit[0])
		return tm_error("--until-stop needs --unit NAME");
	if (o->progress_cmd && !o->progress_regex)
		return tm_error("--progress-cmd needs --progress REGEX");
	if (o->progress_cmd && o->progress_file)
		return tm_error("--progress-file and --progress-cmd: give one progress source");
	if (o->interval_usec < MIN_INTERVAL_USEC)
		return tm_error("the interval must be at least 50ms");
	if (o->push_url && !o->token_file)
		return tm_error("--push needs --token-file");
	if ((o->rw_token_file || o->rw_basic_auth_file) && !o->rw_url)
		return tm_error("--remote-write-token-file and --remote-write-basic-auth-file go "
		                "with --remote-write URL");
	if (o->rw_token_file && o->rw_basic_auth_file)
		return tm_error("--remote-write: give a token or basic auth, not both");
	if (o->push_url && o->has_keep)
		return tm_error("--keep with --push: the server holds the run; prune the server's "
		                "store (tidemark prune --db SERVER.db) instead");
	if (o->progress_file && !o->progress_regex)
		return tm_error("--progress-file needs --progress REGEX");
	if (o->stop_at_progress && !o->progress_regex)
		return tm_error("--until-progress needs --progress REGEX");
	/* (a run of --unit has the unit's main pid, its own unit[] cleared) */
	if (need_target && o->heap && !o->argv && !o->pid && !o->unit[0] && o->unit_main_pid <= 0)
		return tm_error(
		    "--heap needs a command to launch (it preloads the shim), -p PID or "
		    "--unit NAME (it attaches to the running process)");
	if (o->units_from &&
	    ((o->progress_regex && o->progress_regex != o->units_from) || o->has_units))
		return tm_error("--units-from reads the output with the progress matcher: give it "
		                "alone, not with --progress or --units");
	if (o->heap_profile && !o->heap)
		return tm_error("--heap-profile needs --heap");
	if (o->heap_every_usec && !o->heap_profile)
		return tm_error("--heap-every needs --heap-profile PREFIX");
	if (need_target && o->progress_regex && !o->argv && !o->progress_file && !o->progress_cmd &&
	    !o->unit[0] && !o->journal_unit)
		return tm_error("--progress on an attached target needs --progress-file or "
		                "--progress-cmd");
	return 0;
}
