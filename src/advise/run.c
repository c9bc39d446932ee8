/* tidemark advise as one call: benches to runs, the host's RAM, the advice, its output. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/run.h"
#include "base/error.h"
#include "store/store.h"
#include "base/banned.h"

static int add_run_id(void *ctx, const struct tm_run_info *ri)
{
	struct tm_advise_opts *o = ctx;
	if (o->n_runs == TM_ADVISE_MAX_RUNS)
		return tm_error("more than %d runs", TM_ADVISE_MAX_RUNS);
	o->runs[o->n_runs++] = ri->id;
	return 0;
}

/* Adds every run of bench R->benches[i] to R->o.runs.  0, or -1 after
 * tm_error (a store error, a bench without runs, too many runs). */
static int expand_benches(struct tm_store *st, struct tm_advise_request *r)
{
	for (int i = 0; i < r->n_benches; i++) {
		int before = r->o.n_runs;
		if (tm_store_each_run(st, r->benches[i], add_run_id, &r->o))
			return -1;
		if (r->o.n_runs == before)
			return tm_error("no bench %lld (or a bench without runs) in the store",
			                (long long)r->benches[i]);
	}
	return 0;
}

/* When O->ram_bytes is not set: this host's physical memory (NAN when it
 * cannot be read), from "this host". */
static void host_ram(struct tm_advise_opts *o)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (o->ram_bytes > 0)
		return;
	o->ram_bytes = pages > 0 && size > 0 ? (double)pages * (double)size : NAN;
	snprintf(o->ram_from, sizeof(o->ram_from), "this host");
}

/* The index of regime NAME, 0 for "", or -1 after tm_error. */
static int regime_index(const struct tm_advise *a, const char *name)
{
	if (!*name)
		return 0;
	for (int i = 0; i < a->opts.n_regimes; i++)
		if (!strcmp(a->opts.regimes[i].name, name))
			return i;
	return tm_error("--drop-in: no regime '%s'", name);
}

/* The drop-in of regime REGIME to PATH (removed on failure).  0 or -1. */
static int write_dropin_file(const struct tm_advise *a, const char *path, int regime,
                             const struct tm_advise_verify *v)
{
	FILE *f;

	if (!(f = fopen(path, "w")))
		return tm_error("cannot write '%s': %s", path, strerror(errno));
	int rc = tm_advise_write_dropin(a, regime, v ? v->text : NULL, f);
	if (fclose(f) && rc == 0)
		rc = tm_error("cannot write '%s': %s", path, strerror(errno));
	if (rc)
		unlink(path);
	return rc;
}

/* Prints the advice, writes the drop-in; says why when it is not advice. */
static enum tm_advise_outcome output(const struct tm_advise *adv, const struct tm_advise_request *r,
                                     int ri, const struct tm_advise_verify *v, FILE *out)
{
	bool refused = adv->refusal != TM_AR_NONE || adv->recommended < 0;

	if (r->json) {
		char *j = tm_advise_to_json(adv, v);
		if (!j)
			return tm_error("out of memory"), TM_ADVISE_FAILED;
		fputs(j, out);
		fputc('\n', out);
		free(j);
	} else {
		tm_advise_write_text(adv, out);
		if (v)
			fprintf(out, "\nverified: %s\n", v->text);
	}
	if (refused) {
		tm_error("no advice: %s", adv->why);
		return TM_ADVISE_REFUSED;
	}
	if (r->dropin && write_dropin_file(adv, r->dropin, ri, v))
		return TM_ADVISE_REFUSED;
	if (v && !v->verified)
		return tm_error("not verified: %s", v->text), TM_ADVISE_REFUSED;
	return TM_ADVISE_ADVISED;
}

/* The advice in ADV, verified when asked, and its output. */
static enum tm_advise_outcome advise(struct tm_store *st, struct tm_advise_request *r,
                                     struct tm_advise *adv, FILE *out)
{
	struct tm_advise_verify v;
	bool verify;
	int ri;

	if (tm_advise_compute(st, &r->o, adv))
		return TM_ADVISE_FAILED;
	if ((ri = regime_index(adv, r->dropin_regime)) < 0)
		return TM_ADVISE_BAD_REQUEST;
	verify = r->verify && adv->refusal == TM_AR_NONE && adv->recommended >= 0;
	/* --verify runs a bench on this host: the host notice, once, as bench says it */
	if (verify && r->before_verify)
		r->before_verify();
	if (verify && tm_advise_verify(st, adv, ri, r->verify_runs ? r->verify_runs : 3, &v))
		return TM_ADVISE_FAILED;
	return output(adv, r, ri, verify ? &v : NULL, out);
}

enum tm_advise_outcome tm_advise_run(struct tm_store *st, struct tm_advise_request *r, FILE *out)
{
	struct tm_advise *adv;
	enum tm_advise_outcome rc;

	host_ram(&r->o);
	if (!(r->o.granule_bytes > 0))
		tm_advise_host_granule("/", sysconf(_SC_PAGESIZE), &r->o);
	if (expand_benches(st, r))
		return TM_ADVISE_FAILED;
	if (!(adv = calloc(1, sizeof(*adv))))
		return tm_error("out of memory"), TM_ADVISE_FAILED;
	rc = advise(st, r, adv, out);
	tm_advise_release(adv);
	free(adv);
	return rc;
}
