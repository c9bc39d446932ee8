/* Host detection: which cgroup mode a host runs, where its hierarchies are
 * mounted, and the fresh cgroups that killed recorders left behind. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/internal.h"
#include "base/banned.h"

int tm_cg_host_parse(const char *mountinfo, size_t len, struct tm_cg_host *host)
{
	memset(host, 0, sizeof(*host));
	snprintf(host->parent, sizeof(host->parent), "tidemark");
	if (tm_parse_mountinfo(mountinfo, len, &host->mounts))
		return -1;
	if (host->mounts.memory.found)
		host->mode = host->mounts.unified.found ? TM_CG_MODE_HYBRID : TM_CG_MODE_V1;
	else if (host->mounts.unified.found)
		host->mode = TM_CG_MODE_V2;
	else
		host->mode = TM_CG_MODE_NONE;
	return 0;
}

int tm_cg_host_detect(struct tm_cg_host *host)
{
	size_t len;
	char *text = tm_read_file("/proc/self/mountinfo", &len);
	int rc;

	if (!text)
		return tm_error("cannot read '/proc/self/mountinfo': %s", strerror(errno));
	rc = tm_cg_host_parse(text, len, host);
	free(text);
	if (rc)
		return tm_error("cannot parse '/proc/self/mountinfo'");
	return 0;
}

const char *tm_cg_mode_name(enum tm_cg_mode mode)
{
	switch (mode) {
	case TM_CG_MODE_V1:
		return "v1";
	case TM_CG_MODE_V2:
		return "v2";
	case TM_CG_MODE_HYBRID:
		return "hybrid";
	default:
		return "none";
	}
}

const struct cg_ops *tm_cg_ops_of(enum tm_cg_mode mode)
{
	/* hybrid: the memory numbers come from v1 */
	return mode == TM_CG_MODE_V2 ? &tm_cg_v2_ops : &tm_cg_v1_ops;
}

/* The recorder pid in a fresh cgroup's name "tidemark-PID-...", or 0. */
static pid_t creator_pid(const char *name)
{
	long pid = 0;
	const char *p = name + 9;

	if (strncmp(name, "tidemark-", 9) || *p < '1' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9' && pid < 1 << 30; p++)
		pid = pid * 10 + (*p - '0');
	return *p == '-' ? (pid_t)pid : 0;
}

int tm_cgroup_reap_stale(const struct tm_cg_host *host)
{
	const struct tm_cg_mount *mounts[] = {&host->mounts.memory, &host->mounts.cpuacct,
	                                      &host->mounts.unified};
	char parent[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int removed = 0;
	DIR *d;

	for (size_t i = 0; i < TM_ARRAY_SIZE(mounts); i++) {
		if (!mounts[i]->found || snprintf(parent, sizeof(parent), "%s/%s", mounts[i]->dir,
		                                  host->parent) >= (int)sizeof(parent))
			continue;
		if (!(d = opendir(parent)))
			continue;
		while ((de = readdir(d))) {
			pid_t pid = creator_pid(de->d_name);
			if (!pid || !(kill(pid, 0) && errno == ESRCH))
				continue; /* not ours, or its recorder still runs */
			if (snprintf(path, sizeof(path), "%s/%s", parent, de->d_name) <
			        (int)sizeof(path) &&
			    rmdir(path) == 0)
				removed++;
		}
		closedir(d);
	}
	return removed;
}
