#include <string.h>

#include "kern/kv.h"
#include "kern/psi.h"
#include "base/banned.h"

/* The total= of one line (after its "some"/"full" word): the field
 * "total=N", found by its 't' (memchr; the line's other fields have none)
 * rather than field by field, three files a sample.  A field that merely
 * ends in "total=" does not count. */
static int psi_total(const char *p, const char *eol, int64_t *out)
{
	const char *t = p, *q;
	bool found = false;

	while ((t = memchr(t, 't', (size_t)(eol - t)))) {
		if (t > p && (t[-1] == ' ' || t[-1] == '\t') && eol - t > 6 &&
		    !memcmp(t, "total=", 6)) {
			if (tm_kv_num(t + 6, eol, out, &q))
				return -1;
			if (q != eol && *q != ' ' && *q != '\t')
				return -1;
			found = true;
		}
		t++;
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
