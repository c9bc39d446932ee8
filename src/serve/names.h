/*
 * What the server and its clients share about names and tokens: a token's
 * length and a comparison in constant time.  Pure (names.c).
 */
#ifndef TM_SERVE_NAMES_H
#define TM_SERVE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_TOKEN_LEN 67 /* "tm_" + 64 hex */

/* true when A and B (LEN bytes each) are equal; time independent of content. */
bool tm_ct_equal(const void *a, const void *b, size_t len);

#endif
