/* The files a cgroup is sampled from, kept open and re-read with pread. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/internal.h"
#include "kern/cgroup_v1.h"
#include "kern/kread.h"
#include "kern/psi.h"
#include "base/banned.h"

const struct cg_file tm_cg_files[F_COUNT] = {
    [F_V1_USAGE] = {"memory.usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_CURRENT_BYTES,
                    NO_METRIC},
    [F_V1_MAX_USAGE] = {"memory.max_usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_PEAK_BYTES,
                        NO_METRIC},
    [F_V1_LIMIT] = {"memory.limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_MAX_BYTES,
                    NO_METRIC},
    [F_V1_SOFT] = {"memory.soft_limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_HIGH_BYTES,
                   NO_METRIC},
    [F_V1_FAILCNT] = {"memory.failcnt", DIR_MEM, W_V1, P_V1_VALUE, TM_M_CG_FAILCNT, NO_METRIC},
    [F_V1_MEMSW_USAGE] = {"memory.memsw.usage_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, NO_METRIC,
                          NO_METRIC},
    [F_V1_MEMSW_LIMIT] = {"memory.memsw.limit_in_bytes", DIR_MEM, W_V1, P_V1_VALUE, NO_METRIC,
                          NO_METRIC},
    [F_V1_STAT] = {"memory.stat", DIR_MEM, W_V1, P_V1_STAT, NO_METRIC, NO_METRIC},
    [F_V1_OOM] = {"memory.oom_control", DIR_MEM, W_V1, P_V1_OOM, NO_METRIC, NO_METRIC},
    [F_CPUACCT_USAGE] = {"cpuacct.usage", DIR_CPU, W_V1, P_CPUACCT_USAGE, TM_M_CG_CPU_USAGE_USEC,
                         NO_METRIC},
    [F_CPUACCT_STAT] = {"cpuacct.stat", DIR_CPU, W_V1, P_CPUACCT_STAT, NO_METRIC, NO_METRIC},
    [F_V2_CURRENT] = {"memory.current", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_CURRENT_BYTES,
                      NO_METRIC},
    [F_V2_PEAK] = {"memory.peak", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_PEAK_BYTES, NO_METRIC},
    [F_V2_MAX] = {"memory.max", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_MAX_BYTES, NO_METRIC},
    [F_V2_HIGH] = {"memory.high", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_HIGH_BYTES, NO_METRIC},
    [F_V2_SWAP_MAX] = {"memory.swap.max", DIR_MEM, W_V2, P_V2_VALUE, TM_M_CG_SWAP_MAX_BYTES,
                       NO_METRIC},
    [F_V2_SWAP_CURRENT] = {"memory.swap.current", DIR_MEM, W_V2, P_V2_VALUE,
                           TM_M_CG_SWAP_CURRENT_BYTES, NO_METRIC},
    [F_V2_STAT] = {"memory.stat", DIR_MEM, W_V2, P_V2_STAT, NO_METRIC, NO_METRIC},
    [F_V2_EVENTS] = {"memory.events", DIR_MEM, W_V2, P_V2_EVENTS, NO_METRIC, NO_METRIC},
    [F_CPU_STAT] = {"cpu.stat", DIR_UNI, W_BOTH, P_CPU_STAT, NO_METRIC, NO_METRIC},
    [F_IO_STAT] = {"io.stat", DIR_UNI, W_BOTH, P_IO_STAT, NO_METRIC, NO_METRIC},
    [F_PSI_MEM] = {"memory.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_MEM_SOME_USEC,
                   TM_M_CG_PSI_MEM_FULL_USEC},
    [F_PSI_IO] = {"io.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_IO_SOME_USEC,
                  TM_M_CG_PSI_IO_FULL_USEC},
    [F_PSI_CPU] = {"cpu.pressure", DIR_UNI, W_BOTH, P_PSI, TM_M_CG_PSI_CPU_SOME_USEC,
                   TM_M_CG_PSI_CPU_FULL_USEC},
};

/* Opens every file this cgroup has; missing ones stay -1 (their metrics
 * will be absent). */
