#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "runtime/promtext.h"
#include "base/banned.h"

static bool name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

/* Past the label set that starts after '{' at P: the '}' or NULL. */
static const char *label_set_end(const char *p, const char *end)
{
	while (p < end) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		if (p < end && *p == '}')
			return p;
		if (p >= end || !name_start(*p) || *p == ':')
			return NULL;
		while (p < end && name_char(*p) && *p != ':')
			p++;
		while (p < end && *p == ' ')
			p++;
		if (p + 1 >= end || *p != '=' || p[1] != '"')
			return NULL;
		for (p += 2; p < end && *p != '"'; p++)
			if (*p == '\\' && ++p >= end)
				return NULL;
		if (p >= end)
			return NULL;
		p++;
		while (p < end && *p == ' ')
			p++;
		if (p < end && *p != ',' && *p != '}')
			return NULL;
	}
	return NULL;
}

/* The N bytes at P as a string in TOK (SIZE bytes); false when there are
 * none or they do not fit. */
static bool token_copy(const char *p, size_t n, char *tok, size_t size)
{
	if (n == 0 || n >= size)
		return false;
	memcpy(tok, p, n);
	tok[n] = 0;
	return true;
}

/* A float token (Go's ParseFloat spellings the format allows). */
static bool number(const char *p, size_t n, double *v)
{
	char tok[64], *e;

	if (!token_copy(p, n, tok, sizeof(tok)))
		return false;
	if (!strcmp(tok, "NaN")) {
		*v = NAN;
		return true;
	}
	if (!strcmp(tok, "+Inf") || !strcmp(tok, "Inf")) {
		*v = INFINITY;
		return true;
	}
	if (!strcmp(tok, "-Inf")) {
		*v = -INFINITY;
		return true;
	}
	/* strtod would also take "nan(...)", "infinity" and hex: refuse them */
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789+-.eE", tok[i]))
			return false;
	*v = strtod(tok, &e);
	return e == tok + n;
}

static bool integer(const char *p, size_t n, int64_t *v)
{
	char tok[32], *e;

	if (!token_copy(p, n, tok, sizeof(tok)) || !strchr("-0123456789", tok[0]))
		return false;
	*v = strtoll(tok, &e, 10);
	return e == tok + n;
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	return p;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

const char *tm_prom_type_name(enum tm_prom_type t)
{
	static const char *const names[] = {"untyped", "counter", "gauge", "histogram", "summary"};
	return (unsigned)t < sizeof(names) / sizeof(names[0]) ? names[t] : "untyped";
}

/* The family a "# TYPE" line declared last. */
struct family {
	const char *name;
	size_t len;
	enum tm_prom_type type;
};

/* A comment line [P, EOL) after its '#': a TYPE line sets F; others are ignored. */
static void type_line(const char *p, const char *eol, struct family *f)
{
	static const char *const kinds[] = {"untyped", "counter", "gauge", "histogram", "summary"};
	const char *n0, *k0;

	p = skip_blank(p, eol);
	if (eol - p < 5 || memcmp(p, "TYPE", 4) || (p[4] != ' ' && p[4] != '\t'))
		return;
	n0 = skip_blank(p + 4, eol);
	p = token_end(n0, eol);
	k0 = skip_blank(p, eol);
	if (p == n0 || !name_start(*n0))
		return;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t kl = strlen(kinds[i]);
		if ((size_t)(eol - k0) >= kl && !memcmp(k0, kinds[i], kl) &&
		    skip_blank(k0 + kl, eol) == eol) {
			*f = (struct family){n0, (size_t)(p - n0), (enum tm_prom_type)i};
			return;
		}
	}
}

/* Whether the sample S is of family F: its name, or a histogram's or
 * summary's series of it. */
static void place(const struct family *f, struct tm_prom_sample *s)
{
	static const char *const suffix[] = {"_bucket", "_sum", "_count"};
	size_t from = f->type == TM_PROM_HISTOGRAM ? 0 : f->type == TM_PROM_SUMMARY ? 1 : 3;

	s->type = TM_PROM_UNTYPED;
	s->family_len = s->name_len;
	if (!f->name || s->name_len < f->len || memcmp(s->name, f->name, f->len))
		return;
	if (s->name_len == f->len) {
		s->type = f->type;
		return;
	}
	for (size_t i = from; i < 3; i++) {
		size_t sl = strlen(suffix[i]);
		if (s->name_len == f->len + sl && !memcmp(s->name + f->len, suffix[i], sl)) {
			s->type = f->type;
			s->family_len = f->len;
			return;
		}
	}
}

