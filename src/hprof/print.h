/* A class histogram of an HPROF dump, printed for people or programs. */
#ifndef TM_HPROF_PRINT_H
#define TM_HPROF_PRINT_H

#include <stdio.h>

#include <jansson.h>

#include "hprof/hprof.h"

/* The first TOP rows (0: all) as a table: instances, shallow MiB, share of
 * the known bytes, class; unknown sizes as "n/a", with the reason. ORIGIN
 * names the dump. */
void tm_hprof_print_text(const struct tm_hprof_histogram *h, const struct tm_hprof_layout *l,
                         const char *origin, size_t top, FILE *out);

/* The same as one JSON object: raw bytes, null where unknown.  0 or -1. */
int tm_hprof_print_json(const struct tm_hprof_histogram *h, const struct tm_hprof_layout *l,
                        const char *origin, size_t top, FILE *out);

/* A JSON string of NAME (a class or file name from a dump); one with \xNN
 * escapes when NAME is not UTF-8.  New reference, NULL when out of memory. */
json_t *tm_hprof_name_json(const char *name);

/* CSV: class,instances,shallow_bytes (empty where unknown). */
void tm_hprof_print_csv(const struct tm_hprof_histogram *h, size_t top, FILE *out);

#endif
