/* The sampler and the process tree on a fixture proc root captured on a real
 * host (tests/fixtures/procfs/proc: sh 8439 -> "a) b (c" 8441, python3 8442;
 * 8471 is an unrelated jemalloc process). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "kern_fixture.h"
#include "sample/proctree.h"
#include "sample/sampler.h"

#define KIB 1024

static const char *proc_root(void)
{
	static char path[PATH_MAX];
	return fixture_path(path, sizeof(path), "procfs/proc");
}

static void check_tree_sums(const struct tm_sample *s)
{
	long hz = sysconf(_SC_CLK_TCK);

	assert_int_equal(s->v[TM_M_PROC_COUNT], 3);
	assert_int_equal(s->v[TM_M_PROC_THREADS], 3);
	assert_int_equal(s->v[TM_M_PROC_RSS_BYTES], (1716 + 1796 + 32816) * KIB);
	assert_int_equal(s->v[TM_M_PROC_RSS_ANON_BYTES], (104 + 108 + 27356) * KIB);
	assert_int_equal(s->v[TM_M_PROC_RSS_FILE_BYTES], (1612 + 1688 + 5460) * KIB);
	assert_int_equal(s->v[TM_M_PROC_RSS_SHMEM_BYTES], 0);
	assert_int_equal(s->v[TM_M_PROC_SWAP_BYTES], 0);
	assert_int_equal(s->v[TM_M_PROC_MINFLT], 96 + 98 + 6980);
	assert_int_equal(s->v[TM_M_PROC_MAJFLT], 3);
	assert_int_equal(s->v[TM_M_PROC_UTIME_USEC], 0);
	assert_int_equal(s->v[TM_M_PROC_STIME_USEC], 1000000 / hz); /* python: 1 tick */
	assert_int_equal(s->v[TM_M_PROC_READ_BYTES], 8028160);
	assert_int_equal(s->v[TM_M_PROC_WRITE_BYTES], 57344);
}

static void test_tree_children_files(void **state)
{
	(void)state;
	struct tm_proctree *t;

	assert_int_equal(tm_proctree_open(proc_root(), 8439, 0, &t), 0);
	assert_true(tm_proctree_uses_children_files(t));
	assert_int_equal(tm_proctree_scan(t), 3);
	assert_int_equal(tm_proctree_get(t, 0)->pid, 8439);
	assert_int_equal(tm_proctree_get(t, 1)->pid, 8441);
	assert_int_equal(tm_proctree_get(t, 1)->stat.ppid, 8439);
	assert_int_equal(tm_proctree_get(t, 2)->pid, 8442);
	assert_int_equal(tm_proctree_get(t, 2)->starttime, 55316);
	assert_null(tm_proctree_get(t, 3));
	/* again: the same, nothing doubled */
	assert_int_equal(tm_proctree_scan(t), 3);
	tm_proctree_close(t);
}

static void test_tree_scan_all(void **state)
{
	(void)state;
	struct tm_proctree *t;

	assert_int_equal(tm_proctree_open(proc_root(), 8439, TM_PROCTREE_SCAN_ALL, &t), 0);
	assert_false(tm_proctree_uses_children_files(t));
	assert_int_equal(tm_proctree_scan(t), 3); /* 8471 is not in the tree */
	tm_proctree_close(t);
	assert_int_equal(tm_proctree_open(proc_root(), 4242, 0, &t), -1);
}

static void test_tree_set(void **state)
{
	(void)state;
	struct tm_proctree *t;
	pid_t a[] = {8471, 8442, 99999}, b[] = {8442};

	assert_int_equal(tm_proctree_open(proc_root(), 0, 0, &t), 0);
	assert_int_equal(tm_proctree_set(t, a, 3), 2); /* 99999 does not exist */
	assert_int_equal(tm_proctree_set(t, b, 1), 1);
	assert_int_equal(tm_proctree_get(t, 0)->pid, 8442);
	assert_int_equal(tm_proctree_set(t, NULL, 0), 0);
	tm_proctree_close(t);
}

