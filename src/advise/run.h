/*
 * tidemark advise as one call: the runs of the benches named, the host's
 * memory when none was given, the advice, the drop-in, the text or JSON
 * and, when asked, the verification, in that order.  cmd/advise.c fills
 * the request from its options and maps the outcome to an exit status.
 */
#ifndef TM_ADVISE_RUN_H
#define TM_ADVISE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "advise/advise.h"

struct tm_store;

#define TM_ADVISE_MAX_BENCHES 128

/* What to advise from and what to do with the advice. */
struct tm_advise_request {
	struct tm_advise_opts o; /* runs, regimes, reserves, RAM (0: this host's), margin */
	int64_t benches[TM_ADVISE_MAX_BENCHES]; /* every run of these is added to o.runs */
	int n_benches;
	bool json;              /* the advice as JSON, else as text */
	bool verify;            /* run the recommended arm again under the proposed limits */
	int verify_runs;        /* how many (0: 3) */
	const char *dropin;     /* a file for the drop-in (not owned), or NULL */
	char dropin_regime[32]; /* its regime's name, "" for the first regime */
	/* called once, just before --verify's bench runs (the host notice), or NULL */
	void (*before_verify)(void);
};

/* How a request ended. */
enum tm_advise_outcome {
	TM_ADVISE_ADVISED,     /* advice given (and, with verify, verified) */
	TM_ADVISE_FAILED,      /* a runtime failure (store, memory, the bench) */
	TM_ADVISE_BAD_REQUEST, /* the request names something the advice has not (a regime) */
	TM_ADVISE_REFUSED,     /* no advice, the drop-in not written, or not verified */
};

/* The whole of tidemark advise on ST (opened for writing when R->verify):
 * expands R's benches, fills the host's RAM, computes the advice, verifies
 * it when asked, prints it to OUT (text or JSON), writes the drop-in.  R's
 * runs and RAM are filled in place.  The outcome; every one but
 * TM_ADVISE_ADVISED after tm_error saying why.  Never exits. */
enum tm_advise_outcome tm_advise_run(struct tm_store *st, struct tm_advise_request *r, FILE *out);

#endif
