/* cgroup v2: one directory per cgroup in the cgroup2 mount, controllers
 * handed down through cgroup.subtree_control. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/internal.h"
#include "kern/cgroup_v2.h"
#include "base/banned.h"

/* True when the blank-separated TEXT holds WORD. */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

/* Writes "+memory" etc. into DIR/cgroup.subtree_control unless already on.
 * memory is required; cpu and io are best effort. */
static int enable_controllers(const char *dir)
{
	static const char *const ctl[] = {"memory", "cpu", "io"};
	char path[PATH_MAX], word[16];
	size_t len;
	char *have;

	if (tm_cg_join(path, sizeof(path), dir, "cgroup.subtree_control"))
		return -1;
	have = tm_read_file(path, &len);
	for (size_t i = 0; i < TM_ARRAY_SIZE(ctl); i++) {
		snprintf(word, sizeof(word), "+%s", ctl[i]);
		if (have && has_word(have, ctl[i]))
			continue;
		if (tm_write_file(path, word) && i == 0) {
			int e = errno;
			free(have);
			return tm_error("cannot enable the memory controller in '%s': %s", path,
			                strerror(e));
		}
	}
	free(have);
	return 0;
}

static int limits_v2(struct tm_cgroup *cg, const struct tm_limits *lim)
{
	int64_t got;

	if (lim->memory_max_bytes != TM_LIMIT_UNSET) {
		if (tm_cg_write_limit(cg, "memory_max", "memory.max", lim->memory_max_bytes, &got))
			return -1;
		tm_cg_json_add(cg, "}");
	}
	if (lim->memory_high_bytes != TM_LIMIT_UNSET) {
		if (tm_cg_write_limit(cg, "memory_high", "memory.high", lim->memory_high_bytes,
		                      &got))
			return -1;
		tm_cg_json_add(cg, "}");
	}
	if (lim->swap_max_bytes == TM_LIMIT_UNSET)
		return 0;
	if (!tm_cg_exists_in(cg->dir[DIR_MEM], "memory.swap.max")) {
		tm_cg_unsupported(cg, "swap_max", lim->swap_max_bytes,
		                  "no memory.swap.max: the kernel does no swap accounting");
		return 0;
	}
	if (tm_cg_write_limit(cg, "swap_max", "memory.swap.max", lim->swap_max_bytes, &got))
		return -1;
	tm_cg_json_add(cg, "}");
	return 0;
}

static int make_dirs_v2(struct tm_cgroup *cg, const struct tm_cg_host *host, const char *name)
{
	const struct tm_cg_mount *m = &host->mounts.unified;
	char parent[PATH_MAX];

	if (enable_controllers(m->dir) || tm_cg_join(parent, sizeof(parent), m->dir, host->parent))
		return -1;
	if (mkdir(parent, 0755) && errno != EEXIST)
		return tm_error("cannot create cgroup '%s': %s", parent, strerror(errno));
	if (enable_controllers(parent) || tm_cg_make_dir(cg, DIR_MEM, host, m, name))
		return -1;
	if (!tm_cg_exists_in(cg->dir[DIR_MEM], "memory.max"))
		return tm_error("cgroup '%s' has no memory controller", cg->dir[DIR_MEM]);
	snprintf(cg->dir[DIR_UNI], sizeof(cg->dir[DIR_UNI]), "%s", cg->dir[DIR_MEM]);
	return 0;
}

/* v2 has one directory for everything. */
static void open_dirs_v2(struct tm_cgroup *cg, const struct tm_cg_host *host)
{
	(void)host;
	snprintf(cg->dir[DIR_UNI], sizeof(cg->dir[DIR_UNI]), "%s", cg->dir[DIR_MEM]);
}

static int pid_dirs_v2(struct tm_cgroup *cg, const struct tm_cg_host *host,
                       const struct tm_proc_cgroup *pc, pid_t pid)
{
	if (!pc->has_unified ||
	    tm_cg_map_path(&host->mounts.unified, pc->unified, cg->dir[DIR_MEM], PATH_MAX))
		return tm_error("process %d is in no cgroup2 cgroup this host has mounted",
		                (int)pid);
	open_dirs_v2(cg, host);
	return 0;
}

const struct cg_ops tm_cg_v2_ops = {
    .name = "v2",
    .files = W_V2,
    .oom_file = F_V2_EVENTS,
    .unlimited = "max",
    .parse_value = tm_parse_cg2_value,
    .make_dirs = make_dirs_v2,
    .set_limits = limits_v2,
    .open_dirs = open_dirs_v2,
    .pid_dirs = pid_dirs_v2,
    .derive = NULL,
};
