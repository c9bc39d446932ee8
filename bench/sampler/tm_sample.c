/*
 * tm-sample: one sample of a process tree, a cgroup, or a command run in a
 * fresh memory-limited cgroup, printed as "metric value" lines (absent
 * metrics are not printed).  A probe for people and for the kern e2e tests.
 *
 *   tm-sample pid PID [--proc-root DIR] [--no-host] [--reads N]
 *   tm-sample cgroup PATH [--no-host]
 *   tm-sample run [--max SIZE] [--high SIZE] [--swap SIZE] -- CMD [ARG...]
 *
 * --reads N reads N samples 100 ms apart in the sampler's time (at once),
 * with the recorder's cadence of status and smaps_rollup (every 10 s), and
 * prints the last: what an instruction count of one read is taken from
 * (bench/sampler/insn.sh).
 *
 * Examples:
 *   tm-sample pid $$
 *   tm-sample cgroup /sys/fs/cgroup/memory/tidemark/myrun
 *   tm-sample run --max 50M -- python3 -c 'bytearray(200 << 20)'
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "sample/sampler.h"

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: tm-sample pid PID [--proc-root DIR] [--no-host] [--reads N]\n"
	           "       tm-sample cgroup PATH [--no-host]\n"
	           "       tm-sample run [--max SIZE] [--high SIZE] [--swap SIZE] -- CMD [ARG...]\n"
	           "examples:\n"
	           "  tm-sample pid $$\n"
	           "  tm-sample run --max 50M -- python3 -c 'bytearray(200 << 20)'\n");
	return rc;
}

static void print_sample(const struct tm_sample *s)
{
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_sample_has(s, (enum tm_metric)m))
			printf("%s %lld\n", tm_metric_info((enum tm_metric)m)->name,
			       (long long)s->v[m]);
}

static int sample_reads(struct tm_sampler_cfg *cfg, int64_t reads)
{
	struct tm_sampler *s;
	struct tm_sample out;
	int64_t now = tm_now_mono_usec();
	int rc = 0;

	if (tm_sampler_open(cfg, &s))
		return 1;
	for (int64_t i = 0; i < reads; i++)
		rc |= tm_sampler_read(s, now + i * 100000, &out);
	print_sample(&out);
	tm_sampler_close(s);
	return rc ? 1 : 0;
}

static int parse_limit(const char *arg, int64_t *out)
{
	if (!arg || tm_parse_size(arg, out)) {
		fprintf(stderr, "tm-sample: bad size '%s'\n", arg ? arg : "");
		return -1;
	}
	return 0;
}

/* Forks CMD stopped on a pipe, attaches it, lets it run, waits. */
static int run_cmd(struct tm_cgroup *cg, char **argv, int *status)
{
	int go[2];
	char b = 0;
	pid_t pid;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	if (pid < 0 || tm_cgroup_attach(cg, pid)) {
		if (pid > 0)
			kill(pid, SIGKILL);
		close(go[1]);
		if (pid > 0)
			waitpid(pid, status, 0);
		return -1;
	}
	if (write(go[1], &b, 1) != 1)
		kill(pid, SIGKILL);
	close(go[1]);
	return waitpid(pid, status, 0) == pid ? 0 : -1;
}

static int cmd_run(int argc, char **argv)
{
	struct tm_limits lim = {TM_LIMIT_UNSET, TM_LIMIT_UNSET, TM_LIMIT_UNSET};
	struct tm_cg_host host;
	struct tm_cgroup *cg;
	struct tm_sample out;
	char name[64];
	int i, status = 0, rc;

	for (i = 0; i < argc && strcmp(argv[i], "--"); i++) {
		int64_t *dst = !strcmp(argv[i], "--max")    ? &lim.memory_max_bytes
		               : !strcmp(argv[i], "--high") ? &lim.memory_high_bytes
		               : !strcmp(argv[i], "--swap") ? &lim.swap_max_bytes
		                                            : NULL;
		if (!dst || parse_limit(i + 1 < argc ? argv[i + 1] : NULL, dst))
			return usage(stderr, 2);
		i++;
	}
	if (i + 1 >= argc)
		return usage(stderr, 2);
	if (tm_cg_host_detect(&host))
		return 1;
	snprintf(name, sizeof(name), "tm-sample-%d", (int)getpid());
	if (tm_cgroup_create(&host, name, &lim, &cg))
		return 1;
	printf("cgroup %s\nlimits %s\n", tm_cgroup_path(cg), tm_cgroup_limits_json(cg));
	rc = run_cmd(cg, argv + i + 1, &status);
	if (!rc) {
		if (WIFEXITED(status))
			printf("exit %d\n", WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			printf("signal %d\n", WTERMSIG(status));
		tm_sample_clear(&out);
		if (tm_cgroup_read(cg, &out))
			rc = -1;
		print_sample(&out);
	}
	if (tm_cgroup_destroy(cg))
		rc = -1;
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct tm_sampler_cfg cfg;
	struct tm_cg_host host;
	struct tm_cgroup *cg = NULL;
	int64_t pid = 0, reads = 1;
	int rc;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return usage(stdout, 0);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (argc < 3)
		return usage(stderr, 2);
	tm_sampler_cfg_init(&cfg);
	cfg.smaps_every_usec = 0;
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--no-host"))
			cfg.host = false;
		else if (!strcmp(argv[i], "--proc-root") && i + 1 < argc)
			cfg.proc_root = argv[++i];
		else if (!strcmp(argv[i], "--reads") && i + 1 < argc &&
		         !tm_parse_int64(argv[i + 1], &reads) && reads > 0)
			i++, cfg.smaps_every_usec = 10000000;
		else
			return usage(stderr, 2);
	}
	if (!strcmp(argv[1], "pid")) {
		if (tm_parse_int64(argv[2], &pid) || pid <= 0) {
			fprintf(stderr, "tm-sample: bad pid '%s'\n", argv[2]);
			return 2;
		}
		cfg.root_pid = (pid_t)pid;
		/* its cgroup too, when this is the real /proc */
		if (!strcmp(cfg.proc_root, "/proc") && !tm_cg_host_detect(&host) &&
		    host.mode != TM_CG_MODE_NONE &&
		    !tm_cgroup_of_pid(&host, "/proc", cfg.root_pid, &cg))
			printf("cgroup %s\n", tm_cgroup_path(cg));
	} else if (!strcmp(argv[1], "cgroup")) {
		if (tm_cg_host_detect(&host) || tm_cgroup_open_path(&host, argv[2], &cg))
			return 1;
		printf("cgroup %s\n", tm_cgroup_path(cg));
	} else {
		return usage(stderr, 2);
	}
	cfg.cgroup = cg;
	rc = sample_reads(&cfg, reads);
	tm_cgroup_destroy(cg);
	return rc;
}
