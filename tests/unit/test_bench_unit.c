/* bench --unit without systemd: unit names, the guard over drop-ins in a
 * temporary directory, the drop-in's text, and the cleaner removing the
 * drop-in when the bench dies (systemctl replaced by a script that logs
 * what it was asked, TIDEMARK_SYSTEMCTL). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"

#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "bench/unit.h"
#include "base/banned.h"

static char dir[64];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_bench_unit_%d", (int)getpid());
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s/etc/tm-x.service.d", dir, dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* The guard's verdict, with what it printed (stderr) in SAID. */
static int guard(const char *const *dirs, char *said, size_t size)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	int rc = tm_bench_unit_guard(dirs, "tm-x.service");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	char *t = tm_read_file(path, NULL);
	snprintf(said, size, "%s", t ? t : "");
	free(t);
	return rc;
}

static void test_names(void **state)
{
	char out[256];
	(void)state;
	assert_int_equal(tm_bench_unit_name("bitcoind", out, sizeof(out)), 0);
	assert_string_equal(out, "bitcoind.service");
	assert_int_equal(tm_bench_unit_name("node@main.service", out, sizeof(out)), 0);
	assert_string_equal(out, "node@main.service");
	assert_int_equal(tm_bench_unit_name("a/b", out, sizeof(out)), -1);
	assert_int_equal(tm_bench_unit_name("x.timer", out, sizeof(out)), -1);
	assert_int_equal(tm_bench_unit_name("", out, sizeof(out)), -1);
}

/* Another drop-in's LD_PRELOAD (quoted among other assignments), or a
 * MALLOC_ variable in an EnvironmentFile it names, is refused; our own
 * drop-in and harmless variables are not. */
static void test_guard(void **state)
{
	char etc[128], run[128], path[256], envf[256];
	const char *dirs[] = {etc, run, NULL};
	(void)state;

	snprintf(etc, sizeof(etc), "%s/etc", dir);
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(path, sizeof(path), "%s/tm-x.service.d/50-ok.conf", etc);
	put(path, "[Service]\nEnvironment=RUST_LOG=debug \"A=b c\"\nMemoryMax=1G\n");
	snprintf(path, sizeof(path), "%s/tm-x.service.d/" TM_BENCH_UNIT_DROPIN, etc);
	put(path, "[Service]\nEnvironment=\"LD_PRELOAD=/ours.so\"\n");
	char said[2048];
	assert_int_equal(guard(dirs, said, sizeof(said)), 0);

	snprintf(path, sizeof(path), "%s/tm-x.service.d/10-pre.conf", etc);
	put(path,
	    "[Service]\n# a comment\nEnvironment=FOO=1 \"LD_PRELOAD=/usr/lib/libjemalloc.so.2\"\n");
	assert_int_equal(guard(dirs, said, sizeof(said)), -1);
	assert_non_null(strstr(said, "10-pre.conf:3: LD_PRELOAD=/usr/lib/libjemalloc.so.2"));
	assert_null(strstr(said, "FOO"));
	unlink(path);

	snprintf(envf, sizeof(envf), "%s/tm-x.env", dir);
	put(envf, "# set by hand\nexport MALLOC_ARENA_MAX=2\n");
	char text[512];
	snprintf(text, sizeof(text), "[Service]\nEnvironmentFile=-%s\n", envf);
	snprintf(path, sizeof(path), "%s/tm-x.service.d/20-envfile.conf", etc);
	put(path, text);
	assert_int_equal(guard(dirs, said, sizeof(said)), -1);
	assert_non_null(strstr(said, "tm-x.env:2: MALLOC_ARENA_MAX=2"));
	unlink(path);
	assert_int_equal(guard(dirs, said, sizeof(said)), 0);
}

static void test_dropin_text(void **state)
{
	struct tm_bench_arm arm;
	struct tm_limits lim = {64 * 1048576, TM_LIMIT_UNSET, 0};
	(void)state;

	memset(&arm, 0, sizeof(arm));
	snprintf(arm.name, sizeof(arm.name), "tuned");
	arm.alloc = TM_ALLOC_ARENA1;
	arm.preload = strdup("/usr/lib/libjemalloc.so.2");
	arm.env[0].name = strdup("MALLOC_CONF");
	arm.env[0].value = strdup("narenas:1,\"x\"\\%d");
	arm.n_env = 1;
	char *t = tm_bench_unit_dropin(&arm, &lim, "tm-x.service", 7, 3);
	assert_non_null(t);
	assert_non_null(strstr(t, "# tidemark bench 7, run 3, arm tuned of tm-x.service"));
	assert_non_null(strstr(t, "\n[Service]\n"));
	assert_non_null(strstr(t, "Environment=\"MALLOC_CONF=narenas:1,\\\"x\\\"\\\\%%d\"\n"));
	assert_non_null(strstr(t, "Environment=\"MALLOC_ARENA_MAX=1\"\n"));
	assert_non_null(strstr(t, "Environment=\"LD_PRELOAD=/usr/lib/libjemalloc.so.2\"\n"));
	assert_non_null(strstr(t, "MemoryMax=67108864\nMemorySwapMax=0\n"));
	assert_null(strstr(t, "MemoryHigh"));
	free(t);
	free(arm.env[0].value);
	arm.env[0].value = strdup("a\nb");
	assert_null(tm_bench_unit_dropin(&arm, &lim, "tm-x.service", 7, 3));
	free(arm.env[0].name);
	free(arm.env[0].value);
	free(arm.preload);
}

