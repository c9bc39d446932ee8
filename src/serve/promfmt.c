/* Prometheus text format for samples. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/metrics.h"
#include "base/util.h"
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
};

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

/* A label value with \, " and newline escaped. */
static void put_label_value(struct buf *b, const char *v)
{
	for (const char *c = v ? v : ""; *c; c++) {
		if (*c == '\\')
			put(b, "\\\\");
		else if (*c == '"')
			put(b, "\\\"");
		else if (*c == '\n')
			put(b, "\\n");
		else
			put(b, "%c", *c);
	}
}

static void put_labels(struct buf *b, const struct tm_prom_target *t, const char *extra)
{
	put(b, "{machine=\"");
	put_label_value(b, t->machine);
	put(b, "\",run=\"");
	put_label_value(b, t->run);
	put(b, "\",cgroup=\"");
	put_label_value(b, t->cgroup);
	put(b, "\"%s%s}", extra[0] ? "," : "", extra);
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
			if (!tm_sample_has(t[i].s, (enum tm_metric)m))
				continue;
			if (!header) {
				const struct tm_metric_info *mi = tm_metric_info((enum tm_metric)m);
				put(b, "# HELP %s tidemark metric %s%s\n", family,
				    label[0] ? "family of " : "",
				    label[0] ? "cgroup events" : mi->name);
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

char *tm_prom_format(const struct tm_prom_target *t, size_t n)
{
	struct buf b = {0};
	char done[TM_METRIC_COUNT][128];
	int ndone = 0;

	put(&b, "# HELP tidemark_last_sample_timestamp_seconds wall time of the latest sample\n");
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
	put(&b, "%s", "");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
