/* cgroup v1 (and hybrid hosts, whose memory numbers come from v1): the
 * memory hierarchy, plus the same-named cpuacct and unified cgroups. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "cgroup/cgroup.h"
#include "cgroup/internal.h"
#include "kern/cgroup_v1.h"
#include "base/banned.h"

/* v1 has no swap-only limit: memsw = memory + swap, so a swap limit needs a
 * memory limit. */
static int swap_v1(struct tm_cgroup *cg, int64_t mem, int64_t swap)
{
	int64_t memsw, got;

	if (!tm_cg_exists_in(cg->dir[DIR_MEM], "memory.memsw.limit_in_bytes")) {
		tm_cg_unsupported(
		    cg, "swap_max", swap,
		    "no memory.memsw.limit_in_bytes: the kernel does no swap accounting");
		return 0;
	}
	if (mem == TM_CG_UNLIMITED && swap != INT64_MAX) {
		tm_cg_unsupported(
		    cg, "swap_max", swap,
		    "cgroup v1 limits memory+swap together (memory.memsw.limit_in_bytes): "
		    "a swap limit needs memory_max");
		return 0;
	}
	memsw = swap == INT64_MAX || swap > INT64_MAX - mem ? INT64_MAX : mem + swap;
	if (tm_cg_set_limit(cg, "swap_max", "memory.memsw.limit_in_bytes", memsw, &got))
		return -1;
	tm_cg_json_add(
	    cg,
	    "%s\"swap_max\":{\"requested\":%lld,\"file\":\"memory.memsw.limit_in_bytes\","
	    "\"value\":%lld,\"memsw_requested\":%lld,\"memsw_value\":%lld}",
	    cg->limits_len > 1 ? "," : "", tm_cg_json_limit(swap),
	    got == TM_CG_UNLIMITED ? -1LL : (long long)(got - mem), tm_cg_json_limit(memsw),
	    (long long)got);
	return 0;
}

static int limits_v1(struct tm_cgroup *cg, const struct tm_limits *lim)
{
	int64_t mem = TM_CG_UNLIMITED, got;

	if (lim->memory_max_bytes != TM_LIMIT_UNSET) {
		if (tm_cg_write_limit(cg, "memory_max", "memory.limit_in_bytes",
		                      lim->memory_max_bytes, &mem))
			return -1;
		tm_cg_json_add(cg, "}");
	}
	if (lim->memory_high_bytes != TM_LIMIT_UNSET) {
		if (tm_cg_write_limit(cg, "memory_high", "memory.soft_limit_in_bytes",
		                      lim->memory_high_bytes, &got))
			return -1;
		/* say what v1 makes of it */
		tm_cg_json_add(cg, ",\"note\":\"v1 soft limit: a reclaim target under host memory "
		                   "pressure, not a throttle like v2 memory.high\"}");
	}
	if (lim->swap_max_bytes == TM_LIMIT_UNSET)
		return 0;
	return swap_v1(cg, mem, lim->swap_max_bytes);
}

static int make_dirs_v1(struct tm_cgroup *cg, const struct tm_cg_host *host, const char *name)
{
	const struct tm_cg_mounts *m = &host->mounts;

	if (tm_cg_make_dir(cg, DIR_MEM, host, &m->memory, name))
		return -1;
	if (m->cpuacct.found && strcmp(m->cpuacct.dir, m->memory.dir) &&
	    tm_cg_make_dir(cg, DIR_CPU, host, &m->cpuacct, name))
		return -1;
	if (m->cpuacct.found && !strcmp(m->cpuacct.dir, m->memory.dir))
		snprintf(cg->dir[DIR_CPU], sizeof(cg->dir[DIR_CPU]), "%s", cg->dir[DIR_MEM]);
	if (m->unified.found && tm_cg_make_dir(cg, DIR_UNI, host, &m->unified, name))
		return -1;
	return 0;
}

/* The path of DIR relative to mount M's directory, or NULL. */
static const char *under_mount(const struct tm_cg_mount *m, const char *dir)
{
	size_t n = strlen(m->dir);

	if (!m->found || strncmp(dir, m->dir, n) || (dir[n] && dir[n] != '/'))
		return NULL;
	return dir + n;
}

