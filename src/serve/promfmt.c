/* Prometheus text format for samples. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/util.h"
#include "runtime/registry.h"
#include "serve/promfmt.h"
#include "base/banned.h"

/* Metrics whose names do not follow from the generic rule. */
static const struct {
	enum tm_metric m;
	const char *family, *label;
} special[] = {
    {TM_M_CG_EVENTS_LOW, "tidemark_memory_events_total", "event=\"low\""},
    {TM_M_CG_EVENTS_HIGH, "tidemark_memory_events_total", "event=\"high\""},
    {TM_M_CG_EVENTS_MAX, "tidemark_memory_events_total", "event=\"max\""},
    {TM_M_CG_EVENTS_OOM, "tidemark_memory_events_total", "event=\"oom\""},
    {TM_M_CG_EVENTS_OOM_KILL, "tidemark_memory_events_total", "event=\"oom_kill\""},
    /* PSI as node_exporter names it: "some" is waiting, "full" is stalled */
    {TM_M_CG_PSI_MEM_SOME_USEC, "tidemark_pressure_memory_waiting_seconds_total", ""},
    {TM_M_CG_PSI_MEM_FULL_USEC, "tidemark_pressure_memory_stalled_seconds_total", ""},
    {TM_M_CG_PSI_IO_SOME_USEC, "tidemark_pressure_io_waiting_seconds_total", ""},
    {TM_M_CG_PSI_IO_FULL_USEC, "tidemark_pressure_io_stalled_seconds_total", ""},
    {TM_M_CG_PSI_CPU_SOME_USEC, "tidemark_pressure_cpu_waiting_seconds_total", ""},
    {TM_M_CG_PSI_CPU_FULL_USEC, "tidemark_pressure_cpu_stalled_seconds_total", ""},
    {TM_M_HOST_PSI_MEM_SOME_USEC, "tidemark_host_pressure_memory_waiting_seconds_total", ""},
    {TM_M_HOST_PSI_MEM_FULL_USEC, "tidemark_host_pressure_memory_stalled_seconds_total", ""},
    {TM_M_HOST_PSI_IO_SOME_USEC, "tidemark_host_pressure_io_waiting_seconds_total", ""},
    {TM_M_HOST_PSI_IO_FULL_USEC, "tidemark_host_pressure_io_stalled_seconds_total", ""},
    {TM_M_HOST_PSI_CPU_SOME_USEC, "tidemark_host_pressure_cpu_waiting_seconds_total", ""},
    {TM_M_PROC_COUNT, "tidemark_processes", ""},
    {TM_M_PROC_THREADS, "tidemark_process_threads", ""},
    /* cAdvisor's names where the meaning is the same (memory.current,
     * memory.peak, memory.max, memory.swap.max, cpu.stat, io.stat) */
    {TM_M_CG_CURRENT_BYTES, "tidemark_memory_usage_bytes", ""},
    {TM_M_CG_PEAK_BYTES, "tidemark_memory_max_usage_bytes", ""},
    {TM_M_CG_MAX_BYTES, "tidemark_spec_memory_limit_bytes", ""},
    {TM_M_CG_SWAP_MAX_BYTES, "tidemark_spec_memory_swap_limit_bytes", ""},
    {TM_M_CG_CPU_THROTTLED_USEC, "tidemark_cpu_cfs_throttled_seconds_total", ""},
    {TM_M_CG_IO_READ_BYTES, "tidemark_fs_reads_bytes_total", ""},
    {TM_M_CG_IO_WRITE_BYTES, "tidemark_fs_writes_bytes_total", ""},
    /* node_exporter's, in the snake case promtool asks for (/proc/meminfo
     * MemTotal, MemAvailable, SwapTotal, SwapFree; /proc/stat) */
    {TM_M_HOST_MEM_TOTAL_BYTES, "tidemark_host_memory_total_bytes", ""},
    {TM_M_HOST_MEM_AVAILABLE_BYTES, "tidemark_host_memory_available_bytes", ""},
    {TM_M_HOST_SWAP_TOTAL_BYTES, "tidemark_host_swap_total_bytes", ""},
    {TM_M_HOST_SWAP_FREE_BYTES, "tidemark_host_swap_free_bytes", ""},
    {TM_M_HOST_CPU_TOTAL_USEC, "tidemark_host_cpu_seconds_total", ""},
};

