/* tm_cgroup_open_path + tm_cgroup_read on fixture trees: v1 (with its hybrid
 * unified twin), v2 with limits, v2 unlimited, v2 malformed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "cgroup/cgroup.h"
#include "kern_fixture.h"

/* A host whose hierarchies are the fixture dirs. */
static void fixture_host(struct tm_cg_host *h)
{
	char rel[PATH_MAX];

	memset(h, 0, sizeof(*h));
	h->mode = TM_CG_MODE_HYBRID;
	snprintf(h->parent, sizeof(h->parent), "tidemark");
	assert_non_null(
	    realpath(fixture_path(rel, sizeof(rel), "cgroup-v1"), h->mounts.memory.dir));
	snprintf(h->mounts.memory.root, PATH_MAX, "/");
	h->mounts.memory.found = true;
	h->mounts.cpuacct = h->mounts.memory;
	assert_non_null(realpath(fixture_path(rel, sizeof(rel), "hybrid"), h->mounts.unified.dir));
	snprintf(h->mounts.unified.root, PATH_MAX, "/");
	h->mounts.unified.found = true;
}

static struct tm_cgroup *open_fixture(const char *rel)
{
	struct tm_cg_host h;
	struct tm_cgroup *cg = NULL;
	char path[PATH_MAX];

	fixture_host(&h);
	assert_int_equal(tm_cgroup_open_path(&h, fixture_path(path, sizeof(path), rel), &cg), 0);
	return cg;
}

static void test_host_from_mountinfo(void **state)
{
	(void)state;
	size_t len;
	char *buf = fixture("procfs/mountinfo", &len);
	struct tm_cg_host h;
	static const char v2[] = "24 1 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	static const char none[] = "24 1 0:22 / /proc rw - proc proc rw\n";

	assert_int_equal(tm_cg_host_parse(buf, len, &h), 0);
	assert_int_equal(h.mode, TM_CG_MODE_HYBRID);
	assert_string_equal(tm_cg_mode_name(h.mode), "hybrid");
	assert_string_equal(h.parent, "tidemark");
	free(buf);
	assert_int_equal(tm_cg_host_parse(v2, sizeof(v2) - 1, &h), 0);
	assert_int_equal(h.mode, TM_CG_MODE_V2);
	assert_int_equal(tm_cg_host_parse(none, sizeof(none) - 1, &h), 0);
	assert_int_equal(h.mode, TM_CG_MODE_NONE);
	assert_int_equal(tm_cg_host_parse("x", 1, &h), -1);
}

static void test_v1_limited(void **state)
{
	(void)state;
	struct tm_cgroup *cg = open_fixture("cgroup-v1/limited");
	struct tm_sample s;
	int64_t kills = -5;

	assert_string_equal(tm_cgroup_version(cg), "v1");
	assert_string_equal(tm_cgroup_limits_json(cg), "{}");
	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), 0);
	assert_int_equal(s.v[TM_M_CG_CURRENT_BYTES], 24100864);
	assert_int_equal(s.v[TM_M_CG_PEAK_BYTES], 26206208);
	assert_int_equal(s.v[TM_M_CG_MAX_BYTES], 64 << 20);
	assert_int_equal(s.v[TM_M_CG_HIGH_BYTES], 32 << 20);
	assert_int_equal(s.v[TM_M_CG_SWAP_MAX_BYTES], 32 << 20); /* memsw 96M - 64M */
	assert_int_equal(s.v[TM_M_CG_SWAP_CURRENT_BYTES], 0);
	assert_int_equal(s.v[TM_M_CG_FAILCNT], 0);
	assert_int_equal(s.v[TM_M_CG_ANON_BYTES], 23810048);
	assert_int_equal(s.v[TM_M_CG_PGFAULT], 6450);
	assert_true(tm_sample_has(&s, TM_M_CG_EVENTS_OOM_KILL));
	assert_int_equal(s.v[TM_M_CG_EVENTS_OOM_KILL], 0);
	/* cpu.stat from the unified twin (usec) */
	assert_int_equal(s.v[TM_M_CG_CPU_USAGE_USEC], 28622);
	assert_int_equal(s.v[TM_M_CG_CPU_USER_USEC], 12266);
	assert_int_equal(s.v[TM_M_CG_PSI_CPU_SOME_USEC], 2297);
	assert_int_equal(s.v[TM_M_CG_PSI_MEM_SOME_USEC], 0);
	assert_true(tm_sample_has(&s, TM_M_CG_PSI_MEM_FULL_USEC));
	/* v2-only numbers stay absent on v1 */
	assert_false(tm_sample_has(&s, TM_M_CG_KERNEL_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_EVENTS_HIGH));
	assert_false(tm_sample_has(&s, TM_M_CG_CPU_THROTTLED_USEC));
	assert_false(tm_sample_has(&s, TM_M_CG_IO_READ_BYTES));
	assert_int_equal(tm_cgroup_oom_kills(cg, &kills), 0);
	assert_int_equal(kills, 0);
	/* read again: pread from 0 gives the same */
	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), 0);
	assert_int_equal(s.v[TM_M_CG_CURRENT_BYTES], 24100864);
	assert_int_equal(tm_cgroup_destroy(cg), 0);
}

