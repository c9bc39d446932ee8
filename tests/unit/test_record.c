/* The recorder's pure parts: the outcome list and decision, progress that
 * arrived at once, and the relay that carries a command's output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_eq.h"

#include "base/bunch.h"
#include "base/outcome.h"
#include "record/relay.h"

static void test_outcome_names(void **state)
{
	(void)state;
	for (int i = 0; i < TM_OUTCOME_COUNT; i++) {
		enum tm_outcome o = TM_OUTCOME_COUNT;
		assert_int_equal(tm_outcome_parse(tm_outcome_name((enum tm_outcome)i), &o), 0);
		assert_int_equal(o, i);
		assert_true(strlen(tm_outcome_text((enum tm_outcome)i)) > 0);
	}
	enum tm_outcome o = TM_OUTCOME_COMPLETED;
	assert_int_equal(tm_outcome_parse(NULL, &o), 0);
	assert_int_equal(o, TM_OUTCOME_LIVE);
	assert_int_equal(tm_outcome_parse("oom-kill", &o), -1);
	assert_int_equal(tm_outcome_of("nonsense"), TM_OUTCOME_FAILED);
	assert_string_equal(tm_outcome_name(TM_OUTCOME_OOM_KILLED), "oom-killed");
	assert_string_equal(tm_outcome_name((enum tm_outcome)99), "?");
	assert_false(tm_outcome_counts(TM_OUTCOME_INVALID));
	assert_false(tm_outcome_counts(TM_OUTCOME_INTERRUPTED));
	assert_true(tm_outcome_counts(TM_OUTCOME_KILLED));
}

static enum tm_outcome decide(struct tm_outcome_facts f)
{
	return tm_outcome_decide(&f);
}

static void test_outcome_decision(void **state)
{
	(void)state;
	/* a launched command */
	assert_int_equal(decide((struct tm_outcome_facts){.launched = true, .exited = true}),
	                 TM_OUTCOME_COMPLETED);
	assert_int_equal(
	    decide((struct tm_outcome_facts){.launched = true, .exited = true, .exit_code = 3}),
	    TM_OUTCOME_FAILED);
	/* a non-zero exit after the work was done is still done */
	assert_int_equal(
	    decide((struct tm_outcome_facts){
	        .launched = true, .exited = true, .exit_code = 143, .reached_progress = true}),
	    TM_OUTCOME_COMPLETED);
	assert_int_equal(decide((struct tm_outcome_facts){.launched = true, .term_signal = 9}),
	                 TM_OUTCOME_KILLED);
	assert_int_equal(decide((struct tm_outcome_facts){
	                     .launched = true, .term_signal = 15, .ended_by_mark = true}),
	                 TM_OUTCOME_COMPLETED);
	/* the OOM kill is what ended it, even past a timeout or an interrupt */
	assert_int_equal(
	    decide((struct tm_outcome_facts){
	        .launched = true, .term_signal = 9, .cgroup_oom = true, .timed_out = true}),
	    TM_OUTCOME_OOM_KILLED);
	assert_int_equal(
	    decide((struct tm_outcome_facts){
	        .launched = true, .term_signal = 9, .host_oom = true, .interrupted = true}),
	    TM_OUTCOME_OOM_KILLED);
	/* an OOM kill elsewhere in the cgroup does not make an exit an OOM kill */
	assert_int_equal(
	    decide((struct tm_outcome_facts){.launched = true, .exited = true, .cgroup_oom = true}),
	    TM_OUTCOME_COMPLETED);
	assert_int_equal(decide((struct tm_outcome_facts){
	                     .launched = true, .term_signal = 15, .timed_out = true}),
	                 TM_OUTCOME_TIMEOUT);
	assert_int_equal(
	    decide((struct tm_outcome_facts){
	        .launched = true, .exited = true, .exit_code = 1, .interrupted = true}),
	    TM_OUTCOME_INTERRUPTED);
	assert_int_equal(
	    decide((struct tm_outcome_facts){.launched = true, .term_signal = 15, .invalid = true}),
	    TM_OUTCOME_INVALID);
	/* a recording that failed is failed, whatever the command did */
	assert_int_equal(decide((struct tm_outcome_facts){
	                     .launched = true, .exited = true, .store_failed = true}),
	                 TM_OUTCOME_FAILED);
	assert_int_equal(decide((struct tm_outcome_facts){.loop_failed = true}), TM_OUTCOME_FAILED);
	/* what we only watched */
	assert_int_equal(decide((struct tm_outcome_facts){0}), TM_OUTCOME_COMPLETED);
	assert_int_equal(decide((struct tm_outcome_facts){.interrupted = true}),
	                 TM_OUTCOME_DETACHED);
}

