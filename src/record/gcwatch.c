#include <stdio.h>
#include <string.h>

#include "record/gcwatch.h"
#include "runtime/gclog.h"
#include "base/banned.h"

extern char **environ;

const char *const tm_runtime_names[] = {"none", "go", "ghc", NULL};

int tm_gcwatch_env(enum tm_runtime rt, char *const *envp, char *buf, size_t size)
{
	const char *var = rt == TM_RUNTIME_GO ? "GODEBUG" : "GHCRTS";
	const char *add = rt == TM_RUNTIME_GO ? "gctrace=1" : "-S";
	const char *sep = rt == TM_RUNTIME_GO ? "," : " ";
	size_t vl = strlen(var);
	const char *old = NULL;
	int n;

	if (rt == TM_RUNTIME_NONE)
		return -1;
	if (!envp)
		envp = environ;
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, var, vl) && (*envp)[vl] == '=')
			old = *envp + vl + 1;
	if (old && *old)
		n = snprintf(buf, size, "%s=%s%s%s", var, old, sep, add);
	else
		n = snprintf(buf, size, "%s=%s", var, add);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static void on_line(void *ctx, const char *line)
{
	struct tm_gcwatch *w = ctx;
	struct tm_gc_event e;
	size_t n = strlen(line);
	int rc = w->rt == TM_RUNTIME_GO ? tm_gclog_go(line, n, &e) : tm_gclog_ghc(line, n, &e);

	if (rc)
		return;
	w->seen = true;
	w->live_bytes = e.live_bytes;
	w->cycles++;
}

void tm_gcwatch_feed(struct tm_gcwatch *w, const char *data, size_t n)
{
	if (w->rt != TM_RUNTIME_NONE)
		tm_lines_feed(&w->lines, data, n, on_line, w);
}

void tm_gcwatch_flush(struct tm_gcwatch *w)
{
	if (w->rt != TM_RUNTIME_NONE)
		tm_lines_flush(&w->lines, on_line, w);
}

void tm_gcwatch_sample(const struct tm_gcwatch *w, struct tm_sample *s)
{
	if (!w->seen)
		return;
	tm_sample_set(s, TM_M_GC_HEAP_LIVE_BYTES, w->live_bytes);
	tm_sample_set(s, TM_M_GC_CYCLES, w->cycles);
}
