/* The collector side of the push protocol (docs/push-protocol.md). */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/error.h"
#include "base/util.h"
#include "report/run/runjson.h"
#include "serve/names.h"
#include "serve/ingest.h"
#include "serve/client/push.h"
#include "store/bench_params.h"
#include "store/bench_tables.h"
#include "store/scraped.h"
#include "store/store.h"
#include "base/banned.h"

#define PUSH_SAMPLES     500  /* samples per batch */
#define PUSH_ITEMS       1000 /* events, progress points or marks per batch */
#define TICK_BUDGET_USEC 800000
#define BACKOFF_MAX_USEC 5000000

struct tm_pusher {
	char *url;
	char auth[32 + TM_TOKEN_LEN];
	struct tm_store *st;
	int64_t run_id;
	CURL *curl;
	bool synced; /* positions below came from the server */
	struct tm_push_ack at;
	int64_t next_try_usec, backoff_usec;
	bool down_reported;
	bool probing;       /* the first hello, from tm_pusher_new */
	long last_status;   /* of the last batch: 0 not reached, else HTTP */
	char last_why[200]; /* the server's "error", when it refused */
};

struct outbuf {
	char *p;
	size_t len;
};

static size_t collect(char *data, size_t size, size_t n, void *ctx)
{
	struct outbuf *b = ctx;
	size_t add = size * n;

	if (b->len + add > (1 << 20))
		return 0;
	char *p = realloc(b->p, b->len + add + 1);
	if (!p)
		return 0;
	memcpy(p + b->len, data, add);
	b->p = p, b->len += add;
	b->p[b->len] = 0;
	return add;
}

static int read_token(const char *path, char *out)
{
	size_t len;
	char *text = tm_read_file(path, &len);

	if (!text)
		return tm_error("cannot read token file '%s'", path);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		text[--len] = 0;
	if (len != TM_TOKEN_LEN || strncmp(text, "tm_", 3)) {
		free(text);
		return tm_error("token file '%s' does not hold a tidemark token", path);
	}
	snprintf(out, 32 + TM_TOKEN_LEN, "Authorization: Bearer %s", text);
	free(text);
	return 0; /* its mode: said once by the push thread's start */
}

static char *push_url(const char *url)
{
	const char *suffix = "/api/v1/push";
	size_t n = strlen(url);
	char *out;

	while (n && url[n - 1] == '/')
		n--;
	if (n >= strlen(suffix) && !strncmp(url + n - strlen(suffix), suffix, strlen(suffix)))
		suffix = "";
	out = malloc(n + strlen(suffix) + 1);
	if (out) {
		memcpy(out, url, n);
		memcpy(out + n, suffix, strlen(suffix) + 1);
	}
	return out;
}

static int send_one(struct tm_pusher *p);

/* The first hello, at once: a token the server refuses (401: unknown, or a
 * read token) cannot become good by waiting, so it is an error now; a
 * server that cannot be reached is not (the store keeps everything). */
static int first_hello(struct tm_pusher *p)
{
	p->probing = true;
	send_one(p);
	p->probing = false;
	if (p->last_status == 401)
		return tm_error("push: %s refused the token (HTTP %ld: %s); --token-file needs a "
		                "write token (tidemark serve token add NAME)",
		                p->url, p->last_status,
		                p->last_why[0] ? p->last_why : "no reason given");
	return 0;
}

