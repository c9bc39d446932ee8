/* tidemark advise: from measured runs to MemoryHigh, MemoryMax, MemorySwapMax and the allocator. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/run.h"
#include "base/error.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark advise [options] [RUN...] [--bench ID...]\n"
    "\n"
    "Proposes the limits and allocator setting of a service from measured runs: for the\n"
    "arm it recommends and each other surviving arm, MemoryHigh, MemoryMax, MemorySwapMax\n"
    "and the allocator's environment, one profile per regime (window), each number with\n"
    "the measurement and the rule it came from.  Refuses, saying why, when the runs cannot\n"
    "support a number (no run survived, too few samples in a window, swap was on).\n"
    "\n"
    "input:\n"
    "  RUN...                 runs by id (loose runs are grouped by arm, else allocator)\n"
    "  -b, --bench IDS        every run of these benches: 3, or 3,5-9 (repeatable)\n"
    "  -o, --db PATH          the store (default $" TM_DB_ENV " or ./" TM_DB_DEFAULT ")\n"
    "regimes (each a profile; default one, the whole run):\n"
    "      --steady A:B       the service's steady state: progress A:B, times 10s:2m or\n"
    "                         marks @tip-start:@tip-end\n"
    "      --catch-up A:B     a burst or resync\n"
    "  -w, --window A:B       a regime named 'window'\n"
    "      --regime NAME=A:B  a regime of any name (repeatable)\n"
    "the machine:\n"
    "      --ram SIZE         its memory (default: read from the host)\n"
    "      --reserve NAME=SIZE  what else it must hold (repeatable), e.g. miner=2.5G\n"
    "      --margin PCT       MemoryMax's margin over the anon peak (default 25%)\n"
    "      --min-samples N    fewest samples a window must hold in each run (default 5)\n"
    "output:\n"
    "      --json             the advice as JSON (raw bytes)\n"
    "      --drop-in [REGIME=]FILE  a systemd drop-in for the recommended arm (the first\n"
    "                         regime, or REGIME's)\n"
    "prove it:\n"
    "      --verify           run the recommended arm again under the proposed limits (the\n"
    "                         same command, hooks and restored state as its bench); the\n"
    "                         drop-in says verified only when every run survived unthrottled\n"
    "      --verify-runs N    how many runs (default 3)\n"
    "\n"
    "Exit status: 0 with advice (and, with --verify, verified), 3 when it refuses or the\n"
    "verification fails (the reason on stderr and in the output), 1 on a runtime failure,\n"
    "2 on bad arguments.\n"
    "\n"
    "examples:\n"
    "  tidemark advise --bench 3\n"
    "  tidemark advise --bench 3 --steady @tip-start:@tip-end --catch-up 64400:64800 \\\n"
    "      --ram 8G --reserve miner=2.5G --drop-in "
    "catch-up=/etc/systemd/system/node.service.d/50-memory.conf\n"
    "  tidemark advise 12 13 14 --json | jq '.arms[0].profiles[0].figures.memory_max_bytes'\n";

enum {
	OPT_STEADY = 256,
	OPT_CATCHUP,
	OPT_REGIME,
	OPT_RAM,
	OPT_RESERVE,
	OPT_MARGIN,
	OPT_MIN_SAMPLES,
	OPT_JSON,
	OPT_DROPIN,
	OPT_VERIFY,
	OPT_VERIFY_RUNS
};

static const struct option long_opts[] = {
    {"db", required_argument, NULL, 'o'},
    {"bench", required_argument, NULL, 'b'},
    {"window", required_argument, NULL, 'w'},
    {"steady", required_argument, NULL, OPT_STEADY},
    {"catch-up", required_argument, NULL, OPT_CATCHUP},
    {"regime", required_argument, NULL, OPT_REGIME},
    {"ram", required_argument, NULL, OPT_RAM},
    {"reserve", required_argument, NULL, OPT_RESERVE},
    {"margin", required_argument, NULL, OPT_MARGIN},
    {"min-samples", required_argument, NULL, OPT_MIN_SAMPLES},
    {"json", no_argument, NULL, OPT_JSON},
    {"drop-in", required_argument, NULL, OPT_DROPIN},
    {"verify", no_argument, NULL, OPT_VERIFY},
    {"verify-runs", required_argument, NULL, OPT_VERIFY_RUNS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int add_regime(struct tm_advise_request *a, const char *name, const char *spec)
{
	struct tm_advise_regime *r;

	if (a->o.n_regimes == TM_ADVISE_MAX_REGIMES)
		return tm_error("at most %d regimes", TM_ADVISE_MAX_REGIMES);
	r = &a->o.regimes[a->o.n_regimes];
	if (!*name || strlen(name) >= sizeof(r->name) || strlen(spec) >= sizeof(r->spec))
		return tm_error("bad regime '%s=%s'", name, spec);
	for (int i = 0; i < a->o.n_regimes; i++)
		if (!strcmp(a->o.regimes[i].name, name))
			return tm_error("regime '%s' given twice", name);
	if (tm_window_parse(spec, &r->w))
		return -1;
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->spec, sizeof(r->spec), "%s", spec);
	a->o.n_regimes++;
	return 0;
}

/* "NAME=VALUE" into NAME (bounded) and a pointer to VALUE. */
static int split_eq(const char *arg, char *name, size_t size, const char **value)
{
	const char *eq = strchr(arg, '=');

	if (!eq || eq == arg || (size_t)(eq - arg) >= size)
		return tm_error("expected NAME=VALUE, not '%s'", arg);
	snprintf(name, size, "%.*s", (int)(eq - arg), arg);
	*value = eq + 1;
	return 0;
}

