/*
 * Each runtime's part of the sampler: what it adds to a sample from a
 * process of the tree (a JVM's hsperfdata counters), one entry per runtime
 * that reads a process itself, one line of TM_RT_SAMPLER_LIST below, its
 * code in its own file (tm_rts_NAME).  sampler.c walks the list and names no runtime.  A
 * runtime whose figures come from its GC lines (--runtime go|ghc|node:
 * record/gcwatch.c) needs none.
 */
#ifndef TM_SAMPLE_RTSAMPLE_H
#define TM_SAMPLE_RTSAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "runtime/registry.h"
#include "sample/proctree.h"

struct tm_rt_sampler {
	/* scratch space it needs each sample (BUF below), in bytes */
	size_t buf_bytes;
	/* adds process P's figures to OUT; NOW (monotonic usec) paces its
	 * looks; BUF: at least buf_bytes of scratch.  Never an error: what it
	 * cannot read it leaves out of OUT (missing, not zero). */
	void (*sample)(struct tm_proc *p, int64_t now_mono_usec, uint8_t *buf,
	               struct tm_sample *out);
};

/* The runtimes with a part, one line each: X(ENUM, descriptor), ENUM as in
 * runtime/registry.h's lists, the descriptor defined in the runtime's own
 * file.  A line whose descriptor is not defined fails to link; rtsample.c's
 * table derives from the list. */
#define TM_RT_SAMPLER_LIST(X) X(JVM, tm_rts_jvm)

#define TM_X_RTS_DECL(e, desc) extern const struct tm_rt_sampler desc;
TM_RT_SAMPLER_LIST(TM_X_RTS_DECL)
#undef TM_X_RTS_DECL

/* The sampler part of runtime RT, NULL when it has none (or RT is none). */
const struct tm_rt_sampler *tm_rt_sampler(enum tm_runtime rt);

/* The scratch the parts need: the most any needs, at least 1 byte. */
size_t tm_rt_sample_buf_bytes(void);

/* Each part's figures of process P into OUT (BUF: tm_rt_sample_buf_bytes()
 * of scratch). */
void tm_rt_sample(struct tm_proc *p, int64_t now_mono_usec, uint8_t *buf, struct tm_sample *out);

#endif
