/* Inside bench/: what spec.c lends ini.c (not for other parts). */
#ifndef TM_BENCH_SPEC_INT_H
#define TM_BENCH_SPEC_INT_H

#include <stddef.h>

#include "bench/bench.h"

struct tm_err;

/* The arm called NAME, or NULL. */
struct tm_bench_arm *tm_bench_arm_find(struct tm_bench_spec *sp, const char *name);

/* A new arm called NAME (LEN bytes, not NUL-terminated); NULL after tm_error
 * (a bad name, too many arms, twice the same name). */
struct tm_bench_arm *tm_bench_arm_new(struct tm_bench_spec *sp, const char *name, size_t len);

/* One arm setting (Allocator, MemoryMax, MemoryHigh, MemorySwapMax,
 * ExecStart): 0; 1 when KEY is not one; -1 with ERR ("MemoryMax 'x':
 * expected ..."). */
int tm_bench_arm_set(struct tm_bench_arm *arm, const char *key, const char *value,
                     struct tm_err *err);

/* The error for an arm NAME that is no shortcut and sets nothing, after
 * WHERE ("" or "FILE:LINE: "); HOW says how to write such an arm on
 * purpose.  -1 after tm_error. */
int tm_bench_arm_nothing_set(const char *where, const char *name, const char *how);

#endif
