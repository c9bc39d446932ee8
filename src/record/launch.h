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

struct tm_err;

struct tm_launch {
	pid_t pid;
	int go_fd;   /* write end: the child execs when it is closed */
	int exec_fd; /* read end: errno of a failed exec, or EOF once exec'd */
};

/* What the command's stdout or stderr is. */
enum tm_out_mode {
	TM_OUT_INHERIT, /* ours, unchanged: a terminal stays a terminal, a file a file */
	TM_OUT_NULL,    /* /dev/null (-q without capture) */
	TM_OUT_PIPE,    /* a pipe to us */
	TM_OUT_PTY,     /* a pseudo-terminal to us: stdio line-buffers it */
};

/* The command's output descriptors: CHILD[i] becomes its fd 1+i (-1:
 * inherit ours); OURS[i] is the read end (pipe or pty master; -1: none). */
struct tm_child_io {
	int child[2];
	int ours[2];
};

/*
 * Opens what MODE[0] (stdout) and MODE[1] (stderr) ask for.  A pty is raw
 * (no CR added, no echo) and gets our terminal's window size when we have
 * one.  Every descriptor is close-on-exec.  0, or -1 after tm_error.
 */
int tm_child_io_open(const enum tm_out_mode mode[2], struct tm_child_io *io);
/* Whether a pseudo-terminal can be opened here (a minimal container or an
 * initramfs may have no /dev/pts): 0, or -1 with ERR set ("cannot open a
 * pseudo-terminal: No such device").  Nothing is left open. */
int tm_pty_probe(struct tm_err *err);
/* Closes the child's ends (after the fork), or ours. */
void tm_child_io_close_child(struct tm_child_io *io);
void tm_child_io_close_ours(struct tm_child_io *io);

/*
 * Forks ARGV with ENVP, its stdout and stderr from IO (NULL: ours).  The
 * child keeps no descriptor of ours but 0, 1 and 2 (everything else is
 * closed at exec).  It waits until tm_launch_go().  SIGMASK is the mask the
 * child gets back.
 */
int tm_launch_start(char *const *argv, char *const *envp, const struct tm_child_io *io,
                    const sigset_t *sigmask, struct tm_launch *l);

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