static void test_bunched(void **state)
{
	(void)state;
	size_t largest = 0;
	int64_t spread[] = {0, 200000, 400000, 600000, 800000};
	int64_t at_exit[] = {0, 1000000, 1000010, 1000020, 1000030};
	int64_t two_apart[] = {0, 500000};
	int64_t two_at_once[] = {7, 9};
	int64_t one[] = {5};

	assert_false(tm_progress_bunched(spread, 5, &largest));
	assert_int_equal(largest, 1);
	assert_true(tm_progress_bunched(at_exit, 5, &largest));
	assert_int_equal(largest, 4);
	assert_false(tm_progress_bunched(two_apart, 2, NULL));
	assert_true(tm_progress_bunched(two_at_once, 2, NULL));
	assert_false(tm_progress_bunched(one, 1, NULL));
	assert_false(tm_progress_bunched(NULL, 0, &largest));
	assert_int_equal(largest, 0);
}

/* Fills T with N points from T0 on, STEP apart. */
static size_t steady(int64_t *t, size_t n, int64_t t0, int64_t step)
{
	for (size_t i = 0; i < n; i++)
		t[i] = t0 + (int64_t)i * step;
	return n;
}

/* The arrival pattern as a whole: three 4 KiB blocks of a block-buffered
 * pipe (372, 372 and 56 lines over 9 s) cannot time the work, though no
 * block holds half the points; output that arrives steadily can, however
 * fast, and so can a few lines each at its own instant. */
static void test_arrivals(void **state)
{
	static int64_t t[2000];
	struct tm_arrivals a;
	size_t n = 0;

	(void)state;
	n += steady(t + n, 372, 3000000, 2);
	n += steady(t + n, 372, 6000000, 2);
	n += steady(t + n, 56, 9400000, 2);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.points, 800);
	assert_int_equal(a.instants, 3);
	assert_int_equal(a.largest, 372);
	assert_int_equal(a.span_usec, 9400110 - 3000000);
	assert_false(a.continuous);
	assert_false(a.supported);
	assert_true(tm_progress_bunched(t, n, NULL));

	/* 200 lines at 1 kHz, line by line: 34 instants of 6 that fill 0.2 s */
	n = steady(t, 200, 0, 1000);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.instants, 34);
	assert_int_equal(a.largest, 6);
	assert_true(a.continuous);
	assert_true(a.supported);

	/* 20 lines 20 ms apart (tests/progs/alloc_phases' pace): each timed */
	n = steady(t, 20, 0, 20000);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.instants, 20);
	assert_int_equal(a.largest, 1);
	assert_false(a.continuous);
	assert_true(a.supported);

	/* 3 lines 10 s apart: few instants, but each point is timed */
	n = steady(t, 3, 0, 10000000);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.instants, 3);
	assert_int_equal(a.largest, 1);
	assert_true(a.supported);

	/* 200 blocks of 10 lines, 1 s apart: no block holds over 5 % */
	n = 0;
	for (int b = 0; b < 200; b++)
		n += steady(t + n, 10, (int64_t)b * 1000000, 3);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.instants, 200);
	assert_int_equal(a.largest, 10);
	assert_false(a.continuous);
	assert_true(a.supported);

	/* 10 blocks of 80: each a tenth of the points, over a 5 % share */
	n = 0;
	for (int b = 0; b < 10; b++)
		n += steady(t + n, 80, (int64_t)b * 1000000, 3);
	tm_progress_arrivals(t, n, &a);
	assert_int_equal(a.instants, 10);
	assert_false(a.supported);
}

/* Reads FD to EOF into BUF. */
static size_t slurp(int fd, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	return got;
}

/* The relay copies to our "terminal", forwards to the recorder, and goes on
 * copying once the recorder has let go of it. */
static void test_relay(void **state)
{
	(void)state;
	int cmd_out[2], cmd_err[2], term[2];
	struct tm_relay r;
	char buf[1024];

	assert_int_equal(pipe(cmd_out), 0);
	assert_int_equal(pipe(cmd_err), 0);
	assert_int_equal(pipe(term), 0);
	int in[2] = {cmd_out[0], cmd_err[0]}, out[2] = {term[1], -1}, mark[2] = {-1, -1};
	assert_int_equal(tm_relay_start(in, out, mark, NULL, &r), 0);
	close(cmd_out[0]);
	close(cmd_err[0]);
	close(term[1]);
	assert_eq(write(cmd_out[1], "one\n", 4), 4);
	assert_eq(write(cmd_err[1], "err\n", 4), 4);
	/* the recorder's copies */
	size_t got = 0;
	while (got < 4) {
		ssize_t n = read(r.fwd_fd[0], buf + got, sizeof(buf) - got);
		if (n > 0)
			got += (size_t)n;
		else
			usleep(1000);
	}
	assert_memory_equal(buf, "one\n", 4);
	/* the recorder goes: the command's writes still succeed and arrive */
	int pid = r.pid;
	assert_false(tm_relay_release(&r, 0));
	for (int i = 0; i < 100; i++)
		assert_eq(write(cmd_out[1], "more\n", 5), 5);
	close(cmd_out[1]);
	close(cmd_err[1]);
	got = slurp(term[0], buf, sizeof(buf));
	assert_int_equal(got, 4 + 100 * 5);
	assert_memory_equal(buf, "one\nmore\n", 9);
	close(term[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_eq(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_outcome_names), cmocka_unit_test(test_outcome_decision),
	    cmocka_unit_test(test_bunched),       cmocka_unit_test(test_arrivals),
	    cmocka_unit_test(test_relay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
