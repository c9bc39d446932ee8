#include <string.h>

#include "kern/kv.h"
#include "kern/psi.h"
#include "base/banned.h"

/* The total= of one line (after its "some"/"full" word). */
static int psi_total(const char *p, const char *eol, int64_t *out)
{
	bool found = false;

	while ((p = tm_kv_skip_blank(p, eol)) < eol) {
		const char *tok = p;
		while (p < eol && *p != ' ' && *p != '\t')
			p++;
		if (p - tok > 6 && !memcmp(tok, "total=", 6)) {
			const char *q;
			if (tm_kv_num(tok + 6, p, out, &q) || q != p)
				return -1;
			found = true;
		}
	}
	return found ? 0 : -1;
}

int tm_parse_psi(const char *buf, size_t len, struct tm_psi *out)
{
	const char *p = buf, *end = buf + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *eol = tm_kv_eol(p, end);

		if (tm_kv_word(p, eol, "some")) {
			if (psi_total(p + 4, eol, &out->some_total_usec))
				return -1;
			out->has_some = true;
		} else if (tm_kv_word(p, eol, "full")) {
			if (psi_total(p + 4, eol, &out->full_total_usec))
				return -1;
			out->has_full = true;
		}
		p = eol < end ? eol + 1 : end;
	}
	return out->has_some ? 0 : -1;
}
