/*
 * The work a run did, when it prints no progress line (a batch job: xz, an
 * import): given as --units N, or read with --units-from REGEX from the last
 * line of its output the regex matched.  Stored as the run's event "units"
 * (value: the count rounded, detail: the exact number, a space and where it
 * came from), so report and bench can give a cost per unit.
 */
#ifndef TM_RECORD_UNITS_H
#define TM_RECORD_UNITS_H

#include <stdint.h>

struct tm_store;
struct tm_record_opts;

/* Records that run RUN_ID did UNITS units of work (finite, > 0), as said by
 * SOURCE ("--units", "--units-from"), and commits.  0, or -1 after tm_error
 * (the run itself is not touched). */
int tm_record_units(struct tm_store *st, int64_t run_id, double units, const char *source);

/* The last progress value run RUN_ID stored (what --units-from matched):
 * 0 with *UNITS set, 1 when it stored none, -1 after tm_error. */
int tm_record_last_match(struct tm_store *st, int64_t run_id, double *units);

/* Parses a count of work done: a finite number above 0 ("12345", "1.5e6").
 * 0, or -1 (nothing printed). */
int tm_parse_units(const char *s, double *out);

/* At the end of a run: records O's units (O->has_units) or the last value
 * O->units_from matched (warning when nothing matched).  0, or -1. */
int tm_record_units_after(struct tm_store *st, int64_t run_id, const struct tm_record_opts *o);

#endif