/* What each metric is, for its HELP line. */
static const char *const help[TM_METRIC_COUNT] = {
    [TM_M_PROC_COUNT] = "Processes in the observed tree.",
    [TM_M_PROC_THREADS] = "Threads of the observed processes.",
    [TM_M_PROC_RSS_BYTES] = "Resident memory of the observed processes (sum of VmRSS).",
    [TM_M_PROC_RSS_ANON_BYTES] = "Resident anonymous memory of the observed processes (RssAnon).",
    [TM_M_PROC_RSS_FILE_BYTES] = "Resident file-backed memory of the observed processes (RssFile).",
    [TM_M_PROC_RSS_SHMEM_BYTES] = "Resident shared memory of the observed processes (RssShmem).",
    [TM_M_PROC_SWAP_BYTES] = "Swapped-out memory of the observed processes (VmSwap).",
    [TM_M_PROC_PSS_BYTES] = "Proportional set size of the observed processes (smaps_rollup Pss).",
    [TM_M_PROC_PRIVATE_DIRTY_BYTES] = "Private dirty pages of the observed processes.",
    [TM_M_PROC_SHARED_DIRTY_BYTES] = "Shared dirty pages of the observed processes.",
    [TM_M_PROC_MINFLT] = "Minor page faults of the observed processes.",
    [TM_M_PROC_MAJFLT] = "Major page faults of the observed processes.",
    [TM_M_PROC_UTIME_USEC] = "User CPU time of the observed processes.",
    [TM_M_PROC_STIME_USEC] = "System CPU time of the observed processes.",
    [TM_M_PROC_READ_BYTES] = "Bytes the observed processes read from storage (/proc/PID/io).",
    [TM_M_PROC_WRITE_BYTES] = "Bytes the observed processes wrote to storage (/proc/PID/io).",
    [TM_M_CG_CURRENT_BYTES] = "Memory charged to the cgroup (memory.current).",
    [TM_M_CG_PEAK_BYTES] = "Highest memory charged to the cgroup (memory.peak).",
    [TM_M_CG_MAX_BYTES] = "The cgroup's hard memory limit (memory.max); absent when unlimited.",
    [TM_M_CG_HIGH_BYTES] = "The cgroup's memory throttling limit (memory.high); absent when "
                           "unlimited.",
    [TM_M_CG_SWAP_MAX_BYTES] = "The cgroup's swap limit (memory.swap.max); absent when unlimited.",
    [TM_M_CG_SWAP_CURRENT_BYTES] = "Swap used by the cgroup (memory.swap.current).",
    [TM_M_CG_ANON_BYTES] = "Anonymous memory of the cgroup (memory.stat anon).",
    [TM_M_CG_FILE_BYTES] = "Page cache of the cgroup (memory.stat file).",
    [TM_M_CG_ACTIVE_FILE_BYTES] = "Active page cache of the cgroup (memory.stat active_file).",
    [TM_M_CG_INACTIVE_FILE_BYTES] = "Inactive page cache of the cgroup (memory.stat "
                                    "inactive_file).",
    [TM_M_CG_KERNEL_BYTES] = "Kernel memory charged to the cgroup (memory.stat kernel).",
    [TM_M_CG_KERNEL_STACK_BYTES] = "Kernel stacks of the cgroup (memory.stat kernel_stack).",
    [TM_M_CG_SLAB_BYTES] = "Slab memory of the cgroup (memory.stat slab).",
    [TM_M_CG_SOCK_BYTES] = "Network buffers of the cgroup (memory.stat sock).",
    [TM_M_CG_SHMEM_BYTES] = "Shared memory of the cgroup (memory.stat shmem).",
    [TM_M_CG_FILE_MAPPED_BYTES] = "Mapped page cache of the cgroup (memory.stat file_mapped).",
    [TM_M_CG_FILE_DIRTY_BYTES] = "Dirty page cache of the cgroup (memory.stat file_dirty).",
    [TM_M_CG_FILE_WRITEBACK_BYTES] = "Page cache under writeback (memory.stat file_writeback).",
    [TM_M_CG_ANON_THP_BYTES] = "Anonymous transparent huge pages of the cgroup (memory.stat "
                               "anon_thp).",
    [TM_M_CG_PGFAULT] = "Page faults in the cgroup (memory.stat pgfault).",
    [TM_M_CG_PGMAJFAULT] = "Major page faults in the cgroup (memory.stat pgmajfault).",
    [TM_M_CG_WORKINGSET_REFAULT_FILE] = "Refaults of evicted page cache in the cgroup "
                                        "(memory.stat workingset_refault_file).",
    [TM_M_CG_FAILCNT] = "Times the cgroup hit its v1 memory limit (memory.failcnt).",
    [TM_M_CG_CPU_USAGE_USEC] = "CPU time used by the cgroup (cpu.stat usage_usec).",
    [TM_M_CG_CPU_USER_USEC] = "User CPU time of the cgroup (cpu.stat user_usec).",
    [TM_M_CG_CPU_SYSTEM_USEC] = "System CPU time of the cgroup (cpu.stat system_usec).",
    [TM_M_CG_CPU_THROTTLED_USEC] = "Time the cgroup was throttled by its CPU quota (cpu.stat "
                                   "throttled_usec).",
    [TM_M_CG_IO_READ_BYTES] = "Bytes the cgroup read from block devices (io.stat rbytes).",
    [TM_M_CG_IO_WRITE_BYTES] = "Bytes the cgroup wrote to block devices (io.stat wbytes).",
    [TM_M_HOST_MEM_TOTAL_BYTES] = "The host's memory (/proc/meminfo MemTotal).",
    [TM_M_HOST_MEM_AVAILABLE_BYTES] = "The host's available memory (/proc/meminfo MemAvailable).",
    [TM_M_HOST_SWAP_TOTAL_BYTES] = "The host's swap space (/proc/meminfo SwapTotal).",
    [TM_M_HOST_SWAP_FREE_BYTES] = "The host's free swap (/proc/meminfo SwapFree).",
    [TM_M_HOST_CPU_BUSY_USEC] = "CPU time the host spent not idle, all CPUs (/proc/stat).",
    [TM_M_HOST_CPU_STEAL_USEC] = "CPU time stolen from the host by its hypervisor (/proc/stat).",
    [TM_M_HOST_CPU_TOTAL_USEC] = "CPU time of the host in every mode, all CPUs (/proc/stat).",
    [TM_M_HEAP_PROCS] = "Processes running the tidemark heap shim.",
    [TM_M_HEAP_LIVE_BYTES] = "Heap bytes allocated and not freed (the heap shim's count).",
    [TM_M_HEAP_PEAK_BYTES] = "Highest live heap bytes (the heap shim's count).",
    [TM_M_HEAP_ALLOC_BYTES] = "Heap bytes allocated (the heap shim's count).",
    [TM_M_HEAP_ALLOCS] = "Heap allocations (the heap shim's count).",
    [TM_M_HEAP_FREES] = "Heap frees (the heap shim's count).",
    [TM_M_HEAP_HELD_BYTES] = "Bytes the allocators hold beyond the live heap, by their own "
                             "statistics (absent when some process could not answer).",
    [TM_M_GC_HEAP_LIVE_BYTES] = "Live heap after the latest GC, from the runtime's GC lines "
                                "(record --runtime, one of:" TM_RUNTIME_WORDS ").",
    [TM_M_GC_CYCLES] =
        "GC cycles the runtime reported (record --runtime, one of:" TM_RUNTIME_WORDS ").",
    [TM_M_GO_HEAP_ALLOC_BYTES] = "Go heap bytes allocated and not freed (go_memstats_heap_alloc_"
                                 "bytes, record --scrape).",
    [TM_M_HEAP_PEAK_PROVEN_BYTES] = "The tree's peak of live heap bytes the shim's counters prove "
                                    "were held at one moment (heap_peak_bytes is its upper bound).",
    [TM_M_HEAP_READ_SKEW_BYTES] = "How far the live heap moved while the sample read anon (0: the "
                                  "split's parts are from one moment).",
    [TM_M_HEAP_EXE_PROCS] = "Processes whose malloc is linked into the executable: live heap "
                            "from the allocator's own statistics, no exact peak.",
    [TM_M_CG_THP_COLLAPSE_ALLOC] = "Huge pages khugepaged collapsed in the cgroup (memory.stat "
                                   "thp_collapse_alloc): each is charged before the pages it "
                                   "replaces are freed.",
    [TM_M_HOST_HPAGE_PMD_BYTES] = "The host's transparent huge page size (hpage_pmd_size).",
    [TM_M_GO_HEAP_INUSE_BYTES] = "Go heap spans in use (go_memstats_heap_inuse_bytes, record "
                                 "--scrape).",
};

