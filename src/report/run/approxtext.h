/* What a summary could not take exactly, as the report's text lines. */
#ifndef TM_REPORT_APPROXTEXT_H
#define TM_REPORT_APPROXTEXT_H

#include <stddef.h>
#include <stdio.h>

#include "report/run/summary.h"

/* The page cache's median for the text report into BUF: "68.0 MiB", with
 * its bound when a sketch gave it ("68.0 MiB (±0.1 %, streaming sketch)"),
 * or its bounds from rollups; "n/a" when unknown.  BUF or a constant. */
const char *tm_median_file_text(char *buf, size_t size, const struct tm_summary *s);

/* The "rollups" lines: how many samples came from rollups instead of pruned
 * raw samples, and which figures that left n/a.  Nothing when none did. */
void tm_approx_text(FILE *out, const struct tm_summary_approx *ap);

#endif
