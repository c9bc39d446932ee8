/*
 * The allocator registry: every malloc tidemark knows, once.
 *
 * One line an allocator arm; what else knows allocators derives from it: a
 * bench arm's shortcut and the names in its error messages (bench/spec.c),
 * the library search and the package to install (bench/spec.c,
 * doctor/doctor_env.c: one doctor check per allocator with a library), what
 * /proc/PID/maps shows of it (kern/procfs.c), the arms' colours of the
 * panel's charts (the module /js/allocators.js, generated from this list by
 * mk/serve.mk), the packages scripts/deps.sh installs (checked by
 * tests/unit/test_allocators.c against this list) and the
 * statistics the heap shim reads (shim/stats.c, which stands alone: the
 * same test checks its probes against STATS).  Append only: the position is
 * the enum's value.
 *
 * X(ID, "name", "family", "lib1", "pkg1", "lib2", "pkg2", "stats", "exe", "colour")
 *   name    the shortcut: bench --arm NAME, Allocator=NAME
 *   family  what /proc/PID/maps must show for the arm ("glibc" when no
 *           library of another is mapped; else the library whose file name
 *           starts with "lib" FAMILY)
 *   lib1/2  the libraries to LD_PRELOAD, best first ("" for none), each
 *           with the Debian package that installs it
 *   stats   the symbol through which the heap shim reads the allocator's
 *           own statistics in the process (glibc: mallinfo2)
 *   exe     the symbols (space-separated) that recognise the allocator
 *           linked into an executable that defines malloc itself, its
 *           statistics entry points first: sample/exesyms.c names the
 *           process's allocator by them, shim/allocstats.c reads its
 *           statistics through them (the unit test checks both name the
 *           same); "" for glibc, which cannot be linked in under the shim
 *   colour  its colour in the panel's charts
 */
#ifndef TM_ALLOCATORS_H
#define TM_ALLOCATORS_H

#include <stddef.h>

/* clang-format off */
#define TM_ALLOCATOR_LIST(X)                                                                       \
	X(GLIBC, "glibc", "glibc", "", "", "", "", "mallinfo2", "", "#1f77b4")                     \
	/* glibc with MALLOC_ARENA_MAX=1 (bench/env.c, unit.c set it) */                           \
	X(ARENA1, "arena1", "glibc", "", "", "", "", "mallinfo2", "", "#ff7f0e")                   \
	X(JEMALLOC, "jemalloc", "jemalloc", "libjemalloc.so.2", "libjemalloc2", "", "", "mallctl", \
	  "mallctl _rjem_mallctl je_mallctl", "#2ca02c")                                           \
	X(MIMALLOC, "mimalloc", "mimalloc", "libmimalloc.so.2", "libmimalloc2.0",                  \
	  "libmimalloc.so.2.0", "libmimalloc2.0", "mi_process_info",                               \
	  "mi_process_info mi_malloc", "#9467bd")                                                  \
	/* gperftools' tcmalloc, the minimal one first (no profiler) */                            \
	X(TCMALLOC, "tcmalloc", "tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4",    \
	  "libtcmalloc.so.4", "libgoogle-perftools4", "MallocExtension_GetNumericProperty",        \
	  "MallocExtension_GetNumericProperty tc_malloc", "#8c564b")                               \
	/* the full gperftools tcmalloc (with its heap profiler and checker) */                    \
	X(TCMALLOC_FULL, "tcmalloc-full", "tcmalloc", "libtcmalloc.so.4", "libgoogle-perftools4",  \
	  "", "", "MallocExtension_GetNumericProperty",                                            \
	  "MallocExtension_GetNumericProperty tc_malloc", "#7f7f7f")
/* clang-format on */

enum tm_alloc {
#define TM_ALLOC_ENUM(id, ...) TM_ALLOC_##id,
	TM_ALLOCATOR_LIST(TM_ALLOC_ENUM)
#undef TM_ALLOC_ENUM
	    TM_ALLOC_COUNT
};

/* The allocators from here on have a library to preload; those before it
 * none (base/allocators.c checks it when it compiles). */
#define TM_ALLOC_FIRST_LIB TM_ALLOC_JEMALLOC

/* An allocator's descriptor: one line of TM_ALLOCATOR_LIST. */
struct tm_alloc_info {
	const char *name, *family;
	const char *lib[2], *pkg[2];      /* NULL where the line says "" */
	const char *stats, *exe, *colour; /* exe: NULL where the line says "" */
};

/* A's descriptor; NULL when A is not an allocator. */
const struct tm_alloc_info *tm_alloc_info(enum tm_alloc a);
/* The allocator whose shortcut is NAME, or -1. */
int tm_alloc_by_name(const char *name);
/* The shortcuts as a list for a message, "glibc, arena1, ... or LAST"
 * (SEP_LAST: " or ", ", "), into BUF; BUF. */
const char *tm_alloc_names(char *buf, size_t size, const char *sep_last);
/* The allocator family a library path or file name stands for ("jemalloc"
 * for .../libjemalloc.so.2), by the registry's families: the file name
 * starts with "lib" FAMILY; NULL for none but glibc's. */
const char *tm_alloc_family_of_lib(const char *file_name, size_t len);

#endif
