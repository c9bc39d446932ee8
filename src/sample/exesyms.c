/* Which allocator an executable has linked into it (exesyms.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
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
#define MAX_NAMES        32   /* "malloc" and the registry's "exe" symbols */
#define MAX_NAME_LEN     63   /* the longest such symbol, NUL not counted */
#define CHUNK_BYTES      8192 /* what one read of a table brings */
#define MAX_CANDIDATES   512  /* places in a string table that spell a name */

/* The names looked for: "malloc" first, then each allocator's "exe"
 * symbols in registry order (who[] is its allocator; -1 for malloc). */
struct names {
	const char *name[MAX_NAMES];
	size_t len[MAX_NAMES];
	int who[MAX_NAMES];
	int n;
};

/* Where a string table spells one of the names: an offset a symbol's
 * st_name may hold (the end of a longer string too: linkers merge tails). */
struct candidate {
	uint32_t off;
	uint8_t name;
};

/* The work space of one reading, allocated once: the tables are read a
 * chunk at a time, so what it costs does not grow with the executable. */
struct scan {
	struct names names;
	struct candidate cand[MAX_CANDIDATES];
	int ncand;
	bool found[MAX_NAMES];
	/* a chunk, and before it the tail of the one before (a name may
	 * straddle two chunks) */
	_Alignas(Elf64_Sym) char buf[MAX_NAME_LEN + 1 + CHUNK_BYTES];
};

/* Adds NAME (LEN bytes) of allocator WHO, unless an earlier allocator
 * has the same name (that one is recognised first). */
static int add_name(struct names *ns, const char *name, size_t len, int who)
{
	for (int i = 0; i < ns->n; i++)
		if (ns->len[i] == len && !memcmp(ns->name[i], name, len))
			return 0;
	if (ns->n == MAX_NAMES || len == 0 || len > MAX_NAME_LEN)
		return -1;
	ns->name[ns->n] = name;
	ns->len[ns->n] = len;
	ns->who[ns->n++] = who;
	return 0;
}

/* "malloc", then the registry's "exe" column, split at spaces.  -1 when
 * a name does not fit the bounds above (tests/unit/test_exesyms.c keeps
 * the registry within them). */
static int collect_names(struct names *ns)
{
	ns->n = 0;
	if (add_name(ns, "malloc", 6, -1))
		return -1;
	for (int a = 0; a < TM_ALLOC_COUNT; a++) {
		for (const char *p = tm_alloc_info((enum tm_alloc)a)->exe; p && *p;) {
			size_t len = (size_t)(strchrnul(p, ' ') - p);
			if (add_name(ns, p, len, a))
				return -1;
			p += len + (p[len] == ' ');
		}
	}
	return 0;
}

