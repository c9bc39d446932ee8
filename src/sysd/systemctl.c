/* systemctl run as a program, and a drop-in's file (sysd/systemctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "sysd/systemctl.h"
#include "base/banned.h"

const char *tm_systemctl_path(void)
{
	const char *p = getenv("TIDEMARK_SYSTEMCTL");
	return p && *p ? p : "systemctl";
}

/* Runs systemctl with ARGS (NULL-terminated); its stdout into OUT (SIZE
 * bytes, the last newline cut) when OUT, else to /dev/null.  Its exit
 * status, or -1 when it could not be run. */
int tm_systemctl(char *out, size_t size, const char *const *args)
{
	const char *argv[8] = {tm_systemctl_path()};
	int fd[2] = {-1, -1}, status;
	size_t n = 0;
	pid_t pid;

	for (int i = 0; i < 6 && args[i]; i++)
		argv[i + 1] = args[i];
	if (out && pipe2(fd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(out ? fd[1] : null, 1);
		if (null >= 0)
			dup2(null, 0);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (out) {
		close(fd[1]);
		for (ssize_t r; pid > 0 && n + 1 < size;) {
			r = read(fd[0], out + n, size - 1 - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			n += (size_t)r;
		}
		close(fd[0]);
		out[n] = '\0';
		if (n && out[n - 1] == '\n')
			out[n - 1] = '\0';
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* systemctl ARGS, its complaints unheard (reset-failed of a unit that has
 * nothing to reset says so); its exit status. */
int tm_systemctl_quiet(const char *const *args)
{
	int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	if (saved >= 0 && null >= 0)
		dup2(null, 2);
	rc = tm_systemctl(NULL, 0, args);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (null >= 0)
		close(null);
	return rc;
}

/* systemctl VERB UNIT (UNIT may be NULL); 0 or -1 after tm_error. */
int tm_systemctl_verb(const char *verb, const char *unit)
{
	const char *args[] = {verb, unit, NULL};
	int rc = tm_systemctl(NULL, 0, args);

	if (rc == 0)
		return 0;
	return tm_error("'%s %s%s%s' failed (%s %d)", tm_systemctl_path(), verb, unit ? " " : "",
	                unit ? unit : "", rc < 0 ? "could not run it:" : "exit", rc);
}

/* systemctl show -P PROP UNIT into OUT.  0 or -1 after tm_error. */
int tm_systemctl_show(const char *unit, const char *prop, char *out, size_t size)
{
	const char *args[] = {"show", "-P", prop, unit, NULL};
	int rc = tm_systemctl(out, size, args);

	return rc == 0 ? 0
	               : tm_error("'%s show -P %s %s' failed (exit %d)", tm_systemctl_path(), prop,
	                          unit, rc);
}

const char *const *tm_sysd_unit_dirs(void)
{
	static const char *const dirs[] = {
	    "/etc/systemd/system",     "/run/systemd/system", "/usr/local/lib/systemd/system",
	    "/usr/lib/systemd/system", "/lib/systemd/system", NULL};
	return dirs;
}

/* ---- a drop-in ---- */

/* VALUE as systemd reads it inside "...": %, " and \ escaped.  false for a
 * character a unit file cannot carry (a newline). */
static bool put_quoted(FILE *f, const char *value)
{
	for (const char *p = value; *p; p++) {
		if (*p == '\n' || *p == '\r')
			return false;
		if (*p == '%')
			fputs("%%", f);
		else if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else
			fputc(*p, f);
	}
	return true;
}

bool tm_sysd_put_env(FILE *f, const char *name, const char *value)
{
	fprintf(f, "Environment=\"%s=", name);
	bool ok = put_quoted(f, value);
	fputs("\"\n", f);
	return ok;
}

/* TEXT into PATH, through a temporary file and a rename.  0 or -1. */
int tm_sysd_write_atomic(const char *path, const char *text)
{
	char tmp[900];
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return tm_error("cannot write '%s': %s", tmp, strerror(errno));
	size_t len = strlen(text);
	bool ok = write(fd, text, len) == (ssize_t)len;
	ok &= close(fd) == 0;
	if (!ok || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return tm_error("cannot write '%s': %s", path, strerror(e));
	}
	return 0;
}
