#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "runtime/hsperf.h"
#include "sample/jvm.h"
#include "sample/rtsample.h"
#include "sample/jvmresident.h"
#include "base/banned.h"

#define LOOK_FIRST_USEC        250000
#define LOOK_MAX_USEC          30000000
#define NO_COUNTERS_AFTER_USEC 1000000

/* Copies the N bytes of a maps path at SRC into PATH (SIZE bytes) with the
 * kernel's one escape undone: a newline in a name is written "\012".
 * Returns 0, or -1 when it does not fit or holds a NUL. */
static int unescape_path(const char *src, size_t n, char *path, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		char c = src[i];
		if (c == '\\' && n - i >= 4 && !memcmp(src + i + 1, "012", 3)) {
			c = '\n';
			i += 3;
		}
		if (c == 0 || o + 1 >= size)
			return -1;
		path[o++] = c;
	}
	path[o] = 0;
	return 0;
}

int tm_jvm_maps_find(const char *maps, size_t len, char *path, size_t size)
{
	const char *end = maps + len, *line = maps;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		const char *slash = memchr(line, '/', (size_t)(eol - line));
		size_t n = slash ? (size_t)(eol - slash) : 0;
		if (n && memmem(slash, n, "/hsperfdata_", 12) &&
		    !(n >= 10 && !memcmp(eol - 10, " (deleted)", 10)) &&
		    unescape_path(slash, n, path, size) == 0)
			return 0;
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

/* Opens PATH relative to DIRFD (AT_FDCWD: as it reads) for reading only if
 * it is a regular file owned by UID of at most TM_JVM_BUF_BYTES: never
 * through a final symbolic link, never waiting on a FIFO or a device. */
static int open_checked(int dirfd, const char *path, uid_t uid)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != uid || st.st_size <= 0 ||
	    st.st_size > (off_t)TM_JVM_BUF_BYTES) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads P's maps into BUF and opens the hsperfdata file it names; notes a
 * JVM that maps none. */
static int open_hsperf(struct tm_proc *p, uint8_t *buf)
{
	char path[PATH_MAX], rooted[PATH_MAX + 8];
	int fd = openat(p->dirfd, "maps", O_RDONLY | O_CLOEXEC);
	struct stat owner;
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (fstat(p->dirfd, &owner)) { /* /proc/PID belongs to the process's uid */
		close(fd);
		return -1;
	}
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
	 * mount namespace), else as it reads here; the process chose it, so
	 * whatever lies there must be its own regular file (docs/THREAT-MODEL.md) */
	snprintf(rooted, sizeof(rooted), "root%s", path);
	fd = open_checked(p->dirfd, rooted, owner.st_uid);
	if (fd < 0)
		fd = open_checked(AT_FDCWD, path, owner.st_uid);
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
	ssize_t n;

	if (look_due(p, now_mono_usec))
		p->hsperf_fd = open_hsperf(p, buf);
	if (p->hsperf_fd < 0) {
		if (p->jvm_no_counters)
			tm_sample_add(out, TM_M_JVM_PROCS_NO_COUNTERS, 1);
		return;
	}
	n = tm_pread_all(p->hsperf_fd, (char *)buf, TM_JVM_BUF_BYTES);
	if (n <= 0 || tm_hsperf_parse(buf, (size_t)n, &h, NULL))
		return;
	tm_hsperf_to_sample(&h, out);
	if (h.accessible)
		tm_jvm_resident_sample(p, buf, (size_t)n, now_mono_usec, buf, TM_JVM_BUF_BYTES,
		                       out);
}

/* The JVM's part of the sampler (sample/rtsample.h). */
const struct tm_rt_sampler tm_rts_jvm = {
    .buf_bytes = TM_JVM_BUF_BYTES,
    .sample = tm_jvm_sample,
};
