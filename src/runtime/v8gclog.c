/*
 * Node.js: V8's own GC lines, `node --trace-gc` (and `--trace-gc-nvp`),
 * which V8 prints on the program's stdout, one line per collection:
 *
 *   [17126:0x2e06ed40]   324 ms: Mark-Compact 20.1 (36.8) -> 18.7 (36.0) MB, 1.91 / 0.00 ms ...
 *   [17126:0x2e06ed40]   251 ms: Scavenge 14.6 (23.1) -> 14.6 (31.1) MB, 11.40 / 0.00 ms ...
 *   [16648:0x3c84dd50]   597 ms: pause=30.9 mutator=289.3 gc=mc ... total_size_before=21049856
 *                                 total_size_after=19640984 ...
 *
 * The figures are the heap's objects (V8's SizeOfObjects) before and after
 * the collection; --trace-gc prints them in MB (MiB) with one decimal,
 * rounded, --trace-gc-nvp in bytes.  Only a full collection (Mark-Compact,
 * Mark-Sweep; nvp gc=mc) gives the live heap: after a minor one (Scavenge,
 * Minor Mark-Compact/Sweep) the old generation's garbage is still counted.
 * Pure: text in, figures out; every other line is "not mine".
 * This file is the runtime's whole part of src/runtime (its registry line
 * is in runtime/registry.h; docs/runtimes.md, "Node.js").
 */
#include <string.h>

#include "runtime/registry.h"
#include "base/banned.h"

/* Digits at *P (before END), at most 18 of them, into V; false when none. */
static bool digits(const char **p, const char *end, int64_t *v, int *count)
{
	int n = 0;

	*v = 0;
	for (; *p < end && **p >= '0' && **p <= '9'; (*p)++) {
		if (++n > 18)
			return false;
		*v = *v * 10 + (**p - '0');
	}
	if (count)
		*count = n;
	return n > 0;
}

/* "[PID:0xADDR]  T ms: ": moves *P past it. */
static bool prefix(const char **p, const char *end)
{
	int64_t v;
	const char *q = *p;

	if (q >= end || *q++ != '[' || !digits(&q, end, &v, NULL) || q + 3 > end ||
	    memcmp(q, ":0x", 3))
		return false;
	q = memchr(q, ']', (size_t)(end - q));
	if (!q)
		return false;
	for (q++; q < end && *q == ' '; q++)
		;
	if (!digits(&q, end, &v, NULL))
		return false;
	if (q < end && *q == '.' && (++q, !digits(&q, end, &v, NULL)))
		return false;
	if ((size_t)(end - q) < 5 || memcmp(q, " ms: ", 5))
		return false;
	*p = q + 5;
	return true;
}

/* A size in MB with a fraction ("18.7"), as bytes rounded to the byte. */
static bool mib(const char **p, const char *end, int64_t *bytes)
{
	int64_t whole, frac = 0, scale = 1;
	int n = 0;

	if (!digits(p, end, &whole, NULL) || whole > (INT64_C(1) << 40))
		return false;
	if (*p < end && **p == '.') {
		(*p)++;
		if (!digits(p, end, &frac, &n) || n > 6)
			return false;
		while (n--)
			scale *= 10;
	}
	*bytes = whole * 1048576 + (frac * 1048576 + scale / 2) / scale;
	return true;
}

/* "B (C) -> A (C) MB": before and after. */
static bool sizes(const char *p, const char *end, int64_t *before, int64_t *after)
{
	int64_t committed;

	if (!mib(&p, end, before) || (size_t)(end - p) < 2 || memcmp(p, " (", 2))
		return false;
	p += 2;
	if (!mib(&p, end, &committed) || (size_t)(end - p) < 5 || memcmp(p, ") -> ", 5))
		return false;
	p += 5;
	if (!mib(&p, end, after) || (size_t)(end - p) < 2 || memcmp(p, " (", 2))
		return false;
	p += 2;
	return mib(&p, end, &committed) && (size_t)(end - p) >= 4 && !memcmp(p, ") MB", 4);
}