const char *tm_prom_help(enum tm_metric m, const char *family)
{
	if (!strcmp(family, "tidemark_memory_events_total"))
		return "Memory events of the cgroup (memory.events), by event.";
	if (strstr(family, "pressure_"))
		return strstr(family, "_waiting_")
		           ? "Time some task waited on the resource (pressure stall \"some\")."
		           : "Time all non-idle tasks stalled on the resource (pressure stall "
		             "\"full\").";
	return help[m] ? help[m] : tm_runtime_metric_help(m);
}

/* The HELP text of family NAME (M one of its metrics): a metric without one
 * fails test_promhelp, so the fallback keeps only the page valid. */
static const char *help_of(enum tm_metric m, const char *family)
{
	const char *h = tm_prom_help(m, family);

	return h ? h : "(no description)";
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

void tm_prom_name(enum tm_metric m, char *name, size_t size, char *label, size_t label_size,
                  double *scale)
{
	const struct tm_metric_info *mi = tm_metric_info(m);
	const char *n = mi->name, *area;
	char base[96];
	size_t len;

	*scale = mi->unit == TM_UNIT_USEC ? 1e-6 : 1.0;
	label[0] = 0;
	for (size_t i = 0; i < TM_ARRAY_SIZE(special); i++)
		if (special[i].m == m) {
			snprintf(name, size, "%s", special[i].family);
			snprintf(label, label_size, "%s", special[i].label);
			return;
		}
	/* cg_X: memory_X (cpu_ and io_ keep their own area); proc_X: process_X */
	if (starts(n, "cg_"))
		area = starts(n, "cg_cpu_") || starts(n, "cg_io_") ? "" : "memory_", n += 3;
	else if (starts(n, "proc_"))
		area = "process_", n += 5;
	else
		area = "";
	snprintf(base, sizeof(base), "%s%s", area, n);
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, "_usec"))
		snprintf(base + len - 5, sizeof(base) - (len - 5), "_seconds");
	snprintf(name, size, "tidemark_%s%s", base, mi->kind == TM_COUNTER ? "_total" : "");
}

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < b->cap - b->len) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap * 2 + (size_t)n + 256;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p, b->cap = cap;
	}
}

