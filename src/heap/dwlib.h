/*
 * libdw (elfutils' libdwfl), loaded when a heap profile is first
 * symbolized, not linked: with libelf, libbz2, liblzma and libzstd it maps
 * about 0.35 MiB of resident pages into every process, which a recorder
 * never uses (bench/README.md, "Where the RSS is").  The functions the
 * symbolizer (heap/symbolize.c) calls are one list; each symbolizer keeps
 * its own table.
 */
#ifndef TM_HEAP_DWLIB_H
#define TM_HEAP_DWLIB_H

#include <elfutils/libdwfl.h>

/* The soname loaded (Debian's libdw1). */
#define TM_DWLIB_SONAME "libdw.so.1"

/* Every libdw function the symbolizer calls or hands libdw as a callback. */
#define TM_DWLIB_FUNCS(X)                                                                          \
	X(dwfl_begin)                                                                              \
	X(dwfl_end)                                                                                \
	X(dwfl_errmsg)                                                                             \
	X(dwfl_report_begin)                                                                       \
	X(dwfl_report_end)                                                                         \
	X(dwfl_linux_proc_maps_report)                                                             \
	X(dwfl_linux_proc_find_elf)                                                                \
	X(dwfl_standard_find_debuginfo)                                                            \
	X(dwfl_addrmodule)                                                                         \
	X(dwfl_module_getelf)                                                                      \
	X(dwfl_module_build_id)                                                                    \
	X(dwfl_module_addrname)                                                                    \
	X(dwfl_module_getsrc)                                                                      \
	X(dwfl_lineinfo)

/* One pointer a function, of the type its header declares, named as it is. */
struct tm_dwlib {
#define TM_DWLIB_FIELD(f) __typeof__(&f) f;
	TM_DWLIB_FUNCS(TM_DWLIB_FIELD)
#undef TM_DWLIB_FIELD
};

/*
 * Loads libdw (TM_DWLIB_SONAME; the first call maps it, and it stays mapped
 * for the process's life: RTLD_NODELETE, so the pointers never dangle) and
 * fills L with its functions.  0, or -1 after tm_error saying what is
 * missing ("cannot load libdw.so.1: ...; install libdw1").
 */
int tm_dwlib_load(struct tm_dwlib *l);

#endif
