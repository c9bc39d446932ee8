/* libFuzzer target: the recorder's reader of a heap shim region
 * (src/heap/heapregion.c, heapprof.c's snapshot), on a region whose every
 * byte a hostile process may write: the layout check, the folded counters,
 * the allocator's answer, the sampled stacks.  It must never crash, read
 * out of bounds, overflow or leak, and never hang (odd sequence words only
 * cost bounded retries).
 *
 * Input: one flags byte (bit 0: a valid header is written over the bytes;
 * bit 1: the sequence words are left as written, odd or not), then chunks
 * of [offset u32 LE][length u16 LE][bytes] written into the region. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heap/heapprof.h"
#include "heap/heapregion.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_PID 4194311 /* above any pid_max: never a live process */

static void valid_header(struct tmh_region *r)
{
	r->magic = TMH_MAGIC;
	r->version = TMH_VERSION;
	r->total_bytes = sizeof(*r);
	r->pid = FUZZ_PID;
	r->nslots = TMH_SLOTS;
	r->nclasses = TMH_CLASSES;
	r->max_depth = TMH_MAX_DEPTH;
	r->nstacks = TMH_STACKS;
	r->nlive = TMH_LIVE;
	r->maps_bytes = TMH_MAPS_BYTES;
}

static void read_all(const struct tmh_region *r)
{
	struct tm_heap_counters c;
	int64_t held;
	struct tm_heap_snapshot snap;
	static const char maps[] = "00400000-00401000 r-xp 00000000 00:00 0 /bin/x\n";

	if (tm_heap_region_check(r, sizeof(*r), FUZZ_PID))
		return;
	if (tm_heap_region_counters(r, &c) == 0)
		(void)tm_heap_region_held(r, &c, 1, &held);
	/* as of a process that may still run, and of one gone for good (an odd
	 * sequence word then read as it is: a torn table) */
	for (int gone = 0; gone < 2; gone++)
		if (tm_heap_snapshot_region(r, FUZZ_PID, maps, sizeof(maps) - 1, gone, &snap) == 0)
			tm_heap_snapshot_release(&snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tmh_region *r;
	if (!r && !(r = aligned_alloc(64, sizeof(*r))))
		abort();
	memset(r, 0, sizeof(*r));
	if (size == 0)
		return 0;
	uint8_t flags = data[0];
	size_t i = 1;
	while (i + 6 <= size) {
		uint32_t off = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
		               (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;
		size_t len = (size_t)data[i + 4] | (size_t)data[i + 5] << 8;
		i += 6;
		if (len > size - i)
			len = size - i;
		off %= sizeof(*r);
		if (len > sizeof(*r) - off)
			len = sizeof(*r) - off;
		memcpy((char *)r + off, data + i, len);
		i += len;
	}
	if (flags & 1)
		valid_header(r);
	if (!(flags & 2)) {
		r->fold_seq &= ~1ull;
		r->sample_seq &= ~1ull;
		r->stats_seq &= ~1ull;
	}
	read_all(r);
	return 0;
}
