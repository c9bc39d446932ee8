/* bench: arm specs, the experiment file, the guard, environments, order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/util.h"
#include "bench/bench.h"
#include "bench/restore.h"
#include "record/launch.h"
#include "record/recorder.h"
#include "base/banned.h"

static char *fixture(const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "tests/fixtures/bench/%s", name);
	char *text = tm_read_file(path, NULL);
	assert_non_null(text);
	return text;
}

static void test_arm_shortcuts(void **state)
{
	struct tm_bench_spec sp;
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "glibc"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "jemalloc"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "arena1"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "other:"), 0); /* no settings, on purpose */
	assert_int_equal(sp.arms[0].alloc, TM_ALLOC_GLIBC);
	assert_int_equal(sp.arms[1].alloc, TM_ALLOC_JEMALLOC);
	assert_int_equal(sp.arms[2].alloc, TM_ALLOC_ARENA1);
	assert_int_equal(sp.arms[3].alloc, TM_ALLOC_GLIBC);
	assert_false(sp.arms[3].alloc_set);
	assert_string_equal(tm_bench_arm_expect(&sp.arms[2]), "glibc");
	assert_string_equal(tm_bench_arm_expect(&sp.arms[1]), "jemalloc");
	tm_bench_spec_release(&sp);
}

static void test_arm_settings(void **state)
{
	struct tm_bench_spec sp;
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp,
	                                  "tuned:Allocator=jemalloc,MALLOC_CONF=a:1,b:2,FOO=x=y,"
	                                  "MemoryMax=300M,MemoryHigh=max"),
	                 0);
	struct tm_bench_arm *a = &sp.arms[0];
	assert_string_equal(a->name, "tuned");
	assert_int_equal(a->alloc, TM_ALLOC_JEMALLOC);
	assert_int_equal(a->n_env, 2);
	assert_string_equal(tm_bench_arm_getenv(a, "MALLOC_CONF"), "a:1,b:2");
	assert_string_equal(tm_bench_arm_getenv(a, "FOO"), "x=y");
	assert_int_equal(a->memory_max_bytes, 300 * 1024 * 1024);
	assert_int_equal(a->memory_high_bytes, INT64_MAX);
	assert_int_equal(a->swap_max_bytes, TM_LIMIT_UNSET);
	tm_bench_spec_release(&sp);
}

static void test_arm_errors(void **state)
{
	static const char *bad[] = {
	    "", "x:foo", "x:=1", "bad name", "x:Allocator=nope", "x:MemoryMax=lots", "x:1BAD=2",
	    "a/b",
	    /* a name that is no shortcut and sets nothing: a typo, not glibc */
	    "tcmaloc", "other",
	    /* limits no program can start in */
	    "x:MemoryMax=0", "x:MemoryMax=1K", "x:MemoryHigh=64K"};
	struct tm_bench_spec sp;
	(void)state;
	for (size_t i = 0; i < TM_ARRAY_SIZE(bad); i++) {
		tm_bench_spec_init(&sp);
		assert_int_equal(tm_bench_add_arm(&sp, bad[i]), -1);
		tm_bench_spec_release(&sp);
	}
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "a:"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "a:X=1"), -1); /* twice */
	/* the floor is a floor: 128 KiB and no swap at all are fine */
	assert_int_equal(tm_bench_add_arm(&sp, "b:MemoryMax=128K,MemorySwapMax=0"), 0);
	tm_bench_spec_release(&sp);
	assert_string_equal(tm_bench_alloc_nearest("tcmaloc"), "tcmalloc");
	assert_string_equal(tm_bench_alloc_nearest("jemmaloc"), "jemalloc");
	assert_string_equal(tm_bench_alloc_nearest("arena"), "arena1");
	assert_null(tm_bench_alloc_nearest("roomy"));
}

/* An empty section that is no shortcut is a typo until it says otherwise. */
static void test_ini_nothing_set(void **state)
{
	struct tm_bench_spec sp;
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_parse_ini(&sp, "[glibc]\n[tcmaloc]\n", "t.ini"), -1);
	tm_bench_spec_release(&sp);
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_parse_ini(&sp, "[glibc]\n[plain]\nAllocator=glibc\n", "t.ini"),
	                 0);
	tm_bench_spec_release(&sp);
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_parse_ini(&sp, "[bench]\nMemoryMax=1K\n[glibc]\n", "t.ini"), -1);
	tm_bench_spec_release(&sp);
}

