/* `jcmd PID GC.class_histogram`'s table (runtime/jvmhisto.h). */
#include <string.h>

#include "base/error.h"
#include "runtime/jvmhisto.h"
#include "base/banned.h"

/* A decimal number at *P (after spaces) of at most 19 digits; moves *P past
 * it.  0, or -1 when there is none. */
static int number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	while (s < end && *s == ' ')
		s++;
	*v = 0;
	while (s < end && *s >= '0' && *s <= '9' && digits < 19) {
		*v = *v * 10 + (uint64_t)(*s++ - '0');
		digits++;
	}
	if (!digits || (s < end && *s >= '0' && *s <= '9'))
		return -1;
	*p = s;
	return 0;
}

/* The class name at P..END (after spaces), without a trailing " (module)". */
static int class_name(const char *p, const char *end, char *name, size_t size)
{
	while (p < end && *p == ' ')
		p++;
	const char *e = memchr(p, ' ', (size_t)(end - p));
	if (!e)
		e = end;
	if (e == p)
		return -1;
	size_t n = (size_t)(e - p) < size - 1 ? (size_t)(e - p) : size - 1;
	memcpy(name, p, n);
	name[n] = 0;
	return memchr(name, 0, n) ? -1 : 0;
}

/* One table row "   N:  instances  bytes  name"; 1 when LINE is no row. */
static int row(const char *line, const char *end, struct tm_jh_row *r)
{
	const char *p = line;
	uint64_t num;

	if (number(&p, end, &num) || p >= end || *p != ':')
		return 1;
	p++;
	if (number(&p, end, &r->instances) || number(&p, end, &r->bytes) || p >= end || *p != ' ')
		return -1;
	return class_name(p, end, r->name, sizeof(r->name));
}

/* The "Total  instances  bytes" line; 1 when LINE is not it. */
static int total(const char *line, const char *end, struct tm_jvm_histo *out)
{
	const char *p = line;

	if (end - p < 5 || memcmp(p, "Total", 5))
		return 1;
	p += 5;
	if (number(&p, end, &out->total_instances) || number(&p, end, &out->total_bytes))
		return -1;
	return 0;
}

/* The first line of BUF, for a message: at most 120 printable bytes. */
static void first_line(const char *buf, size_t len, char *line, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < len && buf[i] != '\n' && n + 1 < size && n < 120; i++)
		line[n++] = buf[i] >= ' ' && buf[i] < 127 ? buf[i] : '?';
	line[n] = 0;
}

int tm_jvm_histo_parse(const char *buf, size_t len, struct tm_jvm_histo *out, struct tm_err *err)
{
	const char *end = buf + len, *line = buf;
	int lineno = 0, header = 0, done = 0;
	struct tm_jh_row r;

	memset(out, 0, sizeof(*out));
	while (line < end && !done) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *eol = nl ? nl : end;
		lineno++;
		if (!header) {
			header =
			    eol - line >= 5 && memmem(line, (size_t)(eol - line), "#instances", 10);
		} else if ((done = total(line, eol, out)) < 0) {
			return tm_err_set(err, 0, "class histogram: bad Total on line %d", lineno);
		} else if (done == 0) {
			done = 1;
		} else {
			done = 0;
			int rc = row(line, eol, &r);
			if (rc < 0)
				return tm_err_set(err, 0, "class histogram: bad row on line %d",
				                  lineno);
			if (rc == 0) {
				if (out->n_top < TM_JH_TOP)
					out->top[out->n_top++] = r;
				out->classes++;
			}
		}
		line = eol + 1;
	}
	if (!header) {
		char first[128];
		first_line(buf, len, first, sizeof(first));
		return tm_err_set(err, 0, "class histogram: no table in jcmd's answer ('%s')",
		                  first);
	}
	if (!done)
		return tm_err_set(err, 0, "class histogram: cut short (no Total line)");
	return 0;
}
