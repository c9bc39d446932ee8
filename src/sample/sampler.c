#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "kern/kread.h"
#include "kern/procfs.h"
#include "kern/psi.h"
#include "kern/thp.h"
#include "sample/proctree.h"
#include "sample/rtsample.h"
#include "sample/sampler.h"
#include "base/banned.h"

enum { H_MEMINFO, H_STAT, H_PSI_MEM, H_PSI_IO, H_PSI_CPU, H_COUNT };

static const char *const host_files[H_COUNT] = {
    "meminfo", "stat", "pressure/memory", "pressure/io", "pressure/cpu",
};

struct tm_sampler {
	struct tm_sampler_cfg cfg;
	char proc_root[PATH_MAX];
	struct tm_proctree *tree;
	long clk_tck;
	long page_size;
	int host_fd[H_COUNT];
	int64_t hpage_bytes; /* hpage_pmd_size, 0 when not known */
	bool smaps_read_once;
	bool root_gone; /* cgroup_after_root: the cgroup's members are the target now */
	int64_t last_smaps_usec;
	pid_t *pids;
	struct tm_comm *comms; /* each pid's command name, from its stat */
	size_t npids, pids_cap, comms_cap;
	uint8_t *rt_buf; /* the runtimes' scratch (rtsample.h) */
	char buf[16384];
};

void tm_sampler_cfg_init(struct tm_sampler_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->proc_root = "/proc";
	cfg->smaps_every_usec = 1000000;
	cfg->host = true;
	cfg->sys_root = "/sys";
}

/* The host's huge page size under SYS_ROOT: bytes, or 0 when the kernel has
 * no transparent huge pages (no file) or the file does not parse.  Read
 * once: it is fixed at boot. */
static int64_t read_hpage_bytes(const char *sys_root)
{
	char path[PATH_MAX], buf[64];
	int64_t bytes;

	if (!sys_root ||
	    snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/hpage_pmd_size",
	             sys_root) >= (int)sizeof(path))
		return 0;
	ssize_t n = tm_read_small(path, buf, sizeof(buf));
	return n > 0 && !tm_parse_thp_size(buf, (size_t)n, &bytes) ? bytes : 0;
}

