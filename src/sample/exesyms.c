/* Which allocator an executable has linked into it (exesyms.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/allocators.h"
#include "sample/exesyms.h"
#include "base/banned.h"

#define MAX_SECTIONS     4096
#define MAX_SECTION_SIZE (256u << 20)

/* SIZE bytes at OFF of FD into a new buffer (NUL-terminated), or NULL. */
static char *read_at(int fd, uint64_t off, uint64_t size)
{
	if (size > MAX_SECTION_SIZE)
		return NULL;
	char *b = malloc(size + 1);
	size_t got = 0;
	while (b && got < size) {
		ssize_t n = pread(fd, b + got, size - got, (off_t)(off + got));
		if (n <= 0) {
			free(b);
			return NULL;
		}
		got += (size_t)n;
	}
	if (b)
		b[size] = '\0';
	return b;
}

/* One symbol table and its strings. */
struct symtab {
	char *syms, *strs;
	size_t nsyms, strs_size;
};

static void symtab_free(struct symtab *t)
{
	free(t->syms);
	free(t->strs);
	*t = (struct symtab){0};
}

/* The first section of type TYPE in SH (N of them) with its strings. */
static int symtab_read(int fd, const Elf64_Shdr *sh, size_t n, uint32_t type, struct symtab *t)
{
	*t = (struct symtab){0};
	for (size_t i = 0; i < n; i++) {
		if (sh[i].sh_type != type || sh[i].sh_link >= n ||
		    sh[i].sh_entsize != sizeof(Elf64_Sym))
			continue;
		const Elf64_Shdr *str = &sh[sh[i].sh_link];
		t->syms = read_at(fd, sh[i].sh_offset, sh[i].sh_size);
		t->strs = read_at(fd, str->sh_offset, str->sh_size);
		if (!t->syms || !t->strs) {
			symtab_free(t);
			return -1;
		}
		t->nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
		t->strs_size = str->sh_size;
		return 0;
	}
	return -1;
}

/* Whether T defines a function named NAME (LEN bytes). */
static int defines(const struct symtab *t, const char *name, size_t len)
{
	const Elf64_Sym *s = (const Elf64_Sym *)(const void *)t->syms;
	for (size_t i = 0; i < t->nsyms; i++) {
		if (s[i].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s[i].st_info) != STT_FUNC ||
		    s[i].st_name >= t->strs_size)
			continue;
		const char *n = t->strs + s[i].st_name;
		if (!strncmp(n, name, len) && n[len] == '\0')
			return 1;
	}
	return 0;
}

/* The registry's allocator whose "exe" symbols T defines, or NULL. */
static const char *recognise(const struct symtab *t)
{
	for (int a = 0; a < TM_ALLOC_COUNT; a++) {
		const struct tm_alloc_info *ai = tm_alloc_info((enum tm_alloc)a);
		for (const char *p = ai->exe; p && *p;) {
			size_t len = strcspn(p, " ");
			if (defines(t, p, len))
				return ai->family;
			p += len + (p[len] == ' ');
		}
	}
	return NULL;
}

/* The section headers of the ELF file FD into a new array (*N of them). */
static Elf64_Shdr *section_headers(int fd, size_t *n)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS)
		return NULL;
	*n = eh.e_shnum;
	return (Elf64_Shdr *)(void *)read_at(fd, eh.e_shoff,
	                                     (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr));
}

enum tm_exe_malloc tm_exe_malloc_of(const char *path, char *family, size_t size)
{
	struct stat st;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (size)
		family[0] = '\0';
	if (fd < 0)
		return TM_EXE_MALLOC_UNKNOWN;
	Elf64_Shdr *sh =
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? section_headers(fd, &n) : NULL;
	struct symtab dyn, full = {0};
	enum tm_exe_malloc rc = TM_EXE_MALLOC_UNKNOWN;
	if (sh && symtab_read(fd, sh, n, SHT_DYNSYM, &dyn) == 0) {
		rc = defines(&dyn, "malloc", 6) ? TM_EXE_MALLOC_LINKED : TM_EXE_MALLOC_SHARED;
		const char *f = recognise(&dyn);
		if (!f && symtab_read(fd, sh, n, SHT_SYMTAB, &full) == 0)
			f = recognise(&full);
		if (f)
			snprintf(family, size, "%s", f);
		if (f && rc == TM_EXE_MALLOC_SHARED)
			rc = TM_EXE_MALLOC_BESIDE;
		symtab_free(&dyn);
		symtab_free(&full);
	}
	free(sh);
	close(fd);
	return rc;
}
