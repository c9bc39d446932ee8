/* Limits no program can start in; see limits.h. */
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "cgroup/limits.h"
#include "base/banned.h"

int tm_limit_floor_why(int64_t bytes, struct tm_err *err)
{
	if (bytes == -1 || bytes >= TM_LIMIT_FLOOR_BYTES)
		return 0;
	return tm_err_set(err, 0,
	                  "%lld bytes is below %d KiB, the least any program can start in (a new "
	                  "process's page tables, kernel stack and first pages are charged to its "
	                  "cgroup; under that it is killed before it runs)",
	                  (long long)bytes, TM_LIMIT_FLOOR_BYTES / 1024);
}

int tm_limit_check(const char *what, int64_t bytes)
{
	struct tm_err err;

	if (tm_limit_floor_why(bytes, &err) == 0)
		return 0;
	return tm_error("%s %s", what, err.msg);
}
