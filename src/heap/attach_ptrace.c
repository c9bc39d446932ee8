/*
 * ptrace for `heap attach` (attach_ptrace.h).  Only the thread that makes
 * the calls is seized; PTRACE_SEIZE sets no option (no PTRACE_O_EXITKILL:
 * tidemark's end never kills the target).  Waits poll with WNOHANG against
 * a deadline, so that no stop is waited for without bound.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "base/error.h"
#include "heap/attach_ptrace.h"
#include "base/banned.h"

int tm_attach_regset_get(pid_t tid, struct tm_regs *r, size_t bytes)
{
	struct iovec io = {r->w, bytes};
	return ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &io) < 0 ? -1 : 0;
}

int tm_attach_regset_set(pid_t tid, const struct tm_regs *r, size_t bytes)
{
	struct iovec io = {(void *)r->w, bytes};
	return ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &io) < 0 ? -1 : 0;
}

int tm_tracee_fp_save(const struct tm_tracee *t, struct tm_fpstate *fp)
{
	int err = ENOSYS;
	for (size_t i = 0; i < 2 && t->arch->fp_notes[i]; i++) {
		struct iovec io = {fp->buf, sizeof(fp->buf)};
		if (ptrace(PTRACE_GETREGSET, t->tid, (void *)(uintptr_t)t->arch->fp_notes[i],
		           &io) == 0) {
			fp->note = t->arch->fp_notes[i];
			fp->len = io.iov_len;
			return 0;
		}
		err = errno;
	}
	fp->note = 0;
	return tm_error("cannot read the floating-point registers of thread %d: %s", (int)t->tid,
	                strerror(err));
}

int tm_tracee_fp_restore(const struct tm_tracee *t, const struct tm_fpstate *fp)
{
	if (!fp->note)
		return 0;
	struct iovec io = {(void *)fp->buf, fp->len};
	return ptrace(PTRACE_SETREGSET, t->tid, (void *)(uintptr_t)fp->note, &io) < 0 ? -1 : 0;
}

static int64_t mono_nsec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The next stop of T within TIMEOUT_MSEC: 0 and *STATUS, or -1 (tm_error). */
static int wait_stop(struct tm_tracee *t, int64_t timeout_msec, int *status)
{
	int64_t deadline = mono_nsec() + timeout_msec * 1000000;
	for (int spin = 0;; spin++) {
		pid_t w = waitpid(t->tid, status, __WALL | WNOHANG);
		if (w == t->tid && WIFSTOPPED(*status))
			return 0;
		if (w == t->tid)
			return tm_error("thread %d ended while attaching", (int)t->tid);
		if (w < 0 && errno != EINTR)
			return tm_error("waitpid %d: %s", (int)t->tid, strerror(errno));
		if (mono_nsec() > deadline)
			return tm_error("thread %d did not stop within %lld ms", (int)t->tid,
			                (long long)timeout_msec);
		if (spin > 50)
			usleep(20);
	}
}

int tm_tracee_seize(struct tm_tracee *t, pid_t tid, const struct tm_attach_arch *a)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->arch = a;
	t->mem_fd = -1;
	if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0)
		return tm_error("cannot trace %d: %s", (int)tid, strerror(errno));
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	t->mem_fd = open(path, O_RDWR | O_CLOEXEC);
	if (t->mem_fd < 0) {
		int e = errno;
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return tm_error("cannot open %s: %s", path, strerror(e));
	}
	return 0;
}

int tm_tracee_stop(struct tm_tracee *t, int64_t timeout_msec)
{
	int st;
	t->stop_t0 = mono_nsec();
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) < 0)
		return tm_error("cannot stop %d: %s", (int)t->tid, strerror(errno));
	if (wait_stop(t, timeout_msec, &st) < 0)
		return -1;
	/* a signal-delivery stop came first: the signal is the thread's, given
	 * back when it runs on; the interrupt's own stop follows */
	if ((st >> 16) != PTRACE_EVENT_STOP) {
		t->pending_sig = WSTOPSIG(st);
		if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0 &&
		    ptrace(PTRACE_CONT, t->tid, 0, 0) == 0 && wait_stop(t, timeout_msec, &st) < 0)
			return -1;
	}
	return 0;
}

static void stopped_add(struct tm_tracee *t)
{
	if (t->stop_t0)
		t->stopped_nsec += mono_nsec() - t->stop_t0;
	t->stop_t0 = 0;
}

int tm_tracee_resume(struct tm_tracee *t)
{
	int sig = t->pending_sig;
	t->pending_sig = 0;
	int rc = (int)ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)sig);
	stopped_add(t);
	return rc < 0 ? tm_error("cannot resume %d: %s", (int)t->tid, strerror(errno)) : 0;
}

void tm_tracee_release(struct tm_tracee *t)
{
	if (t->mem_fd >= 0)
		close(t->mem_fd);
	t->mem_fd = -1;
	ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->pending_sig);
	t->pending_sig = 0;
	stopped_add(t);
}

/* A stop during the call that is not its return: the thread's own signal
 * goes to it (its handler runs as it would have), a group stop is passed. */
static int pass_stop(struct tm_tracee *t, int st)
{
	int sig = (st >> 16) == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(st);
	return ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)sig) < 0 ? -1 : 0;
}

int tm_tracee_call(struct tm_tracee *t, const struct tm_regs *saved, uint64_t fn,
                   const uint64_t *args, int nargs, uint64_t stack, int64_t timeout_msec,
                   uint64_t *ret)
{
	struct tm_regs r = *saved;
	t->arch->setup_call(&r, fn, args, nargs, stack);
	if (t->arch->set(t->tid, &r) < 0 || ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
		return tm_error("cannot start a call in %d: %s", (int)t->tid, strerror(errno));
	for (;;) {
		int st;
		if (wait_stop(t, timeout_msec, &st) < 0) {
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0); /* stopped again, for the restore */
			wait_stop(t, 1000, &st);
			return -1;
		}
		if ((st >> 16) == 0 && WSTOPSIG(st) == SIGSEGV) {
			if (t->arch->get(t->tid, &r) < 0)
				return tm_error("cannot read the registers of %d", (int)t->tid);
			if (t->arch->pc(&r) != 0)
				return tm_error("the call faulted in %d at %#llx", (int)t->tid,
				                (unsigned long long)t->arch->pc(&r));
			*ret = t->arch->result(&r);
			return 0;
		}
		if (pass_stop(t, st) < 0)
			return tm_error("cannot continue %d: %s", (int)t->tid, strerror(errno));
	}
}

int tm_tracee_read(struct tm_tracee *t, uint64_t addr, void *buf, size_t n)
{
	if (pread(t->mem_fd, buf, n, (off_t)addr) != (ssize_t)n)
		return tm_error("cannot read %zu bytes at %#llx in %d", n, (unsigned long long)addr,
		                (int)t->tid);
	return 0;
}

int tm_tracee_write(struct tm_tracee *t, uint64_t addr, const void *buf, size_t n)
{
	if (pwrite(t->mem_fd, buf, n, (off_t)addr) != (ssize_t)n)
		return tm_error("cannot write %zu bytes at %#llx in %d", n,
		                (unsigned long long)addr, (int)t->tid);
	return 0;
}

const struct tm_attach_arch *tm_attach_arch_native(void)
{
#if defined(__x86_64__)
	return &tm_attach_x86_64;
#elif defined(__aarch64__)
	return &tm_attach_aarch64;
#else
	return NULL;
#endif
}
