/*
 * The attached agent's hook (libtidemark-heap-attach.so only): every
 * loaded object's relocation entries (its GOT) for the allocation
 * functions are pointed at the agent's entry points, and put back at
 * detach.  Objects are walked with dl_iterate_phdr; each one's DT_JMPREL
 * (PLT calls) and DT_RELA (GLOB_DAT: -fno-plt calls and the functions'
 * addresses) are read for the names below; an entry inside PT_GNU_RELRO
 * (read-only after start-up: -z relro -z now) is written between two
 * mprotect calls.  Objects loaded after the attach are not hooked
 * (docs/heap.md "attach").
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "arch.h"
#include "shim.h"

void *malloc(size_t n);
void free(void *p);
void *calloc(size_t nmemb, size_t size);
void *realloc(void *p, size_t n);
void *reallocarray(void *p, size_t nmemb, size_t size);
void *memalign(size_t align, size_t n);
void *aligned_alloc(size_t align, size_t n);
int posix_memalign(void **out, size_t align, size_t n);
void *valloc(size_t n);
void *pvalloc(size_t n);

static const struct {
	const char *name;
	void *fn;
} hooked[] = {
    {"malloc", (void *)malloc},
    {"free", (void *)free},
    {"calloc", (void *)calloc},
    {"realloc", (void *)realloc},
    {"reallocarray", (void *)reallocarray},
    {"memalign", (void *)memalign},
    {"aligned_alloc", (void *)aligned_alloc},
    {"posix_memalign", (void *)posix_memalign},
    {"valloc", (void *)valloc},
    {"pvalloc", (void *)pvalloc},
};

#define TMH_HOOKS_MAX 8192 /* entries kept for the restore: 128 KiB */
static struct hook {
	void **slot;
	void *old;
	void *now;
	int relro;
} hooks[TMH_HOOKS_MAX];
static int nhooks;

struct object {
	uintptr_t base, relro_lo, relro_hi;
	const Elf64_Sym *symtab;
	const char *strtab;
};

static void *hook_for(const char *name)
{
	for (size_t i = 0; i < sizeof(hooked) / sizeof(hooked[0]); i++)
		if (!strcmp(name, hooked[i].name))
			return hooked[i].fn;
	return NULL;
}

/* A page-aligned write window around SLOT when it is in RELRO. */
static int unprotect(void **slot, int relro, int prot)
{
	if (!relro)
		return 0;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return mprotect((void *)((uintptr_t)slot & ~(page - 1)), page, prot);
}

/* Rewrites the entries of one relocation table of O (N bytes at RELA). */
static int hook_table(const struct object *o, const Elf64_Rela *rela, size_t n)
{
	int added = 0;
	for (size_t i = 0; i < n / sizeof(*rela) && nhooks < TMH_HOOKS_MAX; i++) {
		unsigned long type = ELF64_R_TYPE(rela[i].r_info);
		if (type != TMH_R_JUMP_SLOT && type != TMH_R_GLOB_DAT)
			continue;
		const Elf64_Sym *sym = &o->symtab[ELF64_R_SYM(rela[i].r_info)];
		void *fn = hook_for(o->strtab + sym->st_name);
		if (!fn)
			continue;
		void **slot = (void **)(o->base + rela[i].r_offset);
		int relro = (uintptr_t)slot >= o->relro_lo && (uintptr_t)slot < o->relro_hi;
		if (*slot == fn || unprotect(slot, relro, PROT_READ | PROT_WRITE) != 0)
			continue;
		hooks[nhooks] = (struct hook){slot, *slot, fn, relro};
		__atomic_store_n(slot, fn, __ATOMIC_RELEASE);
		unprotect(slot, relro, PROT_READ);
		nhooks++;
		added++;
	}
	return added;
}

/* A dynamic entry's address: glibc relocates most in place, the vdso's not. */
static uintptr_t dyn_ptr(uintptr_t base, Elf64_Addr p)
{
	return p < base ? base + p : p;
}

static int hook_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	Dl_info self;
	if (!dladdr((void *)hook_object, &self) || info->dlpi_addr == (uintptr_t)self.dli_fbase)
		return 0;
	if (info->dlpi_name && strstr(info->dlpi_name, "/ld-linux"))
		return 0; /* the loader allocates through its own pointer */
	struct object o = {.base = info->dlpi_addr};
	const Elf64_Dyn *dyn = NULL;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(o.base + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			o.relro_lo = (o.base + ph->p_vaddr) & ~(page - 1);
			o.relro_hi = (o.base + ph->p_vaddr + ph->p_memsz) & ~(page - 1);
		}
	}
	if (!dyn)
		return 0;
	const Elf64_Rela *jmprel = NULL, *rela = NULL;
	size_t jmprel_n = 0, rela_n = 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB:
			o.symtab = (const void *)dyn_ptr(o.base, dyn->d_un.d_ptr);
			break;
		case DT_STRTAB:
			o.strtab = (const void *)dyn_ptr(o.base, dyn->d_un.d_ptr);
			break;
		case DT_JMPREL:
			jmprel = (const void *)dyn_ptr(o.base, dyn->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			jmprel_n = dyn->d_un.d_val;
			break;
		case DT_RELA:
			rela = (const void *)dyn_ptr(o.base, dyn->d_un.d_ptr);
			break;
		case DT_RELASZ:
			rela_n = dyn->d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (!o.symtab || !o.strtab)
		return 0;
	int added = (jmprel ? hook_table(&o, jmprel, jmprel_n) : 0) +
	            (rela ? hook_table(&o, rela, rela_n) : 0);
	if (added)
		++*(int64_t *)data;
	return 0;
}

int64_t tmh_got_hook(int64_t *objects)
{
	int first = nhooks;
	*objects = 0;
	dl_iterate_phdr(hook_object, objects);
	return nhooks - first;
}

void tmh_got_restore(void)
{
	for (int i = nhooks - 1; i >= 0; i--) {
		struct hook *h = &hooks[i];
		if (__atomic_load_n(h->slot, __ATOMIC_ACQUIRE) != h->now ||
		    unprotect(h->slot, h->relro, PROT_READ | PROT_WRITE) != 0)
			continue;
		__atomic_store_n(h->slot, h->old, __ATOMIC_RELEASE);
		unprotect(h->slot, h->relro, PROT_READ);
	}
	nhooks = 0;
}

struct find {
	const char *name;
	uintptr_t self;
	void *found;
};

static int find_in(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct find *f = data;
	if (f->found || !info->dlpi_name || !info->dlpi_name[0] || info->dlpi_addr == f->self)
		return 0; /* the executable (no name): its canonical PLT entries are no definition
		           */
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	void *fn = dlsym(h, f->name);
	Dl_info where;
	if (fn && dladdr(fn, &where) && (uintptr_t)where.dli_fbase == info->dlpi_addr)
		f->found = fn;
	dlclose(h);
	return 0;
}

void *tmh_got_resolve(const char *name)
{
	Dl_info self;
	struct find f = {name, 0, NULL};
	if (dladdr((void *)tmh_got_resolve, &self))
		f.self = (uintptr_t)self.dli_fbase;
	dl_iterate_phdr(find_in, &f);
	return f.found;
}
