/* tidemark doctor's checks on host roots laid out under tests/fixtures/doctor. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <jansson.h>

#include "doctor/doctor.h"
#include "kern_fixture.h"
#include "base/banned.h"

static struct tm_doc_result res[TM_DOC_COUNT];

/* Runs every check on fixture host ROOT as UID; returns the problem count. */
static int run(const char *root, uid_t uid)
{
	static char path[4096];
	char rel[256];
	snprintf(rel, sizeof(rel), "doctor/%s", root);
	struct tm_doc_host h = {.root = fixture_path(path, sizeof(path), rel), .uid = uid};
	int problems = tm_doctor_run(&h, res);
	for (int i = 0; i < TM_DOC_COUNT; i++)
		assert_int_equal(res[i].check, i);
	return problems;
}

static void expect(enum tm_doc_check c, enum tm_doc_status st, const char *in_summary,
                   const char *in_fix)
{
	const struct tm_doc_result *r = &res[c];
	if (r->status != st || (in_summary && !strstr(r->summary, in_summary)) ||
	    (in_fix && !strstr(r->fix, in_fix)) || (!in_fix && st == TM_DOC_OK && r->fix[0]))
		fail_msg("%s: %s '%s' fix '%s' (wanted %s, '%s', '%s')", tm_doc_check_name(c),
		         tm_doc_status_name(r->status), r->summary, r->fix, tm_doc_status_name(st),
		         in_summary ? in_summary : "", in_fix ? in_fix : "");
}

static void test_v2(void **state)
{
	(void)state;
	assert_int_equal(run("v2", 0), 0);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_OK, "v2", NULL);
	assert_string_equal(res[TM_DOC_CGROUP_MODE].value, "v2");
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_OK, "lists memory", NULL);
	expect(TM_DOC_PSI, TM_DOC_OK, "present", NULL);
	expect(TM_DOC_SWAP, TM_DOC_NOTE, "none", NULL);
	assert_string_equal(res[TM_DOC_SWAP].value, "0");
	expect(TM_DOC_SWAP_ACCOUNTING, TM_DOC_OK, "memory.swap.current", NULL);
	expect(TM_DOC_KERNEL_FILES, TM_DOC_OK, "memory.peak yes", NULL);
	expect(TM_DOC_CREATE_CGROUPS, TM_DOC_OK, "/sys/fs/cgroup/tidemark", NULL);
	expect(TM_DOC_MEMORY_HIGH, TM_DOC_OK, "throttles", NULL);
	expect(TM_DOC_HEAP_SHIM, TM_DOC_SKIPPED, "not the running system", NULL);
	/* not root, no delegation */
	assert_int_equal(run("v2", 1000), 1);
	expect(TM_DOC_CREATE_CGROUPS, TM_DOC_PROBLEM, "not root", "systemd-run --user");
	assert_string_equal(res[TM_DOC_CREATE_CGROUPS].value, "no");
}

static void test_v2_old_kernel(void **state)
{
	(void)state;
	assert_int_equal(run("v2-old", 0), 1);
	expect(TM_DOC_PSI, TM_DOC_PROBLEM, "CONFIG_PSI", "CONFIG_PSI=y");
	expect(TM_DOC_KERNEL_FILES, TM_DOC_WARN, "memory.peak no", "5.19");
	expect(TM_DOC_SWAP, TM_DOC_OK, "2048.0 MiB", NULL);
	assert_string_equal(res[TM_DOC_SWAP].value, "2147479552");
}

static void test_v1(void **state)
{
	(void)state;
	assert_int_equal(run("v1", 0), 1);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_WARN, "v1 only", "systemd.unified_cgroup_hierarchy=1");
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_OK, "/sys/fs/cgroup/memory", NULL);
	/* 4.19: its config has no CONFIG_PSI at all */
	expect(TM_DOC_PSI, TM_DOC_PROBLEM, "built without", NULL);
	expect(TM_DOC_SWAP_ACCOUNTING, TM_DOC_WARN, "memory.memsw.usage_in_bytes", "swapaccount=1");
	expect(TM_DOC_SWAP_ACCOUNTING, TM_DOC_WARN, NULL, "/etc/default/grub");
	expect(TM_DOC_KERNEL_FILES, TM_DOC_OK, "memory.max_usage_in_bytes", NULL);
	expect(TM_DOC_MEMORY_HIGH, TM_DOC_WARN, "soft limit", "cgroup v2");
	assert_string_equal(res[TM_DOC_MEMORY_HIGH].value, "soft");
	expect(TM_DOC_CREATE_CGROUPS, TM_DOC_OK, "/sys/fs/cgroup/memory/tidemark", NULL);
}

