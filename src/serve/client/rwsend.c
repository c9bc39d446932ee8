/* record --remote-write: the thread that sends the store's samples to the
 * receiver, oldest first, and notes what it acknowledged; see
 * serve/client/remotewrite.h and store/remote.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <curl/curl.h>

#include "base/error.h"
#include "base/pb.h"
#include "base/util.h"
#include "serve/client/remotewrite.h"
#include "store/remote.h"
#include "store/store.h"
#include "tm_version.h"
#include "base/banned.h"

#define BATCH_SAMPLES    500
#define BACKOFF_MAX_USEC 30000000

struct tm_rw;
static void rw_free(struct tm_rw *rw);

struct tm_rw {
	char *url, *store_path, *auth, *userpwd;
	int64_t run_id, interval_usec;
	CURL *curl;
	struct tm_store *st; /* the thread's own connection */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop;             /* under mu: stop once done or past the deadline */
	int64_t deadline_usec; /* under mu: when stopping, the last moment to send */
	/* the thread's own */
	int64_t backoff_usec, sent, refused;
	bool down_said, left;
};

/* A credential file's one line, without its newline: malloc'd, or NULL
 * after tm_error.  Warns when others may read it. */
static char *read_secret(const char *path)
{
	size_t len;
	char *text = tm_read_file(path, &len);
	struct stat sb;

	if (!text)
		return tm_error("cannot read '%s': %s", path, strerror(errno)), NULL;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = 0;
	if (!len || strchr(text, '\n')) {
		free(text);
		return tm_error("'%s' must hold one line", path), NULL;
	}
	if (stat(path, &sb) == 0 && (sb.st_mode & 0044))
		tm_warn("'%s' is readable by others", path);
	return text;
}

static int set_auth(struct tm_rw *rw, const struct tm_rw_opts *o)
{
	if (o->token_file) {
		char *tok = read_secret(o->token_file);
		if (!tok)
			return -1;
		size_t n = strlen(tok) + 32;
		if ((rw->auth = malloc(n)))
			snprintf(rw->auth, n, "Authorization: Bearer %s", tok);
		free(tok);
		if (!rw->auth)
			return tm_error("out of memory");
	}
	if (o->basic_auth_file && !(rw->userpwd = read_secret(o->basic_auth_file)))
		return -1;
	return 0;
}

static size_t discard(char *data, size_t size, size_t n, void *ctx)
{
	(void)data, (void)ctx;
	return size * n;
}

