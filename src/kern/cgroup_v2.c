#include <string.h>

#include "kern/cgroup_v2.h"
#include "kern/kv.h"
#include "base/banned.h"

#define B(key, m)                                                                                  \
	{                                                                                          \
		key, TM_M_##m, 1, false                                                            \
	}

int tm_parse_cg2_value(const char *buf, size_t len, int64_t *out)
{
	const char *end = buf + len, *p;

	if (len > 0 && end[-1] == '\n')
		end--;
	if (end - buf == 3 && !memcmp(buf, "max", 3)) {
		*out = TM_CG_UNLIMITED;
		return 0;
	}
	if (tm_kv_num(buf, end, out, &p) || p != end)
		return -1;
	return 0;
}

int tm_parse_cg2_memory_stat(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    B("anon", CG_ANON_BYTES),
	    B("file", CG_FILE_BYTES),
	    B("active_file", CG_ACTIVE_FILE_BYTES),
	    B("inactive_file", CG_INACTIVE_FILE_BYTES),
	    B("kernel", CG_KERNEL_BYTES),
	    B("kernel_stack", CG_KERNEL_STACK_BYTES),
	    B("slab", CG_SLAB_BYTES),
	    B("sock", CG_SOCK_BYTES),
	    B("shmem", CG_SHMEM_BYTES),
	    B("file_mapped", CG_FILE_MAPPED_BYTES),
	    B("file_dirty", CG_FILE_DIRTY_BYTES),
	    B("file_writeback", CG_FILE_WRITEBACK_BYTES),
	    B("anon_thp", CG_ANON_THP_BYTES),
	    B("pgfault", CG_PGFAULT),
	    B("pgmajfault", CG_PGMAJFAULT),
	    B("workingset_refault_file", CG_WORKINGSET_REFAULT_FILE),
	    B("thp_collapse_alloc", CG_THP_COLLAPSE_ALLOC),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_cg2_memory_events(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    B("low", CG_EVENTS_LOW), B("high", CG_EVENTS_HIGH),         B("max", CG_EVENTS_MAX),
	    B("oom", CG_EVENTS_OOM), B("oom_kill", CG_EVENTS_OOM_KILL),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_cg2_cpu_stat(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    B("usage_usec", CG_CPU_USAGE_USEC),
	    B("user_usec", CG_CPU_USER_USEC),
	    B("system_usec", CG_CPU_SYSTEM_USEC),
	    B("throttled_usec", CG_CPU_THROTTLED_USEC),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

/* One io.stat line after its device: "key=N key=N ...". */
static int io_line(const char *p, const char *eol, int64_t *rbytes, int64_t *wbytes)
{
	while ((p = tm_kv_skip_blank(p, eol)) < eol) {
		const char *eq = memchr(p, '=', (size_t)(eol - p)), *q;
		int64_t v;

		if (!eq || tm_kv_num(eq + 1, eol, &v, &q))
			return -1;
		if (q < eol && *q != ' ' && *q != '\t')
			return -1;
		if (eq - p == 6 && !memcmp(p, "rbytes", 6))
			*rbytes += v;
		else if (eq - p == 6 && !memcmp(p, "wbytes", 6))
			*wbytes += v;
		p = q;
	}
	return 0;
}

int tm_parse_cg2_io_stat(const char *buf, size_t len, struct tm_sample *out)
{
	const char *p = buf, *end = buf + len;
	int64_t rbytes = 0, wbytes = 0, dev;

	while (p < end) {
		const char *eol = tm_kv_eol(p, end), *q;

		if (eol > p) {
			if (tm_kv_num(p, eol, &dev, &q) || q == eol || *q != ':' ||
			    tm_kv_num(q + 1, eol, &dev, &q) || (q < eol && *q != ' '))
				return -1;
			if (io_line(q, eol, &rbytes, &wbytes))
				return -1;
		}
		p = eol < end ? eol + 1 : end;
	}
	tm_sample_set(out, TM_M_CG_IO_READ_BYTES, rbytes);
	tm_sample_set(out, TM_M_CG_IO_WRITE_BYTES, wbytes);
	return 0;
}
