/* The HTTP server: routing, auth, limits; the handlers live in this file
 * too, each short, each answering one endpoint. */
#include <arpa/inet.h>
#include <jansson.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/api.h"
#include "base/routes.h"
#include "serve/assets.h"
#include "serve/http/auth.h"
#include "serve/http/guard.h"
#include "serve/ingest.h"
#include "report/run/runjson.h"
#include "serve/promfmt.h"
#include "serve/ratelimit.h"
#include "serve/http/server.h"
#include "store/store.h"
#include "base/banned.h"

#define MAX_MACHINES 256

/* What record --scrape read at a machine's latest sample, for /metrics. */
#define LATEST_SCRAPED 64
struct latest_scraped {
	size_t n;
	struct tm_prom_scraped v[LATEST_SCRAPED];
	char name[LATEST_SCRAPED][256], kind[LATEST_SCRAPED][16];
};

/* A pushed cgroup path is at most 4096 bytes (serve/ingest.c): kept whole. */
#define CGROUP_MAX 4096

/* Copies SRC into DST of SIZE bytes; a text too long is cut before the
 * character that does not fit, never inside one (UTF-8). */
static void copy_text(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
			n--; /* src[n] continues a character: cut before its start */
	}
	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
}

struct latest {
	char machine[TM_NAME_MAX + 1], run[65], cgroup[CGROUP_MAX + 1];
	struct tm_sample s;
	bool ended;                       /* the run has its end: its values are history */
	int64_t interval_usec;            /* for telling a stale run */
	struct latest_scraped *scraped;   /* malloc'd when a batch first had some */
	struct tm_prom_progress progress; /* the run's progress, by wall time */
};

/* The scraped values of the batch's last sample (none: none now). */
static void remember_scraped(struct latest *l, const struct tm_batch *b)
{
	const struct tm_sample *s = &b->samples[b->n_samples - 1];

	if (!l->scraped && b->n_scraped && !(l->scraped = calloc(1, sizeof(*l->scraped))))
		return;
	if (!l->scraped)
		return;
	l->scraped->n = 0;
	for (size_t i = 0; i < b->n_scraped && l->scraped->n < LATEST_SCRAPED; i++) {
		struct latest_scraped *ls = l->scraped;
		if (b->scraped[i].seq != s->seq)
			continue;
		copy_text(ls->name[ls->n], sizeof(ls->name[0]), b->scraped[i].name);
		copy_text(ls->kind[ls->n], sizeof(ls->kind[0]), b->scraped[i].kind);
		ls->v[ls->n] =
		    (struct tm_prom_scraped){ls->name[ls->n], ls->kind[ls->n], b->scraped[i].value};
		ls->n++;
	}
}

/* Summaries of ended runs (they no longer change; a week takes seconds). */
#define SUMMARY_CACHE 32
struct cached_summary {
	int64_t run_id;
	char *json;
};

/* Connections past which a new one evicts the oldest slow one; the hard
 * limit is 56 more, so a burst of new clients still gets in. */
#define GUARD_SOFT_LIMIT 200

struct server {
	struct tm_store *st;
	struct cached_summary summaries[SUMMARY_CACHE];
	int next_summary;
	const struct tm_server_opts *o;
	struct tm_ingest *ing;
	struct tm_rate_table *rates; /* --max-rate (serve/ratelimit.h) */
	struct latest *latest;       /* [MAX_MACHINES] */
	int nlatest;
};

/* Per-request state, kept between libmicrohttpd's calls for one request. */
struct req {
	char *body;
	size_t len, cap;
	bool too_big, answered;
	char machine[TM_NAME_MAX + 1];
};

void tm_server_opts_init(struct tm_server_opts *o)
{
	o->listen = "127.0.0.1:7070";
	o->public_read = false;
	o->max_body_bytes = 8 << 20;
	o->max_samples_per_sec = 1000;
	o->max_metrics_machines = 100;
	o->request_timeout_usec = 30 * 1000000LL;
}

