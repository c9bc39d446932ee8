/*
 * `tidemark report --html FILE`: one self-contained HTML file with the
 * panel's charts and tables for a run or a bench, to send to someone.
 * uPlot, the panel's script and styles are inlined; the data is one JSON
 * block (escaped so no collector text can close it) that the script reads,
 * and a Content-Security-Policy keeps the file from loading anything.
 */
#ifndef TM_SERVE_HTMLREPORT_H
#define TM_SERVE_HTMLREPORT_H

#include <jansson.h>
#include <stdint.h>

struct tm_store;

/* 0, or -1 after tm_error (no such run, cannot write PATH). */
int tm_html_report_run(struct tm_store *st, int64_t run_id, const char *path);
/* EXTRA (borrowed, may be NULL): more documents to embed, keyed by path
 * (the sweep's curve and the advice, computed by the caller). */
int tm_html_report_bench(struct tm_store *st, int64_t bench_id, const char *path,
                         const json_t *extra);

#endif
