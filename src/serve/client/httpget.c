/* One bounded HTTP GET into a file; see serve/client/httpget.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/util.h"
#include "serve/client/httpget.h"
#include "base/banned.h"

struct sink {
	int fd;
	uint64_t max, len;
	bool too_big;
	int err; /* errno of a failed write */
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t add = size * n, done = 0;

	if (s->len + add > s->max) {
		s->too_big = true;
		return 0;
	}
	while (done < add) {
		ssize_t w = write(s->fd, data + done, add - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->err = w < 0 ? errno : ENOSPC;
			return 0;
		}
		done += (size_t)w;
	}
	s->len += add;
	return add;
}

/* The reason a transfer that ended with RC failed. */
static int reason(const struct sink *s, CURLcode rc, const char *curl_err, struct tm_err *err)
{
	if (s->too_big)
		return tm_err_set(err, 0, "the body is over %llu bytes",
		                  (unsigned long long)s->max);
	if (s->err)
		return tm_err_set(err, s->err, "cannot write the body: %s", strerror(s->err));
	return tm_err_set(err, 0, "%s", *curl_err ? curl_err : curl_easy_strerror(rc));
}

int tm_http_get_fd(const char *url, int fd, uint64_t max_bytes, int64_t deadline_mono_usec,
                   uint64_t *wrote, struct tm_err *err)
{
	int64_t left_ms = (deadline_mono_usec - tm_now_mono_usec()) / 1000;
	char curl_err[CURL_ERROR_SIZE] = "";
	struct sink s = {.fd = fd, .max = max_bytes};
	long status = 0;

	if (left_ms < 1) {
		return tm_err_set(err, 0, "no time left before the deadline");
	}
	CURL *c = curl_easy_init();
	if (!c) {
		return tm_err_set(err, 0, "cannot start libcurl");
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "tidemark-snap");
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)left_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)left_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	CURLcode rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK)
		return reason(&s, rc, curl_err, err);
	if (status != 200) {
		return tm_err_set(err, 0, "HTTP status %ld", status);
	}
	*wrote = s.len;
	return 0;
}
