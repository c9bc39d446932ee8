/*
 * The allocator registry (base/allocators.h), walked: each allocator's
 * shortcut is accepted and named in the error that lists them, its
 * libraries are recognised in /proc/PID/maps as its family, the bench finds
 * them and names their package, its doctor check exists; and the places
 * that cannot include the registry agree with it: the packages
 * scripts/deps.sh installs for the tests, the colours of the panel's charts
 * (/js/allocators.js, generated) and the statistics the heap shim probes for
 * (shim/stats.c, which stands alone).  Run from the repository's root.
 */
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

#include "assert_eq.h"

#include "base/allocators.h"
#include "serve/assets.h"
#include "base/error.h"
#include "bench/bench.h"
#include "doctor/doctor.h"
#include "kern/procfs.h"
#include "base/banned.h"

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository's root)", path);
	if (getdelim(&text, &len, '\0', f) < 0)
		fail_msg("cannot read %s", path);
	fclose(f);
	return text;
}

static void test_names(void **state)
{
	char names[256];
	(void)state;
	tm_alloc_names(names, sizeof(names), " or ");
	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		const struct tm_alloc_info *a = tm_alloc_info(i);
		assert_non_null(a);
		assert_int_equal(tm_alloc_by_name(a->name), i);
		assert_int_equal(tm_bench_alloc_by_name(a->name), i);
		assert_string_equal(tm_bench_alloc_name(i), a->name);
		if (!strstr(names, a->name))
			fail_msg("'%s' missing from the list of shortcuts '%s'", a->name, names);
		for (int j = 0; j < i; j++)
			if (!strcmp(a->name, tm_alloc_info(j)->name))
				fail_msg("shortcut '%s' given twice", a->name);
		/* libraries from TM_ALLOC_FIRST_LIB on, each with its package */
		assert_int_equal(a->lib[0] != NULL, i >= TM_ALLOC_FIRST_LIB);
		for (int k = 0; k < 2; k++)
			if ((a->lib[k] == NULL) != (a->pkg[k] == NULL))
				fail_msg("%s: library %d and its package go together", a->name, k);
		if (!a->stats || !a->colour || a->colour[0] != '#')
			fail_msg("%s: no statistics symbol or no colour", a->name);
	}
	assert_null(tm_alloc_info(TM_ALLOC_COUNT));
	assert_int_equal(tm_alloc_by_name("ptmalloc9"), -1);
	/* the error a wrong Allocator= gets names them all, from the registry */
	assert_string_equal(names, "glibc, arena1, jemalloc, mimalloc, tcmalloc or tcmalloc-full");
}

/* Each library, mapped, is its family; nothing of ours mapped is glibc. */
static void test_maps(void **state)
{
	char maps[512];
	(void)state;
	for (int i = TM_ALLOC_FIRST_LIB; i < TM_ALLOC_COUNT; i++) {
		const struct tm_alloc_info *a = tm_alloc_info(i);
		for (int k = 0; k < 2 && a->lib[k]; k++) {
			snprintf(maps, sizeof(maps),
			         "55d0c0a00000-55d0c0a01000 r-xp 00000000 08:01 1 /usr/bin/prog\n"
			         "7f0000000000-7f0000001000 r-xp 00000000 08:01 2 /usr/lib/x/%s\n",
			         a->lib[k]);
			const char *got = tm_parse_maps_allocator(maps, strlen(maps));
			if (!got || strcmp(got, a->family))
				fail_msg("%s mapped reads as '%s', not its family '%s'", a->lib[k],
				         got ? got : "(null)", a->family);
		}
		assert_string_equal(tm_bench_alloc_expect(i), a->family);
		assert_string_equal(tm_bench_alloc_package(i), a->pkg[0]);
	}
	snprintf(maps, sizeof(maps),
	         "7f0000000000-7f0000001000 r-xp 0 08:01 2 /usr/lib/libc.so.6\n");
	assert_string_equal(tm_parse_maps_allocator(maps, strlen(maps)), "glibc");
}

/* tm_bench_alloc_find finds each library in a directory that holds it. */
static void test_find(void **state)
{
	char dir[] = "/tmp/tm_allocXXXXXX", path[512];
	(void)state;
	assert_non_null(mkdtemp(dir));
	const char *dirs[] = {dir, NULL};
	for (int i = TM_ALLOC_FIRST_LIB; i < TM_ALLOC_COUNT; i++) {
		const struct tm_alloc_info *a = tm_alloc_info(i);
		snprintf(path, sizeof(path), "%s/%s", dir, a->lib[0]);
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
		char *found = tm_bench_alloc_find(i, dirs);
		if (!found || strcmp(found, path))
			fail_msg("%s: found '%s', not '%s'", a->name, found ? found : "(null)",
			         path);
		free(found);
		unlink(path);
	}
	rmdir(dir);
}

static void test_doctor_checks(void **state)
{
	char want[64];
	(void)state;
	for (int i = TM_ALLOC_FIRST_LIB; i < TM_ALLOC_COUNT; i++) {
		snprintf(want, sizeof(want), "allocator_%s", tm_alloc_info(i)->name);
		assert_string_equal(tm_doc_check_name(TM_DOC_ALLOC(i)), want);
	}
	assert_int_equal(TM_DOC_ALLOC_LAST, TM_DOC_ALLOC(TM_ALLOC_COUNT - 1));
}

/* Every package of the registry is one scripts/deps.sh installs for the
 * tests (its TEST list). */
