#include <string.h>

#include "base/allocators.h"
#include "kern/kv.h"
#include "kern/procfs.h"
#include "base/banned.h"

#define KB(key, m)                                                                                 \
	{                                                                                          \
		key, TM_M_##m, 1024, true                                                          \
	}

int tm_parse_proc_status(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    KB("VmRSS", PROC_RSS_BYTES),        KB("RssAnon", PROC_RSS_ANON_BYTES),
	    KB("RssFile", PROC_RSS_FILE_BYTES), KB("RssShmem", PROC_RSS_SHMEM_BYTES),
	    KB("VmSwap", PROC_SWAP_BYTES),      {"Threads", TM_M_PROC_THREADS, 1, false},
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_proc_statm(const char *buf, size_t len, long page_size, struct tm_sample *out)
{
	const char *end = buf + len, *p = buf;
	int64_t size, resident, shared;

	if (tm_kv_num(p, end, &size, &p) || p >= end || *p++ != ' ' ||
	    tm_kv_num(p, end, &resident, &p) || p >= end || *p++ != ' ' ||
	    tm_kv_num(p, end, &shared, &p) || shared > resident)
		return -1;
	/* pages past what int64 bytes can hold are no real statm (found by
	 * fuzz/fuzz_kern.c: the product overflowed) */
	int64_t rss, anon;
	if (tm_kv_mul(resident, page_size, &rss) || tm_kv_mul(resident - shared, page_size, &anon))
		return -1;
	tm_sample_set(out, TM_M_PROC_RSS_BYTES, rss);
	tm_sample_set(out, TM_M_PROC_RSS_ANON_BYTES, anon);
	return 0;
}

/* Ticks to usec; a count too large for int64 usec (no real kernel's)
 * saturates instead of overflowing. */
static int64_t ticks_usec(int64_t ticks, long clk_tck)
{
	int64_t whole;
	if (__builtin_mul_overflow(ticks / clk_tck, (int64_t)1000000, &whole))
		return ticks < 0 ? INT64_MIN : INT64_MAX;
	int64_t frac = ticks % clk_tck * 1000000 / clk_tck;
	int64_t sum;
	if (__builtin_add_overflow(whole, frac, &sum))
		return ticks < 0 ? INT64_MIN : INT64_MAX;
	return sum;
}

/* A possibly negative decimal token at *P; advances past it and one blank. */
static int stat_field(const char **p, const char *end, int64_t *out)
{
	const char *q = *p;
	bool neg = false;

	if (q < end && *q == '-') {
		neg = true;
		q++;
	}
	if (tm_kv_num(q, end, out, &q))
		return -1;
	if (q < end && *q != ' ' && *q != '\n')
		return -1;
	if (neg)
		*out = -*out;
	*p = q < end ? q + 1 : q;
	return 0;
}

int tm_parse_proc_stat(const char *buf, size_t len, long clk_tck, struct tm_proc_stat *out)
{
	const char *end = buf + len, *p = buf, *paren = NULL;
	int64_t f[23] = {0}, pid;

	if (clk_tck <= 0 || tm_kv_num(p, end, &pid, &p) || pid <= 0)
		return -1;
	for (const char *q = buf; q < end; q++)
		if (*q == ')')
			paren = q;
	if (!paren || end - paren < 4 || paren[1] != ' ' || p + 2 > paren || p[0] != ' ' ||
	    p[1] != '(')
		return -1;
	size_t n = (size_t)(paren - (p + 2));
	n = n < TM_COMM_LEN - 1 ? n : TM_COMM_LEN - 1;
	memcpy(out->comm.name, p + 2, n);
	out->comm.name[n] = '\0';
	out->state = paren[2];
	p = paren + 3;
	if (*p != ' ')
		return -1;
	p++;
	/* f[4] (ppid) ... f[22] (starttime), numbered as in proc(5). */
	for (int i = 4; i <= 22; i++)
		if (stat_field(&p, end, &f[i]))
			return -1;
	out->pid = (pid_t)pid;
	out->ppid = (pid_t)f[4];
	out->minflt = f[10];
	out->majflt = f[12];
	out->utime_usec = ticks_usec(f[14], clk_tck);
	out->stime_usec = ticks_usec(f[15], clk_tck);
	out->num_threads = f[20];
	out->starttime = f[22];
	if (f[10] < 0 || f[12] < 0 || f[14] < 0 || f[15] < 0 || f[22] < 0)
		return -1;
	return 0;
}

void tm_proc_stat_to_sample(const struct tm_proc_stat *st, struct tm_sample *out)
{
	tm_sample_set(out, TM_M_PROC_MINFLT, st->minflt);
	tm_sample_set(out, TM_M_PROC_MAJFLT, st->majflt);
	tm_sample_set(out, TM_M_PROC_UTIME_USEC, st->utime_usec);
	tm_sample_set(out, TM_M_PROC_STIME_USEC, st->stime_usec);
	tm_sample_set(out, TM_M_PROC_THREADS, st->num_threads);
}

int tm_parse_proc_io(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    {"read_bytes", TM_M_PROC_READ_BYTES, 1, false},
	    {"write_bytes", TM_M_PROC_WRITE_BYTES, 1, false},
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_smaps_rollup(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    KB("Pss", PROC_PSS_BYTES),
	    KB("Private_Dirty", PROC_PRIVATE_DIRTY_BYTES),
	    KB("Shared_Dirty", PROC_SHARED_DIRTY_BYTES),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_meminfo(const char *buf, size_t len, struct tm_sample *out)
{
	static const struct tm_kv_map map[] = {
	    KB("MemTotal", HOST_MEM_TOTAL_BYTES),
	    KB("MemAvailable", HOST_MEM_AVAILABLE_BYTES),
	    KB("SwapTotal", HOST_SWAP_TOTAL_BYTES),
	    KB("SwapFree", HOST_SWAP_FREE_BYTES),
	};
	return tm_kv_parse(buf, len, map, TM_ARRAY_SIZE(map), out) < 0 ? -1 : 0;
}

int tm_parse_proc_stat_cpu(const char *buf, size_t len, long clk_tck, struct tm_sample *out)
{
	/* cpu user nice system idle iowait irq softirq steal [guest guest_nice] */
	const char *end = buf + len, *eol = tm_kv_eol(buf, end), *p;
	int64_t f[8];

	if (clk_tck <= 0 || !tm_kv_word(buf, eol, "cpu"))
		return -1;
	p = buf + 3;
	for (int i = 0; i < 8; i++) {
		p = tm_kv_skip_blank(p, eol);
		if (tm_kv_num(p, eol, &f[i], &p))
			return -1;
	}
	int64_t busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
	tm_sample_set(out, TM_M_HOST_CPU_BUSY_USEC, ticks_usec(busy, clk_tck));
	tm_sample_set(out, TM_M_HOST_CPU_STEAL_USEC, ticks_usec(f[7], clk_tck));
	tm_sample_set(out, TM_M_HOST_CPU_TOTAL_USEC, ticks_usec(busy + f[3] + f[4], clk_tck));
	return 0;
}

int tm_parse_proc_stat_forks(const char *buf, size_t len, int64_t *forks)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = tm_kv_eol(p, end), *q;
		int64_t v;

		/* a whole line only: a read cut short mid-number must not count */
		if (eol < end && tm_kv_word(p, eol, "processes")) {
			q = tm_kv_skip_blank(p + 9, eol);
			if (q >= eol || tm_kv_num(q, eol, &v, &q) || q != eol)
				return -1;
			*forks = v;
			return 0;
		}
		p = eol < end ? eol + 1 : end;
	}
	return -1;
}

const char *tm_parse_maps_allocator(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	bool any = false;

	while (p < end) {
		const char *eol = tm_kv_eol(p, end), *name = NULL;

		for (const char *q = p; q < eol; q++)
			if (*q == '/')
				name = q + 1;
		any = true;
		/* the registry's families (base/allocators.h), by file name */
		const char *family =
		    name ? tm_alloc_family_of_lib(name, (size_t)(eol - name)) : NULL;
		if (family)
			return family;
		p = eol < end ? eol + 1 : end;
	}
	return any ? "glibc" : NULL;
}

/* True when the comma-separated LIST [p, end) holds WORD. */
static bool list_has(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma ? comma : end;
		if ((size_t)(e - p) == n && !memcmp(p, word, n))
			return true;
		p = e + 1;
	}
	return false;
}

