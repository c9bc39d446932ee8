/*
 * What the server and its clients share about names and tokens: a token's
 * length, a comparison in constant time, and the server's reading of a URL's
 * id.  Pure (names.c): fuzz/fuzz_serve.c.
 */
#ifndef TM_SERVE_NAMES_H
#define TM_SERVE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_TOKEN_LEN 67 /* "tm_" + 64 hex */

/* true when A and B (LEN bytes each) are equal; time independent of content. */
bool tm_ct_equal(const void *a, const void *b, size_t len);

/* A URL's id after PREFIX ("/api/v1/runs/12/series" with PREFIX
 * "/api/v1/runs/"): 0 with *ID (a whole number above 0) and *REST (the
 * rest of URL, "/series") set, or -1 when URL is not PREFIX and an id. */
int tm_path_id(const char *url, const char *prefix, int64_t *id, const char **rest);

#endif
