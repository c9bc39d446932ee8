/* Limits no program can start in; see limits.h. */
#include <stdint.h>

#include "base/error.h"
#include "cgroup/limits.h"
#include "base/banned.h"

int tm_limit_check(const char *what, int64_t bytes)
{
	if (bytes == -1 || bytes >= TM_LIMIT_FLOOR_BYTES)
		return 0;
	return tm_error("%s %lld bytes is below %d KiB, the least any program can start in (a new "
	                "process's page tables, kernel stack and first pages are charged to its "
	                "cgroup; under that it is killed before it runs)",
	                what, (long long)bytes, TM_LIMIT_FLOOR_BYTES / 1024);
}
