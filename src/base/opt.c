/* Option tables: one entry per option, read from argv and from files; see opt.h. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/term.h"
#include "base/util.h"
#include "tidemark-size.h"
#include "base/banned.h"

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

const char *tm_fmt_duration(char *buf, size_t size, int64_t usec)
{
	static const struct {
		int64_t usec;
		const char *unit;
	} units[] = {{3600000000, "h"}, {60000000, "m"}, {1000000, "s"}, {1000, "ms"}};

	for (size_t i = 0; i < TM_ARRAY_SIZE(units); i++)
		if (usec && usec % units[i].usec == 0) {
			snprintf(buf, size, "%lld%s", (long long)(usec / units[i].usec),
			         units[i].unit);
			return buf;
		}
	snprintf(buf, size, "%lldus", (long long)usec);
	return buf;
}

/* "400M", "1G", "4096": the shortest exact spelling of a bound. */
static const char *fmt_size(char *buf, size_t size, int64_t bytes)
{
	static const char units[] = "TGMK";

	for (int i = 0; i < 4; i++) {
		int64_t m = (int64_t)1 << (10 * (4 - i));
		if (bytes && bytes % m == 0) {
			snprintf(buf, size, "%lld%c", (long long)(bytes / m), units[i]);
			return buf;
		}
	}
	snprintf(buf, size, "%lld", (long long)bytes);
	return buf;
}

/* " of at least 50ms", " from 1G to 4G", "" from the bounds of O. */
static void bounds_text(const struct tm_opt *o, char *buf, size_t size)
{
	char lo[32], hi[32];
	const char *(*fmt)(char *, size_t, int64_t) =
	    o->type == TM_OPT_SIZE ? fmt_size : tm_fmt_duration;

	buf[0] = '\0';
	if (o->min > 0)
		fmt(lo, sizeof(lo), o->min);
	if (o->max != TM_OPT_NO_MAX && o->max > 0)
		fmt(hi, sizeof(hi), o->max);
	if (o->min > 0 && o->max != TM_OPT_NO_MAX)
		snprintf(buf, size, " from %s to %s", lo, hi);
	else if (o->min > 0)
		snprintf(buf, size, " of at least %s", lo);
	else if (o->max != TM_OPT_NO_MAX)
		snprintf(buf, size, " of at most %s", hi);
}

/* What a value of O should look like: "a count from 1 to 1000". */
static void expect_text(const struct tm_opt *o, char *buf, size_t size)
{
	char b[96];
	size_t n = 0;

	switch (o->type) {
	case TM_OPT_COUNT:
		if (o->max == TM_OPT_NO_MAX)
			snprintf(buf, size, "a whole number of at least %lld", (long long)o->min);
		else
			snprintf(buf, size, "a count from %lld to %lld", (long long)o->min,
			         (long long)o->max);
		return;
	case TM_OPT_SIZE:
		bounds_text(o, b, sizeof(b));
		snprintf(buf, size, "%s%s", TM_SIZE_EXPECT, b);
		return;
	case TM_OPT_DURATION:
		bounds_text(o, b, sizeof(b));
		if (b[0])
			snprintf(buf, size, "a duration%s (e.g. 250ms, 30s, 2m)", b);
		else
			snprintf(buf, size, "a duration like 250ms, 30s or 2m");
		return;
	case TM_OPT_NUMBER:
		snprintf(buf, size, "a number");
		return;
	case TM_OPT_BOOL:
		snprintf(buf, size, "yes or no");
		return;
	case TM_OPT_STRING:
		snprintf(buf, size, "a non-empty value");
		return;
	case TM_OPT_CHOICE:
		buf[0] = '\0';
		for (int i = 0; o->choices[i] && n < size; i++)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
			                      i == 0              ? ""
			                      : o->choices[i + 1] ? ", "
			                                          : " or ",
			                      o->choices[i]);
		return;
	default:
		snprintf(buf, size, "a value");
		return;
	}
}

