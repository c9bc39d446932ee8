#include <string.h>

#include "runtime/gclog.h"
#include "runtime/registry.h"
#include "base/banned.h"

/* A cursor over one line. */
struct cur {
	const char *p, *end;
};

static void skip_spaces(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n))
		return false;
	c->p += n;
	return true;
}

/* A decimal integer (no sign), at most 18 digits. */
static bool uint_at(struct cur *c, int64_t *v)
{
	int digits = 0;
	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 18) {
		*v = *v * 10 + (*c->p++ - '0');
		digits++;
	}
	return digits > 0 && !(c->p < c->end && *c->p >= '0' && *c->p <= '9');
}

/* A number like 0.013 (digits, optional fraction): skipped, checked. */
static bool decimal(struct cur *c)
{
	int64_t v;
	if (!uint_at(c, &v))
		return false;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		return uint_at(c, &v);
	}
	return true;
}

/* Moves past the next occurrence of S; false when none. */
static bool past(struct cur *c, const char *s)
{
	const char *q = memmem(c->p, (size_t)(c->end - c->p), s, strlen(s));
	if (!q)
		return false;
	c->p = q + strlen(s);
	return true;
}

int tm_gclog_go(const char *line, size_t len, struct tm_gc_event *out)
{
	struct cur c = {line, line + len};
	int64_t before, after, live, goal;

	if (!lit(&c, "gc ") || !uint_at(&c, &out->gc_number) || !lit(&c, " @") || !decimal(&c) ||
	    !lit(&c, "s ") || !past(&c, "%: ") || !past(&c, " ms cpu, "))
		return 1;
	if (!uint_at(&c, &before) || !lit(&c, "->") || !uint_at(&c, &after) || !lit(&c, "->") ||
	    !uint_at(&c, &live) || !lit(&c, " MB, ") || !uint_at(&c, &goal) || !lit(&c, " MB goal"))
		return 1;
	(void)after;
	out->live_bytes = live << 20;
	out->live_resolution = 1 << 20;
	out->heap_before_bytes = before << 20;
	out->goal_bytes = goal << 20;
	out->generation = -1;
	out->forced = memmem(c.p, (size_t)(c.end - c.p), "(forced)", 8) != NULL;
	return 0;
}

int tm_gclog_ghc(const char *line, size_t len, struct tm_gc_event *out)
{
	struct cur c = {line, line + len};
	int64_t alloc, copied, live, faults, gen;

	skip_spaces(&c);
	if (!uint_at(&c, &alloc))
		return 1;
	skip_spaces(&c);
	if (!uint_at(&c, &copied))
		return 1;
	skip_spaces(&c);
	if (!uint_at(&c, &live))
		return 1;
	for (int i = 0; i < 4; i++) { /* GC user, GC elapsed, total user, total elapsed */
		skip_spaces(&c);
		if (!decimal(&c))
			return 1;
	}
	for (int i = 0; i < 2; i++) { /* page faults */
		skip_spaces(&c);
		if (!uint_at(&c, &faults))
			return 1;
	}
	skip_spaces(&c);
	if (!lit(&c, "(Gen:"))
		return 1;
	skip_spaces(&c);
	if (!uint_at(&c, &gen) || !lit(&c, ")"))
		return 1;
	(void)alloc, (void)copied, (void)faults;
	*out = (struct tm_gc_event){-1, live, 1, -1, -1, gen, false};
	return 0;
}

int tm_gclog_ghc_exit(const char *line, size_t len)
{
	struct cur c = {line, line + len};
	int64_t alloc;
	const char *after;

	skip_spaces(&c);
	if (!uint_at(&c, &alloc))
		return 1;
	after = c.p;
	skip_spaces(&c);
	if (c.p - after < 20) /* the two blank columns, %9.9s each */
		return 1;
	if (!lit(&c, "0.000"))
		return 1;
	skip_spaces(&c);
	if (!lit(&c, "0.000"))
		return 1;
	skip_spaces(&c);
	return c.p == c.end ? 0 : 1;
}

int tm_gclog_ghc_stats_file(const char *word, char *buf, size_t size)
{
	const char *f;
	size_t n;

	if (strncmp(word, "-S", 2))
		return 1;
	f = word + 2;
	if (!strcmp(f, "stderr"))
		f = "";
	n = strlen(f);
	if (n >= size)
		return -1;
	memcpy(buf, f, n + 1);
	return 0;
}

static const enum tm_metric gc_figures[] = {TM_M_GC_HEAP_LIVE_BYTES, TM_M_GC_CYCLES,
                                            TM_METRIC_COUNT};

const struct tm_runtime_desc tm_rt_go = {
    .name = "go",
    .title = "Go",
    .found_by = TM_RT_BY_OPTION,
    .publishes = "the live heap after each GC, in whole MiB (GODEBUG=gctrace=1)",
    .stream = TM_RT_STREAM_STDERR,
    .gc_line = tm_gclog_go,
    .env_var = "GODEBUG",
    .env_add = "gctrace=1",
    .env_sep = ",",
    .stored_env = "gctrace=1",
    .gc_note = "; Go prints whole MiB",
    .figures = gc_figures,
    .text_label = "gc heap",
    .summary_field = "gc_heap_live_end_bytes",
    .help_word = "go",
    .docs = "| `go` | `--runtime go` (sets `GODEBUG=gctrace=1`) | the live heap after each GC, "
            "in whole MiB, on stderr | `gc_heap_live_bytes`, `gc_cycles` | none of its own |",
};

const struct tm_runtime_desc tm_rt_ghc = {
    .name = "ghc",
    .title = "GHC",
    .found_by = TM_RT_BY_OPTION | TM_RT_BY_FLAGS,
    .publishes = "bytes live after each GC (+RTS -S)",
    .stream = TM_RT_STREAM_STDERR,
    .gc_line = tm_gclog_ghc,
    .env_var = "GHCRTS",
    .env_add = "-S",
    .env_sep = " ",
    .stored_env = "GHCRTS",
    .gc_note = "",
    .figures = gc_figures,
    .text_label = "gc heap",
    .summary_field = "gc_heap_live_end_bytes",
    .help_word = "ghc",
    .docs = "| `ghc` | `--runtime ghc` (sets `GHCRTS=-S`; the program's own `-S<file>` is read "
            "there) | bytes live after each GC, on stderr or its file | `gc_heap_live_bytes`, "
            "`gc_cycles` | none of its own |",
};