static void test_hybrid(void **state)
{
	(void)state;
	assert_int_equal(run("hybrid", 0), 0);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_NOTE, "hybrid", "systemd.unified_cgroup_hierarchy=1");
	assert_string_equal(res[TM_DOC_CGROUP_MODE].value, "hybrid");
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_OK, "v1 memory hierarchy", NULL);
	expect(TM_DOC_PSI, TM_DOC_OK, NULL, NULL);
	expect(TM_DOC_SWAP_ACCOUNTING, TM_DOC_OK, NULL, NULL);
	expect(TM_DOC_MEMORY_HIGH, TM_DOC_WARN, "memory.soft_limit_in_bytes", NULL);
	/* the bench's own library search, under the root */
	expect(TM_DOC_ALLOC(TM_ALLOC_JEMALLOC), TM_DOC_OK, "/usr/lib/libjemalloc.so.2", NULL);
	assert_string_equal(res[TM_DOC_ALLOC(TM_ALLOC_JEMALLOC)].value,
	                    "/usr/lib/libjemalloc.so.2");
	expect(TM_DOC_ALLOC(TM_ALLOC_MIMALLOC), TM_DOC_NOTE, "not installed",
	       "apt-get install libmimalloc2.0");
	expect(TM_DOC_ALLOC(TM_ALLOC_TCMALLOC), TM_DOC_NOTE, NULL,
	       "apt-get install libtcmalloc-minimal4");
}

static void test_pi_bookworm(void **state)
{
	(void)state;
	assert_int_equal(run("pi-bookworm", 0), 2);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_OK, NULL, NULL);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_PROBLEM, "cgroup_disable=memory",
	       "add `cgroup_enable=memory` to the one line of /boot/firmware/cmdline.txt");
	expect(TM_DOC_PSI, TM_DOC_PROBLEM, "off",
	       "add `psi=1` to the one line of /boot/firmware/cmdline.txt");
	expect(TM_DOC_SWAP, TM_DOC_OK, "512.0 MiB", NULL);
	expect(TM_DOC_SWAP_ACCOUNTING, TM_DOC_SKIPPED, NULL, NULL);
	expect(TM_DOC_KERNEL_FILES, TM_DOC_SKIPPED, "6.6.51+rpt-rpi-v8", NULL);
}

static void test_pi_bullseye(void **state)
{
	(void)state;
	assert_int_equal(run("pi-bullseye", 0), 1);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_OK, NULL, NULL);
	expect(TM_DOC_PSI, TM_DOC_PROBLEM, NULL,
	       "add `psi=1` to the one line of /boot/cmdline.txt");
	expect(TM_DOC_KERNEL_FILES, TM_DOC_WARN, "memory.peak no", NULL);
}

static void test_missing_root(void **state)
{
	(void)state;
	run("no-such-host", 0);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_SKIPPED, "not a running system", NULL);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_SKIPPED, "no cmdline.txt", NULL);
	expect(TM_DOC_PSI, TM_DOC_SKIPPED, "no cmdline.txt", NULL);
	expect(TM_DOC_SWAP, TM_DOC_SKIPPED, NULL, NULL);
}

/* A Raspberry Pi's SD card on another machine (no /proc: not running): its
 * cmdline.txt says what the next boot turns on; nothing about the running
 * kernel is made up (a GRUB fix, "enabled but not mounted") */
static void test_pi_sdcard(void **state)
{
	(void)state;
	/* the boot partition, as Raspberry Pi OS writes it */
	assert_int_equal(run("pi-sdcard-bootfs", 0), 2);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_SKIPPED, "not a running system", NULL);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_PROBLEM, "pi-sdcard-bootfs/cmdline.txt has no",
	       "add `cgroup_enable=memory` to the one line of");
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_PROBLEM, NULL, "pi-sdcard-bootfs/cmdline.txt");
	expect(TM_DOC_PSI, TM_DOC_PROBLEM, "has no psi=1", "add `psi=1`");
	assert_null(strstr(res[TM_DOC_PSI].fix, "grub"));
	/* the root file system alone: the boot partition says */
	assert_int_equal(run("pi-sdcard-rootfs", 0), 0);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_SKIPPED, "without its boot partition", NULL);
	expect(TM_DOC_PSI, TM_DOC_SKIPPED, "bootfs", NULL);
	/* an arm64 library found from an x86_64 build */
	expect(TM_DOC_ALLOC(TM_ALLOC_JEMALLOC), TM_DOC_OK,
	       "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2", NULL);
	/* both, with the fixes made */
	assert_int_equal(run("pi-sdcard", 0), 0);
	expect(TM_DOC_MEMORY_CONTROLLER, TM_DOC_OK, "has cgroup_enable=memory", NULL);
	expect(TM_DOC_PSI, TM_DOC_OK, "boot/firmware/cmdline.txt has psi=1", NULL);
}