/* POSTs BODY; the HTTP status, or 0 when the receiver was not reached. */
static long post(struct tm_rw *rw, const uint8_t *body, size_t len)
{
	struct curl_slist *h = NULL;
	long status = 0;

	h = curl_slist_append(h, "Content-Type: application/x-protobuf");
	h = curl_slist_append(h, "Content-Encoding: snappy");
	h = curl_slist_append(h, "X-Prometheus-Remote-Write-Version: 0.1.0");
	h = curl_slist_append(h, "User-Agent: tidemark/" TIDEMARK_VERSION);
	h = curl_slist_append(h, "Expect:");
	if (rw->auth)
		h = curl_slist_append(h, rw->auth);
	curl_easy_reset(rw->curl);
	curl_easy_setopt(rw->curl, CURLOPT_URL, rw->url);
	curl_easy_setopt(rw->curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(rw->curl, CURLOPT_POSTFIELDS, (const char *)body);
	curl_easy_setopt(rw->curl, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(rw->curl, CURLOPT_TIMEOUT_MS, 10000L);
	curl_easy_setopt(rw->curl, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
	curl_easy_setopt(rw->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(rw->curl, CURLOPT_WRITEFUNCTION, discard);
	if (rw->userpwd) {
		curl_easy_setopt(rw->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(rw->curl, CURLOPT_USERPWD, rw->userpwd);
	}
	if (curl_easy_perform(rw->curl) == CURLE_OK)
		curl_easy_getinfo(rw->curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	return status;
}

/* Up to BATCH_SAMPLES samples of a run, copied. */
struct batch {
	struct tm_sample *s;
	size_t n;
};

static int take(void *ctx, const struct tm_sample *s)
{
	struct batch *b = ctx;

	b->s[b->n++] = *s;
	return 0;
}

/* What the receiver's answer means for the batch: 1 sent (or refused for
 * good: a 4xx other than 429, which no retry mends; said once), 0 not now
 * (backing off). */
static int judge(struct tm_rw *rw, long status, size_t n)
{
	if (status >= 200 && status < 300) {
		if (rw->down_said)
			tm_warn("remote write: %s answers again; sending what it missed", rw->url);
		rw->down_said = false;
		rw->backoff_usec = 0;
		rw->sent += (int64_t)n;
		return 1;
	}
	if (status >= 400 && status < 500 && status != 429) {
		if (!rw->refused)
			tm_warn(
			    "remote write: %s refused a batch (HTTP %ld); its samples stay only "
			    "in the store",
			    rw->url, status);
		rw->refused += (int64_t)n;
		return 1;
	}
	if (!rw->down_said)
		tm_warn("remote write: %s not reachable (%s %ld); recording locally, will send "
		        "later",
		        rw->url, status ? "HTTP" : "no answer", status);
	rw->down_said = true;
	rw->backoff_usec = rw->backoff_usec ? rw->backoff_usec * 2 : 500000;
	if (rw->backoff_usec > BACKOFF_MAX_USEC)
		rw->backoff_usec = BACKOFF_MAX_USEC;
	return 0;
}

/* Sends the next batch of RUN_ID after SENT_SEQ: 1 sent (more may
 * follow), 0 the receiver did not take it, -1 on a store error. */
static int send_batch(struct tm_rw *rw, int64_t run_id, int64_t sent_seq)
{
	struct tm_run_info ri;
	struct batch b = {calloc(BATCH_SAMPLES, sizeof(struct tm_sample)), 0};
	uint8_t *body = NULL;
	size_t len = 0;
	int rc = -1;

	if (!b.s || tm_store_run_get(rw->st, run_id, &ri) != 0) {
		free(b.s);
		return -1;
	}
	if (!tm_store_each_sample(rw->st, run_id, sent_seq + 1, sent_seq + BATCH_SAMPLES, take,
	                          &b) &&
	    b.n) {
		struct tm_rw_labels lb = {ri.machine, ri.uuid, ri.cgroup_path};
		if (!tm_rw_encode(&lb, b.s, b.n, &body, &len))
			rc = judge(rw, post(rw, body, len), b.n);
		if (rc == 1 && tm_store_rw_set_sent(rw->st, rw->url, run_id, b.s[b.n - 1].seq))
			rc = -1;
	}
	tm_run_info_release(&ri);
	free(body);
	free(b.s);
	return rc;
}

/* The first run with unsent samples (the walk's read ends before the
 * cursor is written: a write from inside it could not take the lock). */
struct first_pending {
	int64_t run_id, sent_seq;
};

static int first(void *ctx, int64_t run_id, int64_t sent_seq)
{
	struct first_pending *fp = ctx;

	fp->run_id = run_id, fp->sent_seq = sent_seq;
	return 1;
}

/* One batch of the oldest run with unsent samples: 2 sent, 1 the receiver
 * did not take it, 0 nothing to send, -1 on a store error. */
static int send_next(struct tm_rw *rw)
{
	struct first_pending fp;
	int r = tm_store_rw_each_pending(rw->st, rw->url, first, &fp);

	if (r != 1)
		return r;
	r = send_batch(rw, fp.run_id, fp.sent_seq);
	return r == 1 ? 2 : (r == 0 ? 1 : -1);
}

static bool should_stop(struct tm_rw *rw, bool idle)
{
	bool stop;

	pthread_mutex_lock(&rw->mu);
	/* a receiver that is down is not waited for: the next recording sends */
	stop = rw->stop && (idle || rw->down_said || tm_now_mono_usec() >= rw->deadline_usec);
	pthread_mutex_unlock(&rw->mu);
	return stop;
}

/* Sleeps USEC, or less when stop is asked (then at most until the
 * deadline: a receiver that is down is not asked again sooner). */
static void nap(struct tm_rw *rw, int64_t usec)
{
	struct timespec ts;
	int64_t until = tm_now_wall_usec() + usec;

	pthread_mutex_lock(&rw->mu);
	if (rw->stop) {
		int64_t left = rw->deadline_usec - tm_now_mono_usec();
		pthread_mutex_unlock(&rw->mu);
		if (left > usec)
			left = usec;
		if (left > 0) {
			struct timespec d = {left / 1000000, (left % 1000000) * 1000};
			nanosleep(&d, NULL);
		}
		return;
	}
	ts.tv_sec = until / 1000000;
	ts.tv_nsec = (until % 1000000) * 1000;
	pthread_cond_timedwait(&rw->cv, &rw->mu, &ts);
	pthread_mutex_unlock(&rw->mu);
}

static int any(void *ctx, int64_t run_id, int64_t sent_seq)
{
	(void)ctx, (void)run_id, (void)sent_seq;
	return 1;
}

static void *rw_thread(void *arg)
{
	struct tm_rw *rw = arg;

	for (;;) {
		int r = send_next(rw);
		if (should_stop(rw, r == 0 || r == -1))
			break;
		if (r != 2)
			nap(rw, r == 1 ? rw->backoff_usec : rw->interval_usec);
	}
	rw->left = tm_store_rw_each_pending(rw->st, rw->url, any, NULL) != 0;
	return NULL;
}

int tm_rw_start(const struct tm_rw_opts *o, struct tm_rw **out)
{
	struct tm_rw *rw;

	*out = NULL;
	if (tm_pb_ready()) /* said now, not at each send */
		return -1;
	if (!(rw = calloc(1, sizeof(*rw))))
		return tm_error("out of memory");
	rw->url = strdup(o->url);
	rw->store_path = strdup(o->store_path);
	rw->run_id = o->run_id;
	rw->interval_usec = o->interval_usec > 0 ? o->interval_usec : 1000000;
	pthread_mutex_init(&rw->mu, NULL);
	pthread_cond_init(&rw->cv, NULL);
	if (!rw->url || !rw->store_path || set_auth(rw, o) || !(rw->curl = curl_easy_init()) ||
	    tm_store_open(rw->store_path, &rw->st) || tm_store_rw_init(rw->st) ||
	    tm_store_rw_add(rw->st, rw->url, rw->run_id)) {
		rw_free(rw);
		return -1;
	}
	if (pthread_create(&rw->thread, NULL, rw_thread, rw)) {
		rw_free(rw);
		return tm_error("remote write: cannot start its thread");
	}
	*out = rw;
	return 0;
}

int tm_rw_stop(struct tm_rw *rw, int64_t wait_usec)
{
	int rc;

	if (!rw)
		return 0;
	pthread_mutex_lock(&rw->mu);
	rw->stop = true;
	rw->deadline_usec = tm_now_mono_usec() + wait_usec;
	pthread_cond_signal(&rw->cv);
	pthread_mutex_unlock(&rw->mu);
	pthread_join(rw->thread, NULL);
	if (rw->left)
		tm_warn("remote write: %s did not take every sample; the rest stays in the store "
		        "and goes with the next recording to it",
		        rw->url);
	rc = rw->left ? 1 : 0;
	rw_free(rw);
	return rc;
}

static void rw_free(struct tm_rw *rw)
{
	if (rw->curl)
		curl_easy_cleanup(rw->curl);
	if (rw->st)
		tm_store_close(rw->st);
	pthread_mutex_destroy(&rw->mu);
	pthread_cond_destroy(&rw->cv);
	free(rw->url), free(rw->store_path), free(rw->auth), free(rw->userpwd);
	free(rw);
}
