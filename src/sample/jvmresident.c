#include <fcntl.h>
#include <unistd.h>

#include "runtime/hsperf.h"
#include "sample/javaheap.h"
#include "sample/jvmresident.h"
#include "base/banned.h"

#define LOOK_FIRST_USEC 250000
#define LOOK_MAX_USEC   30000000
#define READ_CHUNK      65536
#define PAGE_MASK       ((uint64_t)4095)

/* The heap's sizes from hsperfdata: the two candidates for the reserved
 * size (G1 gives each generation the whole heap as its maxCapacity; the
 * generational collectors split it) and the committed bytes. */
struct sizes {
	uint64_t sum, max, committed;
};

static int heap_sizes(const uint8_t *hs, size_t len, struct sizes *z)
{
	int64_t m0, m1, c0, c1;

	if (tm_hsperf_lookup(hs, len, "sun.gc.generation.0.maxCapacity", &m0) ||
	    tm_hsperf_lookup(hs, len, "sun.gc.generation.1.maxCapacity", &m1) ||
	    tm_hsperf_lookup(hs, len, "sun.gc.generation.0.capacity", &c0) ||
	    tm_hsperf_lookup(hs, len, "sun.gc.generation.1.capacity", &c1) || m0 <= 0 || m1 <= 0 ||
	    c0 < 0 || c1 < 0 || m0 > INT64_MAX / 2 || m1 > INT64_MAX / 2)
		return -1;
	/* (the counters carry a few bytes over the page-aligned sizes) */
	z->sum = (uint64_t)(m0 + m1) & ~PAGE_MASK;
	z->max = (uint64_t)(m0 > m1 ? m0 : m1) & ~PAGE_MASK;
	z->committed = (uint64_t)c0 + (uint64_t)c1;
	return 0;
}

/* Reads FILE of P into BUF (at most SIZE - 1 bytes, NUL-terminated); for
 * smaps (STOP_AT > 0) no further than the first mapping at or past STOP_AT.
 * The length, or -1. */
static ssize_t read_proc(struct tm_proc *p, const char *file, uint8_t *buf, size_t size,
                         uint64_t stop_at)
{
	int fd = openat(p->dirfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0 || size < 2)
		goto out;
	while (len < size - 1) {
		size_t want = size - 1 - len < READ_CHUNK ? size - 1 - len : READ_CHUNK;
		size_t from = len;
		if ((n = read(fd, buf + len, want)) <= 0)
			break;
		len += (size_t)n;
		while (from > 0 && buf[from - 1] != '\n')
			from--; /* from the start of the line the chunk began in */
		if (stop_at &&
		    tm_javaheap_smaps_past((const char *)buf + from, len - from, stop_at))
			break;
	}
out:
	if (fd >= 0)
		close(fd);
	if (n < 0 || fd < 0)
		return -1;
	buf[len] = 0;
	return (ssize_t)len;
}

/* Looks for the heap's range in P's maps, paced by the back-off. */
static void find_range(struct tm_proc *p, const struct sizes *z, int64_t now, uint8_t *buf,
                       size_t size)
{
	struct tm_javaheap_range a, b;
	uint64_t tol = (2u << 20) + z->committed / 16;
	ssize_t n;

	if (p->jheap_look_usec && now < p->jheap_look_usec)
		return;
	p->jheap_wait_usec = p->jheap_wait_usec ? p->jheap_wait_usec * 2 : LOOK_FIRST_USEC;
	if (p->jheap_wait_usec > LOOK_MAX_USEC)
		p->jheap_wait_usec = LOOK_MAX_USEC;
	p->jheap_look_usec = now + p->jheap_wait_usec;
	if ((n = read_proc(p, "maps", buf, size, 0)) <= 0)
		return;
	int fa = tm_javaheap_find((const char *)buf, (size_t)n, z->max, z->committed, tol, &a);
	int fb = z->sum == z->max ? -1
	                          : tm_javaheap_find((const char *)buf, (size_t)n, z->sum,
	                                             z->committed, tol, &b);
	if (fa == 0 && fb != 0) /* one of the two sizes, and one range of it */
		p->jheap_start = a.start, p->jheap_end = a.end;
	else if (fb == 0 && fa != 0)
		p->jheap_start = b.start, p->jheap_end = b.end;
}

void tm_jvm_resident_sample(struct tm_proc *p, const uint8_t *hs, size_t len, int64_t now_mono_usec,
                            uint8_t *buf, size_t buf_size, struct tm_sample *out)
{
	struct sizes z;
	uint64_t anon;
	ssize_t n;

	if (heap_sizes(hs, len, &z))
		return;
	if (p->jheap_end && p->jheap_end - p->jheap_start != z.max &&
	    p->jheap_end - p->jheap_start != z.sum)
		p->jheap_start = p->jheap_end = 0; /* another heap: look again */
	if (!p->jheap_end)
		find_range(p, &z, now_mono_usec, buf, buf_size);
	if (!p->jheap_end)
		return;
	struct tm_javaheap_range r = {p->jheap_start, p->jheap_end};
	if ((n = read_proc(p, "smaps", buf, buf_size, r.end)) <= 0 ||
	    tm_javaheap_smaps_anon((const char *)buf, (size_t)n, &r, &anon)) {
		p->jheap_start = p->jheap_end = 0; /* gone or moved: look again, paced */
		return;
	}
	tm_sample_add(out, TM_M_JVM_HEAP_RESIDENT_BYTES, (int64_t)anon);
	tm_sample_add(out, TM_M_JVM_HEAP_RESIDENT_PROCS, 1);
}
