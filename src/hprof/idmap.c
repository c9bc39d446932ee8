/* Identifier to index map; see hprof/idmap.h. */
#include <stdlib.h>

#include "hprof/idmap.h"
#include "base/banned.h"

/* Fibonacci hashing: ids are addresses, so their low bits repeat. */
static size_t slot_of(uint64_t k, size_t cap)
{
	return (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

bool tm_idmap_get(const struct tm_idmap *m, uint64_t key, uint32_t *val)
{
	if (key == UINT64_MAX) {
		if (m->has_max)
			*val = m->max_val;
		return m->has_max;
	}
	if (!m->cap)
		return false;
	uint64_t k = key + 1;
	for (size_t i = slot_of(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == k) {
			*val = m->vals[i];
			return true;
		}
		if (!m->keys[i])
			return false;
	}
}

static void insert(uint64_t *keys, uint32_t *vals, size_t cap, uint64_t k, uint32_t v)
{
	size_t i = slot_of(k, cap);
	while (keys[i] && keys[i] != k)
		i = (i + 1) & (cap - 1);
	keys[i] = k;
	vals[i] = v;
}

static int rehash(struct tm_idmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			insert(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int tm_idmap_put(struct tm_idmap *m, uint64_t key, uint32_t val)
{
	uint32_t old;
	if (key == UINT64_MAX) {
		m->n += !m->has_max;
		m->has_max = true;
		m->max_val = val;
		return 0;
	}
	if (tm_idmap_get(m, key, &old)) {
		insert(m->keys, m->vals, m->cap, key + 1, val);
		return 0;
	}
	if (2 * (m->n + 1) > m->cap && rehash(m))
		return -1;
	insert(m->keys, m->vals, m->cap, key + 1, val);
	m->n++;
	return 0;
}

void tm_idmap_release(struct tm_idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->n = 0;
	m->has_max = false;
}
