/*
 * What a memory.high limit is on a host whose memory controller is cgroup
 * v1: memory.soft_limit_in_bytes, a reclaim target under host memory
 * pressure, never a throttle (a process grew to 202 MiB past a 32M "high").
 * record, report and the bench header say so next to the limit.
 */
#ifndef TM_LIMITNOTE_H
#define TM_LIMITNOTE_H

#include <stdbool.h>

/* Whether CGROUP_MODE ("v1", "hybrid", "v2", "none", as stored with a run)
 * puts memory limits on cgroup v1. */
bool tm_mode_memory_v1(const char *cgroup_mode);

/* The sentence to print next to a memory.high limit on such a host. */
#define TM_V1_HIGH_NOTE                                                                            \
	"on cgroup v1 memory.high is memory.soft_limit_in_bytes: a reclaim target under host "     \
	"memory pressure, not a throttle (the command can grow past it; only memory.max stops it)"

#endif
