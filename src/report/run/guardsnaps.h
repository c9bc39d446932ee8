/*
 * report/run/guardsnaps.h: what `tidemark guard` took and did for a run (the
 * snapshots table, store/snapshots.h) in `tidemark report`'s text and JSON.
 */
#ifndef TM_REPORT_GUARDSNAPS_H
#define TM_REPORT_GUARDSNAPS_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

struct tm_store;

/* RUN's rows as a JSON array of {t_wall_usec, taken_wall_usec, rule, kind,
 * pid, path, summary, file_bytes, ok} (path, summary and file_bytes null
 * when there is none); [] when the guard never fired.  New reference, or
 * NULL after tm_error. */
json_t *tm_guard_snaps_json(struct tm_store *st, int64_t run);

/* One line a row, "  guard       HH:MM:SS RULE: KIND ...", at most 12, then
 * how many more; nothing when ROWS is empty. */
void tm_guard_snaps_text(FILE *out, const json_t *rows);

#endif