static void test_sampler_fixture(void **state)
{
	(void)state;
	struct tm_sampler_cfg cfg;
	struct tm_sampler *s;
	struct tm_sample out;
	const pid_t *pids;
	size_t n;

	char sys[PATH_MAX];

	tm_sampler_cfg_init(&cfg);
	cfg.proc_root = proc_root();
	cfg.sys_root = fixture_path(sys, sizeof(sys), "procfs/sys");
	cfg.root_pid = 8439;
	cfg.smaps_every_usec = 1000000;
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);

	assert_int_equal(tm_sampler_read(s, 5000000, &out), 0);
	check_tree_sums(&out);
	assert_int_equal(out.v[TM_M_PROC_PSS_BYTES], (295 + 297 + 31079) * KIB);
	assert_int_equal(out.v[TM_M_PROC_PRIVATE_DIRTY_BYTES], (104 + 144 + 27356) * KIB);
	assert_int_equal(out.v[TM_M_PROC_SHARED_DIRTY_BYTES], 0);
	pids = tm_sampler_pids(s, &n);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 8439);
	assert_int_equal(pids[2], 8442);
	/* host */
	assert_int_equal(out.v[TM_M_HOST_MEM_TOTAL_BYTES], (int64_t)24684092 * KIB);
	assert_int_equal(out.v[TM_M_HOST_SWAP_TOTAL_BYTES], 0);
	assert_int_equal(out.v[TM_M_HOST_PSI_MEM_SOME_USEC], 22594);
	assert_int_equal(out.v[TM_M_HOST_PSI_MEM_FULL_USEC], 18844);
	assert_int_equal(out.v[TM_M_HOST_PSI_IO_FULL_USEC], 2252339);
	assert_int_equal(out.v[TM_M_HOST_PSI_CPU_SOME_USEC], 6846064);
	assert_true(tm_sample_has(&out, TM_M_HOST_CPU_BUSY_USEC));
	assert_int_equal(out.v[TM_M_HOST_HPAGE_PMD_BYTES], 2097152); /* read at open */
	/* no cgroup: absent */
	assert_false(tm_sample_has(&out, TM_M_CG_CURRENT_BYTES));

	/* 0.5 s later: smaps_rollup not due - absent, not 0 */
	assert_int_equal(tm_sampler_read(s, 5500000, &out), 0);
	check_tree_sums(&out);
	assert_false(tm_sample_has(&out, TM_M_PROC_PSS_BYTES));
	assert_false(tm_sample_has(&out, TM_M_PROC_PRIVATE_DIRTY_BYTES));
	/* 1 s after the last read: due again */
	assert_int_equal(tm_sampler_read(s, 6000000, &out), 0);
	assert_true(tm_sample_has(&out, TM_M_PROC_PSS_BYTES));
	tm_sampler_close(s);
}

static void test_sampler_no_smaps_no_host(void **state)
{
	(void)state;
	struct tm_sampler_cfg cfg;
	struct tm_sampler *s;
	struct tm_sample out;

	tm_sampler_cfg_init(&cfg);
	cfg.proc_root = proc_root();
	cfg.root_pid = 8439;
	cfg.smaps_every_usec = -1;
	cfg.host = false;
	cfg.proctree_flags = TM_PROCTREE_SCAN_ALL;
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(tm_sampler_read(s, 0, &out), 0);
	check_tree_sums(&out);
	assert_false(tm_sample_has(&out, TM_M_PROC_PSS_BYTES));
	assert_false(tm_sample_has(&out, TM_M_HOST_MEM_TOTAL_BYTES));
	assert_false(tm_sample_has(&out, TM_M_HOST_HPAGE_PMD_BYTES));
	tm_sampler_close(s);

	/* host on, but a sys root without transparent huge pages: absent */
	cfg.host = true;
	cfg.sys_root = proc_root();
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(tm_sampler_read(s, 0, &out), 0);
	assert_true(tm_sample_has(&out, TM_M_HOST_MEM_TOTAL_BYTES));
	assert_false(tm_sample_has(&out, TM_M_HOST_HPAGE_PMD_BYTES));
	tm_sampler_close(s);

	cfg.root_pid = 12345; /* no such process */
	assert_int_equal(tm_sampler_open(&cfg, &s), -1);
	cfg.root_pid = 0; /* host only */
	cfg.host = true;
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(tm_sampler_read(s, 0, &out), 0);
	assert_false(tm_sample_has(&out, TM_M_PROC_COUNT));
	assert_true(tm_sample_has(&out, TM_M_HOST_MEM_AVAILABLE_BYTES));
	tm_sampler_close(s);
}