int tm_parse_listen(const char *addr, struct sockaddr_in *out)
{
	const char *colon = strrchr(addr, ':');
	char host[64];
	int64_t port;

	memset(out, 0, sizeof(*out));
	if (!colon || (size_t)(colon - addr) >= sizeof(host) ||
	    tm_parse_int64(colon + 1, &port) < 0 || port < 0 || port > 65535)
		return tm_error("bad listen address '%s' (want HOST:PORT, e.g. 127.0.0.1:7070)",
		                addr);
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = 0;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	out->sin_family = AF_INET;
	out->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host, &out->sin_addr) != 1)
		return tm_error("bad listen address '%s': '%s' is not an IPv4 address", addr, host);
	return 0;
}

/* ---- responses ---- */

static void security_headers(struct MHD_Response *r)
{
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy",
	                        "default-src 'none'; script-src 'self'; style-src 'self'; "
	                        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
	                        "form-action 'none'; frame-ancestors 'none'");
}

static enum MHD_Result send_buf(struct MHD_Connection *c, unsigned status, char *buf, size_t len,
                                const char *type, bool must_free)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, buf, must_free ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", type);
	security_headers(r);
	if (must_free)
		MHD_add_response_header(r, "Cache-Control", "no-store");
	tm_guard_answering(c);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned status, json_t *doc)
{
	char *s = doc ? json_dumps(doc, JSON_COMPACT) : NULL;

	json_decref(doc);
	if (!s) {
		static char oops[] = "{\"error\":\"internal error\"}";
		return send_buf(c, 500, oops, strlen(oops), "application/json", false);
	}
	return send_buf(c, status, s, strlen(s), "application/json", true);
}

static enum MHD_Result send_error(struct MHD_Connection *c, unsigned status, const char *why)
{
	return send_json(c, status, json_pack("{s:s}", "error", why));
}

/* ---- auth and limits ---- */

static const char *bearer(struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");

	if (!h || strncmp(h, "Bearer ", 7))
		return NULL;
	return h + 7;
}

/* 0 allowed (NAME filled), else the HTTP status to refuse with. */
static unsigned authorize(struct server *sv, struct MHD_Connection *c, const char *kind, char *name)
{
	int rc;

	name[0] = 0;
	if (!strcmp(kind, "read") && sv->o->public_read)
		return 0;
	rc = tm_token_check(sv->st, bearer(c), kind, name);
	if (rc < 0)
		return 500;
	return rc == 0 ? 0 : 401;
}

/* --max-rate: every row the batch writes counts (samples, events, progress
 * points, marks, scraped values), up to 60 s (at least one full batch of
 * samples) saved up.  Returns 0, or the seconds to wait. */
static int64_t rate_wait(struct server *sv, const char *machine, const struct tm_batch *b)
{
	size_t rows = b->n_samples + b->n_events + b->n_progress + b->n_marks + b->n_scraped;

	return tm_rate_take(sv->rates, machine, (double)rows, tm_now_mono_usec());
}

/* ---- push ---- */

/* Dated further ahead of the server's clock than a clock a little fast
 * (TM_FUTURE_SLACK_USEC): never taken as a machine's latest, or a sample
 * dated 2099 would hold /metrics on its run for ever. */
static bool future_dated(const struct tm_sample *s)
{
	return s->t_wall_usec > tm_now_wall_usec() + TM_FUTURE_SLACK_USEC;
}

/* The batch's last sample as MACHINE's latest, unless the latest is newer
 * (a backfill); a sample dated in the future never decides (it is stored,
 * but not taken as latest), and a latest that is (prefilled before the
 * rule) gives way to any sample. */
