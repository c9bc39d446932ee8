/*
 * The sample encoding (docs/store.md): a flags varint, the present mask
 * unless it repeats, then one zigzag varint per present metric, a delta
 * against the previous sample unless this is a keyframe.
 */
#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "store/store_impl.h"
#include "store/varint.h"
#include "base/banned.h"

enum {
	ENC_KEYFRAME = 1,  /* values are absolute (else deltas against seq - 1) */
	ENC_SAME_MASK = 2, /* present mask as in seq - 1 (not written) */
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

/* Appends v as a varint; bytes past b->cap are counted but not written. */
static void put_varint(struct buf *b, uint64_t v)
{
	unsigned char tmp[TM_VARINT_MAX];
	size_t n = (size_t)(tm_varint_put(tmp, v) - tmp);

	for (size_t i = 0; i < n; i++, b->len++)
		if (b->len < b->cap)
			b->p[b->len] = tmp[i];
}

size_t tm_sample_encode(const struct tm_sample *s, const struct tm_sample *prev, unsigned char *out)
{
	struct buf buf = {.p = out, .cap = TM_SAMPLE_ENC_MAX}, *b = &buf;
	bool same_mask = prev && !memcmp(s->present, prev->present, sizeof(s->present));
	unsigned char flags = (prev ? 0 : ENC_KEYFRAME) | (same_mask ? ENC_SAME_MASK : 0);

	b->len = 0;
	put_varint(b, flags);
	if (!same_mask) {
		put_varint(b, TM_SAMPLE_WORDS);
		for (int w = 0; w < TM_SAMPLE_WORDS; w++)
			put_varint(b, s->present[w]);
	}
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		if (!tm_sample_has(s, m))
			continue;
		int64_t base = prev && tm_sample_has(prev, m) ? prev->v[m] : 0;
		/* wrapping difference: exact for any pair of int64 values */
		put_varint(b, tm_zigzag((int64_t)((uint64_t)s->v[m] - (uint64_t)base)));
	}
	if (b->len > b->cap)
		TM_BUG("sample encoding overflow");
	return b->len;
}

/* A file with more mask words than we know (a newer tidemark) keeps what
 * we know, as long as the extra words are empty. */
int tm_sample_decode(const unsigned char *p, size_t len, const struct tm_sample *prev,
                     struct tm_sample *s)
{
	const unsigned char *end = p + len;
	uint64_t flags, words, word;

	if (tm_varint_get(&p, end, &flags))
		return -1;
	if (!(flags & ENC_KEYFRAME) && !prev)
		return -1;
	tm_sample_clear(s);
	if (flags & ENC_SAME_MASK) {
		if (!prev)
			return -1;
		memcpy(s->present, prev->present, sizeof(s->present));
	} else {
		if (tm_varint_get(&p, end, &words) || words > 64)
			return -1;
		for (uint64_t w = 0; w < words; w++) {
			if (tm_varint_get(&p, end, &word))
				return -1;
			if (w < TM_SAMPLE_WORDS)
				s->present[w] = word;
			else if (word)
				return -1; /* values we could not place */
		}
	}
	for (int m = 0; m < TM_SAMPLE_WORDS * 64; m++) {
		uint64_t z;
		if (!((s->present[m / 64] >> (m % 64)) & 1))
			continue;
		if (m >= TM_METRIC_COUNT || tm_varint_get(&p, end, &z))
			return -1;
		int64_t base = !(flags & ENC_KEYFRAME) && tm_sample_has(prev, m) ? prev->v[m] : 0;
		s->v[m] = (int64_t)((uint64_t)base + (uint64_t)tm_unzigzag(z));
	}
	return p == end ? 0 : -1;
}
