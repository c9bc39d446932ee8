/*
 * heap attach's pure parts (src/heap/attach*.c): each refusal from made-up
 * facts, a fork seen in a thread's syscall file, the call set-up of both
 * machines' tables (so that aarch64's is tested on any host: qemu-user
 * cannot ptrace, docs/heap.md "attach"), the waiting syscalls, the maps
 * parsers and the ELF symbol lookup against the dynamic loader's answer.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "heap/attach.h"
#include "heap/attach_arch.h"
#include "base/banned.h"

static struct tm_attach_facts fine(void)
{
	struct tm_attach_facts f = {
	    .ptrace_scope = -1, .e_machine = 62, .our_machine = 62, .elf64 = true, .exe_ok = true};
	return f;
}

static void expect_refusal(const struct tm_attach_facts *f, const char *words)
{
	const char *why = tm_attach_refusal(f);
	if (!why || !strstr(why, words))
		fail_msg("expected a refusal with '%s', got '%s'", words, why ? why : "(none)");
}

static void test_refusals(void **state)
{
	(void)state;
	struct tm_attach_facts f = fine();
	assert_null(tm_attach_refusal(&f));
	f.tracer_pid = 1234;
	expect_refusal(&f, "another tracer");
	f = fine(), f.ptrace_scope = 3, f.cap_sys_ptrace = true;
	expect_refusal(&f, "ptrace_scope is 3");
	f = fine(), f.ptrace_scope = 2;
	expect_refusal(&f, "ptrace_scope is 2");
	f.cap_sys_ptrace = true;
	assert_null(tm_attach_refusal(&f));
	f = fine(), f.ptrace_scope = 1;
	expect_refusal(&f, "ptrace_scope is 1");
	f.our_child = true;
	assert_null(tm_attach_refusal(&f));
	f = fine(), f.seccomp = 2;
	expect_refusal(&f, "seccomp filter");
	f = fine(), f.seccomp = 1;
	expect_refusal(&f, "strict");
	f = fine(), f.e_machine = 183;
	expect_refusal(&f, "another machine");
	f = fine(), f.elf64 = false;
	expect_refusal(&f, "another machine");
	f = fine(), f.exe_ok = false;
	expect_refusal(&f, "cannot be read");
	f = fine(), f.forking_tid = 77;
	expect_refusal(&f, "fork");
	f = fine(), f.zombie = true;
	expect_refusal(&f, "zombie");
	f = fine(), f.is_self = true;
	expect_refusal(&f, "tidemark itself");
}

static void test_syscall_forks(void **state)
{
	(void)state;
	assert_true(tm_attach_syscall_forks("56 0x1 0x2 0x3 0x4 0x5 0x6 0x7ffd 0x7f\n", 62));
	assert_true(tm_attach_syscall_forks("58 0x0 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x7f\n", 62));
	assert_true(tm_attach_syscall_forks("435 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", 62));
	assert_false(tm_attach_syscall_forks("230 0x1 0x0 0x7ffd 0x0 0x0 0x0 0x7 0x8\n", 62));
	assert_false(tm_attach_syscall_forks("running\n", 62));
	assert_true(tm_attach_syscall_forks("220 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", 183));
	assert_false(tm_attach_syscall_forks("56 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", 183));
}

static void test_x86_64_call(void **state)
{
	(void)state;
	const struct tm_attach_arch *a = &tm_attach_x86_64;
	struct tm_regs r;
	memset(&r, 0xaa, sizeof(r));
	uint64_t args[2] = {0x1111, 2};
	a->setup_call(&r, 0x7f0000001000, args, 2, 0x7ffd00001000);
	assert_eq(a->pc(&r), 0x7f0000001000);
	assert_eq(a->sp(&r), 0x7ffd00001000 - 8); /* the return slot: rsp + 8 16-aligned */
	assert_eq((a->sp(&r) + 8) % 16, 0);
	assert_eq(r.w[14], 0x1111); /* rdi */
	assert_eq(r.w[13], 2);      /* rsi */
	assert_eq(a->syscall_nr(&r), -1);
	r.w[10] = 0xdeadbeef; /* rax */
	assert_eq(a->result(&r), 0xdeadbeef);
	assert_eq(a->red_zone_bytes, 128);
	assert_eq(a->e_machine, 62);
	assert_true(a->waiting_syscall(232));  /* epoll_wait */
	assert_true(a->waiting_syscall(219));  /* restart_syscall */
	assert_false(a->waiting_syscall(202)); /* futex: may wait for a lock the thread needs */
	assert_false(a->waiting_syscall(9));   /* mmap: malloc may hold its arena */
}