void tm_cg_open_files(struct tm_cgroup *cg)
{
	char path[PATH_MAX];

	for (int i = 0; i < F_COUNT; i++) {
		const struct cg_file *f = &tm_cg_files[i];
		const char *dir = cg->dir[f->dir];

		if (f->which != W_BOTH && f->which != cg->ops->files)
			continue;
		if (!dir[0] || tm_cg_join(path, sizeof(path), dir, f->name))
			continue;
		cg->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (!tm_cg_join(path, sizeof(path), cg->dir[DIR_MEM], "cgroup.procs"))
		cg->procs_fd = open(path, O_RDONLY | O_CLOEXEC);
}

void tm_cg_close_files(struct tm_cgroup *cg)
{
	for (int i = 0; i < F_COUNT; i++)
		if (cg->fd[i] >= 0) {
			close(cg->fd[i]);
			cg->fd[i] = -1;
		}
	if (cg->procs_fd >= 0) {
		close(cg->procs_fd);
		cg->procs_fd = -1;
	}
}

/* Reads file I into cg->buf; its length, or -1 when it is absent/vanished. */
static ssize_t read_file(struct tm_cgroup *cg, int i)
{
	if (cg->fd[i] < 0)
		return -1;
	return tm_kread(cg->fd[i], cg->buf, sizeof(cg->buf));
}

static int parse_file(struct tm_cgroup *cg, int i, size_t len, struct tm_sample *out,
                      int64_t *value)
{
	const struct cg_file *f = &tm_cg_files[i];
	struct tm_cg1_oom oom;
	struct tm_psi psi;
	int rc;

	switch (f->parse) {
	case P_V1_VALUE:
		return tm_parse_cg1_value(cg->buf, len, value);
	case P_V2_VALUE:
		return tm_parse_cg2_value(cg->buf, len, value);
	case P_CPUACCT_USAGE:
		return tm_parse_cpuacct_usage(cg->buf, len, value);
	case P_V1_STAT:
		return tm_parse_cg1_memory_stat(cg->buf, len, out);
	case P_V1_OOM:
		rc = tm_parse_cg1_oom_control(cg->buf, len, &oom);
		if (!rc && oom.has_oom_kill)
			tm_sample_set(out, TM_M_CG_EVENTS_OOM_KILL, oom.oom_kill);
		return rc;
	case P_CPUACCT_STAT:
		return tm_parse_cpuacct_stat(cg->buf, len, cg->clk_tck, out);
	case P_V2_STAT:
		return tm_parse_cg2_memory_stat(cg->buf, len, out);
	case P_V2_EVENTS:
		return tm_parse_cg2_memory_events(cg->buf, len, out);
	case P_CPU_STAT:
		return tm_parse_cg2_cpu_stat(cg->buf, len, out);
	case P_IO_STAT:
		return tm_parse_cg2_io_stat(cg->buf, len, out);
	case P_PSI:
		rc = tm_parse_psi(cg->buf, len, &psi);
		if (!rc && psi.has_some)
			tm_sample_set(out, (enum tm_metric)f->metric, psi.some_total_usec);
		if (!rc && psi.has_full)
			tm_sample_set(out, (enum tm_metric)f->metric2, psi.full_total_usec);
		return rc;
	}
	return -1;
}

int tm_cgroup_read(struct tm_cgroup *cg, struct tm_sample *out)
{
	int64_t val[F_COUNT];
	bool have[F_COUNT] = {false};
	int rc = 0;

	for (int i = 0; i < F_COUNT; i++) {
		ssize_t n = read_file(cg, i);
		if (n < 0)
			continue; /* absent here, or the cgroup is gone */
		if (parse_file(cg, i, (size_t)n, out, &val[i])) {
			rc = tm_error("cannot parse '%s/%s'", cg->dir[tm_cg_files[i].dir],
			              tm_cg_files[i].name);
			continue;
		}
		if (tm_cg_files[i].parse == P_V1_VALUE || tm_cg_files[i].parse == P_V2_VALUE ||
		    tm_cg_files[i].parse == P_CPUACCT_USAGE) {
			have[i] = true;
			if (tm_cg_files[i].metric != NO_METRIC)
				tm_sample_set(out, (enum tm_metric)tm_cg_files[i].metric, val[i]);
		}
	}
	if (cg->ops->derive)
		cg->ops->derive(val, have, out);
	return rc;
}

int tm_cgroup_oom_kills(struct tm_cgroup *cg, int64_t *out)
{
	int i = cg->ops->oom_file;
	struct tm_sample s;
	ssize_t n = read_file(cg, i);

	tm_sample_clear(&s);
	if (n < 0 || parse_file(cg, i, (size_t)n, &s, NULL) ||
	    !tm_sample_has(&s, TM_M_CG_EVENTS_OOM_KILL))
		return -1;
	*out = s.v[TM_M_CG_EVENTS_OOM_KILL];
	return 0;
}

/* Reads a pid list from FD (kept open) or PATH, growing as needed. */
int tm_cg_read_pids(int fd, const char *path, pid_t **pids, size_t *n)
{
	size_t cap = 64, size = 4096;

	*pids = NULL;
	*n = 0;
	for (;;) {
		char *buf = malloc(size);
		pid_t *p = malloc(cap * sizeof(*p));
		ssize_t len = buf ? (fd >= 0 ? tm_kread(fd, buf, size)
		                             : tm_read_at(AT_FDCWD, path, buf, size))
		                  : -1;
		size_t count = 0;
		int e = errno;

		if (buf && p && len < 0 && (e == ENODEV || e == ENOENT)) {
			free(buf); /* the cgroup is gone: no processes */
			free(p);
			return 0;
		}
		if (!buf || !p || len < 0 || tm_parse_pid_list(buf, (size_t)len, p, cap, &count)) {
			free(buf);
			free(p);
			return tm_error("cannot read '%s': %s", path,
			                len < 0 ? strerror(e) : "malformed pid list");
		}
		free(buf);
		if ((size_t)len + 1 < size && count <= cap) {
			*pids = count ? p : NULL;
			if (!count)
				free(p);
			*n = count;
			return 0;
		}
		free(p);
		size *= 2;
		cap = count > cap ? count : cap * 2;
	}
}

int tm_cgroup_pids(struct tm_cgroup *cg, pid_t **pids, size_t *n)
{
	char path[PATH_MAX];

	if (tm_cg_join(path, sizeof(path), cg->dir[DIR_MEM], "cgroup.procs"))
		return -1;
	/* opened afresh each time on v1: re-reading a kept descriptor returns
	 * the pid list cached at its first read for as long as it is re-read
	 * within a second, which names processes long gone */
	return tm_cg_read_pids(cg->ops == &tm_cg_v1_ops ? -1 : cg->procs_fd, path, pids, n);
}
