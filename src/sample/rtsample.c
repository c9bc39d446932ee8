#include "runtime/registry.h"
#include "sample/rtsample.h"
#include "base/banned.h"

/* Indexed by enum tm_runtime: the runtimes the sampler reads in a process
 * (TM_RT_SAMPLER_LIST). */
static const struct tm_rt_sampler *const parts[TM_RUNTIME_COUNT] = {
#define TM_X_RTS_PTR(e, desc) [TM_RUNTIME_##e] = &desc,
    TM_RT_SAMPLER_LIST(TM_X_RTS_PTR)
#undef TM_X_RTS_PTR
};

const struct tm_rt_sampler *tm_rt_sampler(enum tm_runtime rt)
{
	if ((int)rt <= TM_RUNTIME_NONE || rt >= TM_RUNTIME_COUNT)
		return NULL;
	return parts[rt];
}

size_t tm_rt_sample_buf_bytes(void)
{
	size_t most = 1;

	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (parts[rt] && parts[rt]->buf_bytes > most)
			most = parts[rt]->buf_bytes;
	return most;
}

void tm_rt_sample(struct tm_proc *p, int64_t now_mono_usec, uint8_t *buf, struct tm_sample *out)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (parts[rt] && parts[rt]->sample)
			parts[rt]->sample(p, now_mono_usec, buf, out);
}