int tm_pusher_new(const char *url, const char *token_file, struct tm_store *st, int64_t run_id,
                  struct tm_pusher **out)
{
	struct tm_pusher *p;

	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
		return tm_error("push URL '%s' must start with http:// or https://", url);
	p = calloc(1, sizeof(*p));
	if (!p)
		return tm_error("out of memory");
	if (read_token(token_file, p->auth) < 0) {
		free(p);
		return -1;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	p->url = push_url(url);
	p->curl = curl_easy_init();
	if (!p->url || !p->curl) {
		tm_pusher_free(p);
		return tm_error("cannot set up pushing to '%s'", url);
	}
	p->st = st;
	p->run_id = run_id;
	if (first_hello(p)) {
		tm_pusher_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void tm_pusher_free(struct tm_pusher *p)
{
	if (!p)
		return;
	if (p->curl)
		curl_easy_cleanup(p->curl);
	free(p->url);
	free(p);
}

/* ---- building a batch from the local store ---- */

/* The run as the protocol sends it; a machine or arm name the server would
 * refuse is left out (the server files the run under the token's name). */
static json_t *run_meta(const struct tm_run_info *ri)
{
	json_t *o = tm_run_json(ri, TM_RUN_JSON_PUSH);

	if (o && ri->machine && !tm_name_valid(ri->machine))
		json_object_del(o, "machine");
	if (o && ri->arm && !tm_name_valid(ri->arm))
		json_object_del(o, "arm");
	return o;
}

static void set_text(json_t *o, const char *key, const char *v)
{
	if (v)
		json_object_set_new(o, key, json_string(v));
}

/* The bench of a bench's run, as the protocol sends it (what the server
 * needs to show the same table): NULL for a run of no bench, or a bench
 * the store cannot read (the run is then sent as a loose one). */
static json_t *bench_meta(struct tm_store *st, const struct tm_run_info *ri)
{
	struct tm_bench_info b;
	json_t *o;

	if (ri->bench_id <= 0 || tm_bench_store_get(st, ri->bench_id, &b) != 0)
		return NULL;
	o = b.uuid ? json_pack("{s:s, s:s, s:I, s:I}", "uuid", b.uuid, "spec_json",
	                       b.spec_json ? b.spec_json : "{}", "seed", (json_int_t)b.seed,
	                       "started_wall_usec", (json_int_t)b.started_wall_usec)
	           : NULL;
	if (o) {
		set_text(o, "name", b.name);
		set_text(o, "order", b.order);
		set_text(o, "host", b.host);
		if (b.ended_wall_usec)
			json_object_set_new(o, "ended_wall_usec", json_integer(b.ended_wall_usec));
	}
	tm_bench_info_release(&b);
	return o;
}

struct param_of {
	int64_t run_id;
	json_t *out;
};

static int param_of_run(void *ctx, int64_t run_id, const char *name, double value, const char *text)
{
	struct param_of *p = ctx;
	if (run_id != p->run_id || !name)
		return 0;
	p->out =
	    json_pack("{s:s, s:f, s:s}", "name", name, "value", value, "text", text ? text : "");
	return 1;
}

/* What the bench noted of its run once it ended (warmup, the work's wall
 * time, the rig's CPU, the --param value it ran at): NULL until then. */
static json_t *bench_note(struct tm_store *st, const struct tm_run_info *ri)
{
	struct tm_bench_run_note n;
	struct param_of param = {ri->id, NULL};
	json_t *o;

	if (ri->bench_id <= 0 || tm_bench_store_note(st, ri->id, &n) != 0)
		return NULL;
	o = json_pack("{s:i, s:b}", "arm_index", n.arm_index, "warmup", n.warmup);
	if (o && n.wall_usec > 0)
		json_object_set_new(o, "wall_usec", json_integer(n.wall_usec));
	if (o && n.rig_cpu_usec >= 0)
		json_object_set_new(o, "rig_cpu_usec", json_integer(n.rig_cpu_usec));
	if (o && tm_bench_params_each(st, ri->bench_id, param_of_run, &param) > 0 && param.out)
		json_object_set_new(o, "param", param.out);
	return o;
}

static int add_sample(void *ctx, const struct tm_sample *s)
{
	json_t *vals = json_object();

	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_sample_has(s, (enum tm_metric)m))
			json_object_set_new(vals, tm_metric_info((enum tm_metric)m)->name,
			                    json_integer(s->v[m]));
	json_array_append_new(ctx, json_pack("{s:I, s:I, s:I, s:I, s:o}", "seq", (json_int_t)s->seq,
	                                     "t_wall_usec", (json_int_t)s->t_wall_usec,
	                                     "t_mono_usec", (json_int_t)s->t_mono_usec, "late_usec",
	                                     (json_int_t)s->late_usec, "values", vals));
	return 0;
}

/* The scraped values of samples FROM..TO (record --scrape) into each
 * sample's "scraped" array: they ride with their sample, so they are
 * filed exactly once with it. */
struct scraped_push {
	json_t *samples;
	int64_t from;
	size_t n;
	struct {
		int64_t id;
		char *name, *kind, *source;
	} s[512];
};

static int push_series(void *ctx, const struct tm_scraped_series *ser)
{
	struct scraped_push *c = ctx;

	if (c->n == sizeof(c->s) / sizeof(c->s[0]) || !ser->kind || !strcmp(ser->kind, "unknown"))
		return 0;
	c->s[c->n].id = ser->id;
	c->s[c->n].name = strdup(ser->name ? ser->name : "");
	c->s[c->n].kind = strdup(ser->kind);
	c->s[c->n].source = strdup(ser->source ? ser->source : "");
	c->n++;
	return 0;
}

static int push_value(void *ctx, int64_t series_id, int64_t seq, int64_t t_wall_usec, double v)
{
	struct scraped_push *c = ctx;
	json_t *sample = json_array_get(c->samples, (size_t)(seq - c->from)), *arr;
	size_t i;

	for (i = 0; i < c->n && c->s[i].id != series_id; i++)
		;
	if (i == c->n || !sample || !c->s[i].name || !c->s[i].kind || !c->s[i].source)
		return 0;
	if (!(arr = json_object_get(sample, "scraped"))) {
		arr = json_array();
		json_object_set_new(sample, "scraped", arr);
	}
	if (json_array_size(arr) < TM_BATCH_MAX_SCRAPED)
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:f, s:I}", "name",
		                                     c->s[i].name, "kind", c->s[i].kind, "source",
		                                     c->s[i].source, "value", v, "t_wall_usec",
		                                     (json_int_t)t_wall_usec));
	return 0;
}

