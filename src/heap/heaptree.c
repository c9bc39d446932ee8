/* A process tree's heap figures combined over its processes (heaptree.h). */
#include <stdlib.h>
#include <string.h>

#include "heap/heaptree.h"
#include "base/banned.h"

/* Spans of processes that left kept one by one; past this, they are folded
 * into one span (below), so a run of a million short processes costs no
 * more memory than one of a thousand. */
#define SPANS_KEEP 1024

struct edge {
	int64_t t;
	int64_t delta; /* +peak at a start, -peak at an end */
};

static int edge_cmp(const void *pa, const void *pb)
{
	const struct edge *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	/* starts before ends at one instant: touching spans overlap */
	return (a->delta < 0) - (b->delta < 0);
}

int64_t tm_heap_spans_max_overlap(const struct tm_heap_span *sp, size_t n)
{
	struct edge *e = n ? malloc(2 * n * sizeof(*e)) : NULL;
	int64_t sum = 0, best = 0;
	if (!e) {
		for (size_t i = 0; i < n; i++)
			sum += sp[i].peak_bytes > 0 ? sp[i].peak_bytes : 0;
		return sum;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t p = sp[i].peak_bytes > 0 ? sp[i].peak_bytes : 0;
		int64_t end = sp[i].end_usec > sp[i].start_usec ? sp[i].end_usec : sp[i].start_usec;
		e[2 * i] = (struct edge){sp[i].start_usec, p};
		e[2 * i + 1] = (struct edge){end, -p};
	}
	qsort(e, 2 * n, sizeof(*e), edge_cmp);
	for (size_t i = 0; i < 2 * n; i++) {
		sum += e[i].delta;
		if (sum > best)
			best = sum;
	}
	free(e);
	return best;
}

/* Folds every kept span into one that covers them all, with the largest
 * overlap among them as its peak: any instant's sum over the folded spans
 * is at most that, so bounds computed with it stay upper bounds. */
static void fold_spans(struct tm_heap_tree *t)
{
	struct tm_heap_span one = t->spans[0];
	one.peak_bytes = tm_heap_spans_max_overlap(t->spans, t->nspans);
	for (size_t i = 1; i < t->nspans; i++) {
		if (t->spans[i].start_usec < one.start_usec)
			one.start_usec = t->spans[i].start_usec;
		if (t->spans[i].end_usec > one.end_usec)
			one.end_usec = t->spans[i].end_usec;
	}
	t->spans[0] = one;
	t->nspans = 1;
}

static void shown(struct tm_heap_tree *t, int64_t bytes)
{
	if (bytes > t->proven_peak_bytes)
		t->proven_peak_bytes = bytes;
}

void tm_heap_tree_leave(struct tm_heap_tree *t, const struct tm_heap_span *span,
                        const struct tm_heap_counts *final)
{
	t->seen = 1;
	t->gone.alloc_bytes += final->alloc_bytes;
	t->gone.allocs += final->allocs;
	t->gone.frees += final->frees;
	shown(t, span->peak_bytes);
	if (t->nspans == SPANS_KEEP)
		fold_spans(t);
	if (t->nspans == t->capspans) {
		size_t cap = t->capspans ? t->capspans * 2 : 16;
		struct tm_heap_span *s = realloc(t->spans, cap * sizeof(*s));
		if (!s) {
			/* keep the bound: fold into the first span */
			if (t->nspans) {
				struct tm_heap_span *f = &t->spans[0];
				f->peak_bytes += span->peak_bytes;
				if (span->start_usec < f->start_usec)
					f->start_usec = span->start_usec;
				if (span->end_usec > f->end_usec)
					f->end_usec = span->end_usec;
			}
			return;
		}
		t->spans = s;
		t->capspans = cap;
	}
	t->spans[t->nspans++] = *span;
}

void tm_heap_tree_figures(struct tm_heap_tree *t, const struct tm_heap_span *alive, size_t nalive,
                          int64_t live_sum, const struct tm_heap_counts *alive_sum,
                          struct tm_heap_counts *total, int64_t *upper_peak_bytes,
                          int64_t *proven_peak_bytes)
{
	if (nalive)
		t->seen = 1;
	total->alloc_bytes = t->gone.alloc_bytes + alive_sum->alloc_bytes;
	total->allocs = t->gone.allocs + alive_sum->allocs;
	total->frees = t->gone.frees + alive_sum->frees;
	shown(t, live_sum);
	for (size_t i = 0; i < nalive; i++)
		shown(t, alive[i].peak_bytes);
	size_t n = t->nspans + nalive;
	struct tm_heap_span *all = malloc((n ? n : 1) * sizeof(*all));
	if (all) {
		if (t->nspans)
			memcpy(all, t->spans, t->nspans * sizeof(*all));
		if (nalive)
			memcpy(all + t->nspans, alive, nalive * sizeof(*all));
		*upper_peak_bytes = tm_heap_spans_max_overlap(all, n);
		free(all);
	} else {
		int64_t sum = 0;
		for (size_t i = 0; i < t->nspans; i++)
			sum += t->spans[i].peak_bytes;
		for (size_t i = 0; i < nalive; i++)
			sum += alive[i].peak_bytes;
		*upper_peak_bytes = sum;
	}
	if (*upper_peak_bytes < t->proven_peak_bytes) /* clock steps: never below shown */
		*upper_peak_bytes = t->proven_peak_bytes;
	*proven_peak_bytes = t->proven_peak_bytes;
}

void tm_heap_tree_release(struct tm_heap_tree *t)
{
	free(t->spans);
	memset(t, 0, sizeof(*t));
}