static void test_ini_good(void **state)
{
	struct tm_bench_spec sp;
	char *text = fixture("good.ini");
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_parse_ini(&sp, text, "good.ini"), 0);
	assert_string_equal(sp.name, "churn");
	assert_string_equal(sp.exec_start, "build/churn --threads 6 --rounds 6");
	assert_int_equal(sp.runs, 3);
	assert_int_equal(sp.seed, 42);
	assert_int_equal(sp.order, TM_ORDER_SHUFFLE);
	assert_int_equal(sp.rec.limits.memory_max_bytes, 400 * 1024 * 1024);
	assert_string_equal(sp.rec.progress_regex, "height=([0-9]+)");
	assert_string_equal(sp.window, "1:5");
	assert_int_equal(sp.drop_caches, 0);
	assert_int_equal(sp.n_arms, 3);
	assert_string_equal(sp.arms[0].name, "glibc"); /* empty section still an arm */
	assert_string_equal(sp.arms[1].name, "arena1");
	assert_int_equal(sp.arms[1].alloc, TM_ALLOC_ARENA1);
	assert_int_equal(sp.arms[1].memory_high_bytes, 350 * 1024 * 1024);
	assert_string_equal(sp.arms[2].name, "jemalloc-tuned");
	assert_int_equal(sp.arms[2].alloc, TM_ALLOC_JEMALLOC);
	assert_string_equal(tm_bench_arm_getenv(&sp.arms[2], "MALLOC_CONF"),
	                    "background_thread:true,dirty_decay_ms:0");
	assert_string_equal(tm_bench_arm_getenv(&sp.arms[2], "FOO"), "a b");
	assert_string_equal(sp.arms[2].exec_start, "build/churn --threads 6 --rounds 6 --extra");
	tm_bench_spec_release(&sp);
	free(text);
}

/* Every error names the file and the line; checked through stderr. */
static void expect_text_error(const char *text, const char *file, const char *want);

static void expect_ini_error(const char *file, const char *want)
{
	char *text = fixture(file);
	expect_text_error(text, file, want);
	free(text);
}

