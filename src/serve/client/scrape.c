/* record --scrape's fetching thread; see serve/client/scrape.h. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/client/scrape.h"
#include "base/banned.h"

/* A page bigger than this is refused (an endpoint gone mad, not metrics). */
#define BODY_MAX (8u << 20)

struct tm_scraper {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC: wakes the thread to stop */
	pthread_t thread;
	bool stop;
	int refs; /* the recorder's and the thread's: the last one frees */
	struct tm_scrape_spec spec;
	int64_t start, interval, lead, margin;
	/* published under MU */
	int64_t pub_due; /* the sample the result is for (0: none yet) */
	bool pub_ok;
	int64_t pub_wall;
	char pub_why[256];
	struct tm_scrape_result pub;
	/* the thread's own */
	CURL *curl;
	char *body;
	size_t len;
	bool too_big;
	struct tm_scrape_result work;
};

static void release(struct tm_scraper *s)
{
	bool last;

	pthread_mutex_lock(&s->mu);
	last = --s->refs == 0;
	pthread_mutex_unlock(&s->mu);
	if (!last)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->body);
	free(s);
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct tm_scraper *s = ctx;
	size_t add = size * n;

	if (s->len + add > BODY_MAX) {
		s->too_big = true;
		return 0;
	}
	memcpy(s->body + s->len, data, add);
	s->len += add;
	return add;
}

/* libcurl asks this while a request runs: non-zero aborts it (we stop). */
static int on_progress(void *ctx, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct tm_scraper *s = ctx;
	(void)a, (void)b, (void)c, (void)d;
	return __atomic_load_n(&s->stop, __ATOMIC_RELAXED);
}

/* One request, answered by DUE - MARGIN or not at all.  0 with S->work
 * filled, or -1 with ERR set. */
static int fetch(struct tm_scraper *s, int64_t due, struct tm_err *err)
{
	int64_t left_ms = (due - s->margin - tm_now_mono_usec()) / 1000;
	char curl_err[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode rc;

	if (left_ms < 1) {
		return tm_err_set(err, 0, "no time left before the sample");
	}
	s->len = 0;
	s->too_big = false;
	curl_easy_setopt(s->curl, CURLOPT_TIMEOUT_MS, (long)left_ms);
	curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)left_ms);
	curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, curl_err);
	rc = curl_easy_perform(s->curl);
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK) {
		return tm_err_set(err, 0, "%s",
		                  s->too_big  ? "the page is over 8 MiB"
		                  : *curl_err ? curl_err
		                              : curl_easy_strerror(rc));
	}
	if (status != 200) {
		return tm_err_set(err, 0, "HTTP status %ld", status);
	}
	return tm_scrape_select(&s->spec, s->body, s->len, &s->work, err);
}

static void publish(struct tm_scraper *s, int64_t due, bool ok, const char *why)
{
	pthread_mutex_lock(&s->mu);
	s->pub_due = due;
	s->pub_ok = ok;
	s->pub_wall = tm_now_wall_usec();
	snprintf(s->pub_why, sizeof(s->pub_why), "%.255s", why);
	if (ok) {
		s->pub.n = s->work.n;
		s->pub.dropped = s->work.dropped;
		s->pub.matched = s->work.matched;
		s->pub.go = s->work.go;
		memcpy(s->pub.v, s->work.v, s->work.n * sizeof(s->work.v[0]));
	}
	pthread_mutex_unlock(&s->mu);
}

/* Sleeps until the monotonic time T (usec) or until told to stop: true
 * when told to stop. */
static bool sleep_until(struct tm_scraper *s, int64_t t)
{
	struct timespec ts = {.tv_sec = t / 1000000, .tv_nsec = (t % 1000000) * 1000};
	bool stop;

	pthread_mutex_lock(&s->mu);
	while (!s->stop && tm_now_mono_usec() < t)
		if (pthread_cond_timedwait(&s->cv, &s->mu, &ts) == ETIMEDOUT)
			break;
	stop = s->stop;
	pthread_mutex_unlock(&s->mu);
	return stop;
}

static void *run(void *arg)
{
	struct tm_scraper *s = arg;
	struct tm_err err;

	for (int64_t k = 1;;) {
		int64_t due = s->start + k * s->interval, now;
		if (sleep_until(s, due - s->lead))
			break;
		err.msg[0] = 0;
		publish(s, due, fetch(s, due, &err) == 0, err.msg);
		/* the next sample whose request can still start on time */
		now = tm_now_mono_usec();
		k++;
		if (s->start + k * s->interval - s->lead < now)
			k = (now - s->start + s->lead) / s->interval + 1;
	}
	curl_easy_cleanup(s->curl);
	s->curl = NULL;
	release(s);
	return NULL;
}

static int curl_setup(struct tm_scraper *s)
{
	if (!(s->curl = curl_easy_init()))
		return tm_error("--scrape: cannot start libcurl");
	curl_easy_setopt(s->curl, CURLOPT_URL, s->spec.url);
	curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(s->curl, CURLOPT_USERAGENT, "tidemark-scrape");
	curl_easy_setopt(s->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(s->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(s->curl, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(s->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(s->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(s->curl, CURLOPT_XFERINFODATA, s);
	return 0;
}

int tm_scraper_start(const struct tm_scrape_spec *spec, int64_t start_mono_usec,
                     int64_t interval_usec, struct tm_scraper **out)
{
	struct tm_scraper *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (!s || !(s->body = malloc(BODY_MAX))) {
		free(s);
		return tm_error("out of memory");
	}
	s->spec = *spec;
	s->start = start_mono_usec;
	s->interval = interval_usec;
	s->lead = interval_usec / 2 < 2000000 ? interval_usec / 2 : 2000000;
	s->margin = s->lead / 5;
	s->refs = 2;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (curl_setup(s) || pthread_create(&s->thread, NULL, run, s)) {
		if (s->curl)
			curl_easy_cleanup(s->curl);
		s->refs = 1;
		release(s);
		return tm_error("--scrape %s: cannot start its thread", spec->url);
	}
	*out = s;
	return 0;
}

int tm_scraper_take(struct tm_scraper *s, int64_t due_mono_usec, struct tm_scrape_result *out,
                    int64_t *t_wall_usec, struct tm_err *err)
{
	int rc = 1;

	pthread_mutex_lock(&s->mu);
	if (s->pub_due != due_mono_usec)
		tm_err_set(err, 0, "no answer before the sample");
	else if (!s->pub_ok)
		tm_err_set(err, 0, "%s", s->pub_why);
	else {
		out->n = s->pub.n;
		out->dropped = s->pub.dropped;
		out->matched = s->pub.matched;
		out->go = s->pub.go;
		memcpy(out->v, s->pub.v, s->pub.n * sizeof(s->pub.v[0]));
		*t_wall_usec = s->pub_wall;
		rc = 0;
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}

void tm_scraper_stop(struct tm_scraper *s)
{
	struct timespec until;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	__atomic_store_n(&s->stop, true, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 300000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	if (pthread_timedjoin_np(s->thread, NULL, &until))
		pthread_detach(s->thread); /* it frees itself when its request ends */
	release(s);
}
