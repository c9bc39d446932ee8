/* sample/exesyms: which allocator an executable has linked into it, read
 * from ELF files written here (a symbol table and its strings, shaped to
 * meet the reader's edges: names split between two reads, names that are
 * the tail of a longer string, tables longer than one read, more
 * candidates than its bound, damaged headers), and from this program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <elf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/allocators.h"
#include "sample/exesyms.h"

/* One symbol: the offset of its name in its table's strings, whether it
 * is defined (else undefined: taken from a library), and its type. */
struct sym {
	uint32_t name;
	int defined;
	int type;
};

/* A symbol table to write: its strings (LEN bytes) and symbols. */
struct table {
	const char *strs;
	size_t len;
	const struct sym *syms;
	size_t nsyms;
};

static char dir[] = "/tmp/tm-exesyms.XXXXXX";

static void put(FILE *f, const void *p, size_t n)
{
	assert_int_equal(fwrite(p, 1, n, f), n);
}

static void put_table(FILE *f, const struct table *t)
{
	for (size_t i = 0; i < t->nsyms; i++) {
		Elf64_Sym s = {.st_name = t->syms[i].name,
		               .st_info = ELF64_ST_INFO(STB_GLOBAL, t->syms[i].type),
		               .st_shndx = t->syms[i].defined ? 1 : SHN_UNDEF};
		put(f, &s, sizeof(s));
	}
}

/* Writes an ELF file NAME in the test's folder with the dynamic table DYN
 * and, when given, the full table FULL; its path into PATH. */
static void write_elf(char *path, size_t size, const char *name, const struct table *dyn,
                      const struct table *full)
{
	snprintf(path, size, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	int nsec = full ? 5 : 3;
	Elf64_Ehdr eh = {
	    .e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT},
	    .e_type = ET_EXEC,
	    .e_machine = EM_X86_64,
	    .e_version = EV_CURRENT,
	    .e_ehsize = sizeof(Elf64_Ehdr),
	    .e_shentsize = sizeof(Elf64_Shdr),
	    .e_shnum = (uint16_t)nsec,
	    .e_shoff = sizeof(Elf64_Ehdr)};
	Elf64_Shdr sh[5] = {{0}};
	uint64_t at = sizeof(eh) + (uint64_t)nsec * sizeof(Elf64_Shdr);
	const struct table *tabs[2] = {dyn, full};
	for (int k = 0; k < nsec / 2; k++) {
		Elf64_Shdr *str = &sh[1 + 2 * k], *syms = &sh[2 + 2 * k];
		*str =
		    (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = at, .sh_size = tabs[k]->len};
		at += tabs[k]->len;
		*syms = (Elf64_Shdr){.sh_type = k ? SHT_SYMTAB : SHT_DYNSYM,
		                     .sh_offset = at,
		                     .sh_size = tabs[k]->nsyms * sizeof(Elf64_Sym),
		                     .sh_link = (uint32_t)(1 + 2 * k),
		                     .sh_entsize = sizeof(Elf64_Sym)};
		at += syms->sh_size;
	}
	put(f, &eh, sizeof(eh));
	put(f, sh, (size_t)nsec * sizeof(Elf64_Shdr));
	for (int k = 0; k < nsec / 2; k++) {
		put(f, tabs[k]->strs, tabs[k]->len);
		put_table(f, tabs[k]);
	}
	assert_int_equal(fclose(f), 0);
}

/* What the file NAME written from DYN and FULL is said to have. */
static enum tm_exe_malloc classify(const char *name, const struct table *dyn,
                                   const struct table *full, char *family, size_t size)
{
	char path[128];
	write_elf(path, sizeof(path), name, dyn, full);
	enum tm_exe_malloc m = tm_exe_malloc_of(path, family, size);
	unlink(path);
	return m;
}

#define STRS(s) s, sizeof(s) /* a literal with its last NUL */

static void test_malloc_defined(void **state)
{
	(void)state;
	char family[16];
	static const struct sym linked[] = {{1, 1, STT_FUNC}, {8, 1, STT_FUNC}};
	static const struct sym shared[] = {{1, 0, STT_FUNC}, {8, 1, STT_FUNC}};
	static const struct sym object[] = {{1, 1, STT_OBJECT}}; /* data named malloc */
	struct table t = {STRS("\0malloc\0main"), linked, 2};

	assert_int_equal(classify("linked", &t, NULL, family, sizeof(family)),
	                 TM_EXE_MALLOC_LINKED);
	assert_string_equal(family, ""); /* no allocator named: stripped, or unknown */
	t.syms = shared;
	assert_int_equal(classify("shared", &t, NULL, family, sizeof(family)),
	                 TM_EXE_MALLOC_SHARED);
	t.syms = object;
	t.nsyms = 1;
	assert_int_equal(classify("object", &t, NULL, family, sizeof(family)),
	                 TM_EXE_MALLOC_SHARED);
}