/* The length of the well-formed UTF-8 character at C (1 to 4 bytes), or 0
 * when C does not start one (a stray byte, a character cut short, an
 * overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_char_len(const unsigned char *c)
{
	size_t n;
	uint32_t cp;

	if (c[0] < 0x80)
		return 1;
	if (c[0] >= 0xc2 && c[0] <= 0xdf)
		n = 2, cp = c[0] & 0x1fu;
	else if (c[0] >= 0xe0 && c[0] <= 0xef)
		n = 3, cp = c[0] & 0x0fu;
	else if (c[0] >= 0xf0 && c[0] <= 0xf4)
		n = 4, cp = c[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((c[i] & 0xc0) != 0x80)
			return 0; /* also the end of the string */
		cp = cp << 6 | (c[i] & 0x3fu);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* A label value with \, " and newline escaped, always valid UTF-8: a byte
 * that is not part of a well-formed character (a value cut short, a path
 * in another encoding) becomes U+FFFD, so one machine's value can never
 * make the page unreadable for the others. */
static void put_label_value(struct buf *b, const char *v)
{
	const unsigned char *c = (const unsigned char *)(v ? v : "");

	while (*c) {
		size_t n = utf8_char_len(c);
		if (*c == '\\')
			put(b, "\\\\");
		else if (*c == '"')
			put(b, "\\\"");
		else if (*c == '\n')
			put(b, "\\n");
		else if (n == 0)
			put(b, "\xef\xbf\xbd");
		else
			put(b, "%.*s", (int)n, (const char *)c);
		c += n ? n : 1;
	}
}

