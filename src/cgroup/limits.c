/* Limits no program can start in; see limits.h. */
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "cgroup/limits.h"
#include "base/banned.h"

int tm_limit_floor_why(int64_t bytes, char *why, size_t why_size)
{
	if (bytes == -1 || bytes >= TM_LIMIT_FLOOR_BYTES)
		return 0;
	snprintf(why, why_size,
	         "%lld bytes is below %d KiB, the least any program can start in (a new "
	         "process's page tables, kernel stack and first pages are charged to its "
	         "cgroup; under that it is killed before it runs)",
	         (long long)bytes, TM_LIMIT_FLOOR_BYTES / 1024);
	return -1;
}

int tm_limit_check(const char *what, int64_t bytes)
{
	char why[320];

	if (tm_limit_floor_why(bytes, why, sizeof(why)) == 0)
		return 0;
	return tm_error("%s %s", what, why);
}
