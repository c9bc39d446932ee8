/* libFuzzer target: what the server and the pusher read from peers, as
 * pure functions (the first byte picks one, modulo their count; the rest
 * is its input): 0 the series query of /api/v1/runs/ID/series (six
 * NUL-separated parts: metrics, from, to, after_seq, bucket_usec, points),
 * 1 a URL's route and id (tm_route_parse, base/routes.h), 2 a push
 * acknowledgement (tm_push_ack_parse), 3 a refusal's reason
 * (tm_push_refusal_why).  They must never crash, read out of bounds or
 * leak; what they accept is within the bounds they promise. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/routes.h"
#include "serve/api.h"
#include "serve/ingest.h"
#include "serve/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void series_query(const char *buf, size_t len)
{
	const char *part[6] = {NULL};
	struct tm_series_query q;
	struct tm_err err = {0};
	size_t at = 0;

	/* an absent part (NULL) when the input has fewer than six */
	for (int i = 0; i < 6 && at <= len; i++) {
		part[i] = buf + at;
		at += strlen(buf + at) + 1;
	}
	if (tm_series_query_parse(part[0], part[1], part[2], part[3], part[4], part[5], &q, &err))
		return;
	if (q.nmetrics < 0 || q.nmetrics > TM_SERIES_MAX_METRICS || q.points < 1 ||
	    q.points > TM_SERIES_MAX_POINTS || q.bucket_usec < 0)
		abort();
	for (int i = 0; i < q.nmetrics; i++)
		if (q.metrics[i] < 0 || q.metrics[i] >= TM_METRIC_COUNT)
			abort();
}

static void url_id(const char *url)
{
	int64_t id = 0, again = 0;
	char path[128];
	enum tm_route r = tm_route_parse(url, &id);

	if (r == TM_ROUTE_NONE)
		return;
	if (r < 0 || r >= TM_ROUTE_COUNT || (tm_route_has_id(r) && id <= 0))
		abort();
	/* the path the report would file it under names the same route and id */
	if (tm_route_path(r, id, path, sizeof(path)) || tm_route_parse(path, &again) != r ||
	    (tm_route_has_id(r) && again != id))
		abort();
}

static void ack(const char *buf, size_t len)
{
	struct tm_push_ack a;

	if (tm_push_ack_parse(buf, len, &a))
		return;
	if (a.run_id <= 0 || a.next_seq < 0 || a.next_event < 0 || a.next_progress < 0 ||
	    a.next_mark < 0)
		abort();
}

static void why(const char *buf, size_t len)
{
	char out[201];

	tm_push_refusal_why(buf, len, out, sizeof(out));
	for (size_t i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort(); /* a control character reached the terminal */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf;

	if (size < 1)
		return 0;
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	switch (data[0] % 4) {
	case 0:
		series_query(buf, size - 1);
		break;
	case 1:
		url_id(buf);
		break;
	case 2:
		ack(buf, size - 1);
		break;
	default:
		why(buf, size - 1);
		break;
	}
	free(buf);
	return 0;
}