/* The value of " KEY=" in an nvp line: its start, or NULL. */
static const char *nvp(const char *p, const char *end, const char *key)
{
	size_t k = strlen(key);

	for (const char *q = p; (q = memmem(q, (size_t)(end - q), key, k)); q += k)
		if (q[-1] == ' ' && (size_t)(end - q) > k && q[k] == '=')
			return q + k + 1;
	return NULL;
}

static int trace_gc_nvp(const char *p, const char *end, struct tm_gc_event *out)
{
	const char *gc = nvp(p, end, "gc"), *b = nvp(p, end, "total_size_before"),
	           *a = nvp(p, end, "total_size_after");
	int64_t before, after;

	if (!gc || !b || !a || !digits(&b, end, &before, NULL) || !digits(&a, end, &after, NULL))
		return 1;
	bool full =
	    (size_t)(end - gc) >= 2 && !memcmp(gc, "mc", 2) && (gc + 2 == end || gc[2] == ' ');
	*out = (struct tm_gc_event){-1, full ? after : -1, 1, before, -1, full, false};
	return 0;
}

static int trace_gc(const char *line, size_t len, struct tm_gc_event *out)
{
	static const char *const full[] = {"Mark-Compact ", "Mark-Compact (reduce) ", "Mark-Sweep ",
	                                   "Mark-sweep ", "Mark-sweep (reduce) "};
	static const char *const minor[] = {"Scavenge ", "Minor Mark-Compact ",
	                                    "Minor Mark-Sweep "};
	const char *p = line, *end = line + len;
	int64_t before, after;

	if (!prefix(&p, end))
		return 1;
	if ((size_t)(end - p) > 6 && !memcmp(p, "pause=", 6))
		return trace_gc_nvp(p, end, out);
	for (size_t i = 0; i < sizeof(full) / sizeof(full[0]) + sizeof(minor) / sizeof(minor[0]);
	     i++) {
		bool is_full = i < sizeof(full) / sizeof(full[0]);
		const char *t = is_full ? full[i] : minor[i - sizeof(full) / sizeof(full[0])];
		size_t n = strlen(t);
		if ((size_t)(end - p) <= n || memcmp(p, t, n) ||
		    !sizes(p + n, end, &before, &after))
			continue;
		/* one decimal of MiB, rounded: the true value is within 0.05 MiB */
		*out = (struct tm_gc_event){-1,   is_full ? after : -1, 104858, before, -1, is_full,
		                            false};
		return 0;
	}
	return 1;
}

static const enum tm_metric node_figures[] = {TM_M_GC_HEAP_LIVE_BYTES, TM_M_GC_CYCLES,
                                              TM_METRIC_COUNT};

const struct tm_runtime_desc tm_rt_node = {
    .name = "node",
    .title = "Node.js (V8)",
    .found_by = TM_RT_BY_OPTION | TM_RT_BY_EXE,
    .publishes = "V8's heap before and after each GC (--trace-gc, --trace-gc-nvp)",
    .stream = TM_RT_STREAM_STDOUT,
    .gc_line = trace_gc,
    .flag = "--trace-gc",
    .exe_names = "node nodejs",
    .stored_command = "--trace-gc",
    .gc_note = "; V8's heap after its last full GC, in 0.1 MiB unless --trace-gc-nvp",
    .split = "live JS heap after the last full GC",
    .figures = node_figures,
    .text_label = "gc heap",
    .summary_field = "gc_heap_live_end_bytes",
    .help_word = "node",
    .docs = "| `node` | `--runtime node` (adds `--trace-gc` after `node`) | V8's heap used before "
            "and after each GC, on stdout | `gc_heap_live_bytes` (after a full GC), `gc_cycles` "
            "| live JS heap after the last full GC, other anon |",
};
