/*
 * One thread of another process under ptrace, for `heap attach`
 * (attach.c): seized without stopping the others, stopped, made to call a
 * function, resumed or let go; the time it spent stopped is summed.
 */
#ifndef TM_HEAP_ATTACH_PTRACE_H
#define TM_HEAP_ATTACH_PTRACE_H

#include <stdint.h>
#include <sys/types.h>

#include "heap/attach_arch.h"

struct tm_tracee {
	pid_t tid;
	int mem_fd;      /* /proc/TID/mem, read-write */
	int pending_sig; /* a signal the stop took from the thread: given back */
	int64_t stopped_nsec, stop_t0;
	const struct tm_attach_arch *arch;
};

/* A thread's floating-point and vector registers as one regset gives them:
 * x86_64's XSAVE area is up to 11 KiB with AMX, and SETREGSET takes it
 * back only whole. */
struct tm_fpstate {
	unsigned note; /* the regset read, 0: none */
	size_t len;
	unsigned char buf[16384];
};

/* Reads the stopped thread's floating-point and vector registers into FP,
 * from the fullest regset the kernel gives: 0, or -1 after tm_error. */
int tm_tracee_fp_save(const struct tm_tracee *t, struct tm_fpstate *fp);
/* Puts FP back (nothing when none was read): 0, or -1 with errno. */
int tm_tracee_fp_restore(const struct tm_tracee *t, const struct tm_fpstate *fp);

/* PTRACE_SEIZE of TID (nothing stops yet): 0, or -1 after tm_error. */
int tm_tracee_seize(struct tm_tracee *t, pid_t tid, const struct tm_attach_arch *a);
/* Stops the thread (PTRACE_INTERRUPT): 0, or -1 after tm_error. */
int tm_tracee_stop(struct tm_tracee *t, int64_t timeout_msec);
/* Lets the stopped thread run on (with its pending signal). */
int tm_tracee_resume(struct tm_tracee *t);
/* Lets go of the thread (PTRACE_DETACH with its pending signal); closes. */
void tm_tracee_release(struct tm_tracee *t);
/* Makes the stopped thread call FN(ARGS) from SAVED's state with its stack
 * at STACK; waits (up to TIMEOUT_MSEC) for its return: 0 and *RET, or -1
 * after tm_error.  The thread is stopped after, its registers the call's. */
int tm_tracee_call(struct tm_tracee *t, const struct tm_regs *saved, uint64_t fn,
                   const uint64_t *args, int nargs, uint64_t stack, int64_t timeout_msec,
                   uint64_t *ret);
/* Bytes of the target's memory: 0, or -1 after tm_error. */
int tm_tracee_read(struct tm_tracee *t, uint64_t addr, void *buf, size_t n);
int tm_tracee_write(struct tm_tracee *t, uint64_t addr, const void *buf, size_t n);

#endif
