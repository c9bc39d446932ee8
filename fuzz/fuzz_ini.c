/* libFuzzer target: the bench experiment-file reader (INI, libinih) on
 * arbitrary text.  It must never crash or leak; a refusal must say why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_bench_spec sp;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	tm_bench_spec_init(&sp);
	tm_bench_parse_ini(&sp, text, "fuzz.ini");
	tm_bench_spec_release(&sp);
	free(text);
	return 0;
}
