/*
 * What `heap attach` does differently by machine: where a thread's
 * registers hold its program counter, stack, syscall and a call's
 * arguments and result.  One table per machine (attach_x86_64.c,
 * attach_aarch64.c); both are built everywhere, so their pure parts are
 * unit-tested on any host (tests/unit/test_attach.c); tm_attach_arch_native()
 * is the one this build can ptrace.
 */
#ifndef TM_HEAP_ATTACH_ARCH_H
#define TM_HEAP_ATTACH_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A thread's registers as the kernel's NT_PRSTATUS regset lays them out
 * (x86_64: struct user_regs_struct, 27 words; aarch64: struct
 * user_pt_regs, 34 words), plus the machine's extra words (aarch64: the
 * syscall number, from NT_ARM_SYSTEM_CALL, in w[TM_REGS_EXTRA]; 1 in
 * w[TM_REGS_AT_SVC] when the pc is on an `svc #0`, which get() reads from
 * the thread's memory: attach_aarch64.c says why). */
#define TM_REGS_WORDS  40
#define TM_REGS_EXTRA  36
#define TM_REGS_AT_SVC 37
struct tm_regs {
	uint64_t w[TM_REGS_WORDS];
};

struct tm_attach_arch {
	const char *name;
	uint16_t e_machine;    /* ELF e_machine of a process it can attach to */
	size_t regs_bytes;     /* NT_PRSTATUS size */
	size_t red_zone_bytes; /* below the stack pointer, not ours to touch */
	/* the regsets of the floating-point and vector registers, the fullest
	 * first (x86_64: NT_X86_XSTATE, the AVX halves too, then NT_PRFPREG's
	 * SSE only), 0 after the last: the calls made in the thread (dlopen,
	 * memcpy) clobber them, and the code it was stopped in may hold its
	 * values there */
	unsigned fp_notes[2];
	/*
	 * Makes R call FN(ARGS[0..NARGS-1]) (NARGS <= 6) with its stack at
	 * STACK (16-aligned; the 32 bytes below it are zero in memory), so
	 * that its return jumps to address 0 (a SIGSEGV the tracer catches),
	 * and so that the kernel restarts no interrupted syscall meanwhile.
	 */
	void (*setup_call)(struct tm_regs *r, uint64_t fn, const uint64_t *args, int nargs,
	                   uint64_t stack);
	uint64_t (*result)(const struct tm_regs *r);
	uint64_t (*pc)(const struct tm_regs *r);
	uint64_t (*sp)(const struct tm_regs *r);
	/* The syscall the thread was stopped in, or -1 (stopped in user code). */
	int64_t (*syscall_nr)(const struct tm_regs *r);
	/* Whether syscall NR only waits (poll, sleep, read...): a thread
	 * stopped there holds no lock of the allocator's or the loader's. */
	int (*waiting_syscall)(int64_t nr);
	/* The kernel's side: registers read and written (0, or -1 with errno). */
	int (*get)(pid_t tid, struct tm_regs *r);
	int (*set)(pid_t tid, const struct tm_regs *r);
};

extern const struct tm_attach_arch tm_attach_x86_64;
extern const struct tm_attach_arch tm_attach_aarch64;

/* The table of the machine this binary runs on, or NULL. */
const struct tm_attach_arch *tm_attach_arch_native(void);

/* NT_PRSTATUS through PTRACE_GETREGSET/SETREGSET, BYTES of R (attach_ptrace.c). */
int tm_attach_regset_get(pid_t tid, struct tm_regs *r, size_t bytes);
int tm_attach_regset_set(pid_t tid, const struct tm_regs *r, size_t bytes);

#endif