static void test_v1_unlimited(void **state)
{
	(void)state;
	struct tm_cgroup *cg = open_fixture("cgroup-v1/unlimited");
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), 0);
	assert_int_equal(s.v[TM_M_CG_MAX_BYTES], TM_CG_UNLIMITED);
	assert_int_equal(s.v[TM_M_CG_HIGH_BYTES], TM_CG_UNLIMITED);
	assert_int_equal(s.v[TM_M_CG_SWAP_MAX_BYTES], TM_CG_UNLIMITED);
	/* no cpuacct files, no unified twin: absent */
	assert_false(tm_sample_has(&s, TM_M_CG_CPU_USAGE_USEC));
	assert_false(tm_sample_has(&s, TM_M_CG_PSI_MEM_SOME_USEC));
	tm_cgroup_destroy(cg);
}

static void test_v2_limited(void **state)
{
	(void)state;
	struct tm_cgroup *cg = open_fixture("cgroup-v2/limited");
	struct tm_sample s;
	pid_t *pids;
	size_t n;
	int64_t kills;

	assert_string_equal(tm_cgroup_version(cg), "v2");
	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), 0);
	assert_int_equal(s.v[TM_M_CG_CURRENT_BYTES], 71303168);
	assert_int_equal(s.v[TM_M_CG_PEAK_BYTES], 104857600);
	assert_int_equal(s.v[TM_M_CG_MAX_BYTES], 134217728);
	assert_int_equal(s.v[TM_M_CG_HIGH_BYTES], 100663296);
	assert_int_equal(s.v[TM_M_CG_SWAP_MAX_BYTES], 0);
	assert_int_equal(s.v[TM_M_CG_SWAP_CURRENT_BYTES], 0);
	assert_int_equal(s.v[TM_M_CG_KERNEL_BYTES], 1835008);
	assert_int_equal(s.v[TM_M_CG_EVENTS_OOM_KILL], 1);
	assert_int_equal(s.v[TM_M_CG_EVENTS_HIGH], 57);
	assert_int_equal(s.v[TM_M_CG_CPU_THROTTLED_USEC], 350000);
	assert_int_equal(s.v[TM_M_CG_IO_READ_BYTES], 3145728);
	assert_int_equal(s.v[TM_M_CG_PSI_MEM_SOME_USEC], 1234567);
	assert_int_equal(s.v[TM_M_CG_PSI_MEM_FULL_USEC], 765432);
	assert_int_equal(s.v[TM_M_CG_PSI_IO_FULL_USEC], 1234);
	assert_int_equal(s.v[TM_M_CG_PSI_CPU_SOME_USEC], 99999);
	assert_false(tm_sample_has(&s, TM_M_CG_FAILCNT)); /* v1 only */
	assert_int_equal(tm_cgroup_oom_kills(cg, &kills), 0);
	assert_int_equal(kills, 1);
	assert_int_equal(tm_cgroup_pids(cg, &pids, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], 4242);
	assert_int_equal(pids[1], 4243);
	free(pids);
	tm_cgroup_destroy(cg);
}

static void test_v2_unlimited(void **state)
{
	(void)state;
	struct tm_cgroup *cg = open_fixture("cgroup-v2/unlimited");
	struct tm_sample s;
	pid_t *pids;
	size_t n = 99;

	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), 0);
	assert_int_equal(s.v[TM_M_CG_MAX_BYTES], TM_CG_UNLIMITED);
	assert_int_equal(s.v[TM_M_CG_HIGH_BYTES], TM_CG_UNLIMITED);
	assert_int_equal(s.v[TM_M_CG_SWAP_MAX_BYTES], TM_CG_UNLIMITED);
	assert_false(tm_sample_has(&s, TM_M_CG_PEAK_BYTES)); /* no memory.peak (before 5.19) */
	assert_false(tm_sample_has(&s, TM_M_CG_PSI_IO_SOME_USEC));
	assert_int_equal(tm_cgroup_pids(cg, &pids, &n), 0);
	assert_int_equal(n, 0);
	assert_null(pids);
	tm_cgroup_destroy(cg);
}