static int add_reserve(struct tm_advise_request *a, const char *arg)
{
	struct tm_advise_reserve *r;
	const char *v;
	int64_t bytes;

	if (a->o.n_reserves == TM_ADVISE_MAX_RESERVES)
		return tm_error("at most %d reserves", TM_ADVISE_MAX_RESERVES);
	r = &a->o.reserves[a->o.n_reserves];
	if (split_eq(arg, r->name, sizeof(r->name), &v) || tm_parse_size(v, &bytes))
		return tm_error("--reserve: expected NAME=SIZE (miner=2.5G), not '%s'", arg);
	r->bytes = (double)bytes;
	a->o.n_reserves++;
	return 0;
}

static int parse_pct(const char *s, double *frac)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end || !(v > 0 && v <= 1000))
		return tm_error("--margin: expected a percentage (25%%), not '%s'", s);
	*frac = v / 100;
	return 0;
}

static int parse_ram(struct tm_advise_request *a, const char *s)
{
	int64_t b;

	if (tm_parse_size(s, &b) || b <= 0)
		return tm_error("--ram: expected a size (8G), not '%s'", s);
	a->o.ram_bytes = (double)b;
	snprintf(a->o.ram_from, sizeof(a->o.ram_from), "--ram");
	return 0;
}

static int parse_dropin(struct tm_advise_request *a, const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq) {
		a->dropin = s;
		return 0;
	}
	if (split_eq(s, a->dropin_regime, sizeof(a->dropin_regime), &a->dropin) || !*a->dropin)
		return tm_error("--drop-in: expected FILE or REGIME=FILE, not '%s'", s);
	return 0;
}

/* --bench ID, or a list of IDs and ranges: 3,5-9. */
static int add_bench(struct tm_advise_request *a, const char *s)
{
	char buf[256], *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return tm_error("--bench: '%s' is too long", s);
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		int64_t lo, hi;
		if (dash)
			*dash = '\0';
		if (tm_parse_int64(tok, &lo) || lo <= 0 ||
		    (dash && (tm_parse_int64(dash + 1, &hi) || hi < lo)))
			return tm_error("--bench: expected IDs and ranges (3,5-9), not '%s'", s);
		if (!dash)
			hi = lo;
		for (int64_t id = lo; id <= hi; id++) {
			if (a->n_benches == TM_ADVISE_MAX_BENCHES)
				return tm_error("--bench: at most %d benches",
				                TM_ADVISE_MAX_BENCHES);
			a->benches[a->n_benches++] = id;
		}
	}
	return 0;
}

