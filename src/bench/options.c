/* The bench's own options: one table for `tidemark bench` and experiment files. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "record/options.h"
#include "report/run/summary.h"
#include "base/banned.h"

#define OFF(f) offsetof(struct tm_bench_spec, f)
#define B      TM_OPT_BENCH
#define F      TM_OPT_FILE

static const char *const order_names[] = {"interleave", "shuffle", NULL};

const char *tm_bench_order_name(int order)
{
	return order >= 0 && order <= TM_ORDER_SHUFFLE ? order_names[order] : "?";
}

/* --arm SPEC: the whole spec (it adds an arm); tm_bench_add_arm says why. */
static int parse_arm(void *field, const char *value, struct tm_err *err)
{
	(void)err;
	return tm_bench_add_arm(field, value);
}

/* --window A:B, Window=A:B: checked now (tm_window_parse says why), kept as text. */
static int parse_window(void *field, const char *value, struct tm_err *err)
{
	struct tm_window w;
	char *dup;

	(void)err;
	if (tm_window_parse(value, &w))
		return -1;
	if (!(dup = strdup(value)))
		return tm_error("out of memory");
	free(*(char **)field);
	*(char **)field = dup;
	return 0;
}

/* --sweep MemoryMax=LO..HI (or MemoryHigh=LO..HI), Sweep= */
static int parse_sweep(void *field, const char *value, struct tm_err *err)
{
	struct tm_bench_sweep *sw = field;
	const char *eq = strchr(value, '='), *dots = eq ? strstr(eq, "..") : NULL;
	char lo[64];

	if (!eq || !dots || (size_t)(dots - eq - 1) >= sizeof(lo))
		return tm_err_set(err, 0, "'%s': expected MemoryMax=LO..HI or MemoryHigh=LO..HI",
		                  value);
	if (!strncmp(value, "MemoryMax=", 10))
		sw->limit = TM_SWEEP_MEMORY_MAX;
	else if (!strncmp(value, "MemoryHigh=", 11))
		sw->limit = TM_SWEEP_MEMORY_HIGH;
	else
		return tm_err_set(err, 0, "'%s': only MemoryMax or MemoryHigh can be swept", value);
	snprintf(lo, sizeof(lo), "%.*s", (int)(dots - eq - 1), eq + 1);
	if (tm_parse_size(lo, &sw->lo) || tm_parse_size(dots + 2, &sw->hi) || sw->lo <= 0 ||
	    sw->hi <= sw->lo)
		return tm_err_set(err, 0, "'%s': expected sizes LO < HI, e.g. MemoryMax=256M..1G",
		                  value);
	return 0;
}

/* --param NAME=VALUES, Param=: one parameter (bench/param.h).  A second
 * --param is refused; the command line replaces the file's. */
static int parse_param(void *field, const char *value, struct tm_err *err)
{
	struct tm_bench_param *p = field;

	if (p->n && !p->from_file)
		return tm_err_set(err, 0,
		                  "'%s': a bench has one parameter, and %s is already given (run a"
		                  " bench per value of the other)",
		                  value, p->spec);
	return tm_bench_param_parse(value, p, err);
}