static void test_v2_malformed(void **state)
{
	(void)state;
	struct tm_cgroup *cg = open_fixture("cgroup-v2/malformed");
	struct tm_sample s;

	tm_sample_clear(&s);
	assert_int_equal(tm_cgroup_read(cg, &s), -1);
	assert_false(tm_sample_has(&s, TM_M_CG_CURRENT_BYTES));
	assert_false(tm_sample_has(&s, TM_M_CG_MAX_BYTES));
	tm_cgroup_destroy(cg);
}

static void test_open_errors(void **state)
{
	(void)state;
	struct tm_cg_host h;
	struct tm_cgroup *cg;
	char path[PATH_MAX];

	fixture_host(&h);
	assert_int_equal(tm_cgroup_open_path(&h, "/nonexistent/cgroup", &cg), -1);
	assert_int_equal(tm_cgroup_open_path(&h, fixture_path(path, sizeof(path), "procfs"), &cg),
	                 -1);
	h.mode = TM_CG_MODE_NONE;
	struct tm_limits lim = {TM_LIMIT_UNSET, TM_LIMIT_UNSET, TM_LIMIT_UNSET};
	assert_int_equal(tm_cgroup_create(&h, "x", &lim, &cg), -1);
	h.mode = TM_CG_MODE_V1;
	assert_int_equal(tm_cgroup_create(&h, "../escape", &lim, &cg), -1);
	assert_int_equal(tm_cgroup_create(&h, "", &lim, &cg), -1);
	assert_int_equal(tm_cgroup_of_pid(&h, "/nonexistent", 1, &cg), -1);
}

/* put(DIR, FILE, TEXT): writes a file of a scratch tree. */
static void put(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A scratch /proc with processes 100 (in /svc), 101 (its child) and 200
 * (init's child), and a cgroup2 mount whose /svc holds PROCS. */
static void pid_tree(char *root, size_t size, const char *procs, struct tm_cg_host *h)
{
	static const struct {
		const char *dir, *stat;
	} p[] = {{"proc/100", "100 (svc) S 1 100 100 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5\n"},
	         {"proc/101", "101 (worker) S 100 100 100 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6\n"},
	         {"proc/200", "200 (other) S 1 200 200 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n"}};
	char dir[PATH_MAX];

	snprintf(root, size, "/tmp/tm-unit-pidtree.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/proc", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, p[i].dir);
		assert_int_equal(mkdir(dir, 0755), 0);
		put(dir, "stat", p[i].stat);
		put(dir, "cgroup", "0::/svc\n");
	}
	snprintf(dir, sizeof(dir), "%s/cg", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/cg/svc", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	put(dir, "cgroup.procs", procs);
	put(dir, "cgroup.controllers", "memory\n");
	put(dir, "memory.max", "max\n");
	memset(h, 0, sizeof(*h));
	h->mode = TM_CG_MODE_V2;
	h->mounts.unified.found = true;
	snprintf(h->mounts.unified.dir, sizeof(h->mounts.unified.dir), "%s/cg", root);
	snprintf(h->mounts.unified.root, sizeof(h->mounts.unified.root), "/");
}

static void rm_tree(const char *root)
{
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* -p PID: its cgroup only when everything in it descends from PID. */
static void test_of_pid_tree(void **state)
{
	(void)state;
	char root[PATH_MAX], proc[PATH_MAX + 8];
	struct tm_err why = {0};
	struct tm_cg_host h;
	struct tm_cgroup *cg;

	pid_tree(root, sizeof(root), "100\n101\n", &h);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	assert_int_equal(tm_cgroup_of_pid_tree(&h, proc, 100, &cg, &why), 0);
	assert_non_null(cg);
	assert_non_null(strstr(tm_cgroup_path(cg), "/cg/svc"));
	tm_cgroup_destroy(cg);
	/* the child alone does not own a cgroup its parent is in */
	assert_int_equal(tm_cgroup_of_pid_tree(&h, proc, 101, &cg, &why), 1);
	assert_null(cg);
	assert_non_null(strstr(why.msg, "with process 100"));
	rm_tree(root);

	pid_tree(root, sizeof(root), "100\n101\n200\n", &h);
	snprintf(proc, sizeof(proc), "%s/proc", root);
	assert_int_equal(tm_cgroup_of_pid_tree(&h, proc, 100, &cg, &why), 1);
	assert_null(cg);
	assert_non_null(strstr(why.msg, "with process 200"));
	rm_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_host_from_mountinfo), cmocka_unit_test(test_v1_limited),
	    cmocka_unit_test(test_v1_unlimited),        cmocka_unit_test(test_v2_limited),
	    cmocka_unit_test(test_v2_unlimited),        cmocka_unit_test(test_v2_malformed),
	    cmocka_unit_test(test_open_errors),         cmocka_unit_test(test_of_pid_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
