/*
 * --runtime NAME (runtime/registry.h: go, ghc, node): the program's runtime
 * reports each garbage collection on its stderr or stdout (Go:
 * GODEBUG=gctrace=1; GHC: GHCRTS=-S; Node.js: node --trace-gc), and the
 * recorder reads the live heap after the last one from those lines (the
 * runtime's descriptor's parser) while passing them on unchanged.
 */
#ifndef TM_GCWATCH_H
#define TM_GCWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "record/progress.h"
#include "runtime/registry.h"

/* Where GHC's +RTS -S lines go: the file the program's own options name. */
struct tm_gcfile {
	char path[4096];  /* "" when the lines go to stderr */
	int fd;           /* -1 until the RTS has (re)written the file */
	int64_t pos;      /* bytes read */
	bool had_old;     /* the path existed before the launch: its inode and */
	uint64_t old_ino; /* mtime then, so that a stale file is not read */
	int64_t old_mtime_nsec;
	struct tm_lines lines;
};

struct tm_gcwatch {
	enum tm_runtime rt;
	struct tm_lines lines;
	bool seen;          /* a GC line with a live figure has been read */
	int64_t live_bytes; /* after the last GC that gave one */
	int64_t cycles;     /* GC lines read */
	/* GHC: the state before the last GC line, put back when the RTS's exit
	 * line says that GC was its teardown (every thread gone: not the
	 * program's live heap); after the exit line nothing more is read */
	bool seen_before;
	int64_t live_before, cycles_before;
	bool exited;
	struct tm_gcfile file;
	char **argv; /* the command line launched with the runtime's flag (node
	                --trace-gc), or NULL: the user's; freed by close */
};

/*
 * The environment variable that turns the runtime's GC lines on, added to
 * the value ENVP (NULL: ours) already has for it (a GODEBUG the user set is kept):
 * "GODEBUG=...,gctrace=1" or "GHCRTS=... -S", into BUF (SIZE bytes).
 * 0; 1 when the runtime has no such variable (TM_RUNTIME_NONE, node);
 * -1 when it does not fit.
 */
int tm_gcwatch_env(enum tm_runtime rt, char *const *envp, char *buf, size_t size);

/*
 * The command line that turns the runtime's GC lines on, when it is a flag
 * of the runtime's own executable (node --trace-gc): ARGV with the flag
 * after the program's name, when that name (its last component) is one of
 * the runtime's executables and no word of ARGV names the flag already.
 * 0 with OUT (MAX pointers, NULL-terminated, ARGV's strings and the flag's:
 * not to be freed) filled; 1 when ARGV is to run unchanged (also when it
 * does not fit).
 */
int tm_gcwatch_argv(enum tm_runtime rt, char *const *argv, char **out, size_t max);

/*
 * GHC: where the program's own RTS options send +RTS -S's lines, from the
 * words of GHCRTS in ENVP (NULL: ours), then the words of ARGV between
 * "+RTS" and "-RTS" (the RTS reads them in that order; the last -S wins).
 * 0 with FILE ("" for its stderr) when they name one: the recorder then adds
 * no -S of its own (which would take the user's file away); 1 when they
 * name none; -1 when the name does not fit in SIZE bytes.
 */
int tm_gcwatch_ghc_target(char *const *envp, char *const *argv, char *file, size_t size);

/*
 * Sets W to read GHC's lines from PATH (relative to our working directory,
 * the program's) instead of stderr.  Notes the file that is there before
 * the launch, if any: it is read only once the RTS has rewritten it.
 */
void tm_gcwatch_use_file(struct tm_gcwatch *w, const char *path);

/*
 * A runtime's log file read as it grows: F set to PATH (relative to our
 * working directory); the file there before the launch, if any, is noted
 * and read only once the runtime has rewritten it (other inode or mtime).
 */
void tm_gcfile_init(struct tm_gcfile *f, const char *path);
/*
 * Passes each line appended since the last call to CB (at most 1 MiB a
 * call).  Opened with O_NOFOLLOW|O_NONBLOCK; only a regular file of our own
 * user is read; a file that shrank (rewritten) is read from its start.
 */
void tm_gcfile_poll(struct tm_gcfile *f, tm_line_cb cb, void *ctx);
void tm_gcfile_close(struct tm_gcfile *f);

/*
 * Reads what the RTS appended to the -S file since the last call (at most
 * 1 MiB a call: bounded, whatever the file holds).  Opened with
 * O_NOFOLLOW|O_NONBLOCK; only a regular file of our own user is read.
 * Nothing to do when the lines go to stderr.
 */
void tm_gcwatch_poll(struct tm_gcwatch *w);
/* Closes the file and frees ARGV. */
void tm_gcwatch_close(struct tm_gcwatch *w);

/* Feeds N bytes of the program's stdout (I = 0) or stderr (1), any split
 * into reads; only the stream the runtime writes its lines to is read. */
void tm_gcwatch_feed(struct tm_gcwatch *w, int i, const char *data, size_t n);
void tm_gcwatch_flush(struct tm_gcwatch *w, int i);

/* Puts GC_CYCLES into S once a GC line was read, GC_HEAP_LIVE_BYTES once
 * one with a live figure was; before that they stay absent (not 0). */
void tm_gcwatch_sample(const struct tm_gcwatch *w, struct tm_sample *s);

#endif
