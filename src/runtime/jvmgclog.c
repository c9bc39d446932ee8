#include <stdbool.h>
#include <string.h>

#include "runtime/jvmgclog.h"
#include "runtime/registry.h"
#include "base/banned.h"

struct cur {
	const char *p, *end;
};

static bool lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

static bool uint_at(struct cur *c, int64_t *v)
{
	int digits = 0;
	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 15) {
		*v = *v * 10 + (*c->p++ - '0');
		digits++;
	}
	return digits > 0 && !(c->p < c->end && *c->p >= '0' && *c->p <= '9');
}

/* A size as HotSpot prints it: digits and B, K, M or G. */
static bool size_at(struct cur *c, int64_t *bytes, int64_t *unit)
{
	int64_t v;
	if (!uint_at(c, &v) || c->p >= c->end)
		return false;
	switch (*c->p++) {
	case 'B':
		*unit = 1;
		break;
	case 'K':
		*unit = 1 << 10;
		break;
	case 'M':
		*unit = 1 << 20;
		break;
	case 'G':
		*unit = 1 << 30;
		break;
	default:
		return false;
	}
	/* 15 digits of G overflow: no heap HotSpot prints (found by fuzz_runtime) */
	return !__builtin_mul_overflow(v, *unit, bytes);
}

/* Past the decorations: "[...]" groups and the spaces after them. */
static void skip_decorations(struct cur *c)
{
	for (;;) {
		while (c->p < c->end && *c->p == ' ')
			c->p++;
		if (c->p >= c->end || *c->p != '[')
			return;
		const char *close = memchr(c->p, ']', (size_t)(c->end - c->p));
		if (!close)
			return;
		c->p = close + 1;
	}
}

/* "24M->3M(256M) 2.1ms" at the end of a pause line. */
static int pause_sizes(struct cur *c, struct tm_jgc_line *out)
{
	const char *arrow = NULL;
	for (const char *q = c->p; q + 1 < c->end; q++)
		if (q[0] == '-' && q[1] == '>')
			arrow = q;
	if (!arrow)
		return 1;
	const char *start = arrow;
	while (start > c->p && start[-1] != ' ')
		start--;
	struct cur s = {start, c->end};
	int64_t u1, u2, u3;
	if (!size_at(&s, &out->before_bytes, &u1) || !lit(&s, "->") ||
	    !size_at(&s, &out->after_bytes, &u2) || !lit(&s, "(") ||
	    !size_at(&s, &out->capacity_bytes, &u3) || !lit(&s, ") "))
		return 1;
	out->resolution_bytes = u2;
	out->kind = TM_JGC_PAUSE;
	return 0;
}

/* "14552K(175104K)->15833K(175104K)" (or "14552K->15833K(175104K)"). */
static int old_sizes(struct cur *c, struct tm_jgc_line *out)
{
	int64_t u, cap;
	if (!size_at(c, &out->before_bytes, &u))
		return 1;
	if (lit(c, "(") && (!size_at(c, &cap, &u) || !lit(c, ")")))
		return 1;
	if (!lit(c, "->") || !size_at(c, &out->after_bytes, &out->resolution_bytes) ||
	    !lit(c, "(") || !size_at(c, &out->capacity_bytes, &u) || !lit(c, ")"))
		return 1;
	out->kind = TM_JGC_OLD;
	return 0;
}

int tm_jvmgclog_line(const char *line, size_t len, struct tm_jgc_line *out)
{
	struct cur c = {line, line + len};

	skip_decorations(&c);
	if (!lit(&c, "GC(") || !uint_at(&c, &out->gc_id) || !lit(&c, ") "))
		return 1;
	if (lit(&c, "Pause "))
		return pause_sizes(&c, out);
	if (lit(&c, "ParOldGen: ") || lit(&c, "PSOldGen: ") || lit(&c, "Tenured: "))
		return old_sizes(&c, out);
	return 1;
}