static void remember_latest(struct server *sv, const char *machine, const struct tm_batch *b)
{
	const struct tm_sample *s = &b->samples[b->n_samples - 1];
	struct latest *l = NULL;

	if (future_dated(s))
		return;
	for (int i = 0; i < sv->nlatest && !l; i++)
		if (!strcmp(sv->latest[i].machine, machine))
			l = &sv->latest[i];
	if (!l) {
		if (sv->nlatest >= sv->o->max_metrics_machines || sv->nlatest >= MAX_MACHINES)
			return;
		l = &sv->latest[sv->nlatest++];
		snprintf(l->machine, sizeof(l->machine), "%s", machine);
	} else if (l->s.t_wall_usec > s->t_wall_usec && !future_dated(&l->s)) {
		return; /* a backfill of something older */
	}
	if (strcmp(l->run, b->meta.uuid ? b->meta.uuid : ""))
		l->progress = (struct tm_prom_progress){0}; /* another run's */
	copy_text(l->run, sizeof(l->run), b->meta.uuid);
	copy_text(l->cgroup, sizeof(l->cgroup), b->meta.cgroup_path);
	l->s = *s;
	l->ended = b->has_end;
	l->interval_usec = b->meta.interval_usec;
	remember_scraped(l, b);
}

/* The batch's progress points into MACHINE's latest, when the batch is of
 * its run (points dated in the future are left out: no rate from them). */
static void remember_progress(struct server *sv, const char *machine, const struct tm_batch *b)
{
	for (int i = 0; i < sv->nlatest; i++) {
		struct latest *l = &sv->latest[i];
		if (strcmp(l->machine, machine) || strcmp(l->run, b->meta.uuid ? b->meta.uuid : ""))
			continue;
		int64_t limit = tm_now_wall_usec() + TM_FUTURE_SLACK_USEC;
		for (size_t k = 0; k < b->n_progress; k++)
			if (b->progress[k].t_wall_usec <= limit)
				tm_prom_progress_add(&l->progress, b->progress[k].t_wall_usec,
				                     b->progress[k].value);
	}
}

/* An end that came without samples: the machine's latest run, if it is
 * that one, is no longer current. */
static void remember_end(struct server *sv, const char *machine, const char *uuid)
{
	for (int i = 0; i < sv->nlatest; i++)
		if (!strcmp(sv->latest[i].machine, machine) && !strcmp(sv->latest[i].run, uuid))
			sv->latest[i].ended = true;
}

static void peer_addr(struct MHD_Connection *c, char *out, size_t size)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);

	snprintf(out, size, "?");
	if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ci->client_addr)->sin_addr, out,
		          (socklen_t)size);
}

/* A 4xx/5xx reason as the server sends it: ERR's message cut to 255 bytes
 * (the bound the answers have always had). */
static const char *reason(struct tm_err *err)
{
	err->msg[255] = '\0';
	return err->msg;
}

static enum MHD_Result handle_push(struct server *sv, struct MHD_Connection *c, struct req *r)
{
	struct tm_batch b;
	struct tm_push_ack ack;
	struct tm_err err;
	char peer[64], retry[32];
	int64_t wait;
	int rc;

	if (r->too_big)
		return send_error(c, 413, "request body too large");
	if (tm_batch_decode(r->body ? r->body : "", r->len, &b, &err) < 0)
		return send_error(c, 400, reason(&err));
	wait = rate_wait(sv, r->machine, &b);
	if (wait) {
		struct MHD_Response *resp;
		enum MHD_Result ret;
		static char msg[] = "{\"error\":\"too many samples per second for this machine\"}";
		tm_batch_release(&b);
		resp = MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_PERSISTENT);
		snprintf(retry, sizeof(retry), "%lld", (long long)wait);
		MHD_add_response_header(resp, "Retry-After", retry);
		MHD_add_response_header(resp, "Content-Type", "application/json");
		tm_guard_answering(c);
		ret = MHD_queue_response(c, 429, resp);
		MHD_destroy_response(resp);
		return ret;
	}
	peer_addr(c, peer, sizeof(peer));
	rc = tm_ingest_apply(sv->ing, sv->st, r->machine, peer, &b, &ack, &err);
	if (rc == 0 && b.n_samples)
		remember_latest(sv, r->machine, &b);
	else if (rc == 0 && b.has_end)
		remember_end(sv, r->machine, b.meta.uuid);
	if (rc == 0 && b.n_progress)
		remember_progress(sv, r->machine, &b);
	if (rc == 0 || rc == 409) {
		char *s = tm_push_ack_json(&ack, b.meta.uuid);
		json_t *doc = s ? json_loads(s, 0, NULL) : NULL;
		free(s);
		/* the name the token files under: the collector's /metrics uses it */
		if (doc)
			json_object_set_new(doc, "machine", json_string(r->machine));
		if (doc && rc == 409)
			json_object_set_new(doc, "error", json_string(reason(&err)));
		tm_batch_release(&b);
		return send_json(c, rc ? 409 : 200, doc);
	}
	tm_batch_release(&b);
	return send_error(c, (unsigned)rc, reason(&err));
}