/* mkdir -p for a path under BASE, then optionally a file in it. */
static void make(const char *base, const char *dir, const char *file, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", base, dir);
	for (char *p = path + strlen(base) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
	if (file) {
		char full[4200];
		snprintf(full, sizeof(full), "%s/%s", path, file);
		FILE *f = fopen(full, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
	}
}

/* A user in a delegated subtree (systemd-run --user -p Delegate=yes): may
 * create cgroups there, but not where tidemark makes its own. */
static void test_delegated(void **state)
{
	(void)state;
	char base[] = "/tmp/tidemark-doctor-XXXXXX", dir[4200];
	const char *own = "sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/"
	                  "run-u7.scope";
	uid_t uid = geteuid() ? geteuid() : 1000;
	assert_non_null(mkdtemp(base));
	make(base, "proc/self", "mountinfo",
	     "26 23 0:25 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
	make(base, "proc/self", "cgroup",
	     "0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-u7.scope\n");
	make(base, own, "cgroup.procs", "");
	snprintf(dir, sizeof(dir), "%s/%s", base, own);
	if (geteuid() == 0)
		assert_int_equal(chown(dir, uid, uid), 0);
	struct tm_doc_host h = {.root = base, .uid = uid};
	tm_doctor_check(&h, TM_DOC_CREATE_CGROUPS, &res[0]);
	assert_int_equal(res[0].status, TM_DOC_WARN);
	assert_string_equal(res[0].value, "delegated-elsewhere");
	assert_non_null(strstr(res[0].summary, "run-u7.scope"));
	/* tidemark's own parent handed to the user: ready */
	make(base, "sys/fs/cgroup/tidemark", NULL, NULL);
	snprintf(dir, sizeof(dir), "%s/sys/fs/cgroup/tidemark", base);
	if (geteuid() == 0)
		assert_int_equal(chown(dir, uid, uid), 0);
	tm_doctor_check(&h, TM_DOC_CREATE_CGROUPS, &res[0]);
	assert_int_equal(res[0].status, TM_DOC_OK);
	assert_string_equal(res[0].value, "delegated");
	char cmd[4300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* A running system's root whose /proc lacks mountinfo: a problem, with a fix. */
static void test_no_mountinfo(void **state)
{
	(void)state;
	char base[] = "/tmp/tidemark-doctor-XXXXXX", cmd[4300];
	assert_non_null(mkdtemp(base));
	make(base, "proc", "cmdline", "quiet\n");
	struct tm_doc_host h = {.root = base};
	tm_doctor_check(&h, TM_DOC_CGROUP_MODE, &res[TM_DOC_CGROUP_MODE]);
	expect(TM_DOC_CGROUP_MODE, TM_DOC_PROBLEM, "cannot read", "mount -t proc proc");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* What record and bench print: one line, only when there is a problem. */
static void test_notice(void **state)
{
	(void)state;
	char path[4096], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(tm_doctor_notice(fixture_path(path, sizeof(path), "doctor/v2"), f), 0);
	fflush(f);
	assert_int_equal(len, 0);
	assert_int_equal(
	    tm_doctor_notice(fixture_path(path, sizeof(path), "doctor/pi-bookworm"), f), 2);
	fclose(f);
	assert_non_null(strstr(text, "memory controller is off"));
	assert_non_null(strstr(text, "PSI is off"));
	assert_non_null(strstr(text, "`tidemark doctor`"));
	assert_non_null(strchr(text, '\n'));
	assert_int_equal(strchr(text, '\n')[1], '\0'); /* one line */
	free(text);
}

static void test_json(void **state)
{
	(void)state;
	char *text;
	json_error_t err;
	run("pi-bookworm", 0);
	assert_non_null(text = tm_doctor_json("/x", res, TM_DOC_COUNT));
	json_t *doc = json_loads(text, 0, &err);
	free(text);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(doc, "problems")), 2);
	json_t *checks = json_object_get(doc, "checks");
	assert_int_equal(json_array_size(checks), TM_DOC_COUNT);
	json_t *psi = json_array_get(checks, TM_DOC_PSI);
	assert_string_equal(json_string_value(json_object_get(psi, "name")), "psi");
	assert_string_equal(json_string_value(json_object_get(psi, "status")), "problem");
	assert_non_null(strstr(json_string_value(json_object_get(psi, "fix")), "psi=1"));
	json_t *mode = json_array_get(checks, TM_DOC_CGROUP_MODE);
	assert_true(json_is_null(json_object_get(mode, "fix")));
	json_t *swap = json_array_get(checks, TM_DOC_SWAP);
	assert_int_equal(json_integer_value(json_object_get(swap, "value")), 524284LL * 1024);
	json_t *shim = json_array_get(checks, TM_DOC_HEAP_SHIM);
	assert_true(json_is_null(json_object_get(shim, "value")));
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_v2),           cmocka_unit_test(test_v2_old_kernel),
	    cmocka_unit_test(test_v1),           cmocka_unit_test(test_hybrid),
	    cmocka_unit_test(test_pi_bookworm),  cmocka_unit_test(test_pi_bullseye),
	    cmocka_unit_test(test_missing_root), cmocka_unit_test(test_pi_sdcard),
	    cmocka_unit_test(test_delegated),    cmocka_unit_test(test_no_mountinfo),
	    cmocka_unit_test(test_notice),       cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
