#include <stdio.h>
#include <string.h>

#include "runtime/registry.h"
#include "base/banned.h"

/* Indexed by enum tm_runtime; a list line whose descriptor is not defined
 * anywhere fails to link. */
static const struct tm_runtime_desc *const registry[TM_RUNTIME_COUNT] = {
#define TM_X_RT_PTR(e, name, desc) [TM_RUNTIME_##e] = &desc,
    TM_RUNTIME_OPTION_LIST(TM_X_RT_PTR) TM_RUNTIME_FOUND_LIST(TM_X_RT_PTR)
#undef TM_X_RT_PTR
};

const char *const tm_runtime_names[] = {"none",
#define TM_X_RT_NAME(e, name, desc) name,
                                        TM_RUNTIME_OPTION_LIST(TM_X_RT_NAME)
#undef TM_X_RT_NAME
                                            NULL};

_Static_assert(sizeof(tm_runtime_names) / sizeof(tm_runtime_names[0]) == TM_RUNTIME_OPTION_END + 1,
               "every --runtime value has its name");

const struct tm_runtime_desc *tm_runtime_desc(enum tm_runtime rt)
{
	if ((int)rt <= TM_RUNTIME_NONE || rt >= TM_RUNTIME_COUNT)
		return NULL;
	return registry[rt];
}

const char *tm_runtime_option_names(char *buf, size_t size, const char *sep)
{
	size_t n = 0;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_OPTION_END && n < size; rt++) {
		int k = snprintf(buf + n, size - n, "%s%s", rt > TM_RUNTIME_NONE + 1 ? sep : "",
		                 registry[rt]->name);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	return buf;
}

bool tm_runtime_env_var(const char *name)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (registry[rt]->env_var && !strcmp(registry[rt]->env_var, name))
			return true;
	return false;
}

const char *tm_runtime_metric_help(enum tm_metric m)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		for (const struct tm_rt_help *h = registry[rt]->help;
		     h && h->metric < TM_METRIC_COUNT; h++)
			if (h->metric == m)
				return h->text;
	return NULL;
}