/* Each allocator's recognising symbols name its family, from the dynamic
 * table and from the full one (where a static link leaves them); the
 * names fit the reader's bounds (a name past them would make every
 * reading unknown). */
static void test_registry_names(void **state)
{
	(void)state;
	char strs[256], family[16];
	for (int a = 0; a < TM_ALLOC_COUNT; a++) {
		const struct tm_alloc_info *ai = tm_alloc_info((enum tm_alloc)a);
		for (const char *p = ai->exe; p && *p;) {
			size_t len = strcspn(p, " ");
			int n = snprintf(strs, sizeof(strs), "%cmalloc%c%.*s", 0, 0, (int)len, p);
			assert_in_range(n, 1, sizeof(strs) - 1);
			struct sym dsyms[] = {{1, 1, STT_FUNC}, {8, 1, STT_FUNC}};
			struct sym fsyms[] = {{8, 1, STT_FUNC}};
			struct table dyn = {strs, (size_t)n + 1, dsyms, 2};
			struct table only_malloc = {strs, (size_t)n + 1, dsyms, 1};
			struct table full = {strs, (size_t)n + 1, fsyms, 1};

			assert_int_equal(classify("dyn", &dyn, NULL, family, sizeof(family)),
			                 TM_EXE_MALLOC_LINKED);
			if (strcmp(family, ai->family))
				fail_msg("'%.*s' in the dynamic table: '%s', want '%s'", (int)len,
				         p, family, ai->family);
			assert_int_equal(
			    classify("full", &only_malloc, &full, family, sizeof(family)),
			    TM_EXE_MALLOC_LINKED);
			if (strcmp(family, ai->family))
				fail_msg("'%.*s' in the full table: '%s', want '%s'", (int)len, p,
				         family, ai->family);
			p += len + (p[len] == ' ');
		}
	}
}

/* A linker merges a name into the tail of a longer one: "mallctl" is the
 * end of "je_mallctl", a symbol's name may point into it; a name is found
 * where it ends, not where a string starts. */
static void test_tail_merged(void **state)
{
	(void)state;
	char family[16];
	/* 1: "je_mallctl"; 4: "mallctl"; 12: "tc_malloc"; 15: "malloc" */
	static const char strs[] = "\0je_mallctl\0tc_malloc";
	static const struct sym mallctl[] = {{4, 1, STT_FUNC}};
	static const struct sym tc[] = {{15, 0, STT_FUNC}, {12, 1, STT_FUNC}};
	static const struct sym malloc_only[] = {{15, 1, STT_FUNC}};
	static const struct sym off_by_one[] = {{5, 1, STT_FUNC}, {13, 1, STT_FUNC}};
	struct table t = {strs, sizeof(strs), mallctl, 1};

	assert_int_equal(classify("mallctl", &t, NULL, family, sizeof(family)),
	                 TM_EXE_MALLOC_BESIDE);
	assert_string_equal(family, "jemalloc");
	struct table beside = {strs, sizeof(strs), malloc_only, 0};
	assert_int_equal(classify("beside", &beside, &t, family, sizeof(family)),
	                 TM_EXE_MALLOC_BESIDE);
	assert_string_equal(family, "jemalloc");
	t.syms = tc;
	t.nsyms = 2;
	assert_int_equal(classify("tc", &t, NULL, family, sizeof(family)), TM_EXE_MALLOC_BESIDE);
	assert_string_equal(family, "tcmalloc");
	t.syms = malloc_only;
	t.nsyms = 1;
	assert_int_equal(classify("tail", &t, NULL, family, sizeof(family)), TM_EXE_MALLOC_LINKED);
	assert_string_equal(family, "");
	t.syms = off_by_one; /* "allctl", "c_malloc": no name */
	t.nsyms = 2;
	assert_int_equal(classify("off", &t, NULL, family, sizeof(family)), TM_EXE_MALLOC_SHARED);
	assert_string_equal(family, "");
}

/* Tables longer than one read: a name split between two reads of the
 * strings, at every position across the boundary, and the symbol that
 * names it far down a long table. */