int tm_sampler_open(const struct tm_sampler_cfg *cfg, struct tm_sampler **out)
{
	/* mostly paths' room (PATH_MAX each), a page of which a sampler writes */
	struct tm_sampler *s = tm_pages_alloc(sizeof(*s));
	char path[PATH_MAX + 32];

	if (!s)
		return tm_error("out of memory");
	s->cfg = *cfg;
	snprintf(s->proc_root, sizeof(s->proc_root), "%s",
	         cfg->proc_root ? cfg->proc_root : "/proc");
	s->cfg.proc_root = s->proc_root;
	s->page_size = sysconf(_SC_PAGESIZE);
	if (s->page_size <= 0)
		s->page_size = 4096;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	if (s->clk_tck <= 0)
		s->clk_tck = 100;
	for (int i = 0; i < H_COUNT; i++) {
		s->host_fd[i] = -1;
		/* /proc/stat's fork count spares the tree's walks (read_forks) */
		if (!cfg->host && !(i == H_STAT && cfg->root_pid > 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->proc_root, host_files[i]);
		s->host_fd[i] = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (cfg->host)
		s->hpage_bytes = read_hpage_bytes(cfg->sys_root);
	if ((cfg->root_pid > 0 || cfg->cgroup) && !(s->rt_buf = malloc(tm_rt_sample_buf_bytes()))) {
		tm_sampler_close(s);
		return tm_error("out of memory");
	}
	if ((cfg->root_pid > 0 || cfg->cgroup) &&
	    tm_proctree_open(s->proc_root, cfg->root_pid, cfg->proctree_flags, &s->tree)) {
		tm_sampler_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

/* Reads a kept-open per-process file NAME into s->buf; length or -1. */
static ssize_t proc_file(struct tm_sampler *s, struct tm_proc *p, int *fd, const char *name)
{
	if (*fd < 0)
		*fd = openat(p->dirfd, name, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	return tm_kread(*fd, s->buf, sizeof(s->buf));
}

/* One process into ACC (a per-process scratch sample, then summed). */
static void read_proc(struct tm_sampler *s, struct tm_proc *p, bool slow, bool smaps,
                      struct tm_sample *one)
{
	ssize_t n;

	tm_sample_clear(one);
	tm_proc_stat_to_sample(&p->stat, one);
	/* A read or parse failure here means the process is exiting or the
	 * file is unreadable to us: its figures are absent, not an error. */
	if ((n = proc_file(s, p, &p->statm_fd, "statm")) > 0)
		(void)tm_parse_proc_statm(s->buf, (size_t)n, s->page_size, one);
	/* status costs the kernel ~4x statm: its file/shmem/swap split comes at
	 * the slow cadence, like smaps_rollup (absent in between) */
	if (slow && (n = proc_file(s, p, &p->status_fd, "status")) > 0)
		(void)tm_parse_proc_status(s->buf, (size_t)n, one);
	if ((n = proc_file(s, p, &p->io_fd, "io")) > 0)
		(void)tm_parse_proc_io(s->buf, (size_t)n, one);
	if (smaps && (n = proc_file(s, p, &p->smaps_fd, "smaps_rollup")) > 0)
		(void)tm_parse_smaps_rollup(s->buf, (size_t)n, one);
}

static void add_proc(const struct tm_sample *one, struct tm_sample *out)
{
	for (int m = TM_M_PROC_THREADS; m <= TM_M_PROC_WRITE_BYTES; m++)
		if (tm_sample_has(one, (enum tm_metric)m))
			tm_sample_add(out, (enum tm_metric)m, one->v[m]);
}

/* The slow cadence: status and smaps_rollup.  With smaps off, status
 * still comes every 10 s. */
static bool slow_due(struct tm_sampler *s, int64_t now)
{
	int64_t every = s->cfg.smaps_every_usec < 0 ? 10000000 : s->cfg.smaps_every_usec;

	if (every > 0 && s->smaps_read_once && now - s->last_smaps_usec < every)
		return false;
	s->smaps_read_once = true;
	s->last_smaps_usec = now;
	return true;
}

static int remember_pid(struct tm_sampler *s, const struct tm_proc *p)
{
	if (tm_grow(&s->pids, &s->pids_cap, s->npids, sizeof(*s->pids), 64) ||
	    tm_grow(&s->comms, &s->comms_cap, s->npids, sizeof(*s->comms), 64))
		return -1;
	s->comms[s->npids] = p->stat.comm;
	s->pids[s->npids++] = p->pid;
	return 0;
}

static bool root_alive(struct tm_sampler *s)
{
	for (size_t i = 0; i < tm_proctree_count(s->tree); i++) {
		const struct tm_proc *p = tm_proctree_get(s->tree, i);
		if (p->pid == s->cfg.root_pid && !p->zombie)
			return true;
	}
	return false;
}

/* Finds the target's processes for this sample: the tree under the root
 * while it lives; the cgroup's members without a root, and after it with
 * cgroup_after_root (never this process). */
static int track(struct tm_sampler *s, int64_t forks)
{
	pid_t *pids;
	size_t n, k = 0;

	if (s->cfg.root_pid > 0 && !s->root_gone) {
		tm_proctree_scan_forks(s->tree, forks);
		if (!s->cfg.cgroup_after_root || !s->cfg.cgroup || root_alive(s))
			return 0;
		s->root_gone = true;
	}
	if (tm_cgroup_pids(s->cfg.cgroup, &pids, &n))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (pids[i] != getpid())
			pids[k++] = pids[i];
	tm_proctree_set(s->tree, pids, k);
	free(pids);
	return 0;
}

static int read_tree(struct tm_sampler *s, int64_t now, int64_t forks, struct tm_sample *out)
{
	struct tm_sample one;
	bool slow = slow_due(s, now), smaps = slow && s->cfg.smaps_every_usec >= 0;
	int64_t count = 0;

	s->npids = 0;
	if (track(s, forks))
		return -1;
	for (size_t i = 0; i < tm_proctree_count(s->tree); i++) {
		struct tm_proc *p = tm_proctree_get(s->tree, i);
		if (p->zombie)
			continue;
		read_proc(s, p, slow, smaps, &one);
		add_proc(&one, out);
		tm_rt_sample(p, now, s->rt_buf, out);
		count++;
		if (remember_pid(s, p))
			return -1;
	}
	tm_sample_set(out, TM_M_PROC_COUNT, count);
	return 0;
}

static ssize_t host_file(struct tm_sampler *s, int i)
{
	if (s->host_fd[i] < 0)
		return -1;
	return tm_kread(s->host_fd[i], s->buf, sizeof(s->buf));
}

static int read_host(struct tm_sampler *s, struct tm_sample *out)
{
	static const enum tm_metric psi_some[] = {
	    TM_M_HOST_PSI_MEM_SOME_USEC, TM_M_HOST_PSI_IO_SOME_USEC, TM_M_HOST_PSI_CPU_SOME_USEC};
	/* no host cpu "full" metric: its system-wide value is always 0 */
	static const int psi_full[] = {TM_M_HOST_PSI_MEM_FULL_USEC, TM_M_HOST_PSI_IO_FULL_USEC, -1};
	int rc = 0;
	ssize_t n;

	if ((n = host_file(s, H_MEMINFO)) >= 0 && tm_parse_meminfo(s->buf, (size_t)n, out))
		rc = tm_error("cannot parse '%s/meminfo'", s->proc_root);
	for (int i = 0; i < 3; i++) {
		struct tm_psi psi;
		if ((n = host_file(s, H_PSI_MEM + i)) < 0)
			continue;
		if (tm_parse_psi(s->buf, (size_t)n, &psi)) {
			rc = tm_error("cannot parse '%s/%s'", s->proc_root,
			              host_files[H_PSI_MEM + i]);
			continue;
		}
		tm_sample_set(out, psi_some[i], psi.some_total_usec);
		if (psi.has_full && psi_full[i] >= 0)
			tm_sample_set(out, (enum tm_metric)psi_full[i], psi.full_total_usec);
	}
	if (s->hpage_bytes > 0)
		tm_sample_set(out, TM_M_HOST_HPAGE_PMD_BYTES, s->hpage_bytes);
	return rc;
}

/* /proc/stat, before the tree: the host's CPU (with host on) and its fork
 * count into *FORKS (-1 when not known: the tree is then walked). */
static int read_forks(struct tm_sampler *s, struct tm_sample *out, int64_t *forks)
{
	ssize_t n = host_file(s, H_STAT);

	*forks = -1;
	if (n < 0)
		return 0;
	/* /proc/stat can exceed the buffer on big machines: its first line is
	 * enough for the CPU; without its "processes" line, the walk is done */
	(void)tm_parse_proc_stat_forks(s->buf, (size_t)n, forks);
	if (s->cfg.host && tm_parse_proc_stat_cpu(s->buf, (size_t)n, s->clk_tck, out))
		return tm_error("cannot parse '%s/stat'", s->proc_root);
	return 0;
}

int tm_sampler_read(struct tm_sampler *s, int64_t now_mono_usec, struct tm_sample *out)
{
	int rc = 0;
	int64_t forks;

	tm_sample_clear(out);
	s->npids = 0;
	if (read_forks(s, out, &forks))
		rc = -1;
	if (s->tree && read_tree(s, now_mono_usec, forks, out))
		rc = -1;
	if (s->cfg.cgroup && tm_cgroup_read(s->cfg.cgroup, out))
		rc = -1;
	if (s->cfg.host && read_host(s, out))
		rc = -1;
	return rc;
}

const pid_t *tm_sampler_pids(const struct tm_sampler *s, size_t *n)
{
	*n = s->npids;
	return s->pids;
}

const struct tm_comm *tm_sampler_comms(const struct tm_sampler *s)
{
	return s->comms;
}

void tm_sampler_close(struct tm_sampler *s)
{
	if (!s)
		return;
	for (int i = 0; i < H_COUNT; i++)
		if (s->host_fd[i] >= 0)
			close(s->host_fd[i]);
	tm_proctree_close(s->tree);
	free(s->pids);
	free(s->comms);
	free(s->rt_buf);
	tm_pages_free(s, sizeof(*s));
}
