#include <string.h>

#include "base/assert.h"
#include "kern/kv.h"
#include "base/banned.h"

const char *tm_kv_eol(const char *p, const char *end)
{
	tm_assert(p <= end); /* a cursor never passes its buffer's end */
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl : end;
}

const char *tm_kv_skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

bool tm_kv_word(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	tm_assert(p <= end);
	if ((size_t)(end - p) < n || memcmp(p, word, n))
		return false;
	p += n;
	return p == end || *p == ' ' || *p == '\t' || *p == '\n';
}

int tm_kv_num(const char *p, const char *end, int64_t *out, const char **next)
{
	int64_t v = 0;
	const char *start = p;

	tm_assert(p <= end);
	while (p < end && *p >= '0' && *p <= '9') {
		/* (the overflow builtins: a division a digit was a tenth of a
		 * sample's parsing) */
		if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *p - '0', &v))
			return -1;
		p++;
	}
	if (p == start)
		return -1;
	*out = v;
	*next = p;
	return 0;
}

int tm_kv_mul(int64_t a, int64_t b, int64_t *out)
{
	if (a < 0 || b < 0)
		return -1;
	if (b != 0 && a > INT64_MAX / b)
		return -1;
	*out = a * b;
	return 0;
}

static const struct tm_kv_map *find_key(const char *key, size_t klen, const struct tm_kv_map *map,
                                        size_t n)
{
	if (klen == 0) /* no first byte to compare (and none mapped is empty) */
		return NULL;
	/* (most lines are not mapped: their first byte rejects them before strlen) */
	for (size_t i = 0; i < n; i++)
		if (map[i].key[0] == key[0] && strlen(map[i].key) == klen &&
		    !memcmp(map[i].key, key, klen))
			return &map[i];
	return NULL;
}

/* The value of one mapped line, from P to EOL.  0 or -1. */
static int line_value(const char *p, const char *eol, const struct tm_kv_map *m, int64_t *out)
{
	int64_t v;

	p = tm_kv_skip_blank(p, eol);
	if (tm_kv_num(p, eol, &v, &p))
		return -1;
	p = tm_kv_skip_blank(p, eol);
	if (m->kb) {
		if (eol - p < 2 || memcmp(p, "kB", 2))
			return -1;
		p = tm_kv_skip_blank(p + 2, eol);
	}
	if (p != eol)
		return -1;
	return tm_kv_mul(v, m->mult, out);
}

int tm_kv_parse(const char *buf, size_t len, const struct tm_kv_map *map, size_t n,
                struct tm_sample *out)
{
	const char *p = buf, *end = buf + len;
	int found = 0;

	while (p < end) {
		const char *eol = tm_kv_eol(p, end), *k = p;
		const struct tm_kv_map *m;
		int64_t v;

		while (p < eol && *p != ':' && *p != ' ' && *p != '\t')
			p++;
		m = find_key(k, (size_t)(p - k), map, n);
		if (m) {
			if (p < eol && *p == ':')
				p++;
			if (line_value(p, eol, m, &v))
				return -1;
			tm_sample_set(out, m->metric, v);
			/* the kernel writes each key once: with all of MAP found,
			 * the rest is not read (meminfo's 4 keys are in its first
			 * 16 of 55 lines; this is a third of a sample's parsing) */
			if (++found == (int)n)
				break;
		}
		p = eol < end ? eol + 1 : end;
		tm_assert(p <= end);
	}
	return found ? found : -1;
}
