/* libFuzzer target: the stored-sample decoder (src/store/encoding.c), which
 * reads the bytes of the samples table: a file tidemark did not
 * necessarily write, or one an SD card rotted.  The first byte says
 * whether a previous sample is given (odd: yes, the base of deltas); the
 * rest is the encoded sample.  It must never crash, read out of bounds or
 * place a value in a metric it does not know; what it accepts, encoded
 * again against the same previous sample, decodes to the same sample. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/sample.h"
#include "store/store_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void base_sample(struct tm_sample *s)
{
	tm_sample_clear(s);
	for (int m = 0; m < TM_METRIC_COUNT; m += 3)
		tm_sample_set(s, m, (int64_t)m * 1000003 - 7);
	tm_sample_set(s, 1, INT64_MIN);
	tm_sample_set(s, 4, INT64_MAX);
}

static void same(const struct tm_sample *a, const struct tm_sample *b)
{
	if (memcmp(a->present, b->present, sizeof(a->present)))
		abort();
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_sample_has(a, m) && a->v[m] != b->v[m])
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tm_sample prev, s, again;
	static unsigned char enc[TM_SAMPLE_ENC_MAX];
	const struct tm_sample *p;

	if (size < 1)
		return 0;
	base_sample(&prev);
	p = data[0] & 1 ? &prev : NULL;
	if (tm_sample_decode(data + 1, size - 1, p, &s))
		return 0;
	for (int m = TM_METRIC_COUNT; m < TM_SAMPLE_WORDS * 64; m++)
		if ((s.present[m / 64] >> (m % 64)) & 1)
			abort(); /* a metric this tidemark does not know */
	/* a keyframe needs no previous sample; a delta is against P */
	size_t len = tm_sample_encode(&s, p, enc);
	if (len > TM_SAMPLE_ENC_MAX || tm_sample_decode(enc, len, p, &again))
		abort();
	same(&s, &again);
	len = tm_sample_encode(&s, NULL, enc);
	if (tm_sample_decode(enc, len, NULL, &again))
		abort();
	same(&s, &again);
	return 0;
}
