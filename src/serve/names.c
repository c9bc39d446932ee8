/* Checks shared by the server and the push decoder, and the server's
 * reading of a URL's id (pure: fuzz/fuzz_serve.c). */
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

/* "/api/v1/runs/12/series" with PREFIX "/api/v1/runs/": 12 and REST "/series". */
int tm_path_id(const char *url, const char *prefix, int64_t *id, const char **rest)
{
	char num[24];
	size_t n;

	if (strncmp(url, prefix, strlen(prefix)))
		return -1;
	url += strlen(prefix);
	n = strcspn(url, "/");
	if (n == 0 || n >= sizeof(num))
		return -1;
	memcpy(num, url, n);
	num[n] = 0;
	if (tm_parse_int64(num, id) < 0 || *id <= 0)
		return -1;
	*rest = url + n;
	return 0;
}
