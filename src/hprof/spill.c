/* File-backed arrays; see hprof/spill.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "hprof/spill.h"
#include "base/banned.h"

#define SPILL_BUF (1u << 20)

static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* An unnamed file in the temp dir: O_TMPFILE, else a name unlinked at once. */
static int tmp_file(void)
{
	const char *dir = tmp_dir();
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char path[4096];
	snprintf(path, sizeof(path), "%s/tidemark-hprof.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return tm_error("cannot create a temporary file in '%s' (TMPDIR): %s", dir,
		                strerror(errno));
	unlink(path);
	return fd;
}

static void account(struct tm_spill *s, uint64_t grow)
{
	s->pool->bytes_now += grow;
	if (s->pool->bytes_now > s->pool->bytes_peak)
		s->pool->bytes_peak = s->pool->bytes_now;
}

int tm_spill_open(struct tm_spill *s, struct tm_spool *pool)
{
	tm_spill_init(s);
	s->pool = pool;
	if ((s->fd = tmp_file()) < 0)
		return -1;
	if (!(s->buf = malloc(SPILL_BUF))) {
		tm_spill_release(s);
		return tm_error("out of memory for a spill buffer");
	}
	return 0;
}

static int flush(struct tm_spill *s)
{
	size_t done = 0;
	while (done < s->used) {
		ssize_t w = write(s->fd, s->buf + done, s->used - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return tm_error("cannot write a temporary file in '%s': %s", tmp_dir(),
			                w < 0 ? strerror(errno) : "short write");
		done += (size_t)w;
	}
	s->used = 0;
	return 0;
}

int tm_spill_append(struct tm_spill *s, const void *p, size_t n)
{
	if (s->used + n > SPILL_BUF && flush(s))
		return -1;
	memcpy(s->buf + s->used, p, n);
	s->used += n;
	s->bytes += n;
	account(s, n);
	return 0;
}

static int map_file(struct tm_spill *s)
{
	if (!s->bytes)
		return 0;
	s->map = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return tm_error("cannot map a %llu-byte temporary file: %s",
		                (unsigned long long)s->bytes, strerror(errno));
	}
	return 0;
}

int tm_spill_map(struct tm_spill *s)
{
	if (flush(s))
		return -1;
	free(s->buf);
	s->buf = NULL;
	return map_file(s);
}

int tm_spill_array(struct tm_spill *s, struct tm_spool *pool, uint64_t bytes)
{
	tm_spill_init(s);
	s->pool = pool;
	if ((s->fd = tmp_file()) < 0)
		return -1;
	if (bytes && ftruncate(s->fd, (off_t)bytes)) {
		int e = errno;
		tm_spill_release(s);
		return tm_error("cannot size a temporary file to %llu bytes: %s",
		                (unsigned long long)bytes, strerror(e));
	}
	s->bytes = bytes;
	account(s, bytes);
	return map_file(s);
}

void tm_spill_release(struct tm_spill *s)
{
	if (s->map)
		munmap(s->map, s->bytes);
	if (s->fd >= 0) {
		close(s->fd);
		if (s->pool)
			s->pool->bytes_now -= s->bytes;
	}
	free(s->buf);
	tm_spill_init(s);
}