/* ---- reads ---- */

static const char *arg(struct MHD_Connection *c, const char *key)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result handle_series(struct server *sv, struct MHD_Connection *c, int64_t id)
{
	struct tm_series_query q;
	struct tm_run_info ri;
	struct tm_err err;
	int rc;

	if (tm_series_query_parse(arg(c, "metrics"), arg(c, "from"), arg(c, "to"),
	                          arg(c, "from_seq"), arg(c, "bucket_usec"), arg(c, "points"), &q,
	                          &err) < 0)
		return send_error(c, 400, reason(&err));
	rc = tm_store_run_get(sv->st, id, &ri);
	if (rc == 1)
		return send_error(c, 404, "no such run");
	if (rc < 0)
		return send_error(c, 500, "store error");
	tm_run_info_release(&ri);
	return send_json(c, 200, tm_api_series(sv->st, id, &q));
}

static enum MHD_Result handle_run(struct server *sv, struct MHD_Connection *c, int64_t id)
{
	int missing = 0;
	json_t *doc = tm_api_run(sv->st, id, &missing);

	if (!doc)
		return send_error(c, missing ? 404 : 500, missing ? "no such run" : "store error");
	return send_json(c, 200, doc);
}

static enum MHD_Result send_cached(struct MHD_Connection *c, const char *json)
{
	char *copy = strdup(json);

	if (!copy)
		return send_error(c, 500, "out of memory");
	return send_buf(c, 200, copy, strlen(copy), "application/json", true);
}

static enum MHD_Result handle_summary(struct server *sv, struct MHD_Connection *c, int64_t id)
{
	struct tm_run_info ri;
	int missing = 0, rc;
	bool ended;
	json_t *doc;

	for (int i = 0; i < SUMMARY_CACHE; i++)
		if (sv->summaries[i].json && sv->summaries[i].run_id == id)
			return send_cached(c, sv->summaries[i].json);
	rc = tm_store_run_get(sv->st, id, &ri);
	if (rc != 0)
		return send_error(c, rc == 1 ? 404 : 500, rc == 1 ? "no such run" : "store error");
	ended = ri.ended_wall_usec != 0;
	tm_run_info_release(&ri);
	doc = tm_api_summary(sv->st, id, &missing);
	if (!doc)
		return send_error(c, missing ? 404 : 500, missing ? "no such run" : "store error");
	if (ended) {
		struct cached_summary *cs = &sv->summaries[sv->next_summary];
		sv->next_summary = (sv->next_summary + 1) % SUMMARY_CACHE;
		free(cs->json);
		cs->run_id = id;
		cs->json = json_dumps(doc, JSON_COMPACT);
	}
	return send_json(c, 200, doc);
}

/* A whole number >= MIN from query argument KEY, or DEF when absent.
 * 0, or -1 when it is there but not such a number. */
static int arg_int(struct MHD_Connection *c, const char *key, int64_t min, int64_t def,
                   int64_t *out)
{
	const char *v = arg(c, key);

	*out = def;
	return v && (tm_parse_int64(v, out) < 0 || *out < min) ? -1 : 0;
}

