#include <stdio.h>
#include <string.h>

#include "record/jvmlog.h"
#include "runtime/jvmgclog.h"
#include "base/banned.h"

extern char **environ;

/* The -Xlog words of TEXT (split at spaces and quotes): the last that logs gc. */
static void scan_words(struct tm_jvmlog *j, const char *text)
{
	char word[4096], path[4096];
	const char *p = text;

	while (*p) {
		p += strspn(p, " \t'\"");
		size_t n = strcspn(p, " \t'\"");
		if (n && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			int w = tm_jvmgclog_output(word, path, sizeof(path));
			if (w)
				j->where = (enum tm_jvmlog_where)w;
			if (w == TM_JLOG_FILE)
				tm_gcfile_init(&j->file, path);
		}
		p += n;
	}
}

void tm_jvmlog_setup(struct tm_jvmlog *j, char *const *envp, char *const *argv)
{
	static const char *const vars[] = {"JAVA_TOOL_OPTIONS=", "JDK_JAVA_OPTIONS="};

	*j = (struct tm_jvmlog){.where = TM_JLOG_NONE, .last_id = -1, .old_id = -1};
	j->file.fd = -1;
	if (!envp)
		envp = environ;
	for (; envp && *envp; envp++)
		for (size_t v = 0; v < 2; v++)
			if (!strncmp(*envp, vars[v], strlen(vars[v])))
				scan_words(j, *envp + strlen(vars[v]));
	for (int i = 0; argv && argv[i]; i++)
		scan_words(j, argv[i]);
	if (j->where != TM_JLOG_FILE)
		j->file.path[0] = '\0';
}

static void on_line(void *ctx, const char *line)
{
	struct tm_jvmlog *j = ctx;
	struct tm_jgc_line g;

	if (tm_jvmgclog_line(line, strlen(line), &g))
		return;
	if (g.kind == TM_JGC_OLD) {
		j->old_id = g.gc_id;
		j->old_pending = g.after_bytes;
		return;
	}
	if (g.gc_id != j->last_id)
		j->gcs++;
	j->last_id = g.gc_id;
	j->seen = true;
	j->before_bytes = g.before_bytes;
	j->after_bytes = g.after_bytes;
	if (j->old_id == g.gc_id) { /* its old gen line came before it */
		j->old_seen = true;
		j->old_after_bytes = j->old_pending;
	}
}

void tm_jvmlog_feed(struct tm_jvmlog *j, int i, const char *data, size_t n)
{
	if ((int)j->where == i + 1)
		tm_lines_feed(&j->lines[i], data, n, on_line, j);
}

void tm_jvmlog_flush(struct tm_jvmlog *j, int i)
{
	if ((int)j->where == i + 1)
		tm_lines_flush(&j->lines[i], on_line, j);
}

void tm_jvmlog_poll(struct tm_jvmlog *j)
{
	if (j->where == TM_JLOG_FILE)
		tm_gcfile_poll(&j->file, on_line, j);
}

void tm_jvmlog_close(struct tm_jvmlog *j)
{
	if (j->where == TM_JLOG_FILE)
		tm_gcfile_close(&j->file);
}

void tm_jvmlog_sample(const struct tm_jvmlog *j, struct tm_sample *s)
{
	if (!j->seen)
		return;
	tm_sample_set(s, TM_M_JVM_LOG_HEAP_BEFORE_BYTES, j->before_bytes);
	tm_sample_set(s, TM_M_JVM_LOG_HEAP_AFTER_BYTES, j->after_bytes);
	tm_sample_set(s, TM_M_JVM_LOG_GCS, j->gcs);
	if (j->old_seen)
		tm_sample_set(s, TM_M_JVM_LOG_OLD_AFTER_BYTES, j->old_after_bytes);
}
