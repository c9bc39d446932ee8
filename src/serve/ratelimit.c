/* --max-rate's buckets; see serve/ratelimit.h. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "serve/ratelimit.h"
#include "base/banned.h"

struct bucket {
	char machine[TM_NAME_MAX + 1];
	double tokens;
	int64_t last_usec;
};

struct tm_rate_table {
	double rate, burst;
	struct bucket b[TM_RATE_MACHINES];
	int n;
	struct bucket overflow; /* machines without a bucket of their own */
};

struct tm_rate_table *tm_rate_table_new(double rate_per_sec, double burst)
{
	struct tm_rate_table *t = calloc(1, sizeof(*t));

	if (t) {
		t->rate = rate_per_sec;
		t->burst = burst;
		t->overflow.tokens = burst;
		t->overflow.last_usec = tm_now_mono_usec();
	}
	return t;
}

void tm_rate_table_free(struct tm_rate_table *t)
{
	free(t);
}

static void refill(const struct tm_rate_table *t, struct bucket *b, int64_t now)
{
	if (now > b->last_usec)
		b->tokens =
		    fmin(t->burst, b->tokens + t->rate * (double)(now - b->last_usec) / 1e6);
	b->last_usec = now;
}

/* MACHINE's bucket: its own, a new one (in a free slot, or in place of a
 * full one), or the shared overflow. */
static struct bucket *bucket_of(struct tm_rate_table *t, const char *machine, int64_t now)
{
	struct bucket *b = NULL;

	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->b[i].machine, machine))
			return &t->b[i];
	if (t->n < TM_RATE_MACHINES) {
		b = &t->b[t->n++];
	} else {
		for (int i = 0; i < t->n && !b; i++) {
			refill(t, &t->b[i], now);
			if (t->b[i].tokens >= t->burst)
				b = &t->b[i]; /* full: its machine loses nothing */
		}
		if (!b)
			return &t->overflow;
	}
	refill(t, &t->overflow, now);
	snprintf(b->machine, sizeof(b->machine), "%s", machine);
	b->tokens = t->overflow.tokens; /* the burst, unless machines overflowed */
	b->last_usec = now;
	return b;
}

int64_t tm_rate_take(struct tm_rate_table *t, const char *machine, double rows, int64_t now_usec)
{
	struct bucket *b = bucket_of(t, machine, now_usec);
	double need = fmin(rows, t->burst);

	refill(t, b, now_usec);
	if (need > b->tokens) {
		int64_t wait = (int64_t)ceil((need - b->tokens) / t->rate);
		return wait > 0 ? wait : 1;
	}
	b->tokens -= rows;
	return 0;
}
