#include <string.h>

#include "base/metrics.h"

static const struct tm_metric_info registry[TM_METRIC_COUNT] = {
#define TM_X_INFO(e, n, u, k) [TM_M_##e] = {.name = n, .unit = u, .kind = k},
    TM_METRIC_LIST(TM_X_INFO)
#undef TM_X_INFO
};

const struct tm_metric_info *tm_metric_info(enum tm_metric m)
{
	if ((int)m < 0 || m >= TM_METRIC_COUNT)
		return NULL;
	return &registry[m];
}

int tm_metric_by_name(const char *name)
{
	for (int i = 0; i < TM_METRIC_COUNT; i++)
		if (!strcmp(registry[i].name, name))
			return i;
	return -1;
}

const char *tm_unit_name(enum tm_unit u)
{
	switch (u) {
	case TM_UNIT_BYTES:
		return "bytes";
	case TM_UNIT_USEC:
		return "usec";
	case TM_UNIT_COUNT:
		return "count";
	}
	return "?";
}

bool tm_metric_value_ok(enum tm_metric m, int64_t v)
{
	if (v >= 0)
		return true;
	return v == -1 &&
	       (m == TM_M_CG_MAX_BYTES || m == TM_M_CG_HIGH_BYTES || m == TM_M_CG_SWAP_MAX_BYTES);
}
