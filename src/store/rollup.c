/* Rollup arithmetic and the rollup encoding (store/rollup.h, docs/store.md). */
#include <math.h>
#include <string.h>

#include "store/rollup.h"
#include "base/assert.h"
#include "store/varint.h"
#include "base/banned.h"

static const int64_t width_usec[TM_ROLLUP_LEVELS] = {
    [TM_ROLLUP_MINUTE] = 60000000LL,
    [TM_ROLLUP_HOUR] = 3600000000LL,
};

int64_t tm_rollup_width_usec(enum tm_rollup_level level)
{
	tm_assert(level >= 0 && level < TM_ROLLUP_LEVELS);
	return width_usec[level];
}

const char *tm_rollup_level_name(enum tm_rollup_level level)
{
	return level == TM_ROLLUP_MINUTE ? "minute" : "hour";
}

int64_t tm_rollup_bucket_of(enum tm_rollup_level level, int64_t t_wall_usec)
{
	tm_assert(level >= 0 && level < TM_ROLLUP_LEVELS);
	int64_t w = width_usec[level], b = t_wall_usec / w;

	if (t_wall_usec < 0 && t_wall_usec % w)
		b--; /* floor, not truncation */
	return b * w;
}

void tm_rollup_reset(struct tm_rollup *r, int64_t run_id, enum tm_rollup_level level,
                     int64_t bucket_wall_usec)
{
	memset(r->present, 0, sizeof(r->present));
	r->run_id = run_id;
	r->level = level;
	r->bucket_wall_usec = bucket_wall_usec;
	r->first_seq = r->last_seq = -1;
	r->samples = r->late_samples = 0;
	r->t_first_wall_usec = r->t_last_wall_usec = 0;
	r->t_first_mono_usec = r->t_last_mono_usec = 0;
}

void tm_rollup_add(struct tm_rollup *r, const struct tm_sample *s, int64_t late_usec)
{
	if (!r->samples) {
		r->first_seq = s->seq;
		r->t_first_wall_usec = s->t_wall_usec;
		r->t_first_mono_usec = s->t_mono_usec;
	}
	r->samples++;
	r->late_samples += late_usec > 0 && s->late_usec > late_usec;
	r->last_seq = s->seq;
	r->t_last_wall_usec = s->t_wall_usec;
	r->t_last_mono_usec = s->t_mono_usec;
	for (int w = 0; w < TM_SAMPLE_WORDS; w++) {
		for (uint64_t bits = s->present[w]; bits; bits &= bits - 1) {
			int m = w * 64 + __builtin_ctzll(bits);
			struct tm_rollup_metric *a = &r->m[m];
			int64_t v = s->v[m];
			if (!tm_rollup_has(r, (enum tm_metric)m)) {
				*a = (struct tm_rollup_metric){1, v, v, v, v, 0, (double)v};
				r->present[w] |= (uint64_t)1 << (m % 64);
				continue;
			}
			a->n++;
			a->min = v < a->min ? v : a->min;
			a->max = v > a->max ? v : a->max;
			if (v > a->last) { /* saturating: extreme values cannot wrap it */
				uint64_t d = (uint64_t)v - (uint64_t)a->last;
				a->rises = d > (uint64_t)(INT64_MAX - a->rises)
				               ? INT64_MAX
				               : a->rises + (int64_t)d;
			}
			a->last = v;
			a->sum += (double)v;
			tm_assert(a->min <= a->last && a->last <= a->max && a->n <= r->samples);
		}
	}
}

double tm_rollup_mean(const struct tm_rollup *r, enum tm_metric m)
{
	if (!tm_rollup_has(r, m) || r->m[m].n <= 0)
		return NAN;
	return r->m[m].sum / (double)r->m[m].n;
}

/*
 * varint W, W mask words; per present metric in id order: varint n,
 * zigzag min, varint max - min, zigzag first - min, zigzag last - min,
 * varint rises, 8 bytes of sum (an IEEE double, little-endian).
 */
size_t tm_rollup_encode(const struct tm_rollup *r, unsigned char *out)
{
	unsigned char *p = out;

	p = tm_varint_put(p, TM_SAMPLE_WORDS);
	for (int w = 0; w < TM_SAMPLE_WORDS; w++)
		p = tm_varint_put(p, r->present[w]);
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		const struct tm_rollup_metric *a = &r->m[m];
		uint64_t bits;
		if (!tm_rollup_has(r, (enum tm_metric)m))
			continue;
		p = tm_varint_put(p, (uint64_t)a->n);
		p = tm_varint_put(p, tm_zigzag(a->min));
		p = tm_varint_put(p, (uint64_t)a->max - (uint64_t)a->min);
		p = tm_varint_put(p, tm_zigzag((int64_t)((uint64_t)a->first - (uint64_t)a->min)));
		p = tm_varint_put(p, tm_zigzag((int64_t)((uint64_t)a->last - (uint64_t)a->min)));
		p = tm_varint_put(p, (uint64_t)a->rises);
		memcpy(&bits, &a->sum, sizeof(bits));
		for (int i = 0; i < 8; i++)
			*p++ = (unsigned char)(bits >> (8 * i));
	}
	tm_assert((size_t)(p - out) <= TM_ROLLUP_ENC_MAX); /* the caller's buffer */
	return (size_t)(p - out);
}

static int decode_metric(const unsigned char **p, const unsigned char *end,
                         struct tm_rollup_metric *a)
{
	uint64_t n, mn, span, first, last, rises, bits = 0;

	if (tm_varint_get(p, end, &n) || tm_varint_get(p, end, &mn) ||
	    tm_varint_get(p, end, &span) || tm_varint_get(p, end, &first) ||
	    tm_varint_get(p, end, &last) || tm_varint_get(p, end, &rises) || end - *p < 8 || n == 0)
		return -1;
	for (int i = 0; i < 8; i++)
		bits |= (uint64_t)(*p)[i] << (8 * i);
	*p += 8;
	a->n = (int64_t)n;
	a->min = tm_unzigzag(mn);
	a->max = (int64_t)((uint64_t)a->min + span);
	a->first = (int64_t)((uint64_t)a->min + (uint64_t)tm_unzigzag(first));
	a->last = (int64_t)((uint64_t)a->min + (uint64_t)tm_unzigzag(last));
	a->rises = (int64_t)rises;
	memcpy(&a->sum, &bits, sizeof(bits));
	return 0;
}

int tm_rollup_decode(const unsigned char *p, size_t len, struct tm_rollup *r)
{
	const unsigned char *end = p + len;
	uint64_t words, w;

	memset(r->present, 0, sizeof(r->present));
	if (tm_varint_get(&p, end, &words) || words == 0)
		return -1;
	for (uint64_t i = 0; i < words; i++) {
		if (tm_varint_get(&p, end, &w))
			return -1;
		if (i < TM_SAMPLE_WORDS)
			r->present[i] = w;
		else if (w)
			return -1; /* a metric this tidemark does not know */
	}
	if (TM_METRIC_COUNT % 64 && r->present[TM_SAMPLE_WORDS - 1] >> (TM_METRIC_COUNT % 64))
		return -1;
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_rollup_has(r, (enum tm_metric)m) && decode_metric(&p, end, &r->m[m]))
			return -1;
	return p == end ? 0 : -1;
}