/* /api/v1/runs[?machine=M][&bench=N][&before=ID][&limit=N]: a page, newest first. */
static enum MHD_Result handle_runs(struct server *sv, struct MHD_Connection *c)
{
	struct tm_run_page pg = {.machine = arg(c, "machine")};

	if (pg.machine && !tm_name_valid(pg.machine))
		return send_error(c, 400, "bad machine name");
	if (arg_int(c, "bench", 0, 0, &pg.bench_id) < 0)
		return send_error(c, 400, "bad bench id");
	if (arg_int(c, "before", 1, 0, &pg.before_id) < 0)
		return send_error(c, 400, "bad before: expected a run id");
	if (arg_int(c, "limit", 1, TM_API_RUNS_DEFAULT, &pg.limit) < 0 ||
	    pg.limit > TM_API_RUNS_MAX)
		return send_error(c, 400, "bad limit: expected 1 to 1000");
	return send_json(c, 200, tm_api_runs_page(sv->st, &pg));
}

static enum MHD_Result handle_metrics(struct server *sv, struct MHD_Connection *c)
{
	struct tm_prom_target t[MAX_MACHINES];
	char *text;

	for (int i = 0; i < sv->nlatest; i++) {
		const struct latest *l = &sv->latest[i];
		/* the same rule as the run list's state (report/run/runjson.h) */
		struct tm_run_info ri = {.interval_usec = l->interval_usec,
		                         .started_wall_usec = l->s.t_wall_usec,
		                         .last_sample_wall_usec = l->s.t_wall_usec,
		                         .ended_wall_usec = l->ended};
		enum tm_run_state state = tm_run_state(&ri, tm_now_wall_usec());
		t[i] = (struct tm_prom_target){l->machine,
		                               l->run,
		                               l->cgroup,
		                               &l->s,
		                               state == TM_RUN_LIVE,
		                               tm_run_state_name(state),
		                               l->scraped ? l->scraped->v : NULL,
		                               l->scraped ? l->scraped->n : 0,
		                               &l->progress,
		                               tm_now_wall_usec()};
	}
	text = tm_prom_format(t, (size_t)sv->nlatest);
	if (!text)
		return send_error(c, 500, "out of memory");
	return send_buf(c, 200, text, strlen(text), "text/plain; version=0.0.4; charset=utf-8",
	                true);
}

/* /api/v1/sweeps/ID: every arm of the sweep on one curve. */
static enum MHD_Result handle_sweep(struct server *sv, struct MHD_Connection *c, int64_t id)
{
	int missing = 0;
	json_t *doc = tm_api_sweep(sv->st, id, &missing);

	if (!doc)
		return send_error(c, missing ? 404 : 500,
		                  missing ? "no such sweep" : "store error");
	return send_json(c, 200, doc);
}

static enum MHD_Result handle_read(struct server *sv, struct MHD_Connection *c, const char *url)
{
	int64_t id = 0;

	if (!strcmp(url, "/metrics"))
		return handle_metrics(sv, c);
	switch (tm_route_parse(url, &id)) {
	case TM_ROUTE_MACHINES:
		return send_json(c, 200, tm_api_machines(sv->st));
	case TM_ROUTE_RUNS:
		return handle_runs(sv, c);
	case TM_ROUTE_RUN:
		return handle_run(sv, c, id);
	case TM_ROUTE_RUN_SERIES:
		return handle_series(sv, c, id);
	case TM_ROUTE_RUN_SUMMARY:
		return handle_summary(sv, c, id);
	case TM_ROUTE_BENCHES:
		return send_json(c, 200, tm_api_benches(sv->st));
	case TM_ROUTE_SWEEPS:
		return send_json(c, 200, tm_api_sweeps(sv->st));
	case TM_ROUTE_SWEEP:
		return handle_sweep(sv, c, id);
	case TM_ROUTE_BENCH:
		return send_json(c, 200, tm_api_bench(sv->st, id));
	case TM_ROUTE_BENCH_SWEEP:
		return send_json(c, 200, tm_api_bench_sweep(sv->st, id));
	case TM_ROUTE_BENCH_ADVICE: /* only in a bench's HTML report */
	case TM_ROUTE_NONE:
	case TM_ROUTE_COUNT:
		break;
	}
	return send_error(c, 404, "no such endpoint");
}