static void expect_text_error(const char *text, const char *file, const char *want)
{
	struct tm_bench_spec sp;
	char errpath[] = "/tmp/tm-test-bench-XXXXXX";
	int fd = mkstemp(errpath);
	int saved = dup(2);

	assert_true(fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	tm_bench_spec_init(&sp);
	int r = tm_bench_parse_ini(&sp, text, file);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	char *err = tm_read_file(errpath, NULL);
	unlink(errpath);
	assert_int_equal(r, -1);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
	free(err);
	tm_bench_spec_release(&sp);
}

static void test_ini_errors(void **state)
{
	(void)state;
	expect_ini_error("bad_key.ini", "bad_key.ini:6: unknown key 'Colour' in [glibc]");
	expect_ini_error("bad_syntax.ini", "bad_syntax.ini:4: syntax error");
	expect_ini_error("bad_size.ini", "bad_size.ini:4: [arena1] MemoryMax 'lots': expected a "
	                                 "size like 400M, 1.5G, 512KiB or max");
	/* the file refuses what the command line refuses, with the same reason */
	expect_text_error("[bench]\nOrder=random\n[a]\n", "x.ini",
	                  "x.ini:2: Order 'random': expected interleave or shuffle");
	expect_text_error("[bench]\nRuns=0\n[a]\n", "x.ini",
	                  "x.ini:2: Runs '0': expected a count from 1 to 1000");
	expect_text_error("[bench]\nRuns=5000\n[a]\n", "x.ini",
	                  "x.ini:2: Runs '5000': expected a count from 1 to 1000");
	expect_text_error("[bench]\nInterval=10ms\n[a]\n", "x.ini",
	                  "x.ini:2: Interval '10ms': expected a duration of at least 50ms");
	expect_text_error(
	    "[bench]\nMemoryMax=lots\n[a]\n", "x.ini",
	    "x.ini:2: MemoryMax 'lots': expected a size like 400M, 1.5G, 512KiB or max");
	expect_text_error("[bench]\nHeap=maybe\n[a]\n", "x.ini",
	                  "x.ini:2: Heap 'maybe': expected yes or no");
}

static void test_environment_value(void **state)
{
	struct tm_bench_arm arm;
	(void)state;
	memset(&arm, 0, sizeof(arm));
	assert_int_equal(tm_bench_parse_environment(&arm, "A=1 \"B=two words\" C='x y' D="), 0);
	assert_int_equal(arm.n_env, 4);
	assert_string_equal(tm_bench_arm_getenv(&arm, "B"), "two words");
	assert_string_equal(tm_bench_arm_getenv(&arm, "C"), "x y");
	assert_string_equal(tm_bench_arm_getenv(&arm, "D"), "");
	assert_int_equal(tm_bench_parse_environment(&arm, "NOEQUALS"), -1);
	assert_int_equal(tm_bench_parse_environment(&arm, "A=\"open"), -1);
	for (int i = 0; i < arm.n_env; i++) {
		free(arm.env[i].name);
		free(arm.env[i].value);
	}
}

static void test_split_command(void **state)
{
	(void)state;
	char **v = tm_bench_split_command("  sh -c 'echo \"hi there\"' a\\ b \"q\\\"x\" ");
	assert_non_null(v);
	assert_string_equal(v[0], "sh");
	assert_string_equal(v[1], "-c");
	assert_string_equal(v[2], "echo \"hi there\"");
	assert_string_equal(v[3], "a b");
	assert_string_equal(v[4], "q\"x");
	assert_null(v[5]);
	tm_bench_env_free(v);
	assert_null(tm_bench_split_command("   "));
	assert_null(tm_bench_split_command("echo 'x"));
}

static void test_alloc_vars(void **state)
{
	(void)state;
	assert_true(tm_env_alloc_var("LD_PRELOAD"));
	assert_true(tm_env_alloc_var("MALLOC_ARENA_MAX"));
	assert_true(tm_env_alloc_var("MALLOC_CONF"));
	assert_true(tm_env_alloc_var("GLIBC_TUNABLES"));
	assert_true(tm_env_alloc_var("MIMALLOC_SHOW_STATS"));
	assert_true(tm_env_alloc_var("TCMALLOC_RELEASE_RATE"));
	assert_true(tm_env_alloc_var("JE_MALLOC_CONF"));
	assert_false(tm_env_alloc_var("PATH"));
	assert_false(tm_env_alloc_var("LD_LIBRARY_PATH"));
	assert_false(tm_env_alloc_var("XMALLOC_X"));
}

static void test_guard(void **state)
{
	struct tm_bench_spec sp;
	char *leftover[] = {"PATH=/bin", "LD_PRELOAD=/usr/lib/libjemalloc.so.2", NULL};
	char *clean[] = {"PATH=/bin", "HOME=/root", NULL};
	char *arena[] = {"PATH=/bin", "MALLOC_ARENA_MAX=4", NULL};
	(void)state;
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "glibc"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "jemalloc"), 0);
	assert_int_equal(tm_bench_guard(&sp, clean, false), 0);
	/* the jemalloc shortcut does not declare the leftover */
	assert_int_equal(tm_bench_guard(&sp, leftover, false), -1);
	assert_int_equal(tm_bench_guard(&sp, leftover, true), 0);
	assert_int_equal(tm_bench_guard(&sp, arena, false), -1);
	assert_int_equal(tm_bench_add_arm(&sp, "four:MALLOC_ARENA_MAX=4"), 0);
	assert_int_equal(tm_bench_guard(&sp, arena, false), 0);
	tm_bench_spec_release(&sp);
}

static bool has(char **envp, const char *entry)
{
	for (; *envp; envp++)
		if (!strcmp(*envp, entry))
			return true;
	return false;
}

