/*
 * HotSpot's unified GC log (-Xlog:gc, -Xlog:gc*), one line at a time:
 * the figures a JVM run without its hsperfdata counters
 * (-XX:-UsePerfData, -XX:+PerfDisableSharedMem) still gives.  Pure: text
 * in, figures out; a line that is not one of these is "not mine" (1),
 * never an error, since the log may share stdout or stderr with the
 * program.  Checked on JDK 17's G1, Parallel and Serial logs
 * (tests/fixtures/jvmgclog/).
 */
#ifndef TM_JVMGCLOG_H
#define TM_JVMGCLOG_H

#include <stddef.h>
#include <stdint.h>

enum tm_jgc_kind {
	/* [gc] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 24M->3M(256M) 2.1ms:
	 * the heap used before and after the pause, its capacity after */
	TM_JGC_PAUSE,
	/* [gc,heap] GC(3) ParOldGen: 14552K(175104K)->15833K(175104K), or
	 * Tenured: ...: the old generation used after the collection */
	TM_JGC_OLD,
};

struct tm_jgc_line {
	enum tm_jgc_kind kind;
	int64_t gc_id;            /* the N of GC(N) */
	int64_t before_bytes;     /* PAUSE: heap used before; OLD: old used before */
	int64_t after_bytes;      /* heap (PAUSE) or old gen (OLD) used after */
	int64_t capacity_bytes;   /* after the collection */
	int64_t resolution_bytes; /* the unit printed (1 MiB for 24M): the true
	                             value is in [v, v + resolution) */
};

/*
 * Parses one line (LEN bytes, no newline needed; decorations such as
 * "[0.877s][info][gc] " are skipped).  0 and OUT filled, or 1 when it is
 * not a pause line with heap figures or an old generation line.  G1's
 * "Old regions: 22->28" counts whole regions, not bytes used, and is not
 * taken.
 */
int tm_jvmgclog_line(const char *line, size_t len, struct tm_jgc_line *out);

/*
 * Where one -Xlog option WORD ("-Xlog:gc*:file=gc.log", "-Xlog:gc",
 * "-Xlog:gc+heap=info:stderr") sends the gc tag's lines: 1 stdout, 2 stderr,
 * 3 a file (its name into PATH, SIZE bytes); 0 when WORD is not an -Xlog
 * option that logs gc at info (or finer), or names a file with %p or %t in
 * it, or one that does not fit.
 */
int tm_jvmgclog_output(const char *word, char *path, size_t size);

#endif