static int copy_path(char *dst, size_t size, const char *p, const char *end)
{
	size_t n = (size_t)(end - p);

	if (n == 0 || n >= size || *p != '/')
		return -1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

int tm_parse_proc_cgroup(const char *buf, size_t len, struct tm_proc_cgroup *out)
{
	const char *p = buf, *end = buf + len;
	int lines = 0;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *eol = tm_kv_eol(p, end);
		const char *c1 = memchr(p, ':', (size_t)(eol - p));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		int64_t id;
		const char *q;

		if (eol == p) { /* blank line */
			p = eol + 1;
			continue;
		}
		if (!c2 || tm_kv_num(p, c1, &id, &q) || q != c1)
			return -1;
		if (id == 0 && c2 == c1 + 1) {
			if (copy_path(out->unified, sizeof(out->unified), c2 + 1, eol))
				return -1;
			out->has_unified = true;
		}
		if (list_has(c1 + 1, c2, "memory")) {
			if (copy_path(out->memory, sizeof(out->memory), c2 + 1, eol))
				return -1;
			out->has_memory = true;
		}
		if (list_has(c1 + 1, c2, "cpuacct")) {
			if (copy_path(out->cpuacct, sizeof(out->cpuacct), c2 + 1, eol))
				return -1;
			out->has_cpuacct = true;
		}
		lines++;
		p = eol < end ? eol + 1 : end;
	}
	return lines ? 0 : -1;
}