static bool has_name(char **envp, const char *name)
{
	size_t n = strlen(name);
	for (; *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return true;
	return false;
}

static void test_envp_and_resolve(void **state)
{
	struct tm_bench_spec sp;
	char dir[] = "/tmp/tm-test-libs-XXXXXX";
	char lib[600];
	char *env[] = {"PATH=/bin", "MALLOC_ARENA_MAX=4", "LD_PRELOAD=/x/libleft.so", NULL};
	(void)state;

	assert_non_null(mkdtemp(dir));
	snprintf(lib, sizeof(lib), "%s/libjemalloc.so.2", dir);
	FILE *f = fopen(lib, "w");
	assert_non_null(f);
	fputs("not really a library\n", f);
	fclose(f);
	const char *dirs[] = {"/nonexistent", dir, NULL};

	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "glibc"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "arena1"), 0);
	assert_int_equal(tm_bench_add_arm(&sp, "jemalloc:MALLOC_CONF=x:1"), 0);
	assert_int_equal(tm_bench_resolve_allocators(&sp, dirs), 0);
	assert_string_equal(sp.arms[2].preload, lib);

	char **e0 = tm_bench_arm_envp(&sp.arms[0], env, false);
	char **e1 = tm_bench_arm_envp(&sp.arms[1], env, false);
	char **e2 = tm_bench_arm_envp(&sp.arms[2], env, false);
	char **i0 = tm_bench_arm_envp(&sp.arms[0], env, true);
	char **i2 = tm_bench_arm_envp(&sp.arms[2], env, true);
	assert_true(has(e0, "PATH=/bin"));
	assert_false(has_name(e0, "MALLOC_ARENA_MAX"));
	assert_false(has_name(e0, "LD_PRELOAD"));
	assert_true(has(e1, "MALLOC_ARENA_MAX=1"));
	assert_false(has_name(e1, "LD_PRELOAD"));
	char want[700];
	snprintf(want, sizeof(want), "LD_PRELOAD=%s", lib);
	assert_true(has(e2, want));
	assert_true(has(e2, "MALLOC_CONF=x:1"));
	assert_false(has_name(e2, "MALLOC_ARENA_MAX"));
	assert_true(has(i0, "LD_PRELOAD=/x/libleft.so")); /* --inherit-env keeps it */
	assert_true(has(i2, want));                       /* the arm's own wins */
	assert_false(has(i2, "LD_PRELOAD=/x/libleft.so"));
	assert_true(has(i2, "MALLOC_ARENA_MAX=4"));

	char *json = tm_bench_env_json(e2);
	assert_non_null(strstr(json, "\"MALLOC_CONF\":\"x:1\""));
	assert_null(strstr(json, "PATH"));
	free(json);
	tm_bench_env_free(e0);
	tm_bench_env_free(e1);
	tm_bench_env_free(e2);
	tm_bench_env_free(i0);
	tm_bench_env_free(i2);
	tm_bench_spec_release(&sp);

	/* missing library: an error (naming the package, see the e2e test) */
	const char *none[] = {"/nonexistent", NULL};
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "mimalloc"), 0);
	assert_int_equal(tm_bench_resolve_allocators(&sp, none), -1);
	tm_bench_spec_release(&sp);

	/* an arm's own LD_PRELOAD classifies it */
	tm_bench_spec_init(&sp);
	assert_int_equal(tm_bench_add_arm(&sp, "pre:LD_PRELOAD=/opt/libmimalloc.so.2"), 0);
	assert_int_equal(tm_bench_resolve_allocators(&sp, none), 0);
	assert_string_equal(tm_bench_arm_expect(&sp.arms[0]), "mimalloc");
	assert_null(sp.arms[0].preload);
	tm_bench_spec_release(&sp);

	unlink(lib);
	rmdir(dir);
}