static int parse_bool(const char *v)
{
	static const char *yes[] = {"1", "yes", "true", "on"}, *no[] = {"0", "no", "false", "off"};

	for (size_t i = 0; i < TM_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

static int in_bounds(const struct tm_opt *o, int64_t v)
{
	return v >= o->min && v <= o->max;
}

/* The value of O from VALUE into BASE; 0, -1 when VALUE is not one, -2
 * out of memory, -3 when O's check refused it (ERR set). */
static int set_value(const struct tm_opt *o, void *base, const char *value, struct tm_err *err)
{
	int64_t v;
	char *end;

	switch (o->type) {
	case TM_OPT_BOOL: {
		int b = value ? parse_bool(value) : 1;
		if (b < 0)
			return -1;
		*FIELD(base, o->off, bool) = o->invert ? !b : b;
		return 0;
	}
	case TM_OPT_STRING: {
		if ((int64_t)strlen(value) < o->min)
			return -1;
		char *dup = strdup(value);
		if (!dup)
			return -2;
		free(*FIELD(base, o->off, char *));
		*FIELD(base, o->off, char *) = dup;
		return 0;
	}
	case TM_OPT_COUNT:
		if (tm_parse_int64(value, &v) || !in_bounds(o, v))
			return -1;
		break;
	case TM_OPT_SIZE:
		if (tm_size_parse(value, &v) || !in_bounds(o, v))
			return -1;
		break;
	case TM_OPT_DURATION:
		if (tm_parse_duration(value, &v) || !in_bounds(o, v))
			return -1;
		break;
	case TM_OPT_NUMBER: {
		errno = 0;
		double d = strtod(value, &end);
		if (errno || end == value || *end || !isfinite(d))
			return -1;
		*FIELD(base, o->off, double) = d;
		if (o->set_off)
			*FIELD(base, o->set_off, bool) = true;
		return 0;
	}
	case TM_OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(value, o->choices[i])) {
				*FIELD(base, o->off, int) = i;
				return 0;
			}
		return -1;
	default:
		TM_BUG("option --%s: type %d has no parser", o->flag ? o->flag : o->key, o->type);
	}
	if (o->check && o->check(v, err))
		return -3;
	*FIELD(base, o->off, int64_t) = v;
	return 0;
}

int tm_opt_set(const struct tm_opt *o, void *base, const char *value, struct tm_err *err)
{
	char expect[160];

	err->code = 0;
	err->msg[0] = '\0';
	if (o->type == TM_OPT_CUSTOM)
		return o->parse(FIELD(base, o->off, char), value, err);
	if (!value && o->type != TM_OPT_BOOL)
		TM_BUG("option --%s needs a value", o->flag);
	int r = set_value(o, base, value, err);
	if (r == 0 || r == -3)
		return r ? -1 : 0;
	if (r == -2)
		return tm_error("out of memory");
	expect_text(o, expect, sizeof(expect));
	return tm_err_set(err, 0, "'%s': expected %s", value, expect);
}

/* ---- the command line ---- */

struct found {
	const struct tm_opt *opt;
	void *base;
};

static bool takes_arg(const struct tm_opt *o)
{
	return !(o->type == TM_OPT_BOOL || (o->type == TM_OPT_CUSTOM && o->no_arg));
}

/* getopt_long's tables for SETS: LONGS (and its FOUND, by index) and SHORTS. */
static size_t build_getopt(const struct tm_optset *sets, size_t n, unsigned scope,
                           struct option *longs, struct found *found, char *shorts)
{
	size_t k = 0, s = 0;

	if (!(scope & TM_OPT_PERMUTE))
		shorts[s++] = '+';
	shorts[s++] = ':';
	shorts[s++] = 'h';
	for (size_t i = 0; i < n; i++)
		for (const struct tm_opt *o = sets[i].opts; o->type != TM_OPT_END; o++) {
			if (!(o->scopes & scope) || !o->flag)
				continue;
			int has = !takes_arg(o)     ? no_argument
			          : o->optional_arg ? optional_argument
			                            : required_argument;
			found[k] = (struct found){o, sets[i].base};
			longs[k] = (struct option){o->flag, has, NULL, 256 + (int)k};
			if (o->short_name) {
				shorts[s++] = (char)o->short_name;
				if (has != no_argument)
					shorts[s++] = ':';
				if (has == optional_argument)
					shorts[s++] = ':';
			}
			k++;
		}
	longs[k++] = (struct option){"help", no_argument, NULL, 'h'};
	longs[k] = (struct option){NULL, 0, NULL, 0};
	shorts[s] = '\0';
	return k - 1;
}

static size_t count_opts(const struct tm_optset *sets, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		for (const struct tm_opt *o = sets[i].opts; o->type != TM_OPT_END; o++)
			k++;
	return k;
}

/* The entry getopt returned C for: a long option's index, or a short name. */
static const struct found *lookup(const struct found *found, size_t k, int c)
{
	if (c >= 256 && (size_t)(c - 256) < k)
		return &found[c - 256];
	for (size_t i = 0; i < k; i++)
		if (found[i].opt->short_name == c)
			return &found[i];
	return NULL;
}

static int apply(const struct found *f, const char *value)
{
	struct tm_err err;

	if (tm_opt_set(f->opt, f->base, value, &err) == 0)
		return 0;
	if (err.msg[0])
		tm_error("--%s %s", f->opt->flag, err.msg);
	return -1;
}

int tm_opts_parse(const struct tm_optset *sets, size_t n, unsigned scope, const char *cmd, int argc,
                  char **argv, int *next)
{
	size_t total = count_opts(sets, n);
	struct option *longs = calloc(total + 2, sizeof(*longs));
	struct found *found = calloc(total + 1, sizeof(*found));
	char *shorts = calloc(total * 3 + 8, 1);
	int c, rc = 0;

	if (!longs || !found || !shorts) {
		rc = tm_error("out of memory");
		goto out;
	}
	size_t k = build_getopt(sets, n, scope, longs, found, shorts);
	optind = 0; /* glibc: start afresh (a command may parse twice) */
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct found *f = lookup(found, k, c);
		if (c == 'h') {
			rc = 1;
		} else if (c == ':') {
			rc = tm_error("option '%s' needs a value (see 'tidemark %s --help')",
			              argv[optind - 1], cmd);
		} else if (c == '?' || !f) {
			rc = tm_error("bad option '%s' (see 'tidemark %s --help')",
			              argv[optind - 1], cmd);
		} else {
			rc = apply(f, optarg);
		}
	}
	*next = optind;
out:
	free(longs);
	free(found);
	free(shorts);
	return rc;
}