/* One sample line [P, END) into S; false when malformed. */
static bool sample_line(const char *p, const char *end, struct tm_prom_sample *s)
{
	const char *q = p, *t;

	memset(s, 0, sizeof(*s));
	if (!name_start(*q))
		return false;
	while (q < end && name_char(*q))
		q++;
	s->name = p;
	s->name_len = (size_t)(q - p);
	s->labels = "";
	if (q < end && *q == '{') {
		const char *close = label_set_end(q + 1, end);
		if (!close)
			return false;
		s->labels = q + 1;
		s->labels_len = (size_t)(close - q - 1);
		q = close + 1;
	}
	if (q >= end || (*q != ' ' && *q != '\t'))
		return false;
	q = skip_blank(q, end);
	t = token_end(q, end);
	if (!number(q, (size_t)(t - q), &s->value))
		return false;
	q = skip_blank(t, end);
	if (q < end) {
		t = token_end(q, end);
		if (!integer(q, (size_t)(t - q), &s->timestamp_ms))
			return false;
		s->has_timestamp = true;
		if (skip_blank(t, end) != end)
			return false;
	}
	return true;
}

int tm_prom_parse(const char *buf, size_t len, tm_prom_cb cb, void *ctx, struct tm_err *err)
{
	const char *p = buf, *end = buf + len;
	struct family fam = {NULL, 0, TM_PROM_UNTYPED};
	size_t lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end, *q;
		struct tm_prom_sample s;
		int rc;

		lineno++;
		if (eol > p && eol[-1] == '\r')
			eol--;
		q = skip_blank(p, eol);
		p = nl ? nl + 1 : end;
		if (q < eol && *q == '#')
			type_line(q + 1, eol, &fam);
		if (q == eol || *q == '#')
			continue;
		if (memchr(q, 0, (size_t)(eol - q)) || !sample_line(q, eol, &s))
			return tm_err_set(err, 0, "prometheus text: line %zu is not a sample",
			                  lineno);
		place(&fam, &s);
		if ((rc = cb(ctx, &s)))
			return rc;
	}
	return 0;
}

/* From P to a label's opening quote, then its value (backslash escapes
 * undone, \n a newline) up to the closing quote: into OUT (SIZE bytes;
 * what does not fit with a NUL after it is not written) unless OUT is
 * NULL, its length into *N.  The closing quote's position, at or past END
 * when there is none. */
static const char *quoted(const char *p, const char *end, char *out, size_t size, size_t *n)
{
	while (p < end && *p != '"')
		p++;
	*n = 0;
	for (p++; p < end && *p != '"'; p++) {
		char c = *p;
		if (c == '\\' && p + 1 < end)
			c = *++p == 'n' ? '\n' : *p;
		if (out && *n + 1 < size)
			out[*n] = c;
		(*n)++;
	}
	return p;
}

int tm_prom_label(const char *labels, size_t labels_len, const char *label, char *out, size_t size)
{
	const char *p = labels, *end = labels + labels_len;
	size_t ln = strlen(label);

	while (p < end) {
		const char *n0;
		size_t o = 0;
		bool match;
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		n0 = p;
		while (p < end && *p != '=' && *p != ' ')
			p++;
		match = (size_t)(p - n0) == ln && !memcmp(n0, label, ln);
		p = quoted(p, end, match ? out : NULL, size, &o);
		if (match && o >= size)
			return -1;
		p++;
		if (match && size) {
			out[o] = 0;
			return 0;
		}
	}
	return -1;
}

int tm_prom_label_next(const char *labels, size_t labels_len, size_t *pos, char *name, size_t nsize,
                       char *value, size_t vsize)
{
	const char *p = labels + *pos, *end = labels + labels_len, *n0;
	size_t o = 0;

	while (p < end && (*p == ' ' || *p == ','))
		p++;
	if (p >= end) {
		*pos = labels_len;
		return 0;
	}
	for (n0 = p; p < end && *p != '=' && *p != ' '; p++)
		;
	if ((size_t)(p - n0) + 1 > nsize || p == n0)
		return -1;
	memcpy(name, n0, (size_t)(p - n0));
	name[p - n0] = 0;
	p = quoted(p, end, value, vsize, &o);
	if (o >= vsize || p >= end)
		return -1;
	value[o] = 0;
	*pos = (size_t)(p + 1 - labels);
	return 1;
}