const struct tm_opt tm_bench_options[] = {
    {.flag = "arm",
     .short_name = 'a',
     .scopes = B,
     .type = TM_OPT_CUSTOM,
     .parse = parse_arm,
     .metavar = "SPEC",
     .help = "add an arm (repeat; the first is the control)"},
    {.flag = "runs",
     .short_name = 'n',
     .key = "Runs",
     .scopes = B | F,
     .type = TM_OPT_COUNT,
     .off = OFF(runs),
     .min = 1,
     .max = 1000,
     .metavar = "N",
     .help = "measured runs per arm"},
    {.flag = "warmup",
     .key = "Warmup",
     .scopes = B | F,
     .type = TM_OPT_COUNT,
     .off = OFF(warmup),
     .min = 0,
     .max = 100,
     .metavar = "N",
     .help = "warmup rounds before them, not counted"},
    {.flag = "name",
     .key = "Name",
     .scopes = B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(name),
     .metavar = "NAME",
     .help = "a name for the bench, shown with its table"},
    {.key = "ExecStart", .scopes = F, .type = TM_OPT_STRING, .min = 1, .off = OFF(exec_start)},
    {.flag = "order",
     .key = "Order",
     .scopes = B | F,
     .type = TM_OPT_CHOICE,
     .off = OFF(order),
     .choices = order_names,
     .metavar = "ORDER",
     .help = "interleave (A B C A B C ...) or shuffle"},
    {.flag = "seed",
     .key = "Seed",
     .scopes = B | F,
     .type = TM_OPT_COUNT,
     .off = OFF(seed),
     .min = 0,
     .max = TM_OPT_NO_MAX,
     .metavar = "N",
     .help = "seed for --order shuffle (printed when not given)"},
    {.flag = "inherit-env",
     .key = "InheritEnvironment",
     .scopes = B | F,
     .type = TM_OPT_BOOL,
     .off = OFF(inherit_env),
     .help = "keep allocation variables (LD_PRELOAD, MALLOC_*, ...)",
     .more = "from our environment instead of refusing to start"},
    {.flag = "unit",
     .key = "Unit",
     .scopes = B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(unit),
     .metavar = "NAME",
     .help = "bench a systemd service: each arm as a drop-in of NAME, the",
     .more = "unit restarted for each run and its cgroup recorded (docs/bench.md)"},
    {.flag = "restore",
     .key = "Restore",
     .scopes = B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(restore),
     .metavar = "SNAP:DIR",
     .help = "replace DIR by a copy of SNAP before every run (reflink",
     .more = "where the filesystem allows)"},
    {.flag = "drop-caches",
     .key = "DropCaches",
     .scopes = B | F,
     .type = TM_OPT_BOOL,
     .off = OFF(drop_caches),
     .help = "sync and drop the page cache before every run"},
    {.flag = "prepare",
     .key = "Prepare",
     .scopes = B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(prepare),
     .metavar = "CMD",
     .help = "run `sh -c CMD` before every run (TIDEMARK_ARM, TIDEMARK_SEQ)"},
    {.flag = "cleanup",
     .key = "Cleanup",
     .scopes = B | F,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = OFF(cleanup),
     .metavar = "CMD",
     .help = "run `sh -c CMD` after every run"},
    {.flag = "window",
     .short_name = 'w',
     .key = "Window",
     .scopes = B | F,
     .type = TM_OPT_CUSTOM,
     .off = OFF(window),
     .parse = parse_window,
     .metavar = "A:B",
     .help = "compare this stretch: progress A:B, times 10s:2m, @MARK:@MARK"},
    {.flag = "sweep",
     .key = "Sweep",
     .scopes = B | F,
     .type = TM_OPT_CUSTOM,
     .off = OFF(sweep),
     .parse = parse_sweep,
     .metavar = "LIMIT=LO..HI",
     .help = "per arm, bisect MemoryMax (or MemoryHigh) between LO and HI for",
     .more = "the smallest that survives every run; prints the survival curve"},
    {.flag = "resolution",
     .key = "Resolution",
     .scopes = B | F,
     .type = TM_OPT_SIZE,
     .off = OFF(sweep.resolution),
     .min = 1048576,
     .max = TM_OPT_NO_MAX,
     .metavar = "SIZE",
     .help = "the sweep stops when its bracket is this narrow"},
    {.flag = "param",
     .key = "Param",
     .scopes = B | F,
     .type = TM_OPT_CUSTOM,
     .off = OFF(param),
     .parse = parse_param,
     .metavar = "N=VALUES",
     .help = "run every arm at each value: N=1000,10000, N=1000..1000000:x10,",
     .more = "N=0..100:+20; {N} replaced in the command, Environment=, hooks"},
    {.type = TM_OPT_END},
};

void tm_bench_optsets(struct tm_bench_spec *sp, struct tm_optset sets[TM_BENCH_OPTSETS])
{
	sets[0] = (struct tm_optset){tm_record_options, &sp->rec};
	sets[1] = (struct tm_optset){tm_bench_options, sp};
}