/* The bench dies (here: its process ends without closing) with its
 * drop-in in place: the cleaner removes it, reloads systemd and stops the
 * unit; a bench that closes itself leaves the cleaner nothing to do. */
/* The log LOG once it holds WANT, waiting up to 10 s (the cleaner's
 * systemctl calls come after the drop-in is gone, slower on a loaded
 * machine); the log as it is then, or NULL. */
static char *log_with(const char *log, const char *want)
{
	char *l = NULL;
	for (int i = 0; i < 200; i++) {
		free(l);
		l = tm_read_file(log, NULL);
		if (l && strstr(l, want))
			break;
		usleep(50000);
	}
	return l;
}

/* A bench's child that arms the unit under ARG's root (ARG: root, then the
 * drop-in's path) and ends without closing it, as a killed bench does:
 * exit 0 with the drop-in in place. */
static void armed_and_killed(void *arg, int go_fd, int ready_fd)
{
	const char *const *paths = arg;
	struct tm_bench_unit u;

	(void)go_fd, (void)ready_fd;
	if (tm_bench_unit_open(&u, "tm-x.service", paths[0]) ||
	    tm_bench_unit_arm(&u, "[Service]\n"))
		_exit(1);
	_exit(access(paths[1], F_OK) == 0 ? 0 : 2);
}

static void test_cleaner(void **state)
{
	char fake[128], log[128], root[128], dropin[256], script[512];
	(void)state;

	snprintf(fake, sizeof(fake), "%s/systemctl", dir);
	snprintf(log, sizeof(log), "%s/systemctl.log", dir);
	snprintf(root, sizeof(root), "%s/run", dir);
	snprintf(dropin, sizeof(dropin), "%s/tm-x.service.d/" TM_BENCH_UNIT_DROPIN, root);
	snprintf(
	    script, sizeof(script),
	    "#!/bin/sh\necho \"$*\" >>%s\ncase \"$*\" in\n'show -P LoadState '*) echo loaded ;;\n"
	    "'is-active '*) exit 3 ;;\nesac\nexit 0\n",
	    log);
	put(fake, script);
	chmod(fake, 0755);
	setenv("TIDEMARK_SYSTEMCTL", fake, 1);

	struct child c;
	const char *paths[2] = {root, dropin};
	int st;
	child_spawn(&c, armed_and_killed, paths);
	child_reap(&c, &st);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	for (int i = 0; i < 100 && access(dropin, F_OK) == 0; i++)
		usleep(50000);
	assert_int_not_equal(access(dropin, F_OK), 0);
	/* armed: reload, stop; then the cleaner: reload, stop, reset-failed */
	const char *want = "daemon-reload\nstop tm-x.service\ndaemon-reload\nstop tm-x.service\n"
	                   "reset-failed tm-x.service\n";
	char *l = log_with(log, want);
	assert_non_null(l);
	assert_non_null(strstr(l, want));
	free(l);

	/* a bench that closes: the drop-in goes, the cleaner does nothing more */
	unlink(log);
	struct tm_bench_unit u;
	assert_int_equal(tm_bench_unit_open(&u, "tm-x.service", root), 0);
	assert_int_equal(tm_bench_unit_arm(&u, "[Service]\n"), 0);
	assert_int_equal(tm_bench_unit_close(&u), 0);
	assert_int_not_equal(access(dropin, F_OK), 0);
	usleep(200000);
	l = tm_read_file(log, NULL);
	assert_non_null(l);
	assert_non_null(strstr(l, "daemon-reload\nstop tm-x.service\nreset-failed tm-x.service\n"));
	assert_null(strstr(strstr(l, "reset-failed"), "daemon-reload"));
	free(l);
	unsetenv("TIDEMARK_SYSTEMCTL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_guard),
	    cmocka_unit_test(test_dropin_text),
	    cmocka_unit_test(test_cleaner),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
