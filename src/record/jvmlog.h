/*
 * The launched JVM's own GC log (-Xlog:gc..., on its command line or in
 * JAVA_TOOL_OPTIONS / JDK_JAVA_OPTIONS): read from its stdout, its stderr
 * (passed on unchanged) or its file, line by line through
 * src/runtime/jvmgclog.h, into the jvm_log_* metrics.  The source of the
 * Java heap's figures for a JVM without hsperfdata counters.
 */
#ifndef TM_JVMLOG_H
#define TM_JVMLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "record/gcwatch.h"

enum tm_jvmlog_where { TM_JLOG_NONE, TM_JLOG_STDOUT, TM_JLOG_STDERR, TM_JLOG_FILE };

struct tm_jvmlog {
	enum tm_jvmlog_where where;
	struct tm_lines lines[2]; /* stdout, stderr */
	struct tm_gcfile file;
	bool seen; /* a pause with heap figures was read */
	int64_t before_bytes, after_bytes;
	bool old_seen; /* an old generation line went with a pause */
	int64_t old_after_bytes;
	int64_t gcs;                 /* distinct GC(N) ids with a pause */
	int64_t last_id;             /* of the last pause, -1 before the first */
	int64_t old_id, old_pending; /* the last old gen line, for its pause */
};

/*
 * Where the JVM started by ARGV (its words, and the words within each, so
 * that `sh -c "java -Xlog:gc ..."` counts) with ENVP (NULL: ours) writes its
 * GC log; the last -Xlog option that logs gc wins.  Sets J up to read it
 * (a file: noted before the launch, tm_gcfile_init).
 */
void tm_jvmlog_setup(struct tm_jvmlog *j, char *const *envp, char *const *argv);

/* Feeds N bytes of the command's stdout (I = 0) or stderr (1). */
void tm_jvmlog_feed(struct tm_jvmlog *j, int i, const char *data, size_t n);
void tm_jvmlog_flush(struct tm_jvmlog *j, int i);
/* Reads the log file's new lines, when the log goes to a file. */
void tm_jvmlog_poll(struct tm_jvmlog *j);
void tm_jvmlog_close(struct tm_jvmlog *j);

/* Puts the jvm_log_* metrics into S once a pause was read (absent before,
 * never 0; the old gen only when the collector logs it in bytes). */
void tm_jvmlog_sample(const struct tm_jvmlog *j, struct tm_sample *s);

#endif
