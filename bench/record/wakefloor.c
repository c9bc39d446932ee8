/*
 * The CPU floor under a recorder of one process: a program that wakes every
 * INTERVAL_MS (default 100), checks PID is alive and reads the files a
 * one-process sample reads (/proc/stat, /proc/meminfo, the three PSI files,
 * PID's stat, statm and io), and does nothing with them.  Its CPU per wake
 * is what the wake and the kernel's rendering of those files cost on this
 * machine; bench/record/wakefloor.sh measures it beside tidemark's recorder
 * (bench/README.md, issue 23).
 *
 *   build/bench/record/wakefloor PID [INTERVAL_MS]
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const host_files[] = {
    "/proc/stat",        "/proc/meminfo",      "/proc/pressure/memory",
    "/proc/pressure/io", "/proc/pressure/cpu",
};
static const char *const pid_files[] = {"stat", "statm", "io"};
#define NFILES                                                                                     \
	(sizeof(host_files) / sizeof(host_files[0]) + sizeof(pid_files) / sizeof(pid_files[0]))

int main(int argc, char **argv)
{
	long pid = argc > 1 ? atol(argv[1]) : 0, ms = argc > 2 ? atol(argv[2]) : 100;
	static char buf[16384];
	char path[64];
	int fd[NFILES], n = 0;

	if (pid <= 0 || ms <= 0) {
		fprintf(stderr, "usage: wakefloor PID [INTERVAL_MS]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(host_files) / sizeof(host_files[0]); i++)
		if ((fd[n] = open(host_files[i], O_RDONLY | O_CLOEXEC)) >= 0)
			n++; /* (a kernel without PSI: fewer files, as tidemark reads) */
	for (size_t i = 0; i < sizeof(pid_files) / sizeof(pid_files[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%ld/%s", pid, pid_files[i]);
		if ((fd[n] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			perror(path);
			return 1;
		}
		n++;
	}
	while (kill((pid_t)pid, 0) == 0) {
		poll(NULL, 0, (int)ms);
		for (int i = 0; i < n; i++)
			if (pread(fd[i], buf, sizeof(buf), 0) < 0)
				return 1;
	}
	return 0;
}
