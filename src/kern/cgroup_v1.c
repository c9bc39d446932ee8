#include <string.h>

#include "kern/cgroup_v1.h"
#include "kern/kv.h"
#include "base/banned.h"

#define B(key, m)                                                                                  \
	{                                                                                          \
		key, TM_M_##m, 1, false                                                            \
	}
#define V1_UNLIMITED_FROM ((int64_t)1 << 62)

int tm_parse_cg1_value(const char *buf, size_t len, int64_t *out)
{
	const char *end = buf + len, *p;

	if (len > 0 && end[-1] == '\n')
		end--;
	if (tm_kv_num(buf, end, out, &p) || p != end)
		return -1;
	if (*out >= V1_UNLIMITED_FROM)
		*out = TM_CG_UNLIMITED;
	return 0;
}

int tm_parse_cg1_memory_stat(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    B("total_rss", CG_ANON_BYTES),
	    B("total_cache", CG_FILE_BYTES),
	    B("total_rss_huge", CG_ANON_THP_BYTES),
	    B("total_shmem", CG_SHMEM_BYTES),
	    B("total_mapped_file", CG_FILE_MAPPED_BYTES),
	    B("total_dirty", CG_FILE_DIRTY_BYTES),
	    B("total_writeback", CG_FILE_WRITEBACK_BYTES),
	    B("total_active_file", CG_ACTIVE_FILE_BYTES),
	    B("total_inactive_file", CG_INACTIVE_FILE_BYTES),
	    B("total_pgfault", CG_PGFAULT),
	    B("total_pgmajfault", CG_PGMAJFAULT),
	    B("total_workingset_refault_file", CG_WORKINGSET_REFAULT_FILE),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_cg1_oom_control(const char *buf, size_t len, struct tm_cg1_oom *out)
{
	/* Parse through a scratch sample: the keys map onto two slots. */
	static const struct tm_kv_map map[] = {
	    B("oom_kill", CG_EVENTS_OOM_KILL),
	    B("under_oom", CG_EVENTS_OOM),
	};
	struct tm_sample s;

	tm_sample_clear(&s);
	memset(out, 0, sizeof(*out));
	if (tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), &s) < 0)
		return -1;
	out->has_oom_kill = tm_sample_has(&s, TM_M_CG_EVENTS_OOM_KILL);
	out->oom_kill = out->has_oom_kill ? s.v[TM_M_CG_EVENTS_OOM_KILL] : 0;
	out->has_under_oom = tm_sample_has(&s, TM_M_CG_EVENTS_OOM);
	out->under_oom = out->has_under_oom && s.v[TM_M_CG_EVENTS_OOM] != 0;
	return 0;
}

int tm_parse_cpuacct_usage(const char *buf, size_t len, int64_t *usec)
{
	const char *end = buf + len, *p;
	int64_t ns;

	if (len > 0 && end[-1] == '\n')
		end--;
	if (tm_kv_num(buf, end, &ns, &p) || p != end)
		return -1;
	*usec = ns / 1000;
	return 0;
}

int tm_parse_cpuacct_stat(const char *buf, size_t len, long clk_tck, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    B("user", CG_CPU_USER_USEC),
	    B("system", CG_CPU_SYSTEM_USEC),
	};
	static const enum tm_metric ms[] = {TM_M_CG_CPU_USER_USEC, TM_M_CG_CPU_SYSTEM_USEC};
	struct tm_sample s;

	if (clk_tck <= 0)
		return -1;
	tm_sample_clear(&s);
	if (tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), &s) < 0)
		return -1;
	for (size_t i = 0; i < TM_ARRAY_SIZE(ms); i++) {
		int64_t t, usec;
		if (!tm_sample_has(&s, ms[i]))
			continue;
		t = s.v[ms[i]];
		/* ticks whose microseconds do not fit in 64 bits (no real count:
		 * found by fuzz_kern) stay absent, not wrapped */
		if (__builtin_mul_overflow(t / clk_tck, 1000000, &usec) ||
		    __builtin_add_overflow(usec, t % clk_tck * 1000000 / clk_tck, &usec))
			continue;
		tm_sample_set(out, ms[i], usec);
	}
	return 0;
}