/* Whether the selectors (before the first ':') log the gc tag at info. */
static bool logs_gc(const char *sel, size_t n)
{
	const char *p = sel, *end = sel + n;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		size_t k = (size_t)((comma ? comma : end) - p);
		/* gc, gc*, gc=info, gc*=debug, gc+heap... (tags joined by '+') */
		if (k >= 2 && !memcmp(p, "gc", 2) &&
		    (k == 2 || p[2] == '*' || p[2] == '=' || p[2] == '+')) {
			const char *eq = memchr(p, '=', k);
			if (!eq)
				return true;
			size_t lv = k - (size_t)(eq + 1 - p);
			return !((lv == 7 && !memcmp(eq + 1, "warning", 7)) ||
			         (lv == 5 && !memcmp(eq + 1, "error", 5)) ||
			         (lv == 3 && !memcmp(eq + 1, "off", 3)));
		}
		p += k + 1;
	}
	return false;
}

int tm_jvmgclog_output(const char *word, char *path, size_t size)
{
	const char *w, *colon, *out, *oend;
	size_t n;

	if (strncmp(word, "-Xlog:", 6))
		return 0;
	w = word + 6;
	colon = strchr(w, ':');
	if (!logs_gc(w, colon ? (size_t)(colon - w) : strlen(w)))
		return 0;
	if (!colon || colon[1] == ':' || colon[1] == '\0')
		return 1; /* no output given: stdout */
	out = colon + 1;
	oend = strchr(out, ':');
	n = oend ? (size_t)(oend - out) : strlen(out);
	if (n == 6 && !memcmp(out, "stdout", 6))
		return 1;
	if (n == 6 && !memcmp(out, "stderr", 6))
		return 2;
	if (n > 5 && !memcmp(out, "file=", 5)) {
		out += 5;
		n -= 5;
	}
	if (n >= size || memchr(out, '%', n) || (n >= 1 && out[0] == '"'))
		return 0;
	memcpy(path, out, n);
	path[n] = '\0';
	return 3;
}

static const enum tm_metric jvm_figures[] = {TM_M_JVM_PROCS,
                                             TM_M_JVM_HEAP_USED_BYTES,
                                             TM_M_JVM_HEAP_COMMITTED_BYTES,
                                             TM_M_JVM_EDEN_USED_BYTES,
                                             TM_M_JVM_EDEN_COMMITTED_BYTES,
                                             TM_M_JVM_SURVIVOR_USED_BYTES,
                                             TM_M_JVM_SURVIVOR_COMMITTED_BYTES,
                                             TM_M_JVM_OLD_USED_BYTES,
                                             TM_M_JVM_OLD_COMMITTED_BYTES,
                                             TM_M_JVM_METASPACE_USED_BYTES,
                                             TM_M_JVM_METASPACE_COMMITTED_BYTES,
                                             TM_M_JVM_YOUNG_GCS,
                                             TM_M_JVM_YOUNG_GC_USEC,
                                             TM_M_JVM_FULL_GCS,
                                             TM_M_JVM_FULL_GC_USEC,
                                             TM_M_JVM_PROCS_NO_COUNTERS,
                                             TM_M_JVM_LOG_HEAP_BEFORE_BYTES,
                                             TM_M_JVM_LOG_HEAP_AFTER_BYTES,
                                             TM_M_JVM_LOG_OLD_AFTER_BYTES,
                                             TM_M_JVM_LOG_GCS,
                                             TM_METRIC_COUNT};

