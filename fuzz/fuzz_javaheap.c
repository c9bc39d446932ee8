/* libFuzzer target: the Java heap's range search over /proc/PID/maps text
 * and the sum of its resident anon over /proc/PID/smaps text
 * (src/sample/javaheap.c), on arbitrary bytes: a process's mappings' names
 * are its own to choose.  Input: 8 bytes of reserved size, 8 of committed
 * (little endian), then the text, read as maps and as smaps.  They must
 * never crash, read out of bounds or loop; a range found has the size
 * asked, and its sum is whole kB. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sample/javaheap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_javaheap_range r;
	uint64_t reserved, committed, anon;

	if (size < 16)
		return 0;
	memcpy(&reserved, data, 8);
	memcpy(&committed, data + 8, 8);
	size -= 16;
	char *text = malloc(size ? size : 1); /* exact size: ASan sees overreads */
	memcpy(text, data + 16, size);
	if (tm_javaheap_find(text, size, reserved, committed, 1u << 20, &r) == 0) {
		if (r.end - r.start != reserved || r.end <= r.start)
			abort();
		if (tm_javaheap_smaps_anon(text, size, &r, &anon) == 0 && anon % 1024)
			abort();
		(void)tm_javaheap_smaps_past(text, size, r.end);
	}
	r = (struct tm_javaheap_range){reserved, reserved + committed};
	if (tm_javaheap_smaps_anon(text, size, &r, &anon) == 0 && anon % 1024)
		abort();
	free(text);
	return 0;
}
