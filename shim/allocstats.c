/*
 * The statistics of an allocator linked into the executable, through its
 * own entry points (allocstats.h).  Stands alone: libc and libdl only.
 *
 * What each figure is (docs/heap.md, "Allocators linked into the program"):
 *   jemalloc  after "epoch": stats.allocated (arena-level: small blocks a
 *             thread cache holds were handed to the cache, so they count
 *             as allocated, and a cache's counts reach the arena only when
 *             it fills or flushes: jemalloc/jemalloc#757), stats.active
 *             (pages holding them), stats.resident
 *   tcmalloc  generic.current_allocated_bytes; generic.heap_size minus
 *             tcmalloc.pageheap_unmapped_bytes (blocks in its thread and
 *             central caches are in the heap, not allocated)
 *   mimalloc  mi_process_info: committed bytes only (no allocated figure)
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "allocstats.h"

/* What a symbol says of the allocator: it is there (RECOG), or one of its
 * statistics entry points. */
enum role { RECOG, JE_CTL, TC_PROP, MI_INFO };

/* The symbols that recognise each allocator linked into the executable
 * (base/allocators.h's "exe" column; tests/unit/test_allocators.c checks
 * that both name the same), statistics entry points first. */
static const struct probe {
	int kind;
	enum role role;
	const char *name;
} probes[] = {
    {TMH_ALLOC_JEMALLOC, JE_CTL, "mallctl"},
    {TMH_ALLOC_JEMALLOC, JE_CTL, "_rjem_mallctl"},
    {TMH_ALLOC_JEMALLOC, JE_CTL, "je_mallctl"},
    {TMH_ALLOC_TCMALLOC, TC_PROP, "MallocExtension_GetNumericProperty"},
    {TMH_ALLOC_TCMALLOC, RECOG, "tc_malloc"},
    {TMH_ALLOC_MIMALLOC, MI_INFO, "mi_process_info"},
    {TMH_ALLOC_MIMALLOC, RECOG, "mi_malloc"},
};
#define NPROBES (sizeof(probes) / sizeof(probes[0]))

/* The executable's load bias and program headers (the first object
 * dl_iterate_phdr reports). */
struct exe_seg {
	Elf64_Addr bias;
	const Elf64_Phdr *phdr;
	Elf64_Half phnum;
};

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct exe_seg *e = arg;
	e->bias = info->dlpi_addr;
	e->phdr = info->dlpi_phdr;
	e->phnum = info->dlpi_phnum;
	return 1; /* the executable comes first: stop */
}

static int exe_segments(struct exe_seg *e)
{
	e->phdr = NULL;
	dl_iterate_phdr(first_object, e);
	return e->phdr ? 0 : -1;
}

/* Whether address A lies in the executable's loaded segments. */
static int in_segments(const void *fn)
{
	struct exe_seg e;
	if (!fn || exe_segments(&e) < 0)
		return 0;
	Elf64_Addr a = (Elf64_Addr)fn;
	for (Elf64_Half i = 0; i < e.phnum; i++) {
		const Elf64_Phdr *p = &e.phdr[i];
		if (p->p_type == PT_LOAD && a >= e.bias + p->p_vaddr &&
		    a - (e.bias + p->p_vaddr) < p->p_memsz)
			return 1;
	}
	return 0;
}

/* An address of the executable's dynamic section: ld.so has made its
 * pointers absolute on these machines; an offset below the bias is not yet. */
static const char *dyn_ptr(const struct exe_seg *e, Elf64_Addr p)
{
	return (const char *)(e->bias && p < e->bias ? p + e->bias : p);
}

/* Whether the executable's dynamic symbols list NAME as undefined (it
 * takes NAME from a library), read from its loaded PT_DYNAMIC: the symbol
 * table runs up to the string table, which follows it in every linker's
 * layout, and no further than MAX_DYNSYMS entries. */
#define MAX_DYNSYMS 200000
static int exe_imports(const char *name)
{
	struct exe_seg e;
	const Elf64_Dyn *d = NULL;
	if (exe_segments(&e) < 0)
		return 0;
	for (Elf64_Half i = 0; i < e.phnum; i++)
		if (e.phdr[i].p_type == PT_DYNAMIC)
			d = (const Elf64_Dyn *)(e.bias + e.phdr[i].p_vaddr);
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	size_t strsz = 0;
	for (; d && d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)dyn_ptr(&e, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRTAB)
			str = dyn_ptr(&e, d->d_un.d_ptr);
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
	}
	if (!sym || !str || (const char *)sym >= str)
		return 0;
	size_t n = (size_t)(str - (const char *)sym) / sizeof(*sym), len = strlen(name);
	for (size_t i = 1; i < n && i < MAX_DYNSYMS; i++)
		if (sym[i].st_shndx == SHN_UNDEF && sym[i].st_name < strsz &&
		    strsz - sym[i].st_name > len && !memcmp(str + sym[i].st_name, name, len + 1))
			return 1;
	return 0;
}

int tmh_allocstats_in_exe(const char *name, const void *fn)
{
	return in_segments(fn) && !exe_imports(name);
}

/* Records that symbol NAME of probe P is at ADDR in *A. */
static void take(struct tmh_allocstats *a, const struct probe *p, void *addr)
{
	if (a->kind && a->kind != p->kind)
		return; /* the first allocator recognised is the one */
	a->kind = p->kind;
	if (p->role == JE_CTL && !a->mallctl)
		a->mallctl = (int (*)(const char *, void *, size_t *, void *, size_t))addr;
	else if (p->role == TC_PROP && !a->tc_prop)
		a->tc_prop = (int (*)(const char *, size_t *))addr;
	else if (p->role == MI_INFO && !a->mi_info)
		a->mi_info = (void (*)(size_t *, size_t *, size_t *, size_t *, size_t *, size_t *,
		                       size_t *, size_t *))addr;
}