/* Uses MOUNT's same-named cgroup as directory D when it exists. */
static void sibling(struct tm_cgroup *cg, int d, const struct tm_cg_mount *m, const char *rel)
{
	char path[PATH_MAX];
	int n;

	if (!m->found || !rel)
		return;
	n = snprintf(path, sizeof(path), "%s%s", m->dir, rel);
	if (n > 0 && (size_t)n < sizeof(path) && tm_cg_is_dir(path))
		snprintf(cg->dir[d], sizeof(cg->dir[d]), "%s", path);
}

/* An existing v1 memory cgroup: the cpuacct and unified cgroups of the same
 * relative path, when they exist. */
static void open_dirs_v1(struct tm_cgroup *cg, const struct tm_cg_host *host)
{
	const char *real = cg->dir[DIR_MEM];
	const char *rel = under_mount(&host->mounts.memory, real);

	sibling(cg, DIR_CPU, &host->mounts.cpuacct, rel);
	sibling(cg, DIR_UNI, &host->mounts.unified, rel);
	if (!cg->dir[DIR_CPU][0] && tm_cg_exists_in(real, "cpuacct.usage"))
		snprintf(cg->dir[DIR_CPU], sizeof(cg->dir[DIR_CPU]), "%s", real);
}

static int pid_dirs_v1(struct tm_cgroup *cg, const struct tm_cg_host *host,
                       const struct tm_proc_cgroup *pc, pid_t pid)
{
	if (!pc->has_memory ||
	    tm_cg_map_path(&host->mounts.memory, pc->memory, cg->dir[DIR_MEM], PATH_MAX))
		return tm_error("process %d is in no memory cgroup this host has mounted",
		                (int)pid);
	/* the cpuacct and unified cgroups count only when they are the same
	 * group (same path): else their figures are another group's, often
	 * the root's, i.e. the whole host's */
	if (pc->has_cpuacct && !strcmp(pc->cpuacct, pc->memory))
		(void)tm_cg_map_path(&host->mounts.cpuacct, pc->cpuacct, cg->dir[DIR_CPU],
		                     PATH_MAX);
	if (pc->has_unified && !strcmp(pc->unified, pc->memory))
		(void)tm_cg_map_path(&host->mounts.unified, pc->unified, cg->dir[DIR_UNI],
		                     PATH_MAX);
	return 0;
}

/* v1: swap figures from memsw (memory+swap) minus memory. */
static void derive_v1(const int64_t *val, const bool *have, struct tm_sample *out)
{
	if (have[F_V1_MEMSW_USAGE] && have[F_V1_USAGE] && val[F_V1_MEMSW_USAGE] >= val[F_V1_USAGE])
		tm_sample_set(out, TM_M_CG_SWAP_CURRENT_BYTES,
		              val[F_V1_MEMSW_USAGE] - val[F_V1_USAGE]);
	if (!have[F_V1_MEMSW_LIMIT] || !have[F_V1_LIMIT])
		return;
	if (val[F_V1_MEMSW_LIMIT] == TM_CG_UNLIMITED)
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES, TM_CG_UNLIMITED);
	else if (val[F_V1_LIMIT] == TM_CG_UNLIMITED)
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES, val[F_V1_MEMSW_LIMIT]);
	else
		tm_sample_set(out, TM_M_CG_SWAP_MAX_BYTES,
		              val[F_V1_MEMSW_LIMIT] > val[F_V1_LIMIT]
		                  ? val[F_V1_MEMSW_LIMIT] - val[F_V1_LIMIT]
		                  : 0);
}

const struct cg_ops tm_cg_v1_ops = {
    .name = "v1",
    .files = W_V1,
    .oom_file = F_V1_OOM,
    .unlimited = "-1",
    .parse_value = tm_parse_cg1_value,
    .make_dirs = make_dirs_v1,
    .set_limits = limits_v1,
    .open_dirs = open_dirs_v1,
    .pid_dirs = pid_dirs_v1,
    .derive = derive_v1,
};
