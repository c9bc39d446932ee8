/* record --remote-write: the WriteRequest tidemark builds (snappy, then
 * protobuf), decoded back with the protocol's own message types, and the
 * store's cursor of what each receiver took. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <snappy-c.h>

#include "base/metrics.h"
#include "prompb.pb-c.h"
#include "serve/client/remotewrite.h"
#include "store/remote.h"
#include "store/store.h"
#include "store_fixture.h"
#include "base/banned.h"

#define T0 1790000000000000LL

static void set(struct tm_sample *s, enum tm_metric m, int64_t v)
{
	s->v[m] = v;
	s->present[m / 64] |= 1ULL << (m % 64);
}

/* Decodes what tm_rw_encode made. */
static Prometheus__WriteRequest *decode(const uint8_t *body, size_t len)
{
	size_t raw_len;
	char *raw;
	Prometheus__WriteRequest *req;

	assert_int_equal(snappy_uncompressed_length((const char *)body, len, &raw_len), SNAPPY_OK);
	raw = malloc(raw_len);
	assert_non_null(raw);
	assert_int_equal(snappy_uncompress((const char *)body, len, raw, &raw_len), SNAPPY_OK);
	req = prometheus__write_request__unpack(NULL, raw_len, (const uint8_t *)raw);
	free(raw);
	assert_non_null(req);
	return req;
}

static const Prometheus__TimeSeries *find(const Prometheus__WriteRequest *req, const char *name,
                                          const char *label, const char *value)
{
	for (size_t i = 0; i < req->n_timeseries; i++) {
		const Prometheus__TimeSeries *ts = req->timeseries[i];
		bool named = false, labelled = !label;
		for (size_t k = 0; k < ts->n_labels; k++) {
			named |= !strcmp(ts->labels[k]->name, "__name__") &&
			         !strcmp(ts->labels[k]->value, name);
			labelled |= label && !strcmp(ts->labels[k]->name, label) &&
			            !strcmp(ts->labels[k]->value, value);
		}
		if (named && labelled)
			return ts;
	}
	return NULL;
}

static void test_encode(void **state)
{
	(void)state;
	struct tm_sample s[3];
	struct tm_rw_labels lb = {"pi-home", "uuid-1", "/sys/fs/cgroup/x"};
	uint8_t *body;
	size_t len;

	memset(s, 0, sizeof(s));
	for (int i = 0; i < 3; i++) {
		s[i].seq = i;
		s[i].t_wall_usec = T0 + i * 1000000 + 999; /* ms: truncated */
		set(&s[i], TM_M_PROC_RSS_ANON_BYTES, 1000 * (i + 1));
		set(&s[i], TM_M_CG_MAX_BYTES, i == 1 ? 4096 : -1); /* -1: no limit */
		set(&s[i], TM_M_CG_EVENTS_OOM_KILL, i);
		set(&s[i], TM_M_PROC_UTIME_USEC, 1500000);
	}
	assert_int_equal(tm_rw_encode(&lb, s, 3, &body, &len), 0);
	Prometheus__WriteRequest *req = decode(body, len);

	const Prometheus__TimeSeries *anon =
	    find(req, "tidemark_process_rss_anon_bytes", NULL, NULL);
	assert_non_null(anon);
	assert_int_equal(anon->n_samples, 3);
	assert_int_equal(anon->samples[2]->timestamp, (T0 + 2000000) / 1000);
	assert_true(anon->samples[2]->value == 3000.0);
	/* labels sorted by name, the machine on every series */
	assert_int_equal(anon->n_labels, 2);
	assert_string_equal(anon->labels[0]->name, "__name__");
	assert_string_equal(anon->labels[1]->name, "machine");
	assert_string_equal(anon->labels[1]->value, "pi-home");
	/* a limit of -1 is left out, not sent as a number */
	const Prometheus__TimeSeries *max =
	    find(req, "tidemark_spec_memory_limit_bytes", NULL, NULL);
	assert_non_null(max);
	assert_int_equal(max->n_samples, 1);
	assert_int_equal(max->samples[0]->timestamp, (T0 + 1000000) / 1000);
	/* a family's label, between __name__ and machine */
	const Prometheus__TimeSeries *oom =
	    find(req, "tidemark_memory_events_total", "event", "oom_kill");
	assert_non_null(oom);
	assert_string_equal(oom->labels[1]->name, "event");
	/* usec in seconds */
	const Prometheus__TimeSeries *ut =
	    find(req, "tidemark_process_utime_seconds_total", NULL, NULL);
	assert_non_null(ut);
	assert_true(ut->samples[0]->value == 1.5);
	/* absent metrics are no series */
	assert_null(find(req, "tidemark_memory_anon_bytes", NULL, NULL));
	/* the run's info at every sample */
	const Prometheus__TimeSeries *info = find(req, "tidemark_run_info", "run", "uuid-1");
	assert_non_null(info);
	assert_int_equal(info->n_samples, 3);
	assert_int_equal(info->n_labels, 5);
	assert_string_equal(info->labels[1]->value, "/sys/fs/cgroup/x");
	prometheus__write_request__free_unpacked(req, NULL);
	free(body);
}

static int first_pending(void *ctx, int64_t run_id, int64_t sent_seq)
{
	int64_t *out = ctx;
	out[0] = run_id, out[1] = sent_seq;
	return 1;
}

static void test_cursor(void **state)
{
	(void)state;
	struct store_fixture *f = store_fixture_open("rw");
	struct tm_store *st = f->st;
	int64_t run = store_fixture_run(st), got[2] = {0, 0};
	struct tm_sample s;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 5; i++) {
		s.seq = i;
		s.t_wall_usec = T0 + i;
		assert_int_equal(tm_store_add_sample(st, run, &s), 0);
	}
	assert_int_equal(tm_store_commit(st), 0);
	assert_int_equal(tm_store_rw_init(st), 0);
	/* a run not noted for a URL is not sent there */
	assert_int_equal(tm_store_rw_each_pending(st, "http://a", first_pending, got), 0);
	assert_int_equal(tm_store_rw_add(st, "http://a", run), 0);
	assert_int_equal(tm_store_rw_each_pending(st, "http://a", first_pending, got), 1);
	assert_int_equal(got[0], run);
	assert_int_equal(got[1], -1);
	assert_int_equal(tm_store_rw_set_sent(st, "http://a", run, 2), 0);
	/* noting it again keeps what was sent; an older answer moves nothing back */
	assert_int_equal(tm_store_rw_add(st, "http://a", run), 0);
	assert_int_equal(tm_store_rw_set_sent(st, "http://a", run, 1), 0);
	assert_int_equal(tm_store_rw_each_pending(st, "http://a", first_pending, got), 1);
	assert_int_equal(got[1], 2);
	assert_int_equal(tm_store_rw_set_sent(st, "http://a", run, 4), 0);
	assert_int_equal(tm_store_rw_each_pending(st, "http://a", first_pending, got), 0);
	assert_int_equal(tm_store_rw_each_pending(st, "http://b", first_pending, got), 0);
	store_fixture_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encode),
	    cmocka_unit_test(test_cursor),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
