/*
 * Inside the store: the LEB128 varint and zigzag helpers shared by the
 * sample encoding (encoding.c) and the rollup encoding (rollup.c), both
 * described in docs/store.md.  Nothing outside src/store/ includes this.
 */
#ifndef TM_STORE_VARINT_H
#define TM_STORE_VARINT_H

#include <stdint.h>

#include "base/assert.h"

/* The most bytes tm_varint_put writes: ceil(64 / 7). */
#define TM_VARINT_MAX 10

/* Writes v at p as a little-endian base-128 varint (7 bits a byte, the high
 * bit set on every byte but the last); p must have room for TM_VARINT_MAX
 * bytes.  Returns the byte after the last one written. */
static inline unsigned char *tm_varint_put(unsigned char *p, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		*p++ = v ? c | 0x80 : c;
	} while (v);
	return p;
}

/* Reads one varint from *p (never past end) into *out and advances *p past
 * it.  Returns 0, or -1 if the input ends inside the varint or it runs past
 * 64 bits (then *out is untouched and *p is somewhere inside it). */
static inline int tm_varint_get(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;
	tm_assert(*p <= end);
	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* Zigzag: maps signed to unsigned so small magnitudes of either sign give
 * small varints (0, -1, 1, -2 ... -> 0, 1, 2, 3 ...); exact for every int64. */
static inline uint64_t tm_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

/* The inverse of tm_zigzag. */
static inline int64_t tm_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#endif