static void test_deps_packages(void **state)
{
	char word[80];
	(void)state;
	char *deps = slurp("scripts/deps.sh");
	char *test = strstr(deps, "\nTEST=\"");
	assert_non_null(test);
	char *end = strchr(test + 7, '"');
	assert_non_null(end);
	*end = '\0';
	for (int i = 0; i < TM_ALLOC_COUNT; i++)
		for (int k = 0; k < 2; k++) {
			const char *pkg = tm_alloc_info(i)->pkg[k];
			if (!pkg)
				continue;
			int n = snprintf(word, sizeof(word), "%s", pkg);
			const char *p = test;
			bool found = false;
			while ((p = strstr(p, word))) {
				char after = p[n], before = p[-1];
				found |= (after == ' ' || after == '\n' || after == '\0') &&
				         (before == ' ' || before == '\n' || before == '"');
				p += n;
			}
			if (!found)
				fail_msg("scripts/deps.sh's TEST list lacks %s (%s)", pkg,
				         tm_alloc_info(i)->name);
		}
	free(deps);
}

/* The panel's ARM_COLORS (/js/allocators.js, generated from the registry
 * at build time and embedded): exactly the registry's names, each once with
 * its colour; and charts.js keeps no list of its own. */
static void test_chart_colours(void **state)
{
	char entry[96];
	(void)state;
	const struct tm_asset *as = tm_asset_find("/js/allocators.js");
	assert_non_null(as);
	const char *start = strstr((const char *)as->data, "export const ARM_COLORS = {");
	if (!start)
		fail_msg("/js/allocators.js has no ARM_COLORS: %s", (const char *)as->data);
	int entries = 0;
	for (const char *p = start; (p = strchr(p, ':')); p++)
		entries++;
	if (entries != TM_ALLOC_COUNT)
		fail_msg("/js/allocators.js: %d colours, the registry %d: %s", entries,
		         TM_ALLOC_COUNT, start);
	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		const struct tm_alloc_info *a = tm_alloc_info(i);
		snprintf(entry, sizeof(entry), "\"%s\": \"%s\"", a->name, a->colour);
		if (!strstr(start, entry))
			fail_msg("/js/allocators.js's ARM_COLORS lacks %s in: %s", entry, start);
	}
	const struct tm_asset *charts = tm_asset_find("/js/charts.js");
	assert_non_null(charts);
	if (strstr((const char *)charts->data, "const ARM_COLORS ="))
		fail_msg("web/js/charts.js has a list of arm colours of its own");
	if (!strstr((const char *)charts->data, "import {ARM_COLORS} from \"./allocators.js\";"))
		fail_msg("web/js/charts.js does not import ARM_COLORS from allocators.js");
}

/* The shim probes each allocator's statistics by its symbol, and nothing
 * the registry does not name. */
static void test_shim_stats(void **state)
{
	char quoted[96];
	(void)state;
	char *c = slurp("shim/stats.c");
	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		snprintf(quoted, sizeof(quoted), "\"%s\")", tm_alloc_info(i)->stats);
		if (!strstr(c, quoted))
			fail_msg("shim/stats.c does not look %s up (%s)", quoted,
			         tm_alloc_info(i)->name);
	}
	for (const char *p = c; (p = strstr(p, "dlsym(")); p++) {
		const char *q = strchr(p, '"');
		const char *e = q ? strchr(q + 1, '"') : NULL;
		assert_non_null(e);
		bool known = false;
		for (int i = 0; i < TM_ALLOC_COUNT; i++) {
			const char *s = tm_alloc_info(i)->stats;
			known |= (size_t)(e - q - 1) == strlen(s) && !strncmp(q + 1, s, strlen(s));
		}
		known |= !strncmp(q, "\"malloc\"", 8); /* which malloc the process has */
		if (!known)
			fail_msg("shim/stats.c looks up %.*s, which the registry does not name",
			         (int)(e - q + 1), q);
	}
	free(c);
}

/* The symbols that recognise an allocator linked into the executable:
 * shim/allocstats.c's probes are exactly the registry's "exe" column
 * (sample/exesyms.c reads the column itself). */
static void test_shim_exe_probes(void **state)
{
	(void)state;
	char *c = slurp("shim/allocstats.c");
	const char *tab = strstr(c, "probes[] = {");
	assert_non_null(tab);
	int listed = 0, named = 0;
	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		const char *exe = tm_alloc_info(i)->exe;
		if (i > 0 && tm_alloc_info(i - 1)->exe && exe &&
		    !strcmp(tm_alloc_info(i - 1)->exe, exe))
			continue; /* tcmalloc-full: tcmalloc's symbols */
		for (const char *p = exe; p && *p;) {
			char quoted[96];
			size_t len = strcspn(p, " ");
			snprintf(quoted, sizeof(quoted), "\"%.*s\"}", (int)len, p);
			if (!strstr(tab, quoted))
				fail_msg("shim/allocstats.c's probes lack %s (%s)", quoted,
				         tm_alloc_info(i)->name);
			listed++;
			p += len + (p[len] == ' ');
		}
	}
	const char *end = strstr(tab, "};");
	for (const char *p = tab; (p = strstr(p, "\"}")) && p < end; p++)
		named++;
	if (named != listed)
		fail_msg("shim/allocstats.c probes %d symbols, the registry's exe column names %d",
		         named, listed);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names),         cmocka_unit_test(test_maps),
	    cmocka_unit_test(test_find),          cmocka_unit_test(test_doctor_checks),
	    cmocka_unit_test(test_deps_packages), cmocka_unit_test(test_chart_colours),
	    cmocka_unit_test(test_shim_stats),    cmocka_unit_test(test_shim_exe_probes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