static void test_long_tables(void **state)
{
	(void)state;
	enum { NSYMS = 3000, CHUNK = 8192 };
	static const char name[] = "mi_process_info";
	char family[16];
	char *strs = malloc(3 * CHUNK);
	struct sym *syms = calloc(NSYMS, sizeof(*syms));
	assert_non_null(strs);
	assert_non_null(syms);
	for (size_t shift = 0; shift <= sizeof(name); shift++) {
		/* filler strings "aaa…", then the name straddling offset CHUNK */
		size_t at = CHUNK - sizeof(name) + 1 + shift;
		memset(strs, 'a', at);
		for (size_t i = 0; i < at; i += 100)
			strs[i] = '\0';
		strs[at - 1] = '\0';
		memcpy(strs + at, name, sizeof(name));
		for (size_t i = 0; i < NSYMS; i++) /* defined functions named "aaa…" */
			syms[i] = (struct sym){1, 1, STT_FUNC};
		syms[NSYMS - 1].name = (uint32_t)at;
		struct table t = {strs, at + sizeof(name), syms, NSYMS};
		assert_int_equal(classify("long", &t, NULL, family, sizeof(family)),
		                 TM_EXE_MALLOC_BESIDE);
		if (strcmp(family, "mimalloc"))
			fail_msg("the name at offset %zu: '%s'", at, family);
	}
	free(syms);
	free(strs);
}

/* More places that spell a name than the reader keeps: unknown, not a
 * guess (and a bounded cost, whatever the executable). */
static void test_too_many_candidates(void **state)
{
	(void)state;
	enum { N = 600 };
	char family[16];
	char *strs = malloc(1 + 7 * N);
	static const struct sym s[] = {{1, 1, STT_FUNC}};
	assert_non_null(strs);
	strs[0] = '\0';
	for (int i = 0; i < N; i++)
		memcpy(strs + 1 + 7 * i, "malloc", 7);
	struct table t = {strs, 1 + 7 * N, s, 1};
	assert_int_equal(classify("many", &t, NULL, family, sizeof(family)), TM_EXE_MALLOC_UNKNOWN);
	t.len = 1 + 7 * 100; /* within the bound */
	assert_int_equal(classify("some", &t, NULL, family, sizeof(family)), TM_EXE_MALLOC_LINKED);
	free(strs);
}

/* What is not a readable 64-bit ELF file is unknown: a truncated table,
 * text, a FIFO (not waited on), a folder, a missing file. */
static void test_unreadable(void **state)
{
	(void)state;
	char path[128], family[16];
	static const struct sym s[] = {{1, 1, STT_FUNC}};
	struct table t = {STRS("\0malloc"), s, 1};

	write_elf(path, sizeof(path), "cut", &t, NULL);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0); /* the symbol's last byte */
	assert_int_equal(tm_exe_malloc_of(path, family, sizeof(family)), TM_EXE_MALLOC_UNKNOWN);
	unlink(path);

	snprintf(path, sizeof(path), "%s/text", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs("#!/bin/sh\nexit 0\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(tm_exe_malloc_of(path, family, sizeof(family)), TM_EXE_MALLOC_UNKNOWN);
	unlink(path);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(tm_exe_malloc_of(path, family, sizeof(family)), TM_EXE_MALLOC_UNKNOWN);
	unlink(path);
	assert_int_equal(tm_exe_malloc_of(dir, family, sizeof(family)), TM_EXE_MALLOC_UNKNOWN);
	assert_int_equal(tm_exe_malloc_of("/nonexistent/tm-exesyms", family, sizeof(family)),
	                 TM_EXE_MALLOC_UNKNOWN);
}

/* This program takes malloc from libc. */
static void test_self(void **state)
{
	(void)state;
	char family[16];
	assert_int_equal(tm_exe_malloc_of("/proc/self/exe", family, sizeof(family)),
	                 TM_EXE_MALLOC_SHARED);
	assert_string_equal(family, "");
}

static int set_up(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int tear_down(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malloc_defined),
	    cmocka_unit_test(test_registry_names),
	    cmocka_unit_test(test_tail_merged),
	    cmocka_unit_test(test_long_tables),
	    cmocka_unit_test(test_too_many_candidates),
	    cmocka_unit_test(test_unreadable),
	    cmocka_unit_test(test_self),
	};
	return cmocka_run_group_tests(tests, set_up, tear_down);
}