/* ---- experiment files ---- */

int tm_opts_set_key(const struct tm_optset *sets, size_t n, const char *key, const char *value,
                    struct tm_err *err)
{
	struct tm_err inner;

	for (size_t i = 0; i < n; i++)
		for (const struct tm_opt *o = sets[i].opts; o->type != TM_OPT_END; o++) {
			if (!(o->scopes & TM_OPT_FILE) || !o->key || strcmp(o->key, key))
				continue;
			if (tm_opt_set(o, sets[i].base, value, &inner) == 0)
				return 0;
			if (!inner.msg[0])
				return tm_err_set(err, inner.code, "%s", "");
			return tm_err_set(err, inner.code, "%s %s", key, inner.msg);
		}
	return 1;
}

/* ---- help ---- */

/* " (default 1s)" from the field's value now, or "" when it has none. */
static void default_text(const struct tm_opt *o, const void *base, char *buf, size_t size)
{
	char v[96] = "";
	const void *p;

	buf[0] = '\0';
	if (!base)
		return;
	p = (const char *)base + o->off;
	switch (o->type) {
	case TM_OPT_COUNT:
		if (in_bounds(o, *(const int64_t *)p))
			snprintf(v, sizeof(v), "%lld", (long long)*(const int64_t *)p);
		break;
	case TM_OPT_DURATION:
		if (*(const int64_t *)p > 0 && in_bounds(o, *(const int64_t *)p))
			tm_fmt_duration(v, sizeof(v), *(const int64_t *)p);
		break;
	case TM_OPT_SIZE:
		if (*(const int64_t *)p > 0 && *(const int64_t *)p < INT64_MAX)
			fmt_size(v, sizeof(v), *(const int64_t *)p);
		break;
	case TM_OPT_CHOICE:
		snprintf(v, sizeof(v), "%s", o->choices[*(const int *)p]);
		break;
	case TM_OPT_STRING:
		if (*(char *const *)p)
			snprintf(v, sizeof(v), "%s", *(char *const *)p);
		break;
	default:
		break;
	}
	if (v[0])
		snprintf(buf, size, " (default %s)", v);
}

void tm_opts_help(FILE *f, const struct tm_optset *sets, size_t n, unsigned scope)
{
	char left[64], dflt[128];
	char *buf = NULL;
	size_t size = 0;
	FILE *out = f;

	/* written whole, then wrapped to the terminal with the docs' path */
	if ((f = open_memstream(&buf, &size)) == NULL)
		f = out;
	for (size_t i = 0; i < n; i++)
		for (const struct tm_opt *o = sets[i].opts; o->type != TM_OPT_END; o++) {
			if (!(o->scopes & scope) || !o->flag || !o->help)
				continue;
			const char *arg = takes_arg(o) ? (o->metavar ? o->metavar : "VALUE") : "";
			int len = snprintf(
			    left, sizeof(left), "  %c%c%c --%s%s%s%s", o->short_name ? '-' : ' ',
			    o->short_name ? o->short_name : ' ', o->short_name ? ',' : ' ', o->flag,
			    o->optional_arg ? "[="
			    : *arg          ? " "
			                    : "",
			    arg, o->optional_arg ? "]" : "");
			default_text(o, sets[i].base, dflt, sizeof(dflt));
			if (len >= 26)
				fprintf(f, "%s\n%26s", left, "");
			else
				fprintf(f, "%-26s", left);
			fprintf(f, "%s%s\n", o->help, dflt);
			if (o->more)
				fprintf(f, "%26s%s\n", "", o->more);
		}
	if (f != out) {
		fclose(f);
		tm_help_write(out, buf);
		free(buf);
	}
}

void tm_opts_release(const struct tm_optset *sets, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (const struct tm_opt *o = sets[i].opts; o->type != TM_OPT_END; o++)
			if (o->type == TM_OPT_STRING) {
				free(*FIELD(sets[i].base, o->off, char *));
				*FIELD(sets[i].base, o->off, char *) = NULL;
			}
}