/* The /metrics HELP of the JVM's own metrics. */
static const struct tm_rt_help jvm_help[] = {
    {TM_M_JVM_PROCS, "JVMs in the observed tree whose hsperfdata counters are read."},
    {TM_M_JVM_HEAP_USED_BYTES, "Java heap in use, all generations (hsperfdata)."},
    {TM_M_JVM_HEAP_COMMITTED_BYTES, "Java heap committed, all generations (hsperfdata)."},
    {TM_M_JVM_EDEN_USED_BYTES, "Java eden space in use (hsperfdata)."},
    {TM_M_JVM_EDEN_COMMITTED_BYTES, "Java eden space committed (hsperfdata)."},
    {TM_M_JVM_SURVIVOR_USED_BYTES, "Java survivor spaces in use (hsperfdata)."},
    {TM_M_JVM_SURVIVOR_COMMITTED_BYTES, "Java survivor spaces committed (hsperfdata)."},
    {TM_M_JVM_OLD_USED_BYTES, "Java old generation in use (hsperfdata)."},
    {TM_M_JVM_OLD_COMMITTED_BYTES, "Java old generation committed (hsperfdata)."},
    {TM_M_JVM_METASPACE_USED_BYTES, "JVM metaspace in use (hsperfdata)."},
    {TM_M_JVM_METASPACE_COMMITTED_BYTES, "JVM metaspace committed (hsperfdata)."},
    {TM_M_JVM_YOUNG_GCS, "Young-generation collections of the JVMs (hsperfdata)."},
    {TM_M_JVM_YOUNG_GC_USEC, "Time the JVMs spent in young-generation collections "
                             "(hsperfdata)."},
    {TM_M_JVM_FULL_GCS, "Full (old-generation) collections of the JVMs (hsperfdata)."},
    {TM_M_JVM_FULL_GC_USEC, "Time the JVMs spent in full collections (hsperfdata)."},
    {TM_M_JVM_PROCS_NO_COUNTERS, "JVMs in the observed tree that publish no hsperfdata counters "
                                 "(-XX:-UsePerfData or -XX:+PerfDisableSharedMem)."},
    {TM_M_JVM_LOG_HEAP_BEFORE_BYTES, "Java heap before the latest GC, from the JVM's GC log "
                                     "(-Xlog:gc; whole MiB as the JVM prints them)."},
    {TM_M_JVM_LOG_HEAP_AFTER_BYTES, "Java heap after the latest GC, from the JVM's GC log "
                                    "(-Xlog:gc; whole MiB as the JVM prints them)."},
    {TM_M_JVM_LOG_OLD_AFTER_BYTES, "Java old generation after the latest GC, from the JVM's GC "
                                   "log (-Xlog:gc*; absent under G1, which logs regions)."},
    {TM_M_JVM_LOG_GCS, "GCs in the JVM's GC log (-Xlog:gc)."},
    {TM_M_JVM_HEAP_RESIDENT_BYTES, "Resident anonymous bytes of the JVMs' Java heap mappings "
                                   "(smaps of each heap's reserved range): live and free but "
                                   "touched heap."},
    {TM_M_JVM_HEAP_RESIDENT_PROCS, "JVMs whose Java heap mapping was found and read."},
    {TM_METRIC_COUNT, NULL}};

/* The panel's default series shows the Java heap beside tidemark's own. */
static const enum tm_metric jvm_panel[] = {TM_M_JVM_HEAP_USED_BYTES, TM_M_JVM_HEAP_COMMITTED_BYTES,
                                           TM_M_JVM_OLD_USED_BYTES, TM_METRIC_COUNT};

/* HotSpot: its hsperfdata counters (runtime/hsperf.c, found by the file each
 * process maps: sample/jvm.c) and its -Xlog:gc lines (this file, found by
 * the command line's own -Xlog option: record/jvmlog.c); its split is
 * report/run/jvmsplit.c's. */
const struct tm_runtime_desc tm_rt_jvm = {
    .name = "jvm",
    .title = "JVM (HotSpot)",
    .found_by = TM_RT_BY_MAPS | TM_RT_BY_FLAGS,
    .publishes = "hsperfdata counters (generations, metaspace, GCs); -Xlog:gc lines",
    .stream = TM_RT_STREAM_NONE,
    .gc_line = NULL,
    .stored_env = NULL,
    .gc_note = "",
    .split = NULL,
    .figures = jvm_figures,
    .text_label = "java heap",
    .summary_field = "jvm_heap_used_end_bytes",
    .help_word = "hsperfdata",
    .help = jvm_help,
    .panel = jvm_panel,
    .docs = "| `jvm` | by the hsperfdata file a process maps; its `-Xlog:gc` option | "
            "hsperfdata counters; heap before and after each GC in its log | `jvm_*` | Java "
            "heap used, the JVM's malloc, other anon |",
};
