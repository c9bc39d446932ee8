/* The registry of snapshot kinds (snap/kinds.h). */
#include <string.h>

#include "snap/kinds.h"
#include "base/banned.h"

static const struct tm_snap_kind_desc kinds[TM_SNAP_KIND_COUNT] = {
#define TM_SNAP_DESC(e, n, fn, t, d) [TM_SNAP_##e] = {n, fn, t, d},
    TM_SNAP_KINDS(TM_SNAP_DESC)
#undef TM_SNAP_DESC
};

const struct tm_snap_kind_desc *tm_snap_kind_desc(enum tm_snap_kind k)
{
	return (unsigned)k < TM_SNAP_KIND_COUNT ? &kinds[k] : NULL;
}

/* Whether NAME is KIND's name, reading '-' as '_'. */
static int same_name(const char *kind, const char *name)
{
	for (; *kind && *name; kind++, name++)
		if (*kind != (*name == '-' ? '_' : *name))
			return 0;
	return *kind == *name;
}

int tm_snap_kind_by_name(const char *name)
{
	for (int k = 0; k < TM_SNAP_KIND_COUNT; k++)
		if (same_name(kinds[k].name, name))
			return k;
	return -1;
}
