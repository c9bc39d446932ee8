/* libFuzzer target: every pure kernel-file parser in src/kern on arbitrary
 * bytes.  The first byte picks the parser; the rest is the file's text.
 * None may crash, read out of bounds or leak, and a parser that succeeds
 * must leave only valid metrics set (tm_sample_has on a known id). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sample.h"
#include "kern/cgroup_v1.h"
#include "kern/cgroup_v2.h"
#include "kern/procfs.h"
#include "kern/psi.h"
#include "kern/thp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	P_STATUS,
	P_STATM,
	P_STAT,
	P_IO,
	P_SMAPS,
	P_MEMINFO,
	P_STAT_CPU,
	P_MAPS,
	P_PROC_CGROUP,
	P_MOUNTINFO,
	P_PIDS,
	P_PSI,
	P_CG1_VALUE,
	P_CG1_STAT,
	P_CG1_OOM,
	P_CPUACCT,
	P_CPUACCT_STAT,
	P_CG2_VALUE,
	P_CG2_STAT,
	P_CG2_EVENTS,
	P_CG2_CPU,
	P_CG2_IO,
	P_THP, /* last: the seeds of the others keep their first byte */
	P_COUNT
};

/* scripts/fuzz.sh seeds first bytes 0..31 */
_Static_assert(P_COUNT <= 32, "scripts/fuzz.sh seeds 32 first bytes");

static void check_sample(const struct tm_sample *s)
{
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		if (tm_sample_has(s, m) && s->v[m] == INT64_MIN)
			abort(); /* no parser produces the "unset" sentinel as a value */
}

/* THP's mode is one of the known ones or unknown; a size is positive. */
static void run_thp(const char *buf, size_t len)
{
	enum tm_thp_mode m;
	int64_t sz;
	if (tm_parse_thp_enabled(buf, len, &m) == 0 && (m < TM_THP_ALWAYS || m > TM_THP_NEVER))
		abort();
	if (tm_parse_thp_size(buf, len, &sz) == 0 && sz <= 0)
		abort();
}

static void run_proc(int which, const char *buf, size_t len, struct tm_sample *s)
{
	struct tm_proc_stat ps;
	switch (which) {
	case P_STATUS:
		tm_parse_proc_status(buf, len, s);
		break;
	case P_STATM:
		tm_parse_proc_statm(buf, len, 4096, s);
		break;
	case P_STAT:
		if (tm_parse_proc_stat(buf, len, 100, &ps) == 0)
			tm_proc_stat_to_sample(&ps, s);
		break;
	case P_IO:
		tm_parse_proc_io(buf, len, s);
		break;
	case P_SMAPS:
		tm_parse_smaps_rollup(buf, len, s);
		break;
	case P_MEMINFO:
		tm_parse_meminfo(buf, len, s);
		break;
	case P_STAT_CPU:
		tm_parse_proc_stat_cpu(buf, len, 100, s);
		break;
	}
}

static void run_misc(int which, const char *buf, size_t len)
{
	static struct tm_cg_mounts mounts;
	struct tm_proc_cgroup pc;
	struct tm_psi psi;
	pid_t pids[64];
	size_t n;
	const char *a;
	switch (which) {
	case P_MAPS:
		a = tm_parse_maps_allocator(buf, len);
		if (a && !*a)
			abort();
		break;
	case P_PROC_CGROUP:
		tm_parse_proc_cgroup(buf, len, &pc);
		break;
	case P_MOUNTINFO:
		tm_parse_mountinfo(buf, len, &mounts);
		break;
	case P_PIDS:
		/* N may exceed the room (the caller grows and retries); what
		 * was stored must be real pids */
		if (tm_parse_pid_list(buf, len, pids, 64, &n) == 0)
			for (size_t i = 0; i < n && i < 64; i++)
				if (pids[i] <= 0)
					abort();
		break;
	case P_PSI:
		tm_parse_psi(buf, len, &psi);
		break;
	}
}

static void run_cgroup(int which, const char *buf, size_t len, struct tm_sample *s)
{
	struct tm_cg1_oom oom;
	int64_t v;
	switch (which) {
	case P_CG1_VALUE:
		tm_parse_cg1_value(buf, len, &v);
		break;
	case P_CG1_STAT:
		tm_parse_cg1_memory_stat(buf, len, s);
		break;
	case P_CG1_OOM:
		tm_parse_cg1_oom_control(buf, len, &oom);
		break;
	case P_CPUACCT:
		tm_parse_cpuacct_usage(buf, len, &v);
		break;
	case P_CPUACCT_STAT:
		tm_parse_cpuacct_stat(buf, len, 100, s);
		break;
	case P_CG2_VALUE:
		tm_parse_cg2_value(buf, len, &v);
		break;
	case P_CG2_STAT:
		tm_parse_cg2_memory_stat(buf, len, s);
		break;
	case P_CG2_EVENTS:
		tm_parse_cg2_memory_events(buf, len, s);
		break;
	case P_CG2_CPU:
		tm_parse_cg2_cpu_stat(buf, len, s);
		break;
	case P_CG2_IO:
		tm_parse_cg2_io_stat(buf, len, s);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_sample s;
	if (size < 1)
		return 0;
	int which = data[0] % P_COUNT;
	/* an exact-size heap copy, so reading past LEN is caught by ASan */
	size_t len = size - 1;
	char *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, len);
	tm_sample_clear(&s);
	if (which <= P_STAT_CPU)
		run_proc(which, buf, len, &s);
	else if (which <= P_PSI)
		run_misc(which, buf, len);
	else if (which == P_THP)
		run_thp(buf, len);
	else
		run_cgroup(which, buf, len, &s);
	check_sample(&s);
	free(buf);
	return 0;
}
