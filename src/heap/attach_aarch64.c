/*
 * aarch64 for `heap attach` (attach_arch.h): struct user_pt_regs's words
 * (x0..x30, sp, pc, pstate), AAPCS64 (arguments in x0..x5, the result in
 * x0, the return address in x30 (lr), sp 16-aligned, no red zone).  The
 * syscall a thread was stopped in is the NT_ARM_SYSTEM_CALL regset, kept
 * in w[TM_REGS_EXTRA]; -1 there stops the kernel from restarting it.  But
 * a thread stopped (PTRACE_INTERRUPT) while it waits in a syscall shows -1
 * there too: arm64's do_signal() forgets the syscall and rewinds the pc to
 * the `svc` for the restart before the stop.  So get() also notes, in
 * w[A_AT_SVC], whether the pc is on an `svc #0`: then the thread is at the
 * syscall in x8 (restarted, or about to make it), the same place for the
 * attach.  The syscall numbers are the generic table's
 * (asm-generic/unistd.h), written out so this file builds on any host.
 * Tested under ptrace in the arm64 system-mode guest
 * (tests/e2e/aarch64_attach.sh; qemu-user does not emulate ptrace).
 */
#include <errno.h>

#include "heap/attach_arch.h"
#include "base/banned.h"

#if defined(__aarch64__)
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#endif

enum { A_X8 = 8, A_LR = 30, A_SP = 31, A_PC = 32, A_WORDS = 34, A_AT_SVC = TM_REGS_AT_SVC };
#define A_SVC0 0xd4000001u /* svc #0 */

static void setup_call(struct tm_regs *r, uint64_t fn, const uint64_t *args, int nargs,
                       uint64_t stack)
{
	for (int i = 0; i < nargs && i < 6; i++)
		r->w[i] = args[i];
	r->w[A_PC] = fn;
	r->w[A_SP] = stack;
	r->w[A_LR] = 0;
	r->w[TM_REGS_EXTRA] = (uint64_t)-1;
	r->w[A_AT_SVC] = 0;
}

static uint64_t result(const struct tm_regs *r)
{
	return r->w[0];
}

static uint64_t pc(const struct tm_regs *r)
{
	return r->w[A_PC];
}

static uint64_t sp(const struct tm_regs *r)
{
	return r->w[A_SP];
}

static int64_t syscall_nr(const struct tm_regs *r)
{
	int64_t nr = (int64_t)(int32_t)r->w[TM_REGS_EXTRA];
	if (nr < 0 && r->w[A_AT_SVC] == 1)
		return (int64_t)r->w[A_X8];
	return nr;
}

static int waiting_syscall(int64_t nr)
{
	switch (nr) {
	case 63:  /* read */
	case 73:  /* ppoll */
	case 72:  /* pselect6 */
	case 101: /* nanosleep */
	case 115: /* clock_nanosleep */
	case 202: /* accept */
	case 242: /* accept4 */
	case 207: /* recvfrom */
	case 212: /* recvmsg */
	case 260: /* wait4 */
	case 95:  /* waitid */
	case 22:  /* epoll_pwait */
	case 441: /* epoll_pwait2 */
	case 133: /* rt_sigsuspend */
	case 137: /* rt_sigtimedwait */
	case 128: /* restart_syscall: a sleep resumed after a stop */
		return 1;
	default:
		return 0;
	}
}

#if defined(__aarch64__)
static int syscall_regset(pid_t tid, int32_t *nr, int set)
{
	struct iovec io = {nr, sizeof(*nr)};
	return (int)ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, tid, NT_ARM_SYSTEM_CALL, &io);
}

/* Whether TID's instruction at PC is `svc #0` (0 where it cannot be read). */
static int at_svc(pid_t tid, uint64_t pc)
{
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, tid, (void *)(pc & ~7ull), NULL);
	if (errno != 0)
		return 0;
	uint32_t insn = (uint32_t)((uint64_t)word >> ((pc & 4) * 8)); /* little-endian */
	return insn == A_SVC0;
}

static int get(pid_t tid, struct tm_regs *r)
{
	int32_t nr = -1;
	if (tm_attach_regset_get(tid, r, A_WORDS * 8) < 0 || syscall_regset(tid, &nr, 0) < 0)
		return -1;
	r->w[TM_REGS_EXTRA] = (uint64_t)(int64_t)nr;
	r->w[A_AT_SVC] = (uint64_t)(nr < 0 && at_svc(tid, r->w[A_PC]));
	return 0;
}

static int set(pid_t tid, const struct tm_regs *r)
{
	int32_t nr = (int32_t)r->w[TM_REGS_EXTRA];
	if (syscall_regset(tid, &nr, 1) < 0)
		return -1;
	return tm_attach_regset_set(tid, r, A_WORDS * 8);
}
#else
static int get(pid_t tid, struct tm_regs *r)
{
	(void)tid, (void)r;
	errno = ENOSYS;
	return -1;
}

static int set(pid_t tid, const struct tm_regs *r)
{
	(void)tid, (void)r;
	errno = ENOSYS;
	return -1;
}
#endif

const struct tm_attach_arch tm_attach_aarch64 = {
    .name = "aarch64",
    .e_machine = 183, /* EM_AARCH64 */
    .regs_bytes = A_WORDS * 8,
    .red_zone_bytes = 0,
    .fp_notes = {2 /* NT_PRFPREG: v0-v31, fpsr, fpcr */, 0},
    .setup_call = setup_call,
    .result = result,
    .pc = pc,
    .sp = sp,
    .syscall_nr = syscall_nr,
    .waiting_syscall = waiting_syscall,
    .get = get,
    .set = set,
};
