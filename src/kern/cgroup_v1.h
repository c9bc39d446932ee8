/*
 * Pure parsers for cgroup v1 memory and cpuacct files, mapped onto the v2
 * metric names (metrics.h).  Text in, 0 or -1 when malformed.
 *
 * v1 has no "max": an unlimited limit reads as PAGE_COUNTER_MAX * page size
 * (9223372036854771712 with 4 KiB pages).  Any value >= 2^62 is taken as
 * unlimited and stored as -1 (TM_CG_UNLIMITED, as for v2).
 */
#ifndef TM_KERN_CGROUP_V1_H
#define TM_KERN_CGROUP_V1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "kern/cgroup_v2.h"

/*
 * A single-number file: memory.usage_in_bytes, max_usage_in_bytes,
 * limit_in_bytes, soft_limit_in_bytes, failcnt, memsw.*.  A value >= 2^62
 * gives TM_CG_UNLIMITED.
 */
int tm_parse_cg1_value(const char *buf, size_t len, int64_t *out);

/*
 * memory.stat, its hierarchical total_* fields: total_rss -> CG_ANON_BYTES,
 * total_cache -> CG_FILE_BYTES, total_rss_huge -> CG_ANON_THP_BYTES,
 * total_shmem, total_mapped_file, total_dirty, total_writeback,
 * total_active_file, total_inactive_file, total_pgfault, total_pgmajfault,
 * total_workingset_refault_file.
 */
int tm_parse_cg1_memory_stat(const char *buf, size_t len, struct tm_sample *out);

/* memory.oom_control: oom_kill (absent before Linux 4.13) and under_oom. */
struct tm_cg1_oom {
	bool has_oom_kill, has_under_oom;
	int64_t oom_kill;
	bool under_oom;
};
int tm_parse_cg1_oom_control(const char *buf, size_t len, struct tm_cg1_oom *out);

/* cpuacct.usage: nanoseconds -> usec. */
int tm_parse_cpuacct_usage(const char *buf, size_t len, int64_t *usec);

/* cpuacct.stat: "user N" / "system N" in clock ticks -> CG_CPU_USER_USEC,
 * CG_CPU_SYSTEM_USEC. */
int tm_parse_cpuacct_stat(const char *buf, size_t len, long clk_tck, struct tm_sample *out);

#endif
