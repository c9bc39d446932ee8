/* record --remote-write: samples to a Prometheus remote write receiver;
 * see serve/client/remotewrite.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "base/metrics.h"
#include "base/pb.h"
#include "prompb.pb-c.h"
#include "serve/promfmt.h"
#include "serve/client/remotewrite.h"
#include "base/banned.h"

/* One series being built: its labels (sorted by name) and its samples. */
struct rw_series {
	Prometheus__TimeSeries ts;
	Prometheus__Label lab[5], *labp[5];
	Prometheus__Sample *smp, **smpp;
	char name[128], lname[32], lvalue[64];
};

struct rw_enc {
	struct rw_series ser[TM_METRIC_COUNT + 1];
	Prometheus__TimeSeries *tsp[TM_METRIC_COUNT + 1];
	size_t nser;
};

static void add_label(struct rw_series *r, const char *name, const char *value)
{
	size_t i = r->ts.n_labels++;

	prometheus__label__init(&r->lab[i]);
	r->lab[i].name = (char *)name;
	r->lab[i].value = (char *)(value ? value : "");
	r->labp[i] = &r->lab[i];
}

/* A series named NAME with the extra label LABEL (`event="low"`, or "")
 * and room for N samples.  NULL on out of memory. */
static struct rw_series *new_series(struct rw_enc *e, const char *name, const char *label,
                                    const struct tm_rw_labels *lb, size_t n)
{
	struct rw_series *r = &e->ser[e->nser];
	const char *eq = strchr(label, '=');

	prometheus__time_series__init(&r->ts);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->smp = calloc(n ? n : 1, sizeof(*r->smp));
	r->smpp = calloc(n ? n : 1, sizeof(*r->smpp));
	if (!r->smp || !r->smpp) {
		free(r->smp), free(r->smpp);
		return NULL;
	}
	r->ts.labels = r->labp;
	r->ts.samples = r->smpp;
	/* labels sorted by name: __name__, cgroup, event, machine, run, state */
	add_label(r, "__name__", r->name);
	if (eq) {
		snprintf(r->lname, sizeof(r->lname), "%.*s", (int)(eq - label), label);
		snprintf(r->lvalue, sizeof(r->lvalue), "%.*s", (int)strlen(eq + 2) - 1, eq + 2);
		add_label(r, r->lname, r->lvalue);
	}
	add_label(r, "machine", lb->machine);
	e->tsp[e->nser++] = &r->ts;
	return r;
}

static void add_sample(struct rw_series *r, double v, int64_t t_wall_usec)
{
	size_t i = r->ts.n_samples++;

	prometheus__sample__init(&r->smp[i]);
	r->smp[i].value = v;
	r->smp[i].timestamp = t_wall_usec / 1000;
	r->smpp[i] = &r->smp[i];
}

/* The series of metric M over the N samples, when any has it. */
static int metric_series(struct rw_enc *e, enum tm_metric m, const struct tm_rw_labels *lb,
                         const struct tm_sample *s, size_t n)
{
	char name[128], label[64];
	double scale;
	struct rw_series *r = NULL;

	tm_prom_name(m, name, sizeof(name), label, sizeof(label), &scale);
	for (size_t i = 0; i < n; i++) {
		/* a limit of -1 is "no limit": absent, not a number */
		if (!tm_sample_has(&s[i], m) || s[i].v[m] < 0)
			continue;
		if (!r && !(r = new_series(e, name, label, lb, n)))
			return -1;
		add_sample(r, (double)s[i].v[m] * scale, s[i].t_wall_usec);
	}
	return 0;
}

/* tidemark_run_info{cgroup,machine,run,state="live"} 1 at each sample. */
static int run_info_series(struct rw_enc *e, const struct tm_rw_labels *lb,
                           const struct tm_sample *s, size_t n)
{
	struct rw_series *r = &e->ser[e->nser];

	prometheus__time_series__init(&r->ts);
	snprintf(r->name, sizeof(r->name), "tidemark_run_info");
	r->smp = calloc(n ? n : 1, sizeof(*r->smp));
	r->smpp = calloc(n ? n : 1, sizeof(*r->smpp));
	if (!r->smp || !r->smpp) {
		free(r->smp), free(r->smpp);
		return -1;
	}
	r->ts.labels = r->labp;
	r->ts.samples = r->smpp;
	add_label(r, "__name__", r->name);
	if (lb->cgroup && lb->cgroup[0])
		add_label(r, "cgroup", lb->cgroup);
	add_label(r, "machine", lb->machine);
	add_label(r, "run", lb->run);
	add_label(r, "state", "live");
	for (size_t i = 0; i < n; i++)
		add_sample(r, 1.0, s[i].t_wall_usec);
	e->tsp[e->nser++] = &r->ts;
	return 0;
}

/* The packed request, snappy-compressed, into *OUT. */
static int pack(struct rw_enc *e, uint8_t **out, size_t *len)
{
	Prometheus__WriteRequest req = PROMETHEUS__WRITE_REQUEST__INIT;
	size_t raw_len, clen;
	uint8_t *raw;

	if (tm_pb_ready())
		return -1;
	req.timeseries = e->tsp;
	req.n_timeseries = e->nser;
	raw_len = prometheus__write_request__get_packed_size(&req);
	if (!(raw = malloc(raw_len ? raw_len : 1)))
		return -1;
	prometheus__write_request__pack(&req, raw);
	clen = snappy_max_compressed_length(raw_len);
	if (!(*out = malloc(clen))) {
		free(raw);
		return -1;
	}
	if (snappy_compress((const char *)raw, raw_len, (char *)*out, &clen) != SNAPPY_OK) {
		free(raw), free(*out);
		*out = NULL;
		return -1;
	}
	free(raw);
	*len = clen;
	return 0;
}

int tm_rw_encode(const struct tm_rw_labels *lb, const struct tm_sample *s, size_t n, uint8_t **out,
                 size_t *len)
{
	struct rw_enc *e = calloc(1, sizeof(*e));
	int rc = -1;

	*out = NULL;
	if (!e)
		return -1;
	if (!run_info_series(e, lb, s, n)) {
		rc = 0;
		for (int m = 0; m < TM_METRIC_COUNT && !rc; m++)
			rc = metric_series(e, (enum tm_metric)m, lb, s, n);
	}
	if (!rc)
		rc = pack(e, out, len);
	for (size_t i = 0; i < e->nser; i++)
		free(e->ser[i].smp), free(e->ser[i].smpp);
	free(e);
	return rc;
}
