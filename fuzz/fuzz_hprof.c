/* libFuzzer target: the HPROF heap-dump reader behind `tidemark hprof top`
 * on arbitrary bytes.  It must never crash, read out of bounds or leak; a
 * dump it accepts has consistent totals. */
#include <stdint.h>
#include <stdlib.h>

#include "hprof/hprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_hprof_layout l;
	struct tm_hprof_histogram h;
	struct tm_hp_in in;

	tm_hprof_layout_default(&l);
	l.compressed_oops = size & 1; /* both layouts */
	tm_hp_in_mem(&in, data, size, "fuzz.hprof");
	if (tm_hprof_histogram_read(&in, &l, &h) >= 0) { /* 1: partial, rows kept */
		uint64_t n = 0;
		for (size_t i = 0; i < h.n_rows; i++)
			n += h.rows[i].instances;
		if (n != h.instances || (!h.partial && h.dump_bytes != size))
			abort();
		tm_hprof_histogram_release(&h);
	}
	return 0;
}
