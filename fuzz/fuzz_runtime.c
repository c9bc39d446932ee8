/* libFuzzer target: the runtime parsers (src/runtime) and the maps search
 * that finds a JVM's hsperfdata file (0 hsperfdata, 1 maps, 2 Prometheus
 * text, 3 Go and GHC GC log lines, GHC's exit line and -S<file> words,
 * every registered runtime's GC line parser (runtime/registry.h: V8's too),
 * HotSpot's -Xlog:gc lines and -Xlog options,
 * 4 --scrape's option text and the series it chooses from a page, 5 jcmd's
 * class histogram), on
 * arbitrary bytes.  The first byte
 * picks the parser (modulo their count); the rest is its input.  They must
 * never crash, read out of bounds or leak; what they accept is consistent. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "runtime/gclog.h"
#include "runtime/hsperf.h"
#include "runtime/jvmgclog.h"
#include "runtime/jvmhisto.h"
#include "runtime/promtext.h"
#include "runtime/registry.h"
#include "runtime/scrapesel.h"
#include "sample/jvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void hsperf(const uint8_t *d, size_t n)
{
	struct tm_hsperf h;
	struct tm_sample s;
	struct tm_err err = {0};
	int64_t v;

	if (tm_hsperf_parse(d, n, &h, &err) == 0) {
		tm_sample_clear(&s);
		tm_hsperf_to_sample(&h, &s);
		if (tm_hsperf_has(&h, TM_HS_OLD_USED) &&
		    (tm_hsperf_lookup(d, n, tm_hsperf_name(TM_HS_OLD_USED), &v) ||
		     v != h.v[TM_HS_OLD_USED]))
			abort();
	} else if (!memchr(err.msg, 0, sizeof(err.msg)) || strncmp(err.msg, "hsperfdata", 10)) {
		abort();
	}
}

static void maps(const uint8_t *d, size_t n)
{
	char path[256];
	if (tm_jvm_maps_find((const char *)d, n, path, sizeof(path)) == 0 &&
	    !strstr(path, "/hsperfdata_"))
		abort();
}

static int each(void *ctx, const struct tm_prom_sample *s)
{
	char v[64];
	(*(int *)ctx)++;
	if (s->name_len == 0)
		abort();
	(void)tm_prom_label(s->labels, s->labels_len, "le", v, sizeof(v));
	return 0;
}

static void prom(const uint8_t *d, size_t n)
{
	struct tm_err err = {0};
	int count = 0;
	(void)tm_prom_parse((const char *)d, n, each, &count, &err);
}

static void gclog(const uint8_t *d, size_t n)
{
	struct tm_gc_event e;
	if (tm_gclog_go((const char *)d, n, &e) == 0 &&
	    (e.live_bytes < 0 || e.live_resolution != 1 << 20))
		abort();
	if (tm_gclog_ghc((const char *)d, n, &e) == 0 && e.live_bytes < 0)
		abort();
	/* every runtime's parser: a live figure is -1 (none) or a size */
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++) {
		tm_rt_gc_line_fn line = tm_runtime_desc((enum tm_runtime)rt)->gc_line;
		if (line && line((const char *)d, n, &e) == 0 &&
		    (e.live_bytes < -1 || e.live_resolution < 1 || e.heap_before_bytes < -1))
			abort();
	}
	/* a GHC collection line is never the RTS's exit line */
	if (tm_gclog_ghc_exit((const char *)d, n) == 0 && tm_gclog_ghc((const char *)d, n, &e) == 0)
		abort();
	char word[64], file[32];
	size_t w = n < sizeof(word) - 1 ? n : sizeof(word) - 1;
	memcpy(word, d, w);
	word[w] = '\0';
	int rc = tm_gclog_ghc_stats_file(word, file, sizeof(file));
	if (rc == 0 && (strncmp(word, "-S", 2) || strlen(file) >= sizeof(file)))
		abort();
	/* HotSpot's -Xlog:gc lines and options */
	struct tm_jgc_line j;
	if (tm_jvmgclog_line((const char *)d, n, &j) == 0 &&
	    (j.before_bytes < 0 || j.after_bytes < 0 || j.resolution_bytes <= 0))
		abort();
	rc = tm_jvmgclog_output(word, file, sizeof(file));
	if (rc < 0 || rc > 3 || (rc == 3 && strlen(file) >= sizeof(file)))
		abort();
}

/* The input's first line is a --scrape value; the rest a page it scrapes. */
static void scrape(const uint8_t *d, size_t n)
{
	static struct tm_scrape_spec spec;
	static struct tm_scrape_result res;
	const uint8_t *nl = memchr(d, '\n', n);
	size_t ol = nl ? (size_t)(nl - d) : n;
	char opt[TM_SCRAPE_SPEC_MAX + 1];
	struct tm_err why = {0};

	if (ol > TM_SCRAPE_SPEC_MAX)
		ol = TM_SCRAPE_SPEC_MAX;
	memcpy(opt, d, ol);
	opt[ol] = 0;
	if (tm_scrape_spec_parse(opt, &spec, &why) &&
	    tm_scrape_spec_parse("http://h/m", &spec, &why))
		abort();
	if (tm_scrape_select(&spec, (const char *)d + (nl ? ol + 1 : n), nl ? n - ol - 1 : 0, &res,
	                     &why) == 0) {
		for (size_t i = 0; i < res.n; i++)
			if (!memchr(res.v[i].name, 0, sizeof(res.v[i].name)) ||
			    !isfinite(res.v[i].value))
				abort();
	} else if (res.n) {
		abort();
	}
}

/* jcmd GC.class_histogram: names NUL-terminated, rows within the count. */
static void histo(const uint8_t *d, size_t n)
{
	static struct tm_jvm_histo h;
	struct tm_err err = {0};

	if (tm_jvm_histo_parse((const char *)d, n, &h, &err) == 0) {
		if (h.n_top > TM_JH_TOP || h.n_top > h.classes)
			abort();
		for (size_t i = 0; i < h.n_top; i++)
			if (!memchr(h.top[i].name, 0, sizeof(h.top[i].name)) || !h.top[i].name[0])
				abort();
	} else if (!memchr(err.msg, 0, sizeof(err.msg)) ||
	           strncmp(err.msg, "class histogram", 15)) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void (*const parsers[])(const uint8_t *, size_t) = {hsperf, maps,   prom,
	                                                           gclog,  scrape, histo};
	if (size == 0)
		return 0;
	uint8_t *copy = malloc(size - 1 ? size - 1 : 1); /* exact size: ASan sees overreads */
	memcpy(copy, data + 1, size - 1);
	parsers[data[0] % (sizeof(parsers) / sizeof(parsers[0]))](copy, size - 1);
	free(copy);
	return 0;
}
