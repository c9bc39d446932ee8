/* Test helper shared by the kern/sampler unit tests: load a fixture file. */
#ifndef TM_TEST_KERN_FIXTURE_H
#define TM_TEST_KERN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The fixtures directory: $TM_ROOT/tests/fixtures, or ./tests/fixtures. */
static inline const char *fixture_path(char *buf, size_t size, const char *rel)
{
	const char *root = getenv("TM_ROOT");
	snprintf(buf, size, "%s/tests/fixtures/%s", root ? root : ".", rel);
	return buf;
}

/* A fixture's text in an exact-size heap buffer (no NUL past the end, so
 * ASan catches a parser reading past LEN).  Aborts the test when missing. */
static inline char *fixture(const char *rel, size_t *len)
{
	char path[4096];
	size_t n;
	char *text = tm_read_file(fixture_path(path, sizeof(path), rel), &n);
	char *exact;

	if (!text) {
		fprintf(stderr, "missing fixture %s\n", path);
		abort();
	}
	exact = malloc(n ? n : 1);
	memcpy(exact, text, n);
	free(text);
	*len = n;
	return exact;
}

#endif