/* ---- dispatch ---- */

static enum MHD_Result send_asset(struct MHD_Connection *c, const struct tm_asset *a)
{
	return send_buf(c, 200, (char *)a->data, a->len, a->type, false);
}

/* First call for a push: refuse early on auth or size, else get the body. */
static enum MHD_Result push_begin(struct server *sv, struct MHD_Connection *c, struct req *r)
{
	const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
	int64_t len;
	unsigned st = authorize(sv, c, "write", r->machine);

	if (st) {
		r->answered = true;
		return send_error(c, st,
		                  st == 401 ? "a valid write token is required" : "store error");
	}
	if (cl && (tm_parse_int64(cl, &len) < 0 || len > (int64_t)sv->o->max_body_bytes)) {
		r->answered = true;
		return send_error(c, 413, "request body too large");
	}
	return MHD_YES;
}

static void take_body(struct server *sv, struct req *r, const char *data, size_t n)
{
	if (r->too_big || r->len + n > sv->o->max_body_bytes) {
		r->too_big = true;
		return;
	}
	if (r->len + n + 1 > r->cap) {
		size_t cap = (r->len + n + 1) * 2;
		if (cap > sv->o->max_body_bytes + 1)
			cap = sv->o->max_body_bytes + 1; /* never twice the limit */
		char *p = realloc(r->body, cap);
		if (!p) {
			r->too_big = true;
			return;
		}
		r->body = p, r->cap = cap;
	}
	memcpy(r->body + r->len, data, n);
	r->len += n;
}

