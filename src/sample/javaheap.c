#include <stdbool.h>
#include <string.h>

#include "sample/javaheap.h"
#include "base/banned.h"

/* One mapping's header line of maps or smaps. */
struct vma {
	uint64_t start, end;
	bool rw, private_, eligible; /* eligible: anonymous, or a CDS archive (".jsa") */
};

/* Parses a hex number at *P (up to END), at most 16 digits; advances *P. */
static int hex(const char **p, const char *end, uint64_t *out)
{
	int n = 0;
	uint64_t v = 0;

	while (*p < end && n < 17) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			break;
		v = v << 4 | (uint64_t)d;
		(*p)++;
		n++;
	}
	*out = v;
	return n > 0 && n <= 16 ? 0 : -1;
}

/* Skips one field and the spaces after it; -1 when the line ends first. */
static int skip_field(const char **p, const char *end)
{
	while (*p < end && **p != ' ')
		(*p)++;
	if (*p >= end)
		return -1;
	while (*p < end && **p == ' ')
		(*p)++;
	return 0;
}

/* Parses "start-end perms offset dev inode [path]" in [LINE, EOL). */
static int parse_vma(const char *line, const char *eol, struct vma *v)
{
	const char *p = line;
	bool named;

	if (hex(&p, eol, &v->start) || p >= eol || *p++ != '-' || hex(&p, eol, &v->end) ||
	    p >= eol || *p++ != ' ' || eol - p < 4 || v->end <= v->start)
		return -1;
	v->rw = p[0] == 'r' && p[1] == 'w';
	v->private_ = p[3] == 'p';
	if (skip_field(&p, eol) || skip_field(&p, eol) || skip_field(&p, eol))
		return -1; /* perms, offset, dev */
	while (p < eol && *p != ' ')
		p++; /* the inode */
	while (p < eol && *p == ' ')
		p++;
	named = p < eol;
	v->eligible = v->private_ && (!named || (eol - p >= 4 && !memcmp(eol - 4, ".jsa", 4)));
	return 0;
}

static const char *line_end(const char *line, const char *end)
{
	const char *nl = memchr(line, '\n', (size_t)(end - line));
	return nl ? nl : end;
}

/* A window of contiguous eligible mappings: its first line, span and the
 * read-write bytes in it. */
struct win {
	const char *left;
	uint64_t start, end, rw;
};

/* Drops the window's first mapping (the lines from LEFT up to the right
 * edge are all its eligible mappings, one a line). */
static void drop_left(struct win *w, const char *end)
{
	const char *eol = line_end(w->left, end);
	struct vma v;

	if (parse_vma(w->left, eol, &v)) { /* cannot be: it parsed before */
		w->left = NULL;
		return;
	}
	w->start = v.end;
	if (v.rw)
		w->rw -= v.end - v.start;
	w->left = eol + 1;
}

int tm_javaheap_find(const char *maps, size_t len, uint64_t reserved, uint64_t committed,
                     uint64_t tol, struct tm_javaheap_range *out)
{
	const char *end = maps + len, *line = maps;
	struct win w = {NULL, 0, 0, 0};
	int found = 0;

	if (!reserved)
		return -1;
	for (; line < end; line = line_end(line, end) + 1) {
		const char *eol = line_end(line, end);
		struct vma v;
		if (parse_vma(line, eol, &v) || !v.eligible) {
			w.left = NULL;
			continue;
		}
		if (!w.left || v.start != w.end)
			w = (struct win){line, v.start, v.start, 0};
		w.end = v.end;
		w.rw += v.rw ? v.end - v.start : 0;
		while (w.left && w.end - w.start > reserved)
			drop_left(&w, end);
		if (!w.left || w.end - w.start != reserved)
			continue;
		if (w.rw + tol >= committed && found++ == 0)
			*out = (struct tm_javaheap_range){w.start, w.end};
	}
	return found == 1 ? 0 : -1;
}

/* Reads "Anonymous: N kB" in [LINE, EOL) into *BYTES; -1 when it is not one. */
static int anon_line(const char *line, const char *eol, uint64_t *bytes)
{
	const char *p = line + 10;
	uint64_t kb = 0;
	int n = 0;

	if (eol - line < 10 || memcmp(line, "Anonymous:", 10))
		return -1;
	while (p < eol && *p == ' ')
		p++;
	while (p < eol && *p >= '0' && *p <= '9' && n++ < 15)
		kb = kb * 10 + (uint64_t)(*p++ - '0');
	if (!n || n > 15 || eol - p != 3 || memcmp(p, " kB", 3))
		return -1;
	*bytes = kb * 1024;
	return 0;
}

int tm_javaheap_smaps_anon(const char *smaps, size_t len, const struct tm_javaheap_range *r,
                           uint64_t *anon_bytes)
{
	const char *end = smaps + len, *line = smaps;
	uint64_t cursor = r->start, sum = 0, b;
	bool in = false, need = false;

	for (; line < end; line = line_end(line, end) + 1) {
		const char *eol = line_end(line, end);
		struct vma v;
		if (parse_vma(line, eol, &v) == 0) {
			if (need || v.start >= r->end)
				break;
			in = v.start < r->end && v.end > r->start;
			if (in && (v.start != cursor || v.end > r->end))
				return -1;
			if (in)
				cursor = v.end;
			need = in;
		} else if (in && need && anon_line(line, eol, &b) == 0) {
			sum += b;
			need = false;
		}
	}
	if (need || cursor != r->end)
		return -1;
	*anon_bytes = sum;
	return 0;
}

int tm_javaheap_smaps_past(const char *smaps, size_t len, uint64_t end)
{
	const char *e = smaps + len, *line = smaps;

	for (; line < e; line = line_end(line, e) + 1) {
		const char *eol = line_end(line, e);
		struct vma v;
		if (eol < e && parse_vma(line, eol, &v) == 0 && v.start >= end)
			return 1;
	}
	return 0;
}
