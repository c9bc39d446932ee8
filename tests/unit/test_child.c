/* tests/unit/child.h: a test that fails while its child runs leaves no
 * process behind.  The test program runs itself with --fail-with-child: a
 * test there spawns a child (which forks a grandchild), both pause for
 * ever, and an assertion fails.  Its output pipe must reach EOF once it
 * exits (no child holds it), and neither process may be left running. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "child.h"

/* The child: a grandchild in its group, then both pause. */
static void sleeper(void *arg, int go_fd, int ready_fd)
{
	pid_t k = fork();
	(void)arg;
	(void)go_fd;
	if (k == 0)
		for (;;)
			pause();
	if (write(ready_fd, &k, sizeof(k)) != sizeof(k))
		_exit(5);
	for (;;)
		pause();
}

/* Run as --fail-with-child: fails with its child and grandchild alive. */
static void fails_with_child(void **state)
{
	struct child c;
	pid_t k;
	(void)state;
	child_spawn(&c, sleeper, NULL);
	assert_true(child_ready(&c, &k, sizeof(k)));
	printf("child %d grandchild %d\n", (int)c.pid, (int)k);
	fflush(stdout);
	assert_int_equal(1, 2); /* the failure under test: jumps out, no reap */
}

/* Whether PID runs (a zombie or no process: it does not). */
static bool running(pid_t pid)
{
	char path[64], buf[256], *p;
	FILE *f;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return false;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static void test_failed_test_leaves_no_child(void **state)
{
	int out[2], status;
	char buf[4096];
	size_t len = 0;
	bool eof = false;
	(void)state;
	assert_int_equal(pipe(out), 0);
	pid_t runner = fork();
	assert_true(runner >= 0);
	if (runner == 0) {
		dup2(out[1], 1);
		dup2(out[1], 2);
		close(out[0]);
		close(out[1]);
		execl("/proc/self/exe", "test_child", "--fail-with-child", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	/* 30 s: far more than the run takes, under ASan on a loaded machine */
	for (int waited = 0; !eof && waited < 300; waited++) {
		struct pollfd p = {.fd = out[0], .events = POLLIN};
		if (poll(&p, 1, 100) <= 0)
			continue;
		ssize_t r = read(out[0], buf + len, sizeof(buf) - 1 - len);
		if (r <= 0)
			eof = true;
		else
			len += (size_t)r;
	}
	buf[len] = '\0';
	close(out[0]);
	if (!eof) {
		kill(runner, SIGKILL);
		print_error(
		    "the failed test's output pipe stayed open 30 s (a child holds it):\n%s", buf);
	}
	assert_int_equal(waitpid(runner, &status, 0), runner);
	assert_true(eof);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0); /* its test failed */
	int child = 0, grandchild = 0;
	const char *at = strstr(buf, "child ");
	assert_non_null(at);
	assert_int_equal(sscanf(at, "child %d grandchild %d", &child, &grandchild), 2);
	for (int i = 0; i < 100 && (running(child) || running(grandchild)); i++)
		usleep(20000);
	assert_false(running(child));
	assert_false(running(grandchild));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--fail-with-child") == 0) {
		const struct CMUnitTest fail[] = {cmocka_unit_test(fails_with_child)};
		return cmocka_run_group_tests(fail, NULL, NULL);
	}
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_failed_test_leaves_no_child)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