static enum MHD_Result dispatch(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload_data,
                                size_t *upload_data_size, void **con_cls)
{
	struct server *sv = cls;
	struct req *r = *con_cls;
	const struct tm_asset *a;
	char name[TM_NAME_MAX + 1];
	unsigned st;

	(void)version;
	if (!strcmp(url, "/api/v1/push")) {
		if (strcmp(method, "POST"))
			return send_error(c, 405, "use POST");
		if (!r) {
			r = calloc(1, sizeof(*r));
			if (!r)
				return MHD_NO;
			*con_cls = r;
			return push_begin(sv, c, r);
		}
		if (r->answered) {
			*upload_data_size = 0; /* discard what follows a refusal */
			return MHD_YES;
		}
		if (*upload_data_size) {
			take_body(sv, r, upload_data, *upload_data_size);
			*upload_data_size = 0;
			return MHD_YES;
		}
		r->answered = true;
		return handle_push(sv, c, r);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return send_error(c, 405, "use GET");
	if (!strcmp(url, "/healthz")) {
		static char okmsg[] = "ok\n";
		return send_buf(c, 200, okmsg, 3, "text/plain", false);
	}
	a = tm_asset_find(url);
	if (a)
		return send_asset(c, a);
	if (strcmp(url, "/metrics") && strncmp(url, "/api/", 5))
		return send_error(c, 404, "no such page");
	st = authorize(sv, c, "read", name);
	if (st)
		return send_error(c, st,
		                  st == 401 ? "a valid read token is required" : "store error");
	return handle_read(sv, c, url);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
	struct req *r = *con_cls;

	(void)cls, (void)toe;
	tm_guard_answered(c);
	if (r) {
		free(r->body);
		free(r);
	}
	*con_cls = NULL;
}

/* ---- start-up ---- */

struct prefill {
	struct server *sv;
};

static int last_sample(void *ctx, const struct tm_sample *s)
{
	*(struct tm_sample *)ctx = *s;
	return 0;
}

/* /metrics shows each machine's latest run from the start, not only after
 * its next push. */
static int prefill_run(void *ctx, const struct tm_run_info *ri)
{
	struct server *sv = ctx;
	struct latest *l = NULL;
	struct tm_sample last;
	int64_t seq;

	if (!ri->machine || !tm_name_valid(ri->machine))
		return 0;
	for (int i = 0; i < sv->nlatest && !l; i++)
		if (!strcmp(sv->latest[i].machine, ri->machine))
			l = &sv->latest[i];
	if (!l && sv->nlatest >= sv->o->max_metrics_machines)
		return 0;
	if (tm_store_last_seq(sv->st, ri->id, &seq) < 0 || seq < 0)
		return 0;
	tm_sample_clear(&last);
	if (tm_store_each_sample(sv->st, ri->id, seq, seq, last_sample, &last) < 0)
		return -1;
	if (future_dated(&last))
		return 0; /* never the latest (remember_latest) */
	if (!l) {
		l = &sv->latest[sv->nlatest++];
		snprintf(l->machine, sizeof(l->machine), "%s", ri->machine);
	}
	copy_text(l->run, sizeof(l->run), ri->uuid);
	copy_text(l->cgroup, sizeof(l->cgroup), ri->cgroup_path);
	l->ended = ri->ended_wall_usec != 0;
	l->interval_usec = ri->interval_usec;
	if (l->scraped)
		l->scraped->n = 0; /* a later run's: the next push brings its own */
	l->s = last;
	return 0;
}

int tm_server_run(struct tm_store *st, const struct tm_server_opts *o, volatile sig_atomic_t *stop)
{
	struct server sv = {.st = st, .o = o};
	struct sockaddr_in addr;
	struct MHD_Daemon *d;
	struct tm_guard *guard = NULL;
	int ret = -1;

	if (tm_parse_listen(o->listen, &addr) < 0 || tm_auth_init(st) < 0)
		return -1;
	sv.ing = tm_ingest_new();
	sv.latest = calloc(MAX_MACHINES, sizeof(*sv.latest));
	sv.rates =
	    tm_rate_table_new((double)o->max_samples_per_sec,
	                      fmax((double)o->max_samples_per_sec * 60, TM_BATCH_MAX_SAMPLES));
	if (!sv.ing || !sv.latest || !sv.rates) {
		tm_error("out of memory");
		goto out;
	}
	if (tm_store_each_run(st, 0, prefill_run, &sv) < 0)
		goto out;
	/* Slow clients: a request must arrive within its deadline, and past
	 * GUARD_SOFT_LIMIT connections a new one evicts the oldest still
	 * sending (serve/http/guard.h), so the hard limit is never all held */
	guard = tm_guard_new(GUARD_SOFT_LIMIT, o->request_timeout_usec);
	if (!guard) {
		tm_error("out of memory");
		goto out;
	}
	d = MHD_start_daemon(
	    MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL, dispatch, &sv, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, tm_guard_notify, guard, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)(GUARD_SOFT_LIMIT + 56), MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)32,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)(128 * 1024), MHD_OPTION_END);
	if (!d) {
		tm_error("cannot listen on %s", o->listen);
		goto out;
	}
	{
		const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
		char ip[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof(ip));
		printf("listening on http://%s:%u/\n", ip,
		       di ? (unsigned)di->port : (unsigned)ntohs(addr.sin_port));
	}
	fflush(stdout);
	while (!*stop) {
		MHD_run_wait(d, 200);
		tm_guard_tick(guard);
	}
	MHD_stop_daemon(d);
	ret = 0;
out:
	for (int i = 0; i < SUMMARY_CACHE; i++)
		free(sv.summaries[i].json);
	tm_ingest_free(sv.ing);
	tm_rate_table_free(sv.rates);
	tm_guard_free(guard);
	for (int i = 0; i < sv.nlatest; i++)
		free(sv.latest[i].scraped);
	free(sv.latest);
	return ret;
}