/* One option.  0, -1 after tm_error (bad argument). */
static int parse_opt(struct tm_advise_request *a, int c, struct tm_cmd_ctx *ctx)
{
	switch (c) {
	case 'o':
		tm_cmd_set_db(ctx, optarg);
		return 0;
	case 'b':
		return add_bench(a, optarg);
	case 'w':
		return add_regime(a, "window", optarg);
	case OPT_STEADY:
		return add_regime(a, "steady", optarg);
	case OPT_CATCHUP:
		return add_regime(a, "catch-up", optarg);
	case OPT_REGIME: {
		char name[32];
		const char *v;
		return split_eq(optarg, name, sizeof(name), &v) ? -1 : add_regime(a, name, v);
	}
	case OPT_RAM:
		return parse_ram(a, optarg);
	case OPT_RESERVE:
		return add_reserve(a, optarg);
	case OPT_MARGIN:
		return parse_pct(optarg, &a->o.margin_frac);
	case OPT_MIN_SAMPLES: {
		int64_t n;
		if (tm_parse_int64(optarg, &n) || n < 1 || n > 1000000)
			return tm_error("--min-samples: expected a count, not '%s'", optarg);
		a->o.min_samples = (int)n;
		return 0;
	}
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_DROPIN:
		return parse_dropin(a, optarg);
	case OPT_VERIFY:
		a->verify = true;
		return 0;
	case OPT_VERIFY_RUNS: {
		int64_t n;
		if (tm_parse_int64(optarg, &n) || n < 1 || n > 100)
			return tm_error("--verify-runs: expected a count from 1 to 100, not '%s'",
			                optarg);
		a->verify_runs = (int)n;
		a->verify = true;
		return 0;
	}
	}
	return tm_error("unknown option");
}

/* 0, 1 after --help, 2 on bad arguments (said on stderr). */
static int parse_args(int argc, char **argv, struct tm_advise_request *a, struct tm_cmd_ctx *ctx)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:b:w:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			tm_help_write(stdout, usage_text);
			return 1;
		}
		if (c == '?' || parse_opt(a, c, ctx)) {
			fputs("try 'tidemark advise --help'\n", stderr);
			return 2;
		}
	}
	for (; optind < argc; optind++) {
		int64_t id;
		if (tm_parse_int64(argv[optind], &id) || id <= 0 ||
		    a->o.n_runs == TM_ADVISE_MAX_RUNS) {
			tm_error("expected a run id, not '%s'", argv[optind]);
			return 2;
		}
		a->o.runs[a->o.n_runs++] = id;
	}
	if (a->o.n_runs == 0 && a->n_benches == 0) {
		tm_error("name the runs to advise from: RUN... or --bench ID");
		return 2;
	}
	return 0;
}

int cmd_advise(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_advise_request *r = calloc(1, sizeof(*r));
	struct tm_store *st;
	int rc;

	if (!r)
		return tm_error("out of memory"), 1;
	rc = parse_args(argc, argv, r, ctx);
	if (rc) {
		rc = rc == 1 ? 0 : rc;
		goto out;
	}
	r->before_verify = tm_cmd_host_notice;
	rc = 1;
	if (!(st = tm_cmd_store(ctx, r->verify ? TM_CMD_WRITE : TM_CMD_READ)))
		goto out;
	switch (tm_advise_run(st, r, stdout)) {
	case TM_ADVISE_ADVISED:
		rc = 0;
		break;
	case TM_ADVISE_FAILED:
		rc = 1;
		break;
	case TM_ADVISE_BAD_REQUEST:
		rc = 2;
		break;
	case TM_ADVISE_REFUSED:
		rc = 3;
		break;
	}
out:
	free(r);
	return rc;
}
