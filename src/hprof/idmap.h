/*
 * A map from 64-bit identifiers (an HPROF dump's object and string ids) to
 * 32-bit indexes: open addressing with linear probing, at most half full.
 * Memory: 12 bytes a slot, 24 to 48 bytes an entry.
 */
#ifndef TM_HPROF_IDMAP_H
#define TM_HPROF_IDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_idmap {
	uint64_t *keys; /* key + 1, so that 0 marks an empty slot */
	uint32_t *vals;
	size_t cap, n; /* cap is 0 or a power of two */
	bool has_max;  /* UINT64_MAX, which cannot be stored as key + 1 */
	uint32_t max_val;
};

/* True with *VAL set when KEY is in the map. */
bool tm_idmap_get(const struct tm_idmap *m, uint64_t key, uint32_t *val);

/* Sets KEY to VAL (replacing an older value).  0, or -1 when out of memory
 * (the map is unchanged then). */
int tm_idmap_put(struct tm_idmap *m, uint64_t key, uint32_t val);

void tm_idmap_release(struct tm_idmap *m);

#endif