static void test_aarch64_call(void **state)
{
	(void)state;
	const struct tm_attach_arch *a = &tm_attach_aarch64;
	struct tm_regs r;
	memset(&r, 0xaa, sizeof(r));
	uint64_t args[1] = {0x2222};
	a->setup_call(&r, 0x400000, args, 1, 0xfffff0001000);
	assert_eq(a->pc(&r), 0x400000);
	assert_eq(a->sp(&r), 0xfffff0001000);
	assert_eq(a->sp(&r) % 16, 0);
	assert_eq(r.w[0], 0x2222);
	assert_eq(r.w[30], 0); /* lr: the return jumps to 0 */
	assert_eq(a->syscall_nr(&r), -1);
	assert_eq(a->result(&r), 0x2222);
	assert_eq(a->red_zone_bytes, 0);
	assert_eq(a->e_machine, 183);
	assert_eq(a->regs_bytes, 34 * 8);
	assert_true(a->waiting_syscall(22));  /* epoll_pwait */
	assert_false(a->waiting_syscall(98)); /* futex */
	assert_true(a->waiting_syscall(115)); /* clock_nanosleep: sleep() */
}

/* Stopped while it waits in a syscall, an aarch64 thread shows no syscall
 * in NT_ARM_SYSTEM_CALL (do_signal() forgot it) and its pc on the `svc`:
 * the syscall is x8's.  Not on an svc: stopped in its own code. */
static void test_aarch64_stopped_in_syscall(void **state)
{
	(void)state;
	const struct tm_attach_arch *a = &tm_attach_aarch64;
	struct tm_regs r;
	memset(&r, 0, sizeof(r));
	r.w[8] = 115; /* clock_nanosleep */
	r.w[TM_REGS_EXTRA] = (uint64_t)-1;
	r.w[TM_REGS_AT_SVC] = 1;
	assert_eq(a->syscall_nr(&r), 115);
	r.w[TM_REGS_AT_SVC] = 0;
	assert_eq(a->syscall_nr(&r), -1);
	r.w[TM_REGS_EXTRA] = 63; /* the kernel's own word wins */
	r.w[TM_REGS_AT_SVC] = 1;
	assert_eq(a->syscall_nr(&r), 63);
	a->setup_call(&r, 0x400000, NULL, 0, 0xfffff0001000);
	assert_eq(a->syscall_nr(&r), -1); /* the call: no syscall to restart */
}

static const char maps[] =
    "55d0c0000000-55d0c0001000 r--p 00000000 fe:00 123 /usr/bin/prog\n"
    "7f0000000000-7f0000028000 r--p 00000000 fe:00 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f0000028000-7f000019d000 r-xp 00028000 fe:00 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
    "7f0000200000-7f0000201000 rw-p 00000000 00:00 0 \n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n";

static int libc_match(const char *path, const void *arg)
{
	(void)arg;
	return strstr(path, "/libc.so") != NULL;
}

static void test_maps(void **state)
{
	(void)state;
	char path[256];
	uint64_t base = 0;
	assert_eq(tm_attach_maps_object(maps, 0x7f0000030000, path, sizeof(path)), 0);
	assert_string_equal(path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_eq(tm_attach_maps_object(maps, 0x7ffd00000100, path, sizeof(path)), 0);
	assert_string_equal(path, "[stack]");
	assert_eq(tm_attach_maps_object(maps, 0x10, path, sizeof(path)), -1);
	assert_eq(tm_attach_maps_base(maps, libc_match, NULL, &base, path, sizeof(path)), 0);
	assert_eq(base, 0x7f0000000000);
}

/* The lookup in our own libc, as mapped, against the loader's own answer. */
static void test_symbol(void **state)
{
	(void)state;
	size_t len;
	char *m = tm_attach_maps_read(getpid(), &len), path[4096];
	uint64_t addr = 0;
	assert_non_null(m);
	assert_eq(tm_attach_symbol(getpid(), m, libc_match, NULL, "malloc_usable_size", &addr, path,
	                           sizeof(path)),
	          0);
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	assert_non_null(libc);
	assert_eq(addr, (uint64_t)(uintptr_t)dlsym(libc, "malloc_usable_size"));
	assert_eq(tm_attach_symbol(getpid(), m, libc_match, NULL, "no_such_function_x", &addr, path,
	                           sizeof(path)),
	          -1);
	dlclose(libc);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_syscall_forks),
	    cmocka_unit_test(test_x86_64_call),
	    cmocka_unit_test(test_aarch64_call),
	    cmocka_unit_test(test_aarch64_stopped_in_syscall),
	    cmocka_unit_test(test_maps),
	    cmocka_unit_test(test_symbol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
