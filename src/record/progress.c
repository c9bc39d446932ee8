#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "record/progress.h"
#include "base/banned.h"

/* POSIX ERE has no \d; people will write it anyway. */
static char *expand_digits(const char *pattern)
{
	size_t n = strlen(pattern);
	char *out = malloc(n * 3 + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '\\' && p[1] == 'd') {
			memcpy(o, "[0-9]", 5);
			o += 5;
			p++;
		} else if (p[0] == '\\' && p[1]) {
			*o++ = *p++;
			*o++ = *p;
		} else {
			*o++ = *p;
		}
	}
	*o = '\0';
	return out;
}

int tm_progress_compile(struct tm_progress_re *p, const char *pattern)
{
	char *expanded = expand_digits(pattern);
	char msg[256];
	int rc;

	p->compiled = false;
	if (!expanded)
		return tm_error("out of memory");
	rc = regcomp(&p->re, expanded, REG_EXTENDED);
	free(expanded);
	if (rc) {
		regerror(rc, &p->re, msg, sizeof(msg));
		return tm_error("bad progress pattern '%s': %s", pattern, msg);
	}
	if (p->re.re_nsub < 1) {
		regfree(&p->re);
		return tm_error("progress pattern '%s' needs a capture group around the number, "
		                "e.g. 'height=([0-9]+)'",
		                pattern);
	}
	p->compiled = true;
	return 0;
}

void tm_progress_free(struct tm_progress_re *p)
{
	if (p->compiled)
		regfree(&p->re);
	p->compiled = false;
}

bool tm_progress_match(const struct tm_progress_re *p, const char *line, double *value)
{
	regmatch_t m[2];
	char num[64], *end;
	size_t len;
	double v;

	if (!p->compiled || regexec(&p->re, line, 2, m, 0) || m[1].rm_so < 0)
		return false;
	len = (size_t)(m[1].rm_eo - m[1].rm_so);
	if (len == 0 || len >= sizeof(num))
		return false;
	memcpy(num, line + m[1].rm_so, len);
	num[len] = '\0';
	errno = 0;
	v = strtod(num, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*value = v;
	return true;
}

void tm_lines_feed(struct tm_lines *l, const char *data, size_t n, tm_line_cb cb, void *ctx)
{
	for (size_t i = 0; i < n; i++) {
		char c = data[i];
		if (c == '\n' || l->len == sizeof(l->buf) - 1) {
			l->buf[l->len] = '\0';
			if (l->len && l->buf[l->len - 1] == '\r')
				l->buf[l->len - 1] = '\0';
			cb(ctx, l->buf);
			l->len = 0;
			if (c == '\n')
				continue;
		}
		l->buf[l->len++] = c;
	}
}

void tm_lines_flush(struct tm_lines *l, tm_line_cb cb, void *ctx)
{
	if (!l->len)
		return;
	l->buf[l->len] = '\0';
	cb(ctx, l->buf);
	l->len = 0;
}