static void test_order(void **state)
{
	int order[12], again[12];
	(void)state;
	tm_bench_order(3, 4, false, 0, order);
	for (int i = 0; i < 12; i++)
		assert_int_equal(order[i], i % 3);
	tm_bench_order(3, 4, true, 7, order);
	tm_bench_order(3, 4, true, 7, again);
	assert_memory_equal(order, again, sizeof(order));
	for (int r = 0; r < 4; r++) {
		int seen = 0;
		for (int a = 0; a < 3; a++)
			seen |= 1 << order[r * 3 + a];
		assert_int_equal(seen, 7); /* each arm once per round */
	}
	bool differs = false;
	for (uint64_t seed = 1; seed < 20 && !differs; seed++) {
		tm_bench_order(3, 4, true, seed, again);
		differs = memcmp(order, again, sizeof(order)) != 0;
	}
	assert_true(differs);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *dir, const char *name)
{
	char path[1200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return tm_read_file(path, NULL);
}

static void test_restore(void **state)
{
	char root[] = "/tmp/tm-test-restore-XXXXXX", snap[200], dir[200], spec[500];
	char s2[300], d2[300], path[300];
	struct tm_restore_stats st;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(snap, sizeof(snap), "%s/snap", root);
	snprintf(dir, sizeof(dir), "%s/work", root);
	assert_int_equal(mkdir(snap, 0755), 0);
	snprintf(path, sizeof(path), "%s/sub", snap);
	assert_int_equal(mkdir(path, 0700), 0);
	put(snap, "a", "alpha\n");
	put(snap, "sub/b", "beta\n");
	snprintf(path, sizeof(path), "%s/link", snap);
	assert_int_equal(symlink("a", path), 0);

	snprintf(spec, sizeof(spec), "%s:%s", snap, dir);
	assert_int_equal(tm_bench_restore_parse(spec, s2, d2, sizeof(s2)), 0);
	assert_string_equal(s2, snap);
	assert_string_equal(d2, dir);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(tm_bench_restore(snap, dir, &st), 0);
		assert_int_equal(st.files, 2);
		char *a = get(dir, "a"), *b = get(dir, "sub/b"), *l = get(dir, "link");
		assert_string_equal(a, "alpha\n");
		assert_string_equal(b, "beta\n");
		assert_string_equal(l, "alpha\n");
		free(a);
		free(b);
		free(l);
		char *stray = get(dir, "stray");
		assert_null(stray); /* what the last run wrote is gone */
		/* a run modifies its state */
		put(dir, "a", "changed\n");
		put(dir, "stray", "left behind\n");
	}
	char *a = get(snap, "a");
	assert_string_equal(a, "alpha\n"); /* the snapshot is never touched */
	free(a);

	/* nested or missing directories are refused */
	snprintf(spec, sizeof(spec), "%s:%s/inner", snap, snap);
	assert_int_equal(tm_bench_restore_parse(spec, s2, d2, sizeof(s2)), -1);
	snprintf(spec, sizeof(spec), "%s/nope:%s", root, dir);
	assert_int_equal(tm_bench_restore_parse(spec, s2, d2, sizeof(s2)), -1);
	assert_int_equal(tm_bench_restore_parse("nocolon", s2, d2, sizeof(s2)), -1);

	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* The parent directory --restore (and record --heap-profile) check. */
static void test_path_parent(void **state)
{
	(void)state;
	char buf[64];
	tm_path_parent("/srv/node/db", buf, sizeof(buf));
	assert_string_equal(buf, "/srv/node");
	tm_path_parent("/db", buf, sizeof(buf));
	assert_string_equal(buf, "/");
	tm_path_parent("db", buf, sizeof(buf));
	assert_string_equal(buf, ".");
	tm_path_parent("out/heap", buf, sizeof(buf));
	assert_string_equal(buf, "out");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_arm_shortcuts),     cmocka_unit_test(test_arm_settings),
	    cmocka_unit_test(test_arm_errors),        cmocka_unit_test(test_ini_nothing_set),
	    cmocka_unit_test(test_ini_good),          cmocka_unit_test(test_ini_errors),
	    cmocka_unit_test(test_environment_value), cmocka_unit_test(test_split_command),
	    cmocka_unit_test(test_alloc_vars),        cmocka_unit_test(test_guard),
	    cmocka_unit_test(test_envp_and_resolve),  cmocka_unit_test(test_order),
	    cmocka_unit_test(test_restore),           cmocka_unit_test(test_path_parent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
