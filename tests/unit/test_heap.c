/*
 * The heap shim's reader side: maps parsing, symbolization, and a real
 * program run under build/libtidemark-heap.so read through
 * tm_heap_reader_sample and profiled to pprof.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "child.h"
#include "base/util.h"
#include "heap/heapcli.h"
#include "heap/heapprof.h"
#include "heap/heapregion.h"
#include "heap/heapshm.h"
#include "heap/symbolize.h"
#include "base/banned.h"

/* the build directory these tests were built into (build, build/aarch64) */
#ifndef TM_TEST_BUILD
#define TM_TEST_BUILD "build"
#endif
#define SHIM  TM_TEST_BUILD "/libtidemark-heap.so"
#define SITES TM_TEST_BUILD "/progs/heap_sites"

static void test_parse_maps(void **state)
{
	(void)state;
	size_t len;
	char *buf = tm_read_file("tests/fixtures/heap_maps.txt", &len);
	assert_non_null(buf);
	struct tm_heap_mapping *m;
	ssize_t n = tm_heap_parse_maps(buf, len, &m);
	assert_int_equal(n, 2); /* the r-xp file mappings only: not [vdso] */
	assert_string_equal(m[0].path, "/usr/bin/prog");
	assert_int_equal(m[0].start, 0x55d0c8a01000ull);
	assert_int_equal(m[0].limit, 0x55d0c8a05000ull);
	assert_int_equal(m[0].offset, 0x1000);
	assert_string_equal(m[1].path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_int_equal(m[1].offset, 0x28000);
	tm_heap_mappings_free(m, (size_t)n);
	assert_int_equal(tm_heap_parse_maps("garbage\n\n-", 11, &m), 0);
	tm_heap_mappings_free(m, 0);
	free(buf);
}

__attribute__((noinline)) static int symbolize_me(int x)
{
	return x * 3 + 1;
}

static void test_symbolize_self(void **state)
{
	(void)state;
	size_t len;
	char *maps = tm_read_file("/proc/self/maps", &len);
	assert_non_null(maps);
	struct tm_sym *s = tm_sym_new(maps, len);
	assert_non_null(s);
	const char *func, *file;
	int line;
	int idx = tm_sym_lookup(s, (uint64_t)(uintptr_t)symbolize_me + 1, &func, &file, &line);
	assert_true(idx >= 0);
	assert_non_null(func);
	assert_string_equal(func, "symbolize_me");
	assert_non_null(file);
	assert_non_null(strstr(file, "test_heap.c"));
	size_t n;
	const struct tm_heap_mapping *m = tm_sym_mappings(s, &n);
	assert_true(strlen(m[idx].build_id) >= 16); /* gcc on Debian links build IDs */
	tm_sym_free(s);
	free(maps);
	assert_int_equal(symbolize_me(1), 4);
}

/* The child: heap_sites under the shim, its stdin the go pipe, its stdout
 * the ready pipe; ARG is its size in MiB. */
static void sites_body(void *arg, int go_fd, int ready_fd)
{
	dup2(go_fd, 0);
	dup2(ready_fd, 1);
	setenv("LD_PRELOAD", SHIM, 1);
	setenv("TIDEMARK_HEAP_SAMPLE", "32K", 1);
	execl(SITES, SITES, (const char *)arg, (char *)NULL);
	_exit(127);
}

/* Starts heap_sites and waits for its "ready" line: 0, or -1 when the
 * programs are missing or the child died first. */
static int start_sites(struct child *c, const char *mib)
{
	char buf[5];
	if (access(SHIM, R_OK) || access(SITES, X_OK))
		return -1;
	child_spawn(c, sites_body, (void *)mib);
	return child_ready(c, buf, sizeof(buf)) && !memcmp(buf, "ready", 5) ? 0 : -1;
}

/* Tells heap_sites to exit (a newline on its stdin); its wait status. */
static int stop_sites(struct child *c)
{
	int st = -1;
	if (write(c->go, "\n", 1) != 1)
		kill(c->pid, SIGKILL);
	child_reap(c, &st);
	return st;
}

static void test_reader_sample(void **state)
{
	(void)state;
	struct child c;
	/* the shim and heap_sites are built by make check: a child that does
	 * not come up (the shim crashed it at start-up) is a failure */
	assert_int_equal(start_sites(&c, "16"), 0);
	struct tm_heap_reader *r = tm_heap_reader_new();
	assert_non_null(r);
	struct tm_sample s;
	pid_t pids[2] = {getpid(), c.pid}; /* this test itself runs without the shim */
	tm_sample_clear(&s);
	assert_int_equal(tm_heap_reader_sample(r, pids, 1, &s), 0);
	assert_false(tm_sample_has(&s, TM_M_HEAP_LIVE_BYTES)); /* missing, not zero */
	tm_sample_clear(&s);
	assert_int_equal(tm_heap_reader_sample(r, pids, 2, &s), 0);
	assert_true(tm_sample_has(&s, TM_M_HEAP_PROCS));
	assert_int_equal(s.v[TM_M_HEAP_PROCS], 1);
	int64_t known = 16 * 1024 * 1024 / 4000 * 4000 + 8 * 1024 * 1024;
	assert_true(s.v[TM_M_HEAP_LIVE_BYTES] >= known);
	assert_true(s.v[TM_M_HEAP_LIVE_BYTES] < known + known / 10);
	assert_true(s.v[TM_M_HEAP_PEAK_BYTES] >= s.v[TM_M_HEAP_LIVE_BYTES]);
	assert_true(s.v[TM_M_HEAP_ALLOC_BYTES] >= known + 64 * 1024 * 1024);
	assert_true(s.v[TM_M_HEAP_ALLOCS] >= s.v[TM_M_HEAP_FREES] + 4000);
	int64_t allocated = s.v[TM_M_HEAP_ALLOC_BYTES];
	/* read just before the sample too: the idle child's heap did not move */
	tm_heap_reader_mark(r);
	tm_sample_clear(&s);
	assert_int_equal(tm_heap_reader_sample(r, pids, 2, &s), 0);
	assert_true(tm_sample_has(&s, TM_M_HEAP_READ_SKEW_BYTES));
	assert_in_range(s.v[TM_M_HEAP_READ_SKEW_BYTES], 0, 1024 * 1024);
	assert_int_equal(stop_sites(&c), 0);
	tm_sample_clear(&s);
	assert_int_equal(tm_heap_reader_sample(r, pids, 1, &s), 0); /* drops the child */
	/* it left: it holds nothing, and what it allocated stays counted */
	assert_int_equal(s.v[TM_M_HEAP_LIVE_BYTES], 0);
	assert_in_range(s.v[TM_M_HEAP_ALLOC_BYTES], allocated, INT64_MAX);
	assert_in_range(s.v[TM_M_HEAP_PEAK_BYTES], known, INT64_MAX);
	tm_heap_reader_free(r);
}

static void test_profile_and_top(void **state)
{
	(void)state;
	struct child c;
	/* the shim and heap_sites are built by make check: a child that does
	 * not come up (the shim crashed it at start-up) is a failure */
	assert_int_equal(start_sites(&c, "16"), 0);
	char path[] = "/tmp/tidemark-heap-test.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(tm_heap_profile_write(c.pid, path), 0);
	assert_int_equal(stop_sites(&c), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(tm_heap_top(path, out, 5), 0);
	fclose(out);
	assert_non_null(strstr(text, "keep_known_site"));
	assert_non_null(strstr(text, "keep_other_site"));
	free(text);
	unlink(path);
	assert_int_equal(tm_heap_top("tests/fixtures/heap_maps.txt", stderr, 5), -1);
}

static void test_shim_path(void **state)
{
	(void)state;
	char buf[4096];
	setenv("TIDEMARK_HEAP_LIB", "tests/fixtures/heap_maps.txt", 1);
	setenv("TIDEMARK_HEAP_SITES_LIB", "tests/fixtures/heap_maps.txt", 1);
	assert_int_equal(tm_heap_shim_path(buf, sizeof(buf), 0), 0);
	assert_string_equal(buf, "tests/fixtures/heap_maps.txt");
	assert_int_equal(tm_heap_shim_path(buf, sizeof(buf), 1), 0);
	assert_string_equal(buf, "tests/fixtures/heap_maps.txt");
	setenv("TIDEMARK_HEAP_LIB", "/nonexistent/libtidemark-heap.so", 1);
	assert_int_equal(tm_heap_shim_path(buf, sizeof(buf), 0), -1);
	setenv("TIDEMARK_HEAP_SITES_LIB", "/nonexistent/libtidemark-heap-sites.so", 1);
	assert_int_equal(tm_heap_shim_path(buf, sizeof(buf), 1), -1);
	unsetenv("TIDEMARK_HEAP_LIB");
	unsetenv("TIDEMARK_HEAP_SITES_LIB");
}

static void test_no_region(void **state)
{
	(void)state;
	struct tm_heap_snapshot s;
	assert_null(tm_heap_region_map(getpid()));
	assert_int_equal(tm_heap_snapshot_take(getpid(), &s), -1);
}

/* A region directory is one only its owner (or root) may create names in:
 * a link to one, or one that group or others may write, is refused
 * (EPERM), and so is one of another user; a region file in a good one is
 * taken only when it is a regular file of one region's size. */
static void test_region_dir_checks(void **state)
{
	(void)state;
	char base[] = "/tmp/tm-heapdir-XXXXXX", dir[64], link[64], buf[256];
	assert_non_null(mkdtemp(base));
	snprintf(dir, sizeof(dir), "%s/d", base);
	snprintf(link, sizeof(link), "%s/l", base);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(symlink(dir, link), 0);
	int fd = tm_heap_region_dir_open(dir, geteuid());
	assert_true(fd >= 0);
	/* a file that is not one region's size, and a FIFO: refused, not waited on */
	int f = openat(fd, "12345", O_CREAT | O_WRONLY, 0600);
	assert_true(f >= 0);
	close(f);
	assert_int_equal(tm_heap_region_open_at(fd, 12345, O_RDONLY), -1);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(mkfifoat(fd, "12346", 0600), 0);
	assert_int_equal(tm_heap_region_open_at(fd, 12346, O_RDONLY), -1);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(tm_heap_region_open_at(fd, 12347, O_RDONLY), -1);
	assert_int_equal(errno, ENOENT);
	close(fd);
	assert_int_equal(tm_heap_region_dir_open(link, geteuid()), -1);
	chmod(dir, 0777);
	assert_int_equal(tm_heap_region_dir_open(dir, geteuid()), -1);
	assert_int_equal(errno, EPERM);
	chmod(dir, 0720);
	assert_int_equal(tm_heap_region_dir_open(dir, geteuid()), -1);
	assert_int_equal(errno, EPERM);
	chmod(dir, 0700);
	if (geteuid() != 0) { /* another user's: root's passes for anyone */
		assert_int_equal(tm_heap_region_dir_open(dir, geteuid() + 1), -1);
		assert_int_equal(errno, EPERM);
	}
	/* the directory the recorder passes: made 0700, a bad one refused with why */
	setenv(TMH_DIR_ENV, dir, 1);
	chmod(dir, 0777);
	assert_int_equal(tm_heap_region_dir_prepare(buf, sizeof(buf)), -1);
	chmod(dir, 0700);
	assert_int_equal(tm_heap_region_dir_prepare(buf, sizeof(buf)), 0);
	assert_string_equal(buf, dir);
	setenv(TMH_DIR_ENV, link, 1);
	assert_int_equal(tm_heap_region_dir_prepare(buf, sizeof(buf)), -1);
	unsetenv(TMH_DIR_ENV);
	unlink(link);
	char f1[80], f2[80];
	snprintf(f1, sizeof(f1), "%s/12345", dir);
	snprintf(f2, sizeof(f2), "%s/12346", dir);
	unlink(f1);
	unlink(f2);
	rmdir(dir);
	rmdir(base);
}

/* `tidemark heap`'s library calls return an error for a process without
 * the shim, and never exit; --every leaves the caller's flag alone. */
static void test_cli_no_region(void **state)
{
	(void)state;
	char path[64];
	volatile sig_atomic_t now = 1;
	snprintf(path, sizeof(path), "/tmp/tm-heapcli-%d", (int)getpid());
	assert_int_equal(tm_heap_cli_profile(getpid(), path, false, false), -1);
	assert_int_equal(tm_heap_cli_profile(getpid(), path, true, false), -1);
	assert_int_equal(tm_heap_cli_every(getpid(), path, 100000, &now), -1);
	assert_int_equal(now, 1);
	assert_int_equal(access(path, F_OK), -1);
}

/* heap run: heap_sites (stdin and stdout /dev/null) profiled at exit, its
 * exit status passed back; a command that cannot run
 * is an error, not an exit. */
static void test_cli_run(void **state)
{
	(void)state;
	char out[64];
	char *cmd[] = {SITES, "1", NULL}, *bad[] = {"/nonexistent/tm-cmd", NULL};
	int status = -1;
	if (access(SHIM, R_OK) || access(SITES, X_OK))
		skip(); /* make heap-progs builds them */
	setenv("TIDEMARK_HEAP_LIB", SHIM, 1);
	snprintf(out, sizeof(out), "/tmp/tm-heapcli-%d.pb.gz", (int)getpid());
	fflush(stdout);
	int in0 = dup(0), out1 = dup(1), null = open("/dev/null", O_RDWR);
	assert_true(in0 >= 0 && out1 >= 0 && null >= 0);
	dup2(null, 0);
	dup2(null, 1);
	int rc = tm_heap_cli_run(cmd, out, "32K", false, &status);
	int rc_bad = tm_heap_cli_run(bad, out, "32K", false, &status);
	dup2(in0, 0);
	dup2(out1, 1);
	close(in0);
	close(out1);
	close(null);
	unsetenv("TIDEMARK_HEAP_LIB");
	assert_int_equal(rc, 0);
	assert_int_equal(status, 0);
	assert_int_equal(access(out, R_OK), 0);
	unlink(out);
	assert_int_equal(rc_bad, -1);
}

/*
 * A process killed inside an update of its stack table (an OOM kill at the
 * first write of a new page of the table, or any SIGKILL) leaves the
 * sample sequence word odd for good.  A reader that waits for it to turn
 * even never gets the profile at the kill; with the process gone, the
 * table is read as it is and says one site may be a sample off.  While it
 * may still run, an odd word is still refused.
 */
static void test_stacks_of_a_writer_killed_mid_update(void **state)
{
	(void)state;
	struct tmh_region *r = tm_pages_alloc(sizeof(*r));
	struct tmh_stack *st = malloc(sizeof(r->stacks));
	assert_non_null(r);
	assert_non_null(st);
	r->sample_mean_bytes = 512 * 1024;
	r->stacks[3].hash = 77;
	r->stacks[3].depth = 1;
	r->stacks[3].pc[0] = 0x401000;
	r->stacks[3].samples = 2;
	r->stacks[3].alloc_bytes = r->stacks[3].inuse_bytes = 1 << 20;
	r->stacks[3].alloc_objects_milli = r->stacks[3].inuse_objects_milli = 2000;
	r->sample_seq = 7; /* odd: the writer stopped inside its update */

	bool torn = true;
	assert_int_equal(tm_heap_region_stacks(r, false, st, &torn), -1);
	assert_false(torn);
	assert_int_equal(tm_heap_region_stacks(r, true, st, &torn), 0);
	assert_true(torn);
	assert_int_equal(st[3].samples, 2);
	r->sample_seq = 8; /* even: whole, gone or not */
	assert_int_equal(tm_heap_region_stacks(r, true, st, &torn), 0);
	assert_false(torn);

	/* the profile at the kill, of a pid that is gone (a reaped child) */
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	static const char maps[] = "00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/x\n";
	struct tm_heap_snapshot snap;
	r->sample_seq = 9;
	assert_int_equal(tm_heap_snapshot_region(r, pid, maps, sizeof(maps) - 1, true, &snap), 0);
	assert_true(snap.torn);
	assert_int_equal(snap.nsites, 1);
	assert_int_equal(snap.sites[0].samples, 2);
	tm_heap_snapshot_release(&snap);
	assert_int_equal(tm_heap_snapshot_region(r, pid, maps, sizeof(maps) - 1, false, &snap), -1);
	free(st);
	tm_pages_free(r, sizeof(*r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_maps),
	    cmocka_unit_test(test_symbolize_self),
	    cmocka_unit_test(test_reader_sample),
	    cmocka_unit_test(test_profile_and_top),
	    cmocka_unit_test(test_shim_path),
	    cmocka_unit_test(test_no_region),
	    cmocka_unit_test(test_region_dir_checks),
	    cmocka_unit_test(test_cli_no_region),
	    cmocka_unit_test(test_cli_run),
	    cmocka_unit_test(test_stacks_of_a_writer_killed_mid_update),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
