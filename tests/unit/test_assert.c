/*
 * Assertion levels (base/assert.h): a failed tm_assert aborts with a
 * message naming the expression, in this file (the unit tests are built
 * with TM_DEBUG=2) and in the library when it was built with them (the
 * ASan library is; the plain one, the release objects, is not: there the
 * test checks the library's level is 0).  Each death is a forked child's.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/assert.h"
#include "report/bench/benchtab.h"
#include "report/bench/benchtab_int.h"
#include "base/banned.h"

/* Runs FN in a child with its stderr into OUT; the child's wait status. */
static int run_child(void (*fn)(void), char *out, size_t size)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		fn();
		_exit(0);
	}
	close(fd[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < size && (r = read(fd[0], out + n, size - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fd[0]);
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void expect_abort(int status, const char *msg, const char *want)
{
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT)
		fail_msg("want a death by SIGABRT, got status %#x; stderr: %s", status, msg);
	if (!strstr(msg, want))
		fail_msg("stderr lacks \"%s\": %s", want, msg);
}

static void macro_fails(void)
{
	volatile int three = 3;
	tm_assert(three == 4);
}

static void macro_holds(void)
{
	volatile int three = 3;
	tm_assert(three == 3);
	tm_assert_expensive(three + 1 == 4);
}

/* The macro, compiled here at the test build's level. */
static void test_macro(void **state)
{
	char msg[1024];
	(void)state;
	assert_int_equal(TM_DEBUG, 2);
	int st = run_child(macro_fails, msg, sizeof(msg));
	expect_abort(st, msg, "test_assert.c:");
	expect_abort(st, msg, "macro_fails: assertion 'three == 4' failed");
	st = run_child(macro_holds, msg, sizeof(msg));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || msg[0])
		fail_msg("a true assertion: want exit 0 and no output, got %#x: %s", st, msg);
}

#ifdef __SANITIZE_ADDRESS__
static void fig_out_of_range(void)
{
	struct tm_bench_stat s = {.n = 1, .median = 1};
	(void)tm_bench_above_floor(&s, TM_BF_COUNT);
}
#endif

/* The library's own assertion of a bench figure's index: the ASan library
 * (built with TM_DEBUG=2) dies of it; the plain one is the release
 * objects, with every assertion compiled out (level 0). */
static void test_library(void **state)
{
	(void)state;
#ifndef __SANITIZE_ADDRESS__
	assert_int_equal(tm_assert_level(), 0);
#else
	char msg[1024];
	assert_int_equal(tm_assert_level(), 2);
	int st = run_child(fig_out_of_range, msg, sizeof(msg));
	expect_abort(st, msg, "report/bench/benchtab.c:");
	expect_abort(st, msg, "assertion 'f >= 0 && f < TM_BF_COUNT' failed");
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_macro),
	    cmocka_unit_test(test_library),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
