/*
 * Whether `heap attach` may stop a process: the refusals of docs/heap.md
 * "attach", each with its reason, judged from facts read from /proc
 * (tm_attach_facts_read) by a pure function (tm_attach_refusal, unit-tested
 * with facts made up).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/attach.h"
#include "heap/attach_arch.h"
#include "base/banned.h"

const char *tm_attach_refusal(const struct tm_attach_facts *f)
{
	if (f->is_self)
		return "it is tidemark itself";
	if (f->zombie)
		return "it has exited (a zombie)";
	if (f->tracer_pid)
		return "another tracer is attached (TracerPid in its status): a debugger or "
		       "strace; detach it first";
	if (f->ptrace_scope >= 3)
		return "kernel.yama.ptrace_scope is 3: no process may be traced on this host";
	if (f->ptrace_scope == 2 && !f->cap_sys_ptrace)
		return "kernel.yama.ptrace_scope is 2: tracing needs CAP_SYS_PTRACE (run as root)";
	if (f->ptrace_scope == 1 && !f->cap_sys_ptrace && !f->our_child)
		return "kernel.yama.ptrace_scope is 1: only a parent may trace its child without "
		       "CAP_SYS_PTRACE (run as root, or lower the scope)";
	if (f->seccomp == 2)
		return "it runs under a seccomp filter (Seccomp: 2 in its status), which may kill "
		       "it for a syscall the agent makes (mprotect, pidfd_open)";
	if (f->seccomp == 1)
		return "it runs in seccomp strict mode";
	if (!f->exe_ok)
		return "its executable (/proc/PID/exe) cannot be read: a kernel thread, or not "
		       "ours";
	if (!f->elf64 || f->e_machine != f->our_machine)
		return "its executable is for another machine than this tidemark's agent";
	if (f->forking_tid)
		return "a thread of it is in the middle of fork, vfork or clone";
	return NULL;
}

bool tm_attach_syscall_forks(const char *text, uint16_t e_machine)
{
	char *end;
	long nr = strtol(text, &end, 10);
	if (end == text)
		return false; /* "running": in user code */
	if (e_machine == 62)  /* x86_64: clone, fork, vfork, clone3 */
		return nr == 56 || nr == 57 || nr == 58 || nr == 435;
	return nr == 220 || nr == 435; /* aarch64: clone, clone3 */
}

static long status_field(const char *status, const char *name, long missing)
{
	const char *p = strstr(status, name);
	return p ? strtol(p + strlen(name), NULL, 10) : missing;
}

static bool have_cap_sys_ptrace(void)
{
	char buf[4096];
	if (tm_read_small("/proc/self/status", buf, sizeof(buf)) < 0)
		return false;
	const char *p = strstr(buf, "\nCapEff:");
	return p && (strtoull(p + 8, NULL, 16) >> 19) & 1; /* CAP_SYS_PTRACE */
}

/* The first thread of PID in a fork's syscall, or 0. */
static int64_t forking_thread(pid_t pid, uint16_t machine)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	int64_t tid = 0;
	for (int n = 0; d && (e = readdir(d)) && !tid && n < 100000; n++) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/syscall", (int)pid, e->d_name);
		if (tm_read_small(path, buf, sizeof(buf)) > 0 &&
		    tm_attach_syscall_forks(buf, machine))
			tid = strtoll(e->d_name, NULL, 10);
	}
	if (d)
		closedir(d);
	return tid;
}

int tm_attach_facts_read(pid_t pid, struct tm_attach_facts *f)
{
	char path[64], status[8192], scope[32];
	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (tm_read_small(path, status, sizeof(status)) < 0)
		return tm_error("no process %d (%s)", (int)pid, strerror(errno));
	f->tracer_pid = (int)status_field(status, "\nTracerPid:", 0);
	f->seccomp = (int)status_field(status, "\nSeccomp:", -1);
	f->zombie = strstr(status, "\nState:\tZ") != NULL;
	f->ptrace_scope =
	    tm_read_small("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope)) > 0
	        ? (int)strtol(scope, NULL, 10)
	        : -1;
	f->cap_sys_ptrace = have_cap_sys_ptrace();
	f->our_child = status_field(status, "\nPPid:", 0) == getpid();
	f->is_self = pid == getpid();
	const struct tm_attach_arch *a = tm_attach_arch_native();
	f->our_machine = a ? a->e_machine : 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int elf = fd >= 0 ? tm_attach_elf_machine(fd, &f->e_machine) : -1;
	if (fd >= 0)
		close(fd);
	f->exe_ok = elf >= 0;
	f->elf64 = elf == 0;
	f->forking_tid = forking_thread(pid, f->our_machine);
	return 0;
}