static void add_scraped(struct tm_store *st, int64_t run_id, json_t *samples, int64_t from,
                        int64_t to)
{
	struct scraped_push *c = calloc(1, sizeof(*c));

	if (!c)
		return;
	c->samples = samples;
	c->from = from;
	if (tm_store_each_scraped_series(st, run_id, push_series, c) == 0 && c->n)
		tm_store_each_scraped_value(st, run_id, 0, from, to, push_value, c);
	for (size_t i = 0; i < c->n; i++) {
		free(c->s[i].name);
		free(c->s[i].kind);
		free(c->s[i].source);
	}
	free(c);
}

/* Items of the local store in the order they were stored, from position
 * FROM: the server numbers them the same way, since it stores them in the
 * order they come.  Each becomes {"i": position, ...} as the protocol says. */
struct items {
	json_t *arr;
	int64_t i;
};

static json_t *item(struct items *it, int64_t t_wall_usec, int64_t t_mono_usec)
{
	json_t *o = json_pack("{s:I, s:I, s:I}", "i", (json_int_t)it->i++, "t_wall_usec",
	                      (json_int_t)t_wall_usec, "t_mono_usec", (json_int_t)t_mono_usec);

	if (!o || json_array_append_new(it->arr, o))
		return NULL;
	return o;
}

static int add_event(void *ctx, const struct tm_event *ev)
{
	json_t *o = item(ctx, ev->t_wall_usec, ev->t_mono_usec);

	if (!o)
		return -1;
	json_object_set_new(o, "kind", json_string(ev->kind));
	json_object_set_new(o, "pid", json_integer(ev->pid));
	json_object_set_new(o, "value", json_integer(ev->value));
	if (ev->detail)
		json_object_set_new(o, "detail", json_string(ev->detail));
	return 0;
}

static int add_progress(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value)
{
	json_t *o = item(ctx, t_wall_usec, t_mono_usec);

	return o ? json_object_set_new(o, "value", json_real(value)) : -1;
}

static int add_mark(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, const char *text)
{
	json_t *o = item(ctx, t_wall_usec, t_mono_usec);

	return o ? json_object_set_new(o, "text", json_string(text ? text : "")) : -1;
}

enum item_kind { ITEM_EVENTS, ITEM_PROGRESS, ITEM_MARKS };

/* Up to PUSH_ITEMS of KIND past position FROM, as a JSON array (empty when
 * the store cannot be read: the next tick tries again). */
static json_t *local_items(struct tm_store *st, enum item_kind kind, int64_t run_id, int64_t from)
{
	struct items it = {json_array(), from};
	int rc = -1;

	if (!it.arr)
		return NULL;
	if (kind == ITEM_EVENTS)
		rc = tm_store_each_event_from(st, run_id, from, PUSH_ITEMS, add_event, &it);
	else if (kind == ITEM_PROGRESS)
		rc = tm_store_each_progress_from(st, run_id, from, PUSH_ITEMS, add_progress, &it);
	else
		rc = tm_store_each_mark_from(st, run_id, from, PUSH_ITEMS, add_mark, &it);
	if (rc)
		json_array_clear(it.arr);
	return it.arr;
}

/* The next batch: everything past the acknowledged positions, up to the
 * batch limits; *ALL says whether it reaches the end of what is local. */
