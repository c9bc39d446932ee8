/*
 * zlib's gzip file functions, loaded when first used, not linked: a heap
 * profile written or read (heap/heapprof, heap/heaptop) and a gzipped HPROF
 * dump (hprof/input) use them, a plain recorder never does, and linked, its
 * pages were 84 KiB of the recorder's RSS (issue 23; base/dl.h).
 */
#ifndef TM_BASE_ZLIB_H
#define TM_BASE_ZLIB_H

#include <zlib.h>

/* The soname loaded (Debian's zlib1g). */
#define TM_ZLIB_SONAME "libz.so.1"

/* Every zlib function tidemark calls. */
#define TM_ZLIB_FUNCS(X)                                                                           \
	X(gzopen)                                                                                  \
	X(gzdopen)                                                                                 \
	X(gzbuffer)                                                                                \
	X(gzread)                                                                                  \
	X(gzwrite)                                                                                 \
	X(gzerror)                                                                                 \
	X(gzclose)

/* One pointer a function, of the type zlib.h declares, named as it is. */
struct tm_zlib {
#define TM_ZLIB_FIELD(f) __typeof__(&f) f;
	TM_ZLIB_FUNCS(TM_ZLIB_FIELD)
#undef TM_ZLIB_FIELD
};

/*
 * Loads zlib (TM_ZLIB_SONAME; the first call maps it, for the process's
 * life) and fills Z with its functions.  0, or -1 after tm_error saying
 * what is missing ("cannot load libz.so.1: ...; ... (Debian: zlib1g)").
 */
int tm_zlib_load(struct tm_zlib *z);

#endif
