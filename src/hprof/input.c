/* The HPROF byte source; see hprof/input.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/zlib.h"
#include "hprof/input.h"
#include "base/banned.h"

#define NEED_MAX 4096

int tm_hp_in_fd(struct tm_hp_in *in, int fd, size_t chunk, const char *origin)
{
	memset(in, 0, sizeof(*in));
	in->fd = fd;
	in->origin = origin;
	in->cap = chunk < 2 * NEED_MAX ? 2 * NEED_MAX : chunk;
	in->buf = malloc(in->cap);
	if (!in->buf)
		return tm_error("out of memory for a %zu-byte read buffer", in->cap);
	uint8_t magic[2];
	if (pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		if (tm_zlib_load(&in->z)) {
			free(in->buf);
			in->buf = NULL;
			return -1;
		}
		int gfd = dup(fd); /* gzclose closes it; FD stays the caller's */
		if (gfd < 0 || !(in->gz = in->z.gzdopen(gfd, "rb"))) {
			if (gfd >= 0)
				close(gfd);
			free(in->buf);
			in->buf = NULL;
			return tm_error("cannot read '%s' as gzip", origin);
		}
		in->z.gzbuffer(in->gz, 128 * 1024);
	}
	return 0;
}

/* One read of the source into buf[len, cap): bytes read, 0 at the end, -1
 * with errno (or a zlib message in *ZERR). */
static ssize_t read_some(struct tm_hp_in *in, const char **zerr)
{
	*zerr = NULL;
	if (!in->gz)
		return read(in->fd, in->buf + in->len, in->cap - in->len);
	int r = in->z.gzread(in->gz, in->buf + in->len, (unsigned)(in->cap - in->len));
	if (r < 0) {
		int code;
		*zerr = in->z.gzerror(in->gz, &code);
		if (code == Z_ERRNO)
			*zerr = NULL;
		if (code == Z_BUF_ERROR) /* the compressed stream stops mid-way */
			in->truncated = true;
	}
	return r;
}

void tm_hp_in_mem(struct tm_hp_in *in, const uint8_t *buf, size_t len, const char *origin)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->buf = (uint8_t *)buf; /* never written through for a memory source */
	in->len = len;
	in->origin = origin;
}

void tm_hp_in_release(struct tm_hp_in *in)
{
	if (in->fd >= 0)
		free(in->buf);
	if (in->gz)
		in->z.gzclose(in->gz);
	in->gz = NULL;
	in->buf = NULL;
}

/* Reads more of the file after the unread bytes; 0 at end of file, -1 on error. */
static ssize_t refill(struct tm_hp_in *in)
{
	size_t keep = in->len - in->pos;
	memmove(in->buf, in->buf + in->pos, keep);
	in->buf_off += in->pos;
	in->pos = 0;
	in->len = keep;
	for (;;) {
		const char *zerr;
		ssize_t r = read_some(in, &zerr);
		if (r < 0 && !zerr && errno == EINTR)
			continue;
		if (r < 0)
			return tm_error("cannot read '%s' at offset %llu: %s", in->origin,
			                (unsigned long long)(in->buf_off + in->len),
			                zerr ? zerr : strerror(errno));
		in->len += (size_t)r;
		return r;
	}
}

static int short_source(struct tm_hp_in *in, const char *what)
{
	in->truncated = true;
	return tm_error("'%s' is truncated at offset %llu (in %s)", in->origin,
	                (unsigned long long)(in->buf_off + in->len), what);
}

int tm_hp_need(struct tm_hp_in *in, size_t n, const char *what)
{
	if (n > NEED_MAX)
		TM_BUG("tm_hp_need(%zu) over %d", n, NEED_MAX);
	while (in->len - in->pos < n) {
		if (in->fd < 0)
			return short_source(in, what);
		ssize_t r = refill(in);
		if (r < 0)
			return -1;
		if (r == 0)
			return short_source(in, what);
	}
	return 0;
}

int tm_hp_more(struct tm_hp_in *in)
{
	if (in->len > in->pos)
		return 1;
	if (in->fd < 0)
		return 0;
	ssize_t r = refill(in);
	return r < 0 ? -1 : r > 0;
}

/* At least one unread byte: 0, or -1 after tm_error. */
static int some(struct tm_hp_in *in, const char *what)
{
	if (in->len > in->pos)
		return 0;
	if (in->fd < 0)
		return short_source(in, what);
	ssize_t r = refill(in);
	if (r < 0)
		return -1;
	return r == 0 ? short_source(in, what) : 0;
}

int tm_hp_skip(struct tm_hp_in *in, uint64_t n, const char *what)
{
	while (n > 0) {
		if (some(in, what))
			return -1;
		size_t avail = in->len - in->pos;
		size_t step = n < avail ? (size_t)n : avail;
		in->pos += step;
		n -= step;
	}
	return 0;
}

int tm_hp_copy(struct tm_hp_in *in, void *dst, size_t n, const char *what)
{
	uint8_t *d = dst;
	while (n > 0) {
		if (some(in, what))
			return -1;
		size_t avail = in->len - in->pos;
		size_t step = n < avail ? n : avail;
		memcpy(d, in->buf + in->pos, step);
		in->pos += step;
		d += step;
		n -= step;
	}
	return 0;
}