/* The dynamic symbols: those the executable exports (-rdynamic, or used by
 * a library). */
static void find_dynamic(struct tmh_allocstats *a)
{
	for (size_t i = 0; i < NPROBES; i++) {
		void *f = dlsym(RTLD_DEFAULT, probes[i].name);
		if (f && tmh_allocstats_in_exe(probes[i].name, f))
			take(a, &probes[i], f);
	}
}

/* Section I of the mapped file M (SIZE bytes), or NULL when out of it. */
static const Elf64_Shdr *section(const char *m, size_t size, const Elf64_Ehdr *eh, size_t i)
{
	if (i >= eh->e_shnum)
		return NULL;
	const Elf64_Shdr *s = (const Elf64_Shdr *)(m + eh->e_shoff + i * eh->e_shentsize);
	if (s->sh_offset > size || s->sh_size > size - s->sh_offset)
		return NULL;
	return s;
}

/* The defined functions of the symbol table SYM (strings in STR) of the
 * file M that a probe names, into *A at BIAS. */
static void scan_symtab(struct tmh_allocstats *a, const char *m, const Elf64_Shdr *sym,
                        const Elf64_Shdr *str, Elf64_Addr bias)
{
	const Elf64_Sym *s = (const Elf64_Sym *)(m + sym->sh_offset);
	size_t n = sym->sh_size / sizeof(*s);
	const char *strs = m + str->sh_offset;
	for (size_t i = 0; i < n; i++) {
		if (s[i].st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s[i].st_info) != STT_FUNC ||
		    s[i].st_name >= str->sh_size)
			continue;
		const char *name = strs + s[i].st_name;
		size_t room = str->sh_size - s[i].st_name;
		for (size_t p = 0; p < NPROBES; p++)
			if (strnlen(name, room) == strlen(probes[p].name) &&
			    !strcmp(name, probes[p].name))
				take(a, &probes[p], (void *)(bias + s[i].st_value));
	}
}

/* The executable's own symbol table (.symtab: gone when stripped). */
static void find_symtab(struct tmh_allocstats *a)
{
	struct exe_seg e;
	struct stat st;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (exe_segments(&e) < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	size_t size = (size_t)st.st_size;
	const char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
	if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_shentsize == sizeof(Elf64_Shdr) &&
	    eh->e_shoff < size && eh->e_shnum <= (size - eh->e_shoff) / sizeof(Elf64_Shdr)) {
		for (size_t i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *s = section(m, size, eh, i);
			const Elf64_Shdr *str =
			    s && s->sh_type == SHT_SYMTAB ? section(m, size, eh, s->sh_link) : NULL;
			if (str && str->sh_type == SHT_STRTAB)
				scan_symtab(a, m, s, str, e.bias);
		}
	}
	munmap((void *)m, size);
}

int tmh_allocstats_find_exe(struct tmh_allocstats *a)
{
	memset(a, 0, sizeof(*a));
	a->in_exe = 1;
	find_dynamic(a);
	if (!a->mallctl && !a->tc_prop && !a->mi_info)
		find_symtab(a);
	return a->kind;
}

static int read_jemalloc(const struct tmh_allocstats *a, struct tmh_allocfig *f)
{
	uint64_t epoch = 1;
	size_t sz = sizeof(epoch), allocated = 0, active = 0, resident = 0, zs = sizeof(size_t);
	if (a->mallctl("epoch", &epoch, &sz, &epoch, sz) != 0 ||
	    a->mallctl("stats.allocated", &allocated, &zs, NULL, 0) != 0)
		return -1;
	f->allocated_bytes = (int64_t)allocated;
	zs = sizeof(size_t);
	if (a->mallctl("stats.active", &active, &zs, NULL, 0) == 0)
		f->active_bytes = (int64_t)active;
	zs = sizeof(size_t);
	if (a->mallctl("stats.resident", &resident, &zs, NULL, 0) == 0)
		f->resident_bytes = (int64_t)resident;
	return 0;
}

static int read_tcmalloc(const struct tmh_allocstats *a, struct tmh_allocfig *f)
{
	size_t heap = 0, unmapped = 0, allocated = 0;
	if (a->tc_prop("generic.current_allocated_bytes", &allocated))
		f->allocated_bytes = (int64_t)allocated;
	if (a->tc_prop("generic.heap_size", &heap) &&
	    a->tc_prop("tcmalloc.pageheap_unmapped_bytes", &unmapped) && heap >= unmapped)
		f->resident_bytes = (int64_t)(heap - unmapped);
	return f->allocated_bytes >= 0 || f->resident_bytes >= 0 ? 0 : -1;
}

int tmh_allocstats_read(const struct tmh_allocstats *a, struct tmh_allocfig *f)
{
	f->allocated_bytes = f->active_bytes = f->resident_bytes = -1;
	if (a->kind == TMH_ALLOC_JEMALLOC && a->mallctl)
		return read_jemalloc(a, f);
	if (a->kind == TMH_ALLOC_TCMALLOC && a->tc_prop)
		return read_tcmalloc(a, f);
	if (a->kind == TMH_ALLOC_MIMALLOC && a->mi_info) {
		size_t el, ut, st, rss, prss, commit = 0, pcommit, faults;
		a->mi_info(&el, &ut, &st, &rss, &prss, &commit, &pcommit, &faults);
		f->resident_bytes = (int64_t)commit;
		return 0;
	}
	return -1;
}