static void write_text(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int64_t read_count(struct tm_sampler *s)
{
	struct tm_sample out;

	assert_int_equal(tm_sampler_read(s, 0, &out), 0);
	return out.v[TM_M_PROC_COUNT];
}

/* The tree's children files are walked again only when the host's fork
 * count (/proc/stat "processes") moved: on a copy of the fixture, children
 * that appear with the count unchanged (which a kernel cannot do) are not
 * looked for; once it moves, they are found; and with no count in
 * /proc/stat, every read walks. */
static void test_sampler_walks_on_forks(void **state)
{
	(void)state;
	char dir[] = "/tmp/tm-forks-XXXXXX", cmd[PATH_MAX * 2 + 32], root[PATH_MAX];
	struct tm_sampler_cfg cfg;
	struct tm_sampler *s;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s/proc'", proc_root(), dir);
	assert_int_equal(system(cmd), 0);
	snprintf(root, sizeof(root), "%s/proc", dir);
	write_text(root, "8439/task/8439/children", "");
	write_text(root, "stat", "cpu  1 2 3 4 5 6 7 8 0 0\nprocesses 100\n");
	tm_sampler_cfg_init(&cfg);
	cfg.proc_root = root;
	cfg.root_pid = 8439;
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(read_count(s), 1);
	write_text(root, "8439/task/8439/children", "8441 8442 ");
	assert_int_equal(read_count(s), 1); /* no fork since the last walk */
	write_text(root, "stat", "cpu  1 2 3 4 5 6 7 8 0 0\nprocesses 102\n");
	assert_int_equal(read_count(s), 3);
	/* 8442 exits (its stat reads empty): each stat is re-read every time,
	 * forks or not */
	write_text(root, "8442/stat", "");
	assert_int_equal(read_count(s), 2);
	tm_sampler_close(s);

	/* no "processes" line: unknown, so every read walks */
	write_text(root, "8439/task/8439/children", "");
	write_text(root, "stat", "cpu  1 2 3 4 5 6 7 8 0 0\n");
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(read_count(s), 1);
	write_text(root, "8439/task/8439/children", "8441 ");
	assert_int_equal(read_count(s), 2);
	tm_sampler_close(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* No root pid: the cgroup's processes (cgroup-v2/tree lists 8441 and 8442). */
static void test_sampler_cgroup_members(void **state)
{
	(void)state;
	struct tm_cg_host host;
	struct tm_cgroup *cg;
	struct tm_sampler_cfg cfg;
	struct tm_sampler *s;
	struct tm_sample out;
	char path[PATH_MAX];
	const pid_t *pids;
	size_t n;

	memset(&host, 0, sizeof(host));
	host.mode = TM_CG_MODE_V2;
	assert_int_equal(
	    tm_cgroup_open_path(&host, fixture_path(path, sizeof(path), "cgroup-v2/tree"), &cg), 0);
	tm_sampler_cfg_init(&cfg);
	cfg.proc_root = proc_root();
	cfg.cgroup = cg;
	cfg.host = false;
	assert_int_equal(tm_sampler_open(&cfg, &s), 0);
	assert_int_equal(tm_sampler_read(s, 0, &out), 0);
	assert_int_equal(out.v[TM_M_PROC_COUNT], 2);
	assert_int_equal(out.v[TM_M_PROC_RSS_BYTES], (1796 + 32816) * KIB);
	assert_int_equal(out.v[TM_M_CG_CURRENT_BYTES], 36700160);
	assert_int_equal(out.v[TM_M_CG_MAX_BYTES], -1);
	assert_false(tm_sample_has(&out, TM_M_CG_PEAK_BYTES));
	pids = tm_sampler_pids(s, &n);
	assert_int_equal(n, 2);
	assert_int_equal(pids[0], 8441);
	assert_int_equal(pids[1], 8442);
	tm_sampler_close(s);
	tm_cgroup_destroy(cg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_children_files),
	    cmocka_unit_test(test_tree_scan_all),
	    cmocka_unit_test(test_tree_set),
	    cmocka_unit_test(test_sampler_fixture),
	    cmocka_unit_test(test_sampler_no_smaps_no_host),
	    cmocka_unit_test(test_sampler_cgroup_members),
	    cmocka_unit_test(test_sampler_walks_on_forks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
