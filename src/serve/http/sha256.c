/* SHA-256 for hashing tokens at rest: GnuTLS's, already under libmicrohttpd. */
#include <gnutls/crypto.h>

#include "base/error.h"
#include "serve/http/auth.h"
#include "base/banned.h"

void tm_sha256(const void *data, size_t len, uint8_t out[32])
{
	if (gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, out) != 0)
		TM_BUG("gnutls_hash_fast(SHA256) failed");
}
