/* memory.high on cgroup v1; see limitnote.h. */
#include <stdbool.h>
#include <string.h>

#include "report/run/limitnote.h"
#include "base/banned.h"

bool tm_mode_memory_v1(const char *cgroup_mode)
{
	return cgroup_mode && (!strcmp(cgroup_mode, "v1") || !strcmp(cgroup_mode, "hybrid"));
}