/* A series' labels: the machine (the run is in tidemark_run_info). */
static void put_labels(struct buf *b, const struct tm_prom_target *t, const char *extra)
{
	put(b, "{machine=\"");
	put_label_value(b, t->machine);
	put(b, "\"%s%s}", extra[0] ? "," : "", extra);
}

/* tidemark_run_info: which run each machine's series come from now, the
 * Prometheus way (an info metric, value 1, joined on machine). */
static void put_run_info(struct buf *b, const struct tm_prom_target *t, size_t n)
{
	put(b, "# HELP tidemark_run_info The run each machine's series come from (its uuid), its "
	       "cgroup and whether it is live, ended or stale; always 1.\n");
	put(b, "# TYPE tidemark_run_info gauge\n");
	for (size_t i = 0; i < n; i++) {
		put(b, "tidemark_run_info{machine=\"");
		put_label_value(b, t[i].machine);
		put(b, "\",run=\"");
		put_label_value(b, t[i].run);
		if (t[i].cgroup && t[i].cgroup[0]) {
			put(b, "\",cgroup=\"");
			put_label_value(b, t[i].cgroup);
		}
		put(b, "\",state=\"%s\"} 1\n", t[i].state ? t[i].state : "live");
	}
}

static void put_value(struct buf *b, int64_t v, double scale)
{
	if (scale == 1.0)
		put(b, " %lld\n", (long long)v);
	else
		put(b, " %.6f\n", (double)v * scale);
}

static void put_family(struct buf *b, const char *family, const struct tm_prom_target *t, size_t n)
{
	bool header = false;

	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		char name[128], label[64];
		double scale;
		tm_prom_name((enum tm_metric)m, name, sizeof(name), label, sizeof(label), &scale);
		if (strcmp(name, family))
			continue;
		for (size_t i = 0; i < n; i++) {
			/* an ended or stale run's values are not current; a limit of
			 * -1 is "no limit": absent, not a number */
			if (!t[i].current || !tm_sample_has(t[i].s, (enum tm_metric)m) ||
			    t[i].s->v[m] < 0)
				continue;
			if (!header) {
				const struct tm_metric_info *mi = tm_metric_info((enum tm_metric)m);
				put(b, "# HELP %s %s\n", family,
				    help_of((enum tm_metric)m, family));
				put(b, "# TYPE %s %s\n", family,
				    mi->kind == TM_COUNTER ? "counter" : "gauge");
				header = true;
			}
			put(b, "%s", family);
			put_labels(b, &t[i], label);
			put_value(b, t[i].s->v[m], scale);
		}
	}
}

/* tidemark_scraped: what the targets' own endpoints served at the latest
 * sample, one series each, its stored name a label (a series missed then
 * is not exported). */
static void put_scraped(struct buf *b, const struct tm_prom_target *t, size_t n)
{
	bool header = false;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; t[i].current && k < t[i].nscraped; k++) {
			const struct tm_prom_scraped *v = &t[i].scraped[k];
			if (!isfinite(v->value))
				continue;
			if (!header) {
				put(b,
				    "# HELP tidemark_scraped A series read from the target's own "
				    "metrics endpoint (record --scrape) at the latest sample: its "
				    "name and labels in series, its type in kind.\n");
				put(b, "# TYPE tidemark_scraped untyped\n");
				header = true;
			}
			put(b, "tidemark_scraped{machine=\"");
			put_label_value(b, t[i].machine);
			put(b, "\",series=\"");
			put_label_value(b, v->name);
			put(b, "\",kind=\"");
			put_label_value(b, v->kind);
			put(b, "\"} %.17g\n", v->value);
		}
}

void tm_prom_progress_add(struct tm_prom_progress *p, int64_t t_usec, double value)
{
	if (!isfinite(value))
		return;
	if (p->n && t_usec <= p->t_usec[p->head])
		return;
	size_t prev = (p->head + TM_PROM_PROGRESS_POINTS - 1) % TM_PROM_PROGRESS_POINTS;
	if (p->n >= 2 && t_usec - p->t_usec[prev] < 1000000) {
		/* within a second of the point before the newest: the newest moves */
		p->t_usec[p->head] = t_usec;
		p->v[p->head] = value;
		return;
	}
	p->head = p->n ? (p->head + 1) % TM_PROM_PROGRESS_POINTS : 0;
	p->t_usec[p->head] = t_usec;
	p->v[p->head] = value;
	if (p->n < TM_PROM_PROGRESS_POINTS)
		p->n++;
}

