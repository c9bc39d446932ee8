#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "record/launch.h"
#include "base/banned.h"

extern char **environ;

/* In the child after fork: only async-signal-safe calls from here on. */
static void child_exec(char *const *argv, char *const *envp, int go_rd, int exec_wr, int out_wr,
                       int err_wr, bool null_out, const sigset_t *sigmask)
{
	char c;
	int err;

	if (out_wr >= 0) {
		dup2(out_wr, 1);
		dup2(err_wr, 2);
	} else if (null_out) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
	}
	sigprocmask(SIG_SETMASK, sigmask, NULL);
	signal(SIGPIPE, SIG_DFL);
	/* wait for the parent to move us into the cgroup */
	while (read(go_rd, &c, 1) < 0 && errno == EINTR)
		;
	execvpe(argv[0], argv, envp);
	err = errno;
	while (write(exec_wr, &err, sizeof(err)) < 0 && errno == EINTR)
		;
	_exit(127);
}

int tm_launch_start(char *const *argv, char *const *envp, bool capture, const sigset_t *sigmask,
                    struct tm_launch *l)
{
	int go[2], ex[2], out[2] = {-1, -1}, err[2] = {-1, -1};

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC))
		return tm_error("pipe: %s", strerror(errno));
	if (capture && (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)))
		return tm_error("pipe: %s", strerror(errno));
	l->pid = fork();
	if (l->pid < 0)
		return tm_error("fork: %s", strerror(errno));
	if (l->pid == 0) {
		/* the child keeps only its own ends, or it would never see EOF on go */
		close(go[1]);
		close(ex[0]);
		if (capture) {
			close(out[0]);
			close(err[0]);
		}
		child_exec(argv, envp ? envp : environ, go[0], ex[1], out[1], err[1], !capture,
		           sigmask);
	}
	close(go[0]);
	close(ex[1]);
	if (capture) {
		close(out[1]);
		close(err[1]);
		fcntl(out[0], F_SETFL, O_NONBLOCK);
		fcntl(err[0], F_SETFL, O_NONBLOCK);
	}
	l->go_fd = go[1];
	l->exec_fd = ex[0];
	l->out_fd = out[0];
	l->err_fd = err[0];
	return 0;
}

int tm_launch_go(struct tm_launch *l, const char *what)
{
	int child_errno = 0;
	ssize_t n;

	close(l->go_fd);
	l->go_fd = -1;
	do
		n = read(l->exec_fd, &child_errno, sizeof(child_errno));
	while (n < 0 && errno == EINTR);
	close(l->exec_fd);
	l->exec_fd = -1;
	if (n == (ssize_t)sizeof(child_errno)) {
		waitpid(l->pid, NULL, 0);
		return tm_error("cannot run '%s': %s", what, strerror(child_errno));
	}
	return 0;
}

bool tm_env_alloc_var(const char *name)
{
	static const char *exact[] = {"LD_PRELOAD", "GLIBC_TUNABLES", "JE_MALLOC_CONF",
	                              "_RJEM_MALLOC_CONF"};
	static const char *prefix[] = {"MALLOC_", "MIMALLOC_", "TCMALLOC_"};

	for (size_t i = 0; i < TM_ARRAY_SIZE(exact); i++)
		if (!strcmp(name, exact[i]))
			return true;
	for (size_t i = 0; i < TM_ARRAY_SIZE(prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static bool same_name(const char *a, const char *b)
{
	const char *ea = strchr(a, '='), *eb = strchr(b, '=');
	return ea && eb && ea - a == eb - b && !strncmp(a, b, (size_t)(ea - a));
}

char **tm_env_build(char *const *envp, char *const *set, const char *preload_first)
{
	size_t n = 0, nset = 0, k = 0;
	char **env;

	if (!envp)
		envp = environ;
	while (envp[n])
		n++;
	while (set && set[nset])
		nset++;
	env = calloc(n + nset + 2, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < nset; j++)
			replaced |= same_name(envp[i], set[j]);
		if (!replaced && !(env[k++] = strdup(envp[i])))
			goto oom;
	}
	for (size_t j = 0; j < nset; j++)
		if (!(env[k++] = strdup(set[j])))
			goto oom;
	if (preload_first) {
		char **slot = NULL, *joined;
		size_t len;
		for (size_t i = 0; i < k; i++)
			if (!strncmp(env[i], "LD_PRELOAD=", 11))
				slot = &env[i];
		len = strlen(preload_first) + (slot ? strlen(*slot) : 0) + 16;
		if (!(joined = malloc(len)))
			goto oom;
		if (slot && (*slot)[11])
			snprintf(joined, len, "LD_PRELOAD=%s %s", preload_first, *slot + 11);
		else
			snprintf(joined, len, "LD_PRELOAD=%s", preload_first);
		if (slot) {
			free(*slot);
			*slot = joined;
		} else {
			env[k++] = joined;
		}
	}
	return env;
oom:
	tm_env_free(env);
	return NULL;
}

void tm_env_free(char **env)
{
	if (!env)
		return;
	for (char **e = env; *e; e++)
		free(*e);
	free(env);
}
