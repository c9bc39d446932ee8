/*
 * Shared scanning for the kernel's flat-keyed text files ("key value",
 * "Key:   value kB", "key: value").  Internal to src/kern and its users.
 *
 * Every function here works on (buf, len): it never reads past len and
 * never needs a NUL terminator.
 */
#ifndef TM_KERN_KV_H
#define TM_KERN_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "base/util.h"

/* What a key in a flat-keyed file becomes. */
struct tm_kv_map {
	const char *key;
	enum tm_metric metric;
	int64_t mult; /* value * mult is stored (1024 for kB, 1 for bytes) */
	bool kb;      /* the value must be followed by "kB" (truncation check) */
};

/*
 * Parses the lines of BUF as "KEY[:] VALUE [kB]" and stores each key found
 * in MAP into OUT.  Keys not in MAP are ignored (whatever their value); a
 * mapped key whose value is not a whole non-negative number (or lacks its
 * "kB") is malformed.  Each key is taken once, the kernel's files having
 * no repeated keys: once every key of MAP is found, the rest of BUF is not
 * read.  Returns the number of mapped keys found (>= 1), or -1 when the
 * text read is malformed or holds none of the mapped keys.
 */
int tm_kv_parse(const char *buf, size_t len, const struct tm_kv_map *map, size_t n,
                struct tm_sample *out);

/*
 * A non-negative decimal at P (< END) without a sign; *NEXT is set past it.
 * 0, or -1 when there is no digit or it overflows int64.
 */
int tm_kv_num(const char *p, const char *end, int64_t *out, const char **next);

/* The end of the line starting at P: the '\n' or END. */
const char *tm_kv_eol(const char *p, const char *end);

/* P advanced past spaces and tabs (not newlines). */
const char *tm_kv_skip_blank(const char *p, const char *end);

/* True when [P, P+n) equals WORD and is followed by END, a blank or '\n'. */
bool tm_kv_word(const char *p, const char *end, const char *word);

/* Multiplies without overflow: -1 if it would. */
int tm_kv_mul(int64_t a, int64_t b, int64_t *out);

#endif
