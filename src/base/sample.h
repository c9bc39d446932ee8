/*
 * One sample: a timestamp and a value for each metric the host has.
 *
 * Missing is not zero: a metric whose file does not exist on this host (or
 * could not be read this time) is absent, and the store writes it as absent,
 * so a report never mistakes "no memory.peak on v1" for "peak was 0".
 */
#ifndef TM_SAMPLE_H
#define TM_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/metrics.h"

#define TM_SAMPLE_WORDS ((TM_METRIC_COUNT + 63) / 64)

struct tm_sample {
	int64_t seq;         /* 0, 1, 2 ... within a run */
	int64_t t_wall_usec; /* CLOCK_REALTIME at the start of the sample */
	int64_t t_mono_usec; /* CLOCK_MONOTONIC at the start of the sample */
	int64_t late_usec;   /* how far past its deadline the sample started; 0 if on time */
	uint64_t present[TM_SAMPLE_WORDS];
	int64_t v[TM_METRIC_COUNT];
};

static inline void tm_sample_clear(struct tm_sample *s)
{
	for (int i = 0; i < TM_SAMPLE_WORDS; i++)
		s->present[i] = 0;
}

static inline void tm_sample_set(struct tm_sample *s, enum tm_metric m, int64_t v)
{
	s->v[m] = v;
	s->present[m / 64] |= (uint64_t)1 << (m % 64);
}

/* Adds V to M (a sum over processes), marking it present. */
static inline void tm_sample_add(struct tm_sample *s, enum tm_metric m, int64_t v)
{
	uint64_t bit = (uint64_t)1 << (m % 64);
	if (s->present[m / 64] & bit)
		s->v[m] += v;
	else
		s->v[m] = v;
	s->present[m / 64] |= bit;
}

static inline bool tm_sample_has(const struct tm_sample *s, enum tm_metric m)
{
	return (s->present[m / 64] >> (m % 64)) & 1;
}

static inline void tm_sample_unset(struct tm_sample *s, enum tm_metric m)
{
	s->present[m / 64] &= ~((uint64_t)1 << (m % 64));
}

#endif
