#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "runtime/hsperf.h"
#include "sample/jvm.h"
#include "base/banned.h"

#define LOOK_FIRST_USEC        250000
#define LOOK_MAX_USEC          30000000
#define NO_COUNTERS_AFTER_USEC 1000000

int tm_jvm_maps_find(const char *maps, size_t len, char *path, size_t size)
{
	const char *end = maps + len, *line = maps;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		const char *slash = memchr(line, '/', (size_t)(eol - line));
		size_t n = slash ? (size_t)(eol - slash) : 0;
		if (n && memmem(slash, n, "/hsperfdata_", 12) &&
		    !(n >= 10 && !memcmp(eol - 10, " (deleted)", 10)) && n < size &&
		    !memchr(slash, 0, n)) {
			memcpy(path, slash, n);
			path[n] = 0;
			return 0;
		}
		line = eol + 1;
	}
	return -1;
}

bool tm_jvm_maps_is_jvm(const char *maps, size_t len)
{
	const char *end = maps + len, *line = maps;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		if (eol - line >= 10 && !memcmp(eol - 10, "/libjvm.so", 10))
			return true;
		line = eol + 1;
	}
	return false;
}

/* Reads P's maps into BUF and opens the hsperfdata file it names; notes a
 * JVM that maps none. */
static int open_hsperf(struct tm_proc *p, uint8_t *buf)
{
	char path[PATH_MAX], rooted[PATH_MAX + 8];
	int fd = openat(p->dirfd, "maps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len < TM_JVM_BUF_BYTES - 1 &&
	       (n = read(fd, buf + len, TM_JVM_BUF_BYTES - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (tm_jvm_maps_find((const char *)buf, len, path, sizeof(path))) {
		/* a JVM maps libjvm.so before it creates its file: a JVM only
		 * once it has had none for a while (the third look, ~0.75 s) */
		p->jvm_no_counters = p->hsperf_wait_usec >= NO_COUNTERS_AFTER_USEC &&
		                     tm_jvm_maps_is_jvm((const char *)buf, len);
		return -1;
	}
	p->jvm_no_counters = false;
	/* the path is the process's own: through its root first (another
	 * mount namespace), else as it reads here */
	snprintf(rooted, sizeof(rooted), "root%s", path);
	fd = openat(p->dirfd, rooted, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd;
}

static bool look_due(struct tm_proc *p, int64_t now)
{
	if (p->hsperf_fd >= 0)
		return false;
	if (p->hsperf_look_usec && now < p->hsperf_look_usec)
		return false;
	p->hsperf_wait_usec = p->hsperf_wait_usec ? p->hsperf_wait_usec * 2 : LOOK_FIRST_USEC;
	if (p->hsperf_wait_usec > LOOK_MAX_USEC)
		p->hsperf_wait_usec = LOOK_MAX_USEC;
	p->hsperf_look_usec = now + p->hsperf_wait_usec;
	return true;
}

void tm_jvm_sample(struct tm_proc *p, int64_t now_mono_usec, uint8_t *buf, struct tm_sample *out)
{
	struct tm_hsperf h;
	char err[160];
	ssize_t n;

	if (look_due(p, now_mono_usec))
		p->hsperf_fd = open_hsperf(p, buf);
	if (p->hsperf_fd < 0) {
		if (p->jvm_no_counters)
			tm_sample_add(out, TM_M_JVM_PROCS_NO_COUNTERS, 1);
		return;
	}
	n = tm_pread_all(p->hsperf_fd, (char *)buf, TM_JVM_BUF_BYTES);
	if (n <= 0 || tm_hsperf_parse(buf, (size_t)n, &h, err, sizeof(err)))
		return;
	tm_hsperf_to_sample(&h, out);
}
