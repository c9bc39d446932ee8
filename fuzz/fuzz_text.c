/* libFuzzer target: the pure parsers of option values, on arbitrary text
 * (the first byte picks one, modulo their count; the rest, NUL-terminated,
 * is its input): 0 a size (include/tidemark-size.h, the grammar the heap
 * shim reads too), 1 a duration, 2 a whole number, 3 a systemd unit's name
 * (src/sysd), 4 --keep, 5 --window, 6 --phases-at, 7 --units, 8 a guard
 * rule (src/guard/rule.h).  They must
 * never crash, read out of bounds or leak; what they accept is consistent:
 * a size's bytes read back as the same size, a unit name normalizes to
 * itself, a split's values increase, units are finite and above 0, a rule
 * accepted reads back (its text, spaces removed) as the same rule. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "guard/rule.h"
#include "record/units.h"
#include "report/phases/phases.h"
#include "report/run/summary.h"
#include "store/store.h"
#include "sysd/unit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void size_text(const char *s)
{
	int64_t v, again;
	char buf[32];

	if (tm_parse_size(s, &v))
		return;
	if (v < 0)
		abort();
	if (v == INT64_MAX)
		return; /* "max" */
	snprintf(buf, sizeof(buf), "%" PRId64, v);
	if (tm_parse_size(buf, &again) || again != v)
		abort();
}

static void unit_name(const char *s)
{
	char out[TM_SDUNIT_NAME_MAX], again[TM_SDUNIT_NAME_MAX];
	struct tm_err why = {0};

	if (tm_sdunit_name_normalize(s, out, &why))
		return;
	if (strnlen(out, sizeof(out)) >= sizeof(out) ||
	    tm_sdunit_name_normalize(out, again, &why) || strcmp(out, again))
		abort();
}

static void split(const char *s)
{
	struct tm_phase_split sp;

	if (tm_phase_split_parse(s, &sp))
		return;
	if (sp.n_at < 0 || sp.n_at > TM_PHASE_MAX_AT)
		abort();
	for (int i = 0; i < sp.n_at; i++)
		if (!isfinite(sp.at[i]) || (i && sp.at[i] <= sp.at[i - 1]))
			abort();
}

/* A rule accepted parses again from its own text to the same rule. */
static void guard_rule(const char *s)
{
	struct tm_guard_rule a, b;
	struct tm_err why = {0};
	if (tm_guard_rule_parse(s, &a, &why) < 0)
		return;
	if (tm_guard_rule_parse(a.text, &b, &why) < 0 || a.kind != b.kind || a.metric != b.metric ||
	    a.ref != b.ref || a.share != b.share || a.bytes != b.bytes || a.per_sec != b.per_sec ||
	    a.for_usec != b.for_usec || a.count != b.count || strcmp(a.text, b.text) ||
	    a.kind >= TM_GUARD_KIND_COUNT)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	struct tm_err why = {0};
	int64_t v;
	double u;
	struct tm_keep k;
	struct tm_window w;

	if (size == 0)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	switch (data[0] % 9) {
	case 0:
		size_text(s);
		break;
	case 1:
		tm_parse_duration(s, &v);
		break;
	case 2:
		tm_parse_int64(s, &v);
		break;
	case 3:
		unit_name(s);
		break;
	case 4:
		tm_keep_default(&k);
		tm_keep_parse(s, &k, &why);
		break;
	case 5:
		tm_window_parse(s, &w);
		break;
	case 6:
		split(s);
		break;
	case 8:
		guard_rule(s);
		break;
	default:
		if (tm_parse_units(s, &u) == 0 && !(isfinite(u) && u > 0))
			abort();
		break;
	}
	free(s);
	return 0;
}
