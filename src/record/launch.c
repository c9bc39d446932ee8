#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "record/launch.h"
#include "base/banned.h"

extern char **environ;

/* In the child after fork: only async-signal-safe calls from here on. */
static void child_exec(char *const *argv, char *const *envp, int go_rd, int exec_wr,
                       const int out[2], const sigset_t *sigmask)
{
	char c;
	int err;

	for (int i = 0; i < 2; i++)
		if (out[i] >= 0)
			dup2(out[i], 1 + i);
	/* nothing of ours but 0, 1 and 2 reaches the command (the store, the
	 * sampler's files, the marks FIFO, the capture pipes' other ends) */
	close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
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

/* A pseudo-terminal's two ends: 0, or -1 with ERR set (nothing left
 * open then). */
static int pty_pair(int *master, int *slave, struct tm_err *err)
{
	char name[128];

	*slave = -1;
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) || unlockpt(*master) ||
	    ptsname_r(*master, name, sizeof(name))) {
		tm_err_set(err, errno, "cannot open a pseudo-terminal: %s", strerror(errno));
		goto fail;
	}
	*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*slave < 0) {
		tm_err_set(err, errno, "cannot open '%s': %s", name, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	if (*master >= 0)
		close(*master);
	*master = -1;
	return -1;
}

int tm_pty_probe(struct tm_err *err)
{
	int m, s;

	if (pty_pair(&m, &s, err))
		return -1;
	close(s);
	close(m);
	return 0;
}

/* A raw pseudo-terminal: bytes pass as written. */
static int open_pty(int *master, int *slave)
{
	struct tm_err err;
	struct termios tio;
	struct winsize ws;

	if (pty_pair(master, slave, &err))
		return tm_error("%.191s", err.msg);
	if (tcgetattr(*slave, &tio) == 0) {
		cfmakeraw(&tio);
		tcsetattr(*slave, TCSANOW, &tio);
	}
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 || ioctl(2, TIOCGWINSZ, &ws) == 0)
		ioctl(*slave, TIOCSWINSZ, &ws);
	return 0;
}

int tm_child_io_open(const enum tm_out_mode mode[2], struct tm_child_io *io)
{
	*io = (struct tm_child_io){{-1, -1}, {-1, -1}};
	for (int i = 0; i < 2; i++) {
		int p[2];
		switch (mode[i]) {
		case TM_OUT_INHERIT:
			break;
		case TM_OUT_NULL:
			if ((io->child[i] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
				return tm_error("cannot open /dev/null: %s", strerror(errno));
			break;
		case TM_OUT_PIPE:
			if (pipe2(p, O_CLOEXEC))
				return tm_error("pipe: %s", strerror(errno));
			io->ours[i] = p[0];
			io->child[i] = p[1];
			break;
		case TM_OUT_PTY:
			if (open_pty(&io->ours[i], &io->child[i]))
				return -1;
			break;
		}
	}
	return 0;
}

static void close_pair(int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0) {
			close(fd[i]);
			fd[i] = -1;
		}
}

void tm_child_io_close_child(struct tm_child_io *io)
{
	close_pair(io->child);
}

void tm_child_io_close_ours(struct tm_child_io *io)
{
	close_pair(io->ours);
}

int tm_launch_start(char *const *argv, char *const *envp, const struct tm_child_io *io,
                    const sigset_t *sigmask, struct tm_launch *l)
{
	static const int inherit[2] = {-1, -1};
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC))
		return tm_error("pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		return tm_error("pipe: %s", strerror(errno));
	}
	l->pid = fork();
	if (l->pid < 0)
		return tm_error("fork: %s", strerror(errno));
	if (l->pid == 0) {
		/* the child keeps only its own ends, or it would never see EOF on go */
		close(go[1]);
		close(ex[0]);
		child_exec(argv, envp ? envp : environ, go[0], ex[1], io ? io->child : inherit,
		           sigmask);
	}
	close(go[0]);
	close(ex[1]);
	l->go_fd = go[1];
	l->exec_fd = ex[0];
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
