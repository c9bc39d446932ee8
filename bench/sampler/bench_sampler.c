/*
 * CPU time per tm_sampler_read for a tree of N sleeping processes (N = 1 and
 * 50 by default), with the host files and, when we can make one, a cgroup
 * holding the tree.  Usage: bench-sampler [READS] [N...]
 *
 * Three smaps_rollup cadences: never; the default (at most once a second)
 * with reads 250 ms apart in sampler time, i.e. one smaps read per four
 * samples; and on every read (worst case).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cgroup/cgroup.h"
#include "sample/sampler.h"

static double cpu_usec(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 +
	       ru.ru_stime.tv_usec;
}

/* A root that forks N-1 children; every process holds 4 MiB touched. */
static pid_t spawn_tree(int n)
{
	int ready[2];
	pid_t root;
	char b;

	if (pipe(ready))
		exit(1);
	root = fork();
	if (root == 0) {
		setpgid(0, 0); /* one group: the whole tree is killed by -root */
		char *p =
		    mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			memset(p, 1, 4 << 20);
		for (int i = 1; i < n; i++)
			if (fork() == 0) {
				memset(p, 2, 4 << 20);
				for (;;)
					pause();
			}
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &b, 1) != 1)
		exit(1);
	close(ready[0]);
	usleep(100000);
	return root;
}

static double measure(pid_t root, struct tm_cgroup *cg, int reads, int64_t smaps_every,
                      int64_t step)
{
	struct tm_sampler_cfg cfg;
	struct tm_sampler *s;
	struct tm_sample out;
	int64_t now = 0;
	double t0;

	tm_sampler_cfg_init(&cfg);
	cfg.root_pid = root;
	cfg.cgroup = cg;
	cfg.smaps_every_usec = smaps_every;
	if (tm_sampler_open(&cfg, &s))
		exit(1);
	tm_sampler_read(s, now, &out); /* warm: opens the files */
	t0 = cpu_usec();
	for (int i = 0; i < reads; i++) {
		now += step;
		if (tm_sampler_read(s, now, &out))
			exit(1);
	}
	double per = (cpu_usec() - t0) / reads;
	if (out.v[TM_M_PROC_COUNT] < 1)
		exit(1);
	tm_sampler_close(s);
	return per;
}

int main(int argc, char **argv)
{
	int reads = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 2000;
	int sizes[8] = {1, 50}, nsizes = 2;
	struct tm_cg_host host;

	if (argc > 2) {
		nsizes = 0;
		for (int i = 2; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = (int)strtol(argv[i], NULL, 10);
	}
	bool cgroups = geteuid() == 0 && !tm_cg_host_detect(&host) && host.mode != TM_CG_MODE_NONE;
	printf("%-6s %-8s %14s %18s\n", "procs", "cgroup", "smaps every", "cpu usec/read");
	for (int k = 0; k < nsizes; k++) {
		pid_t root = spawn_tree(sizes[k]);
		struct tm_cgroup *cg = NULL;
		char name[64];
		struct tm_limits lim = {TM_LIMIT_UNSET, TM_LIMIT_UNSET, TM_LIMIT_UNSET};

		snprintf(name, sizeof(name), "tm-bench-%d", (int)getpid());
		if (cgroups && !tm_cgroup_create(&host, name, &lim, &cg))
			tm_cgroup_attach(cg, root); /* children forked before: tree only */
		static const struct {
			const char *label;
			int64_t every;
		} modes[] = {{"never", -1}, {"1 s", 1000000}, {"every read", 0}};
		for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
			printf("%-6d %-8s %14s %18.1f\n", sizes[k],
			       cg ? tm_cgroup_version(cg) : "-", modes[m].label,
			       measure(root, cg, reads, modes[m].every, 250000));
		kill(-root, SIGKILL);
		waitpid(root, NULL, 0);
		tm_cgroup_destroy(cg);
	}
	return 0;
}
