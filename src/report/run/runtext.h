/* A run's command line as one line of text, for `runs` and `report`. */
#ifndef TM_REPORT_RUNTEXT_H
#define TM_REPORT_RUNTEXT_H

#include <stddef.h>

struct tm_run_info;

/*
 * The run's argv joined by spaces (or "TARGET CGROUP_PATH" for a run with
 * no command) into BUF, cut to SIZE - 1 bytes, made safe to print
 * (tm_text_safe: a newline or a bidi override in an argument cannot forge
 * or reorder a line).  Returns BUF.
 */
const char *tm_run_command_text(const struct tm_run_info *ri, char *buf, size_t size);

#endif
