#include <stdlib.h>

#include "report/run/rtacc.h"
#include "base/banned.h"

/* Indexed by enum tm_runtime: the runtimes with figures of their own in the
 * summary (TM_RT_ACC_LIST).  A runtime whose figures are the generic GC
 * ones (gc_live, gc_cycles) needs none. */
static const struct tm_rt_acc *const accs[TM_RUNTIME_COUNT] = {
#define TM_X_RTA_PTR(e, desc) [TM_RUNTIME_##e] = &desc,
    TM_RT_ACC_LIST(TM_X_RTA_PTR)
#undef TM_X_RTA_PTR
};

const struct tm_rt_acc *tm_rt_acc(enum tm_runtime rt)
{
	if ((int)rt <= TM_RUNTIME_NONE || rt >= TM_RUNTIME_COUNT)
		return NULL;
	return accs[rt];
}

int tm_rt_acc_init(struct acc *a)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++) {
		if (!accs[rt])
			continue;
		if (!(a->rt[rt] = calloc(1, accs[rt]->size ? accs[rt]->size : 1)))
			return -1;
		if (accs[rt]->init)
			accs[rt]->init(a->rt[rt]);
	}
	return 0;
}

void tm_rt_acc_release(struct acc *a)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++) {
		free(a->rt[rt]);
		a->rt[rt] = NULL;
	}
}

void tm_rt_acc_sample(struct acc *a, const struct tm_sample *s, const struct pt *p, int64_t i)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (a->rt[rt] && accs[rt]->sample)
			accs[rt]->sample(a->rt[rt], s, p, i);
}

void tm_rt_acc_bucket(struct acc *a, const struct tm_rollup *r, const struct pt *first,
                      const struct pt *last)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (a->rt[rt] && accs[rt]->bucket)
			accs[rt]->bucket(a->rt[rt], r, first, last);
}

void tm_rt_acc_finish(struct acc *a, const struct tm_acc_end *e, struct tm_summary *s)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (a->rt[rt] && accs[rt]->finish)
			accs[rt]->finish(a->rt[rt], e, s);
}
