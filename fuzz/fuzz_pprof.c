/* libFuzzer target: the pprof heap-profile reader behind `tidemark heap top`
 * on arbitrary (uncompressed) bytes.  It must never crash, read out of
 * bounds or leak, whatever the string table, locations or values say. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "heap/heapprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	tm_heap_top_buf(data, size, "fuzz.pb", sink, 10);
	return 0;
}
