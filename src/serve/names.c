/* What the server and its clients share (names.h). */
#include <string.h>

#include "base/util.h"
#include "serve/names.h"
#include "base/banned.h"

bool tm_ct_equal(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}
