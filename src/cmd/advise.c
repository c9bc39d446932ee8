/* tidemark advise: from measured runs to MemoryHigh, MemoryMax, MemorySwapMax and the allocator. */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/advise.h"
#include "base/error.h"
#include "base/util.h"
#include "cmd/cmds.h"
#include "store/store.h"
#include "base/banned.h"

#define TM_ADVISE_MAX_BENCHES 128

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

struct args {
	struct tm_advise_opts o;
	int64_t benches[TM_ADVISE_MAX_BENCHES];
	int n_benches;
	bool json, verify;
	int verify_runs;
	const char *dropin;
	char dropin_regime[32]; /* "" for the first regime */
};

static int add_regime(struct args *a, const char *name, const char *spec)
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

static int add_reserve(struct args *a, const char *arg)
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

static int parse_ram(struct args *a, const char *s)
{
	int64_t b;

	if (tm_parse_size(s, &b) || b <= 0)
		return tm_error("--ram: expected a size (8G), not '%s'", s);
	a->o.ram_bytes = (double)b;
	snprintf(a->o.ram_from, sizeof(a->o.ram_from), "--ram");
	return 0;
}

static int parse_dropin(struct args *a, const char *s)
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
static int add_bench(struct args *a, const char *s)
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
static int parse_opt(struct args *a, int c, struct tm_cmd_ctx *ctx)
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
static int parse_args(int argc, char **argv, struct args *a, struct tm_cmd_ctx *ctx)
{
	int c;

	while ((c = getopt_long(argc, argv, "o:b:w:h", long_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
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

static int add_run_id(void *ctx, const struct tm_run_info *ri)
{
	struct tm_advise_opts *o = ctx;
	if (o->n_runs == TM_ADVISE_MAX_RUNS)
		return tm_error("more than %d runs", TM_ADVISE_MAX_RUNS);
	o->runs[o->n_runs++] = ri->id;
	return 0;
}

static int expand_benches(struct tm_store *st, struct args *a)
{
	for (int i = 0; i < a->n_benches; i++) {
		int before = a->o.n_runs;
		if (tm_store_each_run(st, a->benches[i], add_run_id, &a->o))
			return -1;
		if (a->o.n_runs == before)
			return tm_error("no bench %lld (or a bench without runs) in the store",
			                (long long)a->benches[i]);
	}
	return 0;
}

static void host_ram(struct args *a)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (a->o.ram_bytes > 0)
		return;
	a->o.ram_bytes = pages > 0 && size > 0 ? (double)pages * (double)size : NAN;
	snprintf(a->o.ram_from, sizeof(a->o.ram_from), "this host");
}

static int regime_index(const struct tm_advise *adv, const char *name)
{
	if (!*name)
		return 0;
	for (int i = 0; i < adv->opts.n_regimes; i++)
		if (!strcmp(adv->opts.regimes[i].name, name))
			return i;
	return tm_error("--drop-in: no regime '%s'", name);
}

static int write_dropin(const struct tm_advise *adv, const struct args *a, int ri,
                        const struct tm_advise_verify *v)
{
	FILE *f;

	if (!(f = fopen(a->dropin, "w")))
		return tm_error("cannot write '%s': %s", a->dropin, strerror(errno));
	int rc = tm_advise_write_dropin(adv, ri, v ? v->text : NULL, f);
	if (fclose(f) && rc == 0)
		rc = tm_error("cannot write '%s': %s", a->dropin, strerror(errno));
	if (rc)
		unlink(a->dropin);
	return rc;
}

/* 0 advice, 3 refused or not verified, 1 a failure. */
static int output(const struct tm_advise *adv, const struct args *a, int ri,
                  const struct tm_advise_verify *v)
{
	bool refused = adv->refusal != TM_AR_NONE || adv->recommended < 0;

	if (a->json) {
		char *j = tm_advise_to_json(adv, v);
		if (!j)
			return tm_error("out of memory"), 1;
		puts(j);
		free(j);
	} else {
		tm_advise_write_text(adv, stdout);
		if (v)
			printf("\nverified: %s\n", v->text);
	}
	if (refused) {
		tm_error("no advice: %s", adv->why);
		return 3;
	}
	if (a->dropin && write_dropin(adv, a, ri, v))
		return 3;
	if (v && !v->verified)
		return tm_error("not verified: %s", v->text), 3;
	return 0;
}

/* The advice, verified when asked: 0, 3 or 1. */
static int advise(struct tm_store *st, struct args *a, struct tm_advise *adv)
{
	struct tm_advise_verify v;
	bool verify;
	int ri;

	if (tm_advise_compute(st, &a->o, adv))
		return 1;
	if ((ri = regime_index(adv, a->dropin_regime)) < 0)
		return 2;
	verify = a->verify && adv->refusal == TM_AR_NONE && adv->recommended >= 0;
	/* --verify runs a bench on this host: the host notice, once, as bench says it */
	if (verify)
		tm_cmd_host_notice();
	if (verify && tm_advise_verify(st, adv, ri, a->verify_runs ? a->verify_runs : 3, &v))
		return 1;
	return output(adv, a, ri, verify ? &v : NULL);
}

int cmd_advise(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct args *a = calloc(1, sizeof(*a));
	struct tm_advise *adv = calloc(1, sizeof(*adv));
	struct tm_store *st;
	int rc;

	if (!a || !adv) {
		free(a);
		free(adv);
		return tm_error("out of memory"), 1;
	}
	rc = parse_args(argc, argv, a, ctx);
	if (rc) {
		rc = rc == 1 ? 0 : rc;
		goto out;
	}
	host_ram(a);
	rc = 1;
	if (!(st = tm_cmd_store(ctx, a->verify ? TM_CMD_WRITE : TM_CMD_READ)) ||
	    expand_benches(st, a))
		goto out;
	rc = advise(st, a, adv);
	tm_advise_release(adv);
out:
	free(a);
	free(adv);
	return rc;
}