static json_t *next_batch(struct tm_pusher *p, const struct tm_run_info *ri, bool *all)
{
	json_t *b = json_pack("{s:i, s:o}", "v", TM_PUSH_PROTOCOL, "run", run_meta(ri));
	json_t *samples, *ev, *pr, *mk, *bench = bench_meta(p->st, ri);
	int64_t last = -1;

	*all = true;
	if (bench) {
		json_t *note = bench_note(p->st, ri);
		json_object_set_new(b, "bench", bench);
		if (note)
			json_object_set_new(b, "bench_run", note);
	}
	if (!p->synced)
		return b; /* a hello: the answer says where the server is */
	samples = json_array();
	tm_store_last_seq(p->st, p->run_id, &last);
	if (last >= p->at.next_seq) {
		int64_t to = p->at.next_seq + PUSH_SAMPLES - 1;
		tm_store_each_sample(p->st, p->run_id, p->at.next_seq, to < last ? to : last,
		                     add_sample, samples);
		add_scraped(p->st, p->run_id, samples, p->at.next_seq, to < last ? to : last);
		*all = to >= last;
	}
	ev = local_items(p->st, ITEM_EVENTS, p->run_id, p->at.next_event);
	pr = local_items(p->st, ITEM_PROGRESS, p->run_id, p->at.next_progress);
	mk = local_items(p->st, ITEM_MARKS, p->run_id, p->at.next_mark);
	*all = *all && json_array_size(ev) < PUSH_ITEMS && json_array_size(pr) < PUSH_ITEMS &&
	       json_array_size(mk) < PUSH_ITEMS;
	json_object_set_new(b, "samples", samples);
	json_object_set_new(b, "events", ev);
	json_object_set_new(b, "progress", pr);
	json_object_set_new(b, "marks", mk);
	if (*all && ri->ended_wall_usec && !p->at.ended)
		json_object_set_new(b, "end", tm_run_json(ri, TM_RUN_JSON_PUSH_END));
	return b;
}

/* ---- sending ---- */

static void take_ack(struct tm_pusher *p, const char *text)
{
	struct tm_push_ack ack;

	p->synced = text && !tm_push_ack_parse(text, strlen(text), &ack);
	if (p->synced)
		p->at = ack;
}

static void back_off(struct tm_pusher *p, int64_t usec)
{
	p->backoff_usec = usec;
	p->next_try_usec = tm_now_mono_usec() + usec;
}

