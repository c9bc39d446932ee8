/*
 * The one size grammar of tidemark, header-only so that the heap shim
 * (which has no stdio and no malloc) and the tool read a size the same way:
 * `--memory-max 1.5G`, `MemoryMax=400M`, `heap run --sample 1.5M` and
 * TIDEMARK_HEAP_SAMPLE=1.5M all mean the same number of bytes.
 *
 *   size   = "max" | "infinity" | number [unit]
 *   number = digits ["." digits]      (at most 6 digits after the point)
 *   unit   = "B" | prefix ["B" | "iB"]
 *   prefix = K | M | G | T            (either case; powers of 1024)
 *
 * "4096" and "4096B" are bytes; "512K", "512k", "512KB", "512KiB" are all
 * 524288.  A fraction is rounded to the nearest byte ("1.5M" = 1572864).
 * "max" and "infinity" give INT64_MAX.  Nothing else is accepted: no sign,
 * no spaces, no exponent, no hex.  Pure: no libc calls, no allocation.
 */
#ifndef TIDEMARK_SIZE_H
#define TIDEMARK_SIZE_H

#include <stdint.h>

/* What a bad size should be told it was expected to look like. */
#define TM_SIZE_EXPECT "a size like 400M, 1.5G, 512KiB or max"

/* 1 when A and B are the same NUL-terminated string. */
static inline int tm_size_streq_(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* The multiplier of UNIT (the text after the number), or 0 when it is none. */
static inline uint64_t tm_size_unit_(const char *u)
{
	int shift;

	switch (*u) {
	case '\0':
		return 1;
	case 'B':
		return u[1] ? 0 : 1;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	default:
		return 0;
	}
	u++;
	if (*u && !tm_size_streq_(u, "B") && !tm_size_streq_(u, "iB"))
		return 0;
	return (uint64_t)1 << shift;
}

/*
 * Parses the size S (NUL-terminated) into *OUT_BYTES.  0, or -1 when S is
 * not in the grammar above or does not fit in an int64 (then *OUT_BYTES is
 * unchanged).
 */
static inline int tm_size_parse(const char *s, int64_t *out_bytes)
{
	const uint64_t limit = (uint64_t)INT64_MAX;
	uint64_t whole = 0, frac = 0, scale = 1, mult, v;
	int frac_digits = 0;

	if (!s)
		return -1;
	if (tm_size_streq_(s, "max") || tm_size_streq_(s, "infinity")) {
		*out_bytes = INT64_MAX;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (whole > (limit - 9) / 10)
			return -1;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (++frac_digits > 6)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
			scale *= 10;
		}
	}
	if (!(mult = tm_size_unit_(s)))
		return -1;
	if (whole > limit / mult)
		return -1;
	v = whole * mult;
	/* frac < 10^6 and mult <= 2^40: the product fits in 60 bits */
	v += (frac * mult + scale / 2) / scale;
	if (v >= limit)
		return -1;
	*out_bytes = (int64_t)v;
	return 0;
}

#endif
