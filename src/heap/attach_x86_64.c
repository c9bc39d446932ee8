/*
 * x86_64 for `heap attach` (attach_arch.h): struct user_regs_struct's
 * words, the System V calling convention (rdi, rsi, rdx, rcx, r8, r9; the
 * result in rax; rsp + 8 16-aligned at a function's entry, the return
 * address at [rsp]) and its 128-byte red zone.  orig_rax is the syscall a
 * thread was stopped in; -1 stops the kernel from restarting it.
 */
#include "heap/attach_arch.h"
#include "base/banned.h"

enum {
	R_R9 = 8,
	R_R8 = 9,
	R_RAX = 10,
	R_RCX = 11,
	R_RDX = 12,
	R_RSI = 13,
	R_RDI = 14,
	R_ORIG_RAX = 15,
	R_RIP = 16,
	R_RSP = 19,
	R_WORDS = 27
};

static void setup_call(struct tm_regs *r, uint64_t fn, const uint64_t *args, int nargs,
                       uint64_t stack)
{
	static const int argreg[6] = {R_RDI, R_RSI, R_RDX, R_RCX, R_R8, R_R9};
	for (int i = 0; i < nargs && i < 6; i++)
		r->w[argreg[i]] = args[i];
	r->w[R_RIP] = fn;
	r->w[R_RSP] = stack - 8; /* the return address: the zero word there */
	r->w[R_RAX] = 0;         /* no vector registers used (varargs convention) */
	r->w[R_ORIG_RAX] = (uint64_t)-1;
}

static uint64_t result(const struct tm_regs *r)
{
	return r->w[R_RAX];
}

static uint64_t pc(const struct tm_regs *r)
{
	return r->w[R_RIP];
}

static uint64_t sp(const struct tm_regs *r)
{
	return r->w[R_RSP];
}

static int64_t syscall_nr(const struct tm_regs *r)
{
	return (int64_t)r->w[R_ORIG_RAX];
}

static int waiting_syscall(int64_t nr)
{
	/* read, poll, select, pause, nanosleep, accept, recvfrom, recvmsg, wait4,
	 * rt_sigtimedwait, rt_sigsuspend, clock_nanosleep, epoll_wait, waitid,
	 * pselect6, ppoll, epoll_pwait, accept4, epoll_pwait2, restart_syscall (a
	 * sleep resumed after a stop; written out: this file builds on any host) */
	static const int16_t waits[] = {0,   7,   23,  34,  35,  43,  45,  47,  61,  128,
	                                130, 219, 230, 232, 247, 270, 271, 281, 288, 441};
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		if (nr == waits[i])
			return 1;
	return 0;
}

static int get(pid_t tid, struct tm_regs *r)
{
	return tm_attach_regset_get(tid, r, R_WORDS * 8);
}

static int set(pid_t tid, const struct tm_regs *r)
{
	return tm_attach_regset_set(tid, r, R_WORDS * 8);
}

const struct tm_attach_arch tm_attach_x86_64 = {
    .name = "x86_64",
    .e_machine = 62, /* EM_X86_64 */
    .regs_bytes = R_WORDS * 8,
    .red_zone_bytes = 128,
    .fp_notes = {0x202 /* NT_X86_XSTATE */, 2 /* NT_PRFPREG */},
    .setup_call = setup_call,
    .result = result,
    .pc = pc,
    .sp = sp,
    .syscall_nr = syscall_nr,
    .waiting_syscall = waiting_syscall,
    .get = get,
    .set = set,
};
