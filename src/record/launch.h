/*
 * Launching the recorded command: fork, wait until the parent has placed
 * the child in its cgroup, then exec with the environment we built.  Exec
 * failures come back to the parent as an error, not as a mystery exit 127.
 */
#ifndef TM_LAUNCH_H
#define TM_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct tm_launch {
	pid_t pid;
	int out_fd;  /* the child's stdout when captured, else -1 */
	int err_fd;  /* the child's stderr when captured, else -1 */
	int go_fd;   /* write end: the child execs when it is closed */
	int exec_fd; /* read end: errno of a failed exec, or EOF once exec'd */
};

/*
 * Forks ARGV with ENVP.  CAPTURE: pipe the child's stdout/stderr to us;
 * NULL_OUTPUT: send them to /dev/null (unless captured).  The child waits
 * until tm_launch_go().  SIGMASK is the mask the child gets back.
 */
int tm_launch_start(char *const *argv, char *const *envp, bool capture, const sigset_t *sigmask,
                    struct tm_launch *l);

/* Lets the child exec; returns 0 once exec succeeded, -1 after tm_error
 * when it failed (the child has exited then). */
int tm_launch_go(struct tm_launch *l, const char *what);

/*
 * Whether the variable NAME changes how a program allocates: LD_PRELOAD,
 * MALLOC_*, GLIBC_TUNABLES, MIMALLOC_*, TCMALLOC_*, JE_MALLOC_CONF.  The bench
 * guard refuses leftovers of these; the recorder stores them with each run.
 */
bool tm_env_alloc_var(const char *name);

/*
 * A copy of ENVP (NULL: environ) with each "NAME=VALUE" of SET replacing
 * or adding, and LD_PRELOAD prefixed with PRELOAD_FIRST when not NULL.
 * The result and its strings are malloc'd; free with tm_env_free.
 */
char **tm_env_build(char *const *envp, char *const *set, const char *preload_first);
void tm_env_free(char **env);

#endif
