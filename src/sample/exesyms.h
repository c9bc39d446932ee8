/*
 * Which allocator an executable has linked into it: a program whose
 * executable defines malloc itself (a static jemalloc, tikv-jemallocator,
 * mimalloc, tcmalloc) takes no malloc from a shared library, so its
 * memory map names no allocator and a preloaded heap shim sees none of
 * its calls.
 */
#ifndef TM_EXESYMS_H
#define TM_EXESYMS_H

#include <stddef.h>
#include <sys/types.h>

/* What an executable's symbols say of its malloc. */
enum tm_exe_malloc {
	TM_EXE_MALLOC_UNKNOWN = -1, /* not a 64-bit ELF file we could read */
	TM_EXE_MALLOC_SHARED = 0,   /* malloc comes from a shared library */
	TM_EXE_MALLOC_LINKED = 1,   /* the executable defines malloc */
	/* malloc comes from a shared library, and an allocator is linked into
	 * the executable beside it (Rust's tikv-jemallocator: _rjem_malloc) */
	TM_EXE_MALLOC_BESIDE = 2,
};

/*
 * Reads the ELF file PATH (opened without blocking; a regular file only):
 * does its dynamic symbol table define malloc, and which allocator's
 * recognising symbols (base/allocators.h, the "exe" column) its dynamic or
 * full symbol table defines: that allocator's family ("jemalloc") into
 * FAMILY (SIZE bytes), "" when none is recognised (a stripped binary, or
 * an allocator tidemark does not know).  Bounded: at most 4096 sections,
 * symbol tables of at most 256 MiB each, read once and a chunk at a time
 * into about 13 KiB of work space, whatever the executable's size (a
 * node's executable with its symbols can hold hundreds of MiB of them);
 * a symbol table is read only when its strings spell one of the names,
 * and more than 512 places that spell one make the reading UNKNOWN.
 */
enum tm_exe_malloc tm_exe_malloc_of(const char *path, char *family, size_t size);

#endif
