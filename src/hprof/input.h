/*
 * The byte source an HPROF dump is read from: a file descriptor read in
 * large chunks (so a dump of any size streams through a fixed buffer), or a
 * buffer already in memory (the fuzz target).  Big-endian numbers, as HPROF
 * writes them.  Every read is bounds-checked: a short source is an error
 * naming the offset, never a read past the end.
 */
#ifndef TM_HPROF_INPUT_H
#define TM_HPROF_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/zlib.h"

struct tm_hp_in {
	int fd;             /* -1 for a memory source */
	uint8_t *buf;       /* our chunk buffer (fd) or the caller's bytes */
	size_t cap;         /* size of buf (fd sources) */
	size_t pos, len;    /* unread bytes are buf[pos, len) */
	uint64_t buf_off;   /* offset in the dump of buf[0] */
	const char *origin; /* names the dump in errors (borrowed) */
	void *gz;           /* a gzFile when the file is gzip-compressed (fd sources) */
	struct tm_zlib z;   /* zlib, loaded when the file is gzip-compressed */
	bool truncated;     /* an error said the dump ends too soon (cut short) */
};

/* Opens a reader over FD (not closed here) with a chunk of CHUNK bytes; a
 * gzip-compressed file (its first two bytes) is read through zlib, and
 * offsets are then those of the uncompressed dump.  0, or -1 after
 * tm_error. */
int tm_hp_in_fd(struct tm_hp_in *in, int fd, size_t chunk, const char *origin);

/* A reader over LEN bytes at BUF (borrowed, must outlive the reader). */
void tm_hp_in_mem(struct tm_hp_in *in, const uint8_t *buf, size_t len, const char *origin);

/* Frees the chunk buffer of an fd reader. */
void tm_hp_in_release(struct tm_hp_in *in);

/* The offset in the dump of the next unread byte. */
static inline uint64_t tm_hp_off(const struct tm_hp_in *in)
{
	return in->buf_off + in->pos;
}

/* Makes N contiguous bytes readable at buf + pos (N at most 4096).
 * 0, or -1 after tm_error on a short source (IN->truncated set; WHAT names
 * what was being read) or a read error. */
int tm_hp_need(struct tm_hp_in *in, size_t n, const char *what);

/* 1 when at least one byte is left, 0 at the end of the source, -1 after
 * tm_error on a read error. */
int tm_hp_more(struct tm_hp_in *in);

/* Consumes N bytes without looking at them.  0, or -1 after tm_error. */
int tm_hp_skip(struct tm_hp_in *in, uint64_t n, const char *what);

/* Copies N bytes into DST.  0, or -1 after tm_error. */
int tm_hp_copy(struct tm_hp_in *in, void *dst, size_t n, const char *what);

/* Big-endian reads of bytes made readable by tm_hp_need. */
static inline uint8_t tm_hp_u1(struct tm_hp_in *in)
{
	return in->buf[in->pos++];
}

static inline uint32_t tm_hp_u2(struct tm_hp_in *in)
{
	const uint8_t *p = in->buf + in->pos;
	in->pos += 2;
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t tm_hp_u4(struct tm_hp_in *in)
{
	const uint8_t *p = in->buf + in->pos;
	in->pos += 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* An identifier of ID_SIZE (4 or 8) bytes. */
static inline uint64_t tm_hp_id(struct tm_hp_in *in, unsigned id_size)
{
	uint64_t v = tm_hp_u4(in);
	if (id_size == 8)
		v = v << 32 | tm_hp_u4(in);
	return v;
}

#endif