/* Reads SIZE bytes at OFF of FD into B, all of them or fail. */
static int read_full(int fd, uint64_t off, char *b, size_t size)
{
	size_t got = 0;
	while (got < size) {
		ssize_t n = pread(fd, b + got, size - got, (off_t)(off + got));
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Notes each name that ends at END (a NUL) of the text before it, TEXT
 * (the bytes from string-table offset BASE up to END). */
static int note_ends(struct scan *sc, const char *text, uint64_t base, size_t end)
{
	for (int i = 0; i < sc->names.n; i++) {
		size_t len = sc->names.len[i];
		if (len > end || memcmp(text + end - len, sc->names.name[i], len))
			continue;
		if (sc->ncand == MAX_CANDIDATES)
			return -1;
		sc->cand[sc->ncand++] =
		    (struct candidate){(uint32_t)(base + end - len), (uint8_t)i};
	}
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	uint32_t x = ((const struct candidate *)a)->off, y = ((const struct candidate *)b)->off;
	return (x > y) - (x < y);
}

/* Every offset of the string table (SIZE bytes at OFF of FD) where one of
 * the names is spelled to its NUL, sorted.  -1 on a failed
 * read, or more candidates than MAX_CANDIDATES. */
static int find_candidates(struct scan *sc, int fd, uint64_t off, uint64_t size)
{
	size_t keep = 0;   /* bytes of the chunk before kept at buf's start */
	uint64_t base = 0; /* the table offset of buf[0] */

	sc->ncand = 0;
	for (uint64_t at = 0; at < size;) {
		size_t n = size - at < CHUNK_BYTES ? (size_t)(size - at) : CHUNK_BYTES;
		if (read_full(fd, off + at, sc->buf + keep, n))
			return -1;
		size_t have = keep + n;
		for (size_t e = keep; e < have; e++)
			if (sc->buf[e] == '\0' && note_ends(sc, sc->buf, base, e))
				return -1;
		at += n;
		keep = have < MAX_NAME_LEN ? have : MAX_NAME_LEN;
		memmove(sc->buf, sc->buf + have - keep, keep);
		base = at - keep;
	}
	/* in order but for names that end at the same NUL (suffixes of one
	 * another) */
	qsort(sc->cand, (size_t)sc->ncand, sizeof(sc->cand[0]), by_offset);
	return 0;
}

/* The candidate at offset OFF (binary search: they are in order), or -1. */
static int candidate_at(const struct scan *sc, uint32_t off)
{
	int lo = 0, hi = sc->ncand - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (sc->cand[mid].off == off)
			return mid;
		if (sc->cand[mid].off < off)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Marks found[] for each name a function the symbol table SH[I] defines
 * has (its strings in SH[I].sh_link).  -1 when there is no such table or
 * it cannot be read whole. */
static int scan_table(struct scan *sc, int fd, const Elf64_Shdr *sh, size_t i)
{
	const Elf64_Shdr *str = &sh[sh[i].sh_link];
	if (sh[i].sh_size > MAX_SECTION_SIZE || str->sh_size > MAX_SECTION_SIZE ||
	    find_candidates(sc, fd, str->sh_offset, str->sh_size))
		return -1;
	memset(sc->found, 0, sizeof(sc->found));
	uint64_t nsyms = sh[i].sh_size / sizeof(Elf64_Sym);
	size_t per_chunk = CHUNK_BYTES / sizeof(Elf64_Sym);
	Elf64_Sym *s = (Elf64_Sym *)(void *)sc->buf;
	for (uint64_t at = 0; at < nsyms && sc->ncand;) {
		size_t n = nsyms - at < per_chunk ? (size_t)(nsyms - at) : per_chunk;
		if (read_full(fd, sh[i].sh_offset + at * sizeof(Elf64_Sym), sc->buf,
		              n * sizeof(Elf64_Sym)))
			return -1;
		for (size_t k = 0; k < n; k++) {
			if (s[k].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s[k].st_info) != STT_FUNC)
				continue;
			int c = candidate_at(sc, s[k].st_name);
			if (c >= 0)
				sc->found[sc->cand[c].name] = true;
		}
		at += n;
	}
	return 0;
}

/* The index of the first section of type TYPE in SH (N of them) that is a
 * table of 64-bit symbols with its strings in another section, or -1. */
static int find_table(const Elf64_Shdr *sh, size_t n, uint32_t type)
{
	for (size_t i = 0; i < n; i++)
		if (sh[i].sh_type == type && sh[i].sh_link < n && sh[i].sh_link != i &&
		    sh[i].sh_entsize == sizeof(Elf64_Sym))
			return (int)i;
	return -1;
}

/* The registry's allocator whose "exe" symbols were found, first in
 * registry order, or NULL. */
static const char *recognise(const struct scan *sc)
{
	for (int i = 0; i < sc->names.n; i++)
		if (sc->found[i] && sc->names.who[i] >= 0)
			return tm_alloc_info((enum tm_alloc)sc->names.who[i])->family;
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
	size_t bytes = (size_t)eh.e_shnum * sizeof(Elf64_Shdr);
	Elf64_Shdr *sh = malloc(bytes);
	if (sh && read_full(fd, eh.e_shoff, (char *)sh, bytes)) {
		free(sh);
		return NULL;
	}
	*n = eh.e_shnum;
	return sh;
}

/* What FD's symbols say (tm_exe_malloc_of), with SC as work space. */
static enum tm_exe_malloc classify(struct scan *sc, int fd, const Elf64_Shdr *sh, size_t n,
                                   char *family, size_t size)
{
	int dyn = find_table(sh, n, SHT_DYNSYM), full = find_table(sh, n, SHT_SYMTAB);
	if (dyn < 0 || scan_table(sc, fd, sh, (size_t)dyn))
		return TM_EXE_MALLOC_UNKNOWN;
	enum tm_exe_malloc rc = sc->found[0] ? TM_EXE_MALLOC_LINKED : TM_EXE_MALLOC_SHARED;
	const char *f = recognise(sc);
	if (!f && full >= 0 && scan_table(sc, fd, sh, (size_t)full) == 0)
		f = recognise(sc);
	if (f)
		snprintf(family, size, "%s", f);
	if (f && rc == TM_EXE_MALLOC_SHARED)
		rc = TM_EXE_MALLOC_BESIDE;
	return rc;
}

enum tm_exe_malloc tm_exe_malloc_of(const char *path, char *family, size_t size)
{
	struct stat st;
	size_t n = 0;
	enum tm_exe_malloc rc = TM_EXE_MALLOC_UNKNOWN;
	if (size)
		family[0] = '\0';
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return rc;
	Elf64_Shdr *sh =
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? section_headers(fd, &n) : NULL;
	struct scan *sc = sh ? malloc(sizeof(*sc)) : NULL;
	if (sc && collect_names(&sc->names) == 0)
		rc = classify(sc, fd, sh, n, family, size);
	free(sc);
	free(sh);
	close(fd);
	return rc;
}
