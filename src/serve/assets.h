/* The panel's files (web/), embedded into the binary at build time. */
#ifndef TM_SERVE_ASSETS_H
#define TM_SERVE_ASSETS_H

#include <stddef.h>

struct tm_asset {
	const char *path; /* "/js/main.js" */
	const unsigned char *data;
	size_t len;
	const char *type; /* Content-Type */
	/* a script's SHA-256, base64, of "\n" DATA "\n" (how an HTML report
	 * inlines it, for its CSP); "" for other files */
	const char *script_sha256;
};

/* The asset served at PATH ("/" is /index.html), or NULL. */
const struct tm_asset *tm_asset_find(const char *path);

#endif
