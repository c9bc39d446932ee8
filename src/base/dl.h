/*
 * A system library loaded when first used, not linked: libsystemd
 * (sysd/sdlib), libdw (heap/dwlib), zlib (base/zlib), protobuf-c
 * (base/pb) and inih (bench/ini), so that a plain `record` maps none of
 * them (issue 23: their pages were 1.4 MiB of its RSS).  Each keeps its list of functions, as a
 * struct of typed pointers and a table saying where each one goes;
 * tm_dl_load fills the struct from the library.
 */
#ifndef TM_BASE_DL_H
#define TM_BASE_DL_H

#include <stddef.h>

/* One function of a library's table: its name, and where its pointer goes
 * in the struct (offset, size). */
struct tm_dl_fn {
	const char *name;
	size_t offset;
	size_t size;
};

/* The entry of member F of struct type T, named as the library names it. */
#define TM_DL_FN(T, f) {#f, offsetof(T, f), sizeof(((T *)0)->f)},

/*
 * Opens SONAME (dlopen RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE: once loaded
 * it stays mapped, so the pointers taken from it stay valid) and fills the
 * struct at TABLE (TABLE_SIZE bytes, zeroed first) with the N functions FNS
 * name (copied, not cast from object pointers).  0, or -1 after tm_error
 * saying what is missing: the library (and NEEDED_BY, "systemd units ...
 * need it (Debian: libsystemd0)") or one of its functions ("SONAME lacks
 * NAME").  The library stays loaded either way.
 */
int tm_dl_load(const char *soname, const char *needed_by, const struct tm_dl_fn *fns, size_t n,
               void *table, size_t table_size);

#endif
