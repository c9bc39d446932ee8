/* Transparent huge pages' mode and size (kern/thp.h). */
#include <string.h>

#include "kern/kv.h"
#include "kern/thp.h"
#include "base/banned.h"

static const char *const mode_names[] = {
    [TM_THP_UNKNOWN] = "unknown",
    [TM_THP_ALWAYS] = "always",
    [TM_THP_MADVISE] = "madvise",
    [TM_THP_NEVER] = "never",
};

const char *tm_thp_mode_name(enum tm_thp_mode m)
{
	return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "unknown";
}

int tm_parse_thp_enabled(const char *buf, size_t len, enum tm_thp_mode *out)
{
	const char *open = memchr(buf, '[', len), *close;

	*out = TM_THP_UNKNOWN;
	if (!open)
		return -1;
	close = memchr(open, ']', len - (size_t)(open - buf));
	if (!close)
		return -1;
	size_t n = (size_t)(close - open - 1);
	for (int m = TM_THP_ALWAYS; m <= TM_THP_NEVER; m++)
		if (strlen(mode_names[m]) == n && memcmp(open + 1, mode_names[m], n) == 0) {
			*out = (enum tm_thp_mode)m;
			return 0;
		}
	return -1;
}

int tm_parse_thp_size(const char *buf, size_t len, int64_t *out)
{
	const char *end = buf + len, *next;
	int64_t v;

	if (tm_kv_num(buf, end, &v, &next) || v <= 0)
		return -1;
	next = tm_kv_skip_blank(next, end);
	if (next < end && *next != '\n')
		return -1;
	*out = v;
	return 0;
}
