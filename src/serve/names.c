/* Checks shared by the server and the push decoder. */
#include <string.h>

#include "serve/auth.h"
#include "base/banned.h"

bool tm_ct_equal(const void *a, const void *b, size_t len)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}
