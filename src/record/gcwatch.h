/*
 * --runtime go|ghc: the program's runtime reports each garbage collection
 * on stderr (Go: GODEBUG=gctrace=1; GHC: GHCRTS=-S), and the recorder reads
 * the live heap after the last one from those lines (src/runtime/gclog.h)
 * while passing them on unchanged.
 */
#ifndef TM_GCWATCH_H
#define TM_GCWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "record/progress.h"

enum tm_runtime { TM_RUNTIME_NONE, TM_RUNTIME_GO, TM_RUNTIME_GHC };

/* The names --runtime takes, in enum order, NULL-terminated. */
extern const char *const tm_runtime_names[];

struct tm_gcwatch {
	enum tm_runtime rt;
	struct tm_lines lines;
	bool seen;          /* a GC line has been read */
	int64_t live_bytes; /* after the last GC */
	int64_t cycles;     /* GC lines read */
};

/*
 * The environment variable that turns the runtime's GC lines on, added to
 * the value ENVP (NULL: ours) already has for it (a GODEBUG the user set is kept):
 * "GODEBUG=...,gctrace=1" or "GHCRTS=... -S", into BUF (SIZE bytes).
 * 0, or -1 for TM_RUNTIME_NONE or when it does not fit.
 */
int tm_gcwatch_env(enum tm_runtime rt, char *const *envp, char *buf, size_t size);

/* Feeds N bytes of the program's stderr (any split into reads). */
void tm_gcwatch_feed(struct tm_gcwatch *w, const char *data, size_t n);
void tm_gcwatch_flush(struct tm_gcwatch *w);

/* Puts GC_HEAP_LIVE_BYTES and GC_CYCLES into S once a GC line was read;
 * before that both stay absent (not 0). */
void tm_gcwatch_sample(const struct tm_gcwatch *w, struct tm_sample *s);

#endif