/* The index of P's last point at or before T, or -1 (all are later). */
static long progress_at(const struct tm_prom_progress *p, int64_t t)
{
	for (size_t k = 0; k < p->n; k++) {
		size_t i = (p->head + TM_PROM_PROGRESS_POINTS - k) % TM_PROM_PROGRESS_POINTS;
		if (p->t_usec[i] <= t)
			return (long)i;
	}
	return -1;
}

int tm_prom_progress_rate(const struct tm_prom_progress *p, int64_t now_usec, double *rate)
{
	if (!p->n)
		return -1;
	size_t first = (p->head + TM_PROM_PROGRESS_POINTS - (p->n - 1)) % TM_PROM_PROGRESS_POINTS;
	long end = progress_at(p, now_usec);
	int64_t from = now_usec - TM_PROM_PROGRESS_WINDOW_USEC;
	long start = progress_at(p, from);
	if (end < 0)
		return -1;
	if (start < 0) { /* younger than the window: since the first point */
		start = (long)first;
		from = p->t_usec[first];
	}
	if (now_usec <= from)
		return -1;
	*rate = (p->v[end] - p->v[start]) / ((double)(now_usec - from) / 1e6);
	return 0;
}

const struct tm_prom_family tm_prom_extra_families[] = {
    {"tidemark_progress_units", "gauge",
     "The service's own units of work (record --progress), the last value its output gave."},
    {"tidemark_progress_units_per_second", "gauge",
     "The service's own units of work a second over the last minute (since its first "
     "progress line when that is younger), from its output's values (record --progress)."},
    {NULL, NULL, NULL},
};

/* The progress families of the current targets that have progress. */
static void put_progress(struct buf *b, const struct tm_prom_target *t, size_t n)
{
	for (int f = 0; tm_prom_extra_families[f].name; f++) {
		const struct tm_prom_family *fam = &tm_prom_extra_families[f];
		bool header = false;
		for (size_t i = 0; i < n; i++) {
			const struct tm_prom_progress *p = t[i].progress;
			double v;
			if (!t[i].current || !p || !p->n)
				continue;
			if (f == 0)
				v = p->v[p->head];
			else if (tm_prom_progress_rate(p, t[i].progress_now_usec, &v) < 0)
				continue;
			if (!header) {
				put(b, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help,
				    fam->name, fam->type);
				header = true;
			}
			put(b, "%s", fam->name);
			put_labels(b, &t[i], "");
			put(b, " %.17g\n", v);
		}
	}
}

char *tm_prom_format(const struct tm_prom_target *t, size_t n)
{
	struct buf b = {0};
	char done[TM_METRIC_COUNT][128];
	int ndone = 0;

	put_run_info(&b, t, n);
	put(&b, "# HELP tidemark_last_sample_timestamp_seconds Wall time of the machine's latest "
	        "sample, in seconds since the epoch.\n");
	put(&b, "# TYPE tidemark_last_sample_timestamp_seconds gauge\n");
	for (size_t i = 0; i < n; i++) {
		put(&b, "tidemark_last_sample_timestamp_seconds");
		put_labels(&b, &t[i], "");
		put(&b, " %.3f\n", (double)t[i].s->t_wall_usec / 1e6);
	}
	/* One block per family, in registry order; each family once. */
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		char name[128], label[64];
		double scale;
		bool seen = false;
		tm_prom_name((enum tm_metric)m, name, sizeof(name), label, sizeof(label), &scale);
		for (int i = 0; i < ndone && !seen; i++)
			seen = !strcmp(done[i], name);
		if (seen)
			continue;
		snprintf(done[ndone++], sizeof(done[0]), "%s", name);
		put_family(&b, name, t, n);
	}
	put_progress(&b, t, n);
	put_scraped(&b, t, n);
	put(&b, "%s", "");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
