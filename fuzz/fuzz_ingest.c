/* libFuzzer target: the push decoder (tm_batch_decode) on arbitrary bytes.
 * It must never crash, leak or read out of bounds, and whatever it accepts
 * must hold what the server relies on (consecutive positions, names valid). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/http/auth.h"
#include "serve/ingest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_batch b;
	struct tm_err err = {0};

	if (tm_batch_decode((const char *)data, size, &b, &err) < 0) {
		if (!err.msg[0])
			abort(); /* a refusal always says why */
		return 0;
	}
	for (size_t i = 1; i < b.n_samples; i++)
		if (b.samples[i].seq != b.samples[i - 1].seq + 1)
			abort();
	for (size_t i = 1; i < b.n_events; i++)
		if (b.events[i].i != b.events[i - 1].i + 1)
			abort();
	if (!b.meta.uuid || strlen(b.meta.uuid) > 64)
		abort();
	if (b.meta.machine && !tm_name_valid(b.meta.machine))
		abort();
	if (b.n_samples > TM_BATCH_MAX_SAMPLES)
		abort();
	tm_batch_release(&b);
	return 0;
}