/* Sends BODY; returns the HTTP status, or 0 when the server was not reached. */
static long post(struct tm_pusher *p, const char *body, struct outbuf *resp)
{
	struct curl_slist *h = NULL;
	long status = 0;
	CURLcode rc;

	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, p->auth);
	h = curl_slist_append(h, "Expect:");
	curl_easy_reset(p->curl);
	curl_easy_setopt(p->curl, CURLOPT_URL, p->url);
	curl_easy_setopt(p->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(p->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(p->curl, CURLOPT_TIMEOUT_MS, 1500L);
	curl_easy_setopt(p->curl, CURLOPT_CONNECTTIMEOUT_MS, 500L);
	curl_easy_setopt(p->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(p->curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(p->curl, CURLOPT_WRITEDATA, resp);
	rc = curl_easy_perform(p->curl);
	if (rc == CURLE_OK)
		curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	return status;
}

static void server_why(const char *text, char *out, size_t size)
{
	tm_push_refusal_why(text, text ? strlen(text) : 0, out, size);
}

static void report_down(struct tm_pusher *p, long status, const char *resp)
{
	if (p->down_reported)
		return;
	p->down_reported = true;
	if (status == 0)
		tm_warn("push: server %s not reachable; recording locally, will send later",
		        p->url);
	else
		tm_warn("push: server refused a batch (HTTP %ld): %.200s", status,
		        resp ? resp : "");
}

/* One batch out and its answer in.  1 if there is more to send now, 0 if
 * not, -1 if the server could not take it (backing off). */
static int send_one(struct tm_pusher *p)
{
	struct tm_run_info ri;
	struct outbuf resp = {0};
	bool all;
	json_t *b;
	char *body;
	long status;
	bool was_synced = p->synced;

	if (tm_store_run_get(p->st, p->run_id, &ri) != 0)
		return -1;
	b = next_batch(p, &ri, &all);
	tm_run_info_release(&ri);
	body = json_dumps(b, JSON_COMPACT);
	json_decref(b);
	if (!body)
		return -1;
	status = post(p, body, &resp);
	free(body);
	p->last_status = status;
	p->last_why[0] = 0;
	if (status != 200 && status != 409)
		server_why(resp.p, p->last_why, sizeof(p->last_why));
	if (status == 200 || status == 409) {
		take_ack(p, resp.p);
		free(resp.p);
		if (p->down_reported)
			tm_warn("push: server %s reachable again; sending what it missed", p->url);
		p->down_reported = false;
		p->backoff_usec = 0;
		return (!was_synced || status == 409 || !all) ? 1 : 0;
	}
	if (!p->probing || status != 401)
		report_down(p, status, resp.p);
	free(resp.p);
	p->synced = false; /* ask again where the server is before sending more */
	if (status == 429)
		back_off(p, 1000000);
	else if (status >= 400 && status < 500)
		back_off(p, 30000000); /* refused: retrying soon would not help */
	else
		back_off(p, p->backoff_usec
		                ? (p->backoff_usec * 2 > BACKOFF_MAX_USEC ? BACKOFF_MAX_USEC
		                                                          : p->backoff_usec * 2)
		                : 250000);
	return -1;
}

void tm_pusher_tick(struct tm_pusher *p)
{
	int64_t start = tm_now_mono_usec();

	if (start < p->next_try_usec)
		return;
	while (send_one(p) == 1 && tm_now_mono_usec() - start < TICK_BUDGET_USEC)
		;
}

bool tm_pusher_reached(const struct tm_pusher *p)
{
	return p->last_status != 0;
}

const char *tm_pusher_machine(const struct tm_pusher *p)
{
	return p->synced && p->at.machine[0] ? p->at.machine : NULL;
}

static bool all_sent(struct tm_pusher *p)
{
	struct tm_run_info ri;
	int64_t last = -1;
	bool ended;

	if (!p->synced || tm_store_run_get(p->st, p->run_id, &ri) != 0)
		return false;
	ended = ri.ended_wall_usec != 0;
	tm_run_info_release(&ri);
	tm_store_last_seq(p->st, p->run_id, &last);
	if (p->at.next_seq <= last || (ended && !p->at.ended))
		return false;
	/* events, progress and marks: nothing past the acknowledged positions */
	struct tm_item_counts n;
	if (tm_store_count_items(p->st, p->run_id, &n) < 0)
		return false;
	return n.events <= p->at.next_event && n.progress <= p->at.next_progress &&
	       n.marks <= p->at.next_mark;
}

int tm_pusher_finish(struct tm_pusher *p, int64_t timeout_usec)
{
	int64_t deadline = tm_now_mono_usec() + timeout_usec;

	/* nothing new since the last answer: no request (an empty batch a
	 * step was a commit on the server, 4 KiB and more, issue 23) */
	if (all_sent(p))
		return 0;
	for (;;) {
		if (tm_now_mono_usec() >= p->next_try_usec)
			tm_pusher_tick(p);
		if (all_sent(p))
			return 0;
		if (tm_now_mono_usec() >= deadline)
			return -1;
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

struct push_runs {
	const char *url, *token_file;
	struct tm_store *st;
	int *failed, *sent;
};

static int push_one(struct push_runs *c, int64_t run_id)
{
	struct tm_pusher *p;
	int rc;

	if (tm_pusher_new(c->url, c->token_file, c->st, run_id, &p) < 0)
		return -1;
	rc = tm_pusher_finish(p, 60 * 1000000LL);
	tm_pusher_free(p);
	if (rc < 0) {
		tm_note("tidemark serve push: run %lld: not everything was acknowledged",
		        (long long)run_id);
		(*c->failed)++;
	} else {
		(*c->sent)++;
	}
	return 0;
}

static int push_run_cb(void *ctx, const struct tm_run_info *ri)
{
	return push_one(ctx, ri->id) < 0 ? -1 : 0;
}

int tm_push_runs(struct tm_store *st, const char *url, const char *token_file, const int64_t *ids,
                 int n, int *sent, int *failed)
{
	struct push_runs c = {url, token_file, st, failed, sent};
	struct stat sb;

	if (stat(token_file, &sb) == 0 && (sb.st_mode & 0044)) /* once, not once a run */
		tm_warn("token file '%s' is readable by others (chmod 600 it)", token_file);
	if (n == 0)
		return tm_store_each_run(st, 0, push_run_cb, &c) < 0 ? -1 : 0;
	for (int i = 0; i < n; i++)
		if (push_one(&c, ids[i]) < 0)
			return -1;
	return 0;
}