/* Copies the mountinfo field [p, e) into DST, undoing \ooo escapes. */
static int unescape(char *dst, size_t size, const char *p, const char *e)
{
	size_t n = 0;

	while (p < e) {
		char c = *p++;
		if (c == '\\' && e - p >= 3 && p[0] >= '0' && p[0] <= '3' && p[1] >= '0' &&
		    p[1] <= '7' && p[2] >= '0' && p[2] <= '7') {
			c = (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
			p += 3;
		}
		if (n + 1 >= size)
			return -1;
		dst[n++] = c;
	}
	if (n == 0)
		return -1;
	dst[n] = '\0';
	return 0;
}

/* Splits [p, eol) at spaces into at most MAX fields; returns the count. */
static int split_fields(const char *p, const char *eol, const char **f, const char **fe, int max)
{
	int n = 0;

	while (p < eol && n < max) {
		while (p < eol && *p == ' ')
			p++;
		if (p == eol)
			break;
		f[n] = p;
		while (p < eol && *p != ' ')
			p++;
		fe[n++] = p;
	}
	return n;
}

static int set_mount(struct tm_cg_mount *m, const char *root, const char *root_e, const char *dir,
                     const char *dir_e)
{
	if (m->found)
		return 0;
	if (unescape(m->root, sizeof(m->root), root, root_e) ||
	    unescape(m->dir, sizeof(m->dir), dir, dir_e))
		return -1;
	m->found = true;
	return 0;
}

/* One mountinfo line: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SRC SUPER */
static int mountinfo_line(const char *p, const char *eol, struct tm_cg_mounts *out)
{
	const char *f[32], *fe[32];
	int n = split_fields(p, eol, f, fe, 32), dash = -1;

	for (int i = 6; i < n; i++)
		if (fe[i] - f[i] == 1 && *f[i] == '-') {
			dash = i;
			break;
		}
	if (n < 6 || dash < 0 || dash + 3 >= n) /* FSTYPE SOURCE SUPER after the dash */
		return -1;
	const char *fs = f[dash + 1], *fs_e = fe[dash + 1];
	const char *super = f[dash + 3], *super_e = fe[dash + 3];
	if (fs_e - fs == 7 && !memcmp(fs, "cgroup2", 7))
		return set_mount(&out->unified, f[3], fe[3], f[4], fe[4]);
	if (fs_e - fs != 6 || memcmp(fs, "cgroup", 6))
		return 0;
	if (list_has(super, super_e, "memory") && set_mount(&out->memory, f[3], fe[3], f[4], fe[4]))
		return -1;
	if (list_has(super, super_e, "cpuacct") &&
	    set_mount(&out->cpuacct, f[3], fe[3], f[4], fe[4]))
		return -1;
	return 0;
}

int tm_parse_mountinfo(const char *buf, size_t len, struct tm_cg_mounts *out)
{
	const char *p = buf, *end = buf + len;
	int lines = 0;

	/* the flags and first bytes, not the 24 KiB of path room: a recorder
	 * that meets one hierarchy does not pay for pages of the others */
	struct tm_cg_mount *all[] = {&out->memory, &out->cpuacct, &out->unified};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		all[i]->found = false;
		all[i]->dir[0] = all[i]->root[0] = '\0';
	}
	while (p < end) {
		const char *eol = tm_kv_eol(p, end);
		if (eol > p) {
			if (mountinfo_line(p, eol, out))
				return -1;
			lines++;
		}
		p = eol < end ? eol + 1 : end;
	}
	return lines ? 0 : -1;
}

int tm_parse_pid_list(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n)
{
	const char *p = buf, *end = buf + len;
	size_t count = 0;

	while (p < end) {
		int64_t v;
		if (*p == ' ' || *p == '\n' || *p == '\t') {
			p++;
			continue;
		}
		if (tm_kv_num(p, end, &v, &p) || v <= 0 || v > INT32_MAX)
			return -1;
		if (p < end && *p != ' ' && *p != '\n' && *p != '\t')
			return -1;
		if (count < cap)
			pids[count] = (pid_t)v;
		count++;
	}
	*n = count;
	return 0;
}
