/*
 * bench: the experiment file (INI, read with libinih): [bench] through the
 * option tables (tm_bench_optsets), every other section an arm.  See
 * bench.h and docs/bench.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "base/dl.h"
#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "bench/runner.h"
#include "bench/spec_int.h"
#include "base/banned.h"

/* ---- the experiment file ---- */

struct ini_ctx {
	struct tm_bench_spec *sp;
	const char *text, *pos;
	int line;
	char err[512]; /* the first error */
	int err_line;  /* and its line */
	bool failed;
	int arm_line[TM_BENCH_MAX_ARMS]; /* where each arm's section starts */
};

static bool ini_error(struct ini_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool ini_error(struct ini_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return false;
	c->failed = true;
	c->err_line = c->line;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return false;
}

/* A section header on a line of its own registers the arm, even when the
 * section stays empty (inih only reports sections that have keys). */
static void ini_see_line(struct ini_ctx *c, const char *line, size_t len)
{
	const char *end;

	while (len && isspace((unsigned char)*line))
		line++, len--;
	if (!len || *line != '[')
		return;
	end = memchr(line, ']', len);
	if (!end)
		return;
	const char *name = line + 1;
	size_t nlen = (size_t)(end - name);
	if ((nlen == 5 && !memcmp(name, "bench", 5)) || c->failed)
		return;
	char buf[TM_BENCH_NAME_MAX];
	if (nlen < sizeof(buf)) {
		memcpy(buf, name, nlen);
		buf[nlen] = '\0';
		if (tm_bench_arm_find(c->sp, buf))
			return;
	}
	if (!tm_bench_arm_new(c->sp, name, nlen))
		ini_error(c, "bad section [%.*s]", (int)nlen, name);
	else
		c->arm_line[c->sp->n_arms - 1] = c->line;
}

/* inih's line reader over a string, counting lines as it goes. */
static char *read_ini_line(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	const char *nl;
	size_t len;

	if (!*c->pos)
		return NULL;
	nl = strchr(c->pos, '\n');
	len = nl ? (size_t)(nl - c->pos) + 1 : strlen(c->pos);
	c->line++;
	if (len >= (size_t)num) {
		ini_error(c, "line longer than %d characters", num - 1);
		len = (size_t)num - 1;
	}
	memcpy(str, c->pos, len);
	str[len] = '\0';
	ini_see_line(c, c->pos, len);
	c->pos = nl ? nl + 1 : c->pos + strlen(c->pos);
	return str;
}

static bool bench_key(struct ini_ctx *c, const char *key, const char *value)
{
	struct tm_optset sets[TM_BENCH_OPTSETS];
	struct tm_err err;

	tm_bench_optsets(c->sp, sets);
	int r = tm_opts_set_key(sets, TM_BENCH_OPTSETS, key, value, &err);
	if (r > 0)
		return ini_error(c, "unknown key '%s' in [bench]", key);
	if (r < 0)
		return ini_error(c, "%s", err.msg[0] ? err.msg : "bad value (see above)");
	return true;
}

static bool arm_key(struct ini_ctx *c, struct tm_bench_arm *arm, const char *key, const char *value)
{
	if (!strcmp(key, "Environment")) {
		if (tm_bench_parse_environment(arm, value))
			return ini_error(c, "[%s] bad Environment= value '%s'", arm->name, value);
		return true;
	}
	struct tm_err why = {0};
	int r = tm_bench_arm_set(arm, key, value, &why);
	if (r < 0)
		return ini_error(c, "[%s] %s", arm->name, why.msg);
	if (r > 0)
		return ini_error(c,
		                 "unknown key '%s' in [%s] (Allocator, Environment, "
		                 "MemoryMax, MemoryHigh, MemorySwapMax, ExecStart)",
		                 key, arm->name);
	return true;
}

static int on_ini_key(void *user, const char *section, const char *key, const char *value)
{
	struct ini_ctx *c = user;
	struct tm_bench_arm *arm;

	/* Errors are kept in C (the first one, with its line); returning 0
	 * would only give inih's line number without the reason. */
	if (c->failed)
		return 1;
	if (!*section || !strcmp(section, "bench")) {
		bench_key(c, key, value);
		return 1;
	}
	arm = tm_bench_arm_find(c->sp, section);
	if (!arm)
		ini_error(c, "bad section [%s]", section);
	else
		arm_key(c, arm, key, value);
	return 1;
}

/* An arm that is no shortcut and changes nothing at all. */
static bool sets_nothing(const struct tm_bench_arm *arm)
{
	return !arm->alloc_set && !arm->n_env && !arm->exec_start &&
	       arm->memory_max_bytes == TM_LIMIT_UNSET &&
	       arm->memory_high_bytes == TM_LIMIT_UNSET && arm->swap_max_bytes == TM_LIMIT_UNSET;
}

/* libinih, loaded when an experiment file is first read, not linked
 * (base/dl.h): a recorder never reads one. */
#define TM_INIH_SONAME "libinih.so.1"
struct tm_inih {
	__typeof__(&ini_parse_stream) ini_parse_stream;
};

int tm_bench_parse_ini(struct tm_bench_spec *sp, const char *text, const char *origin)
{
	static const struct tm_dl_fn fns[] = {TM_DL_FN(struct tm_inih, ini_parse_stream)};
	struct ini_ctx c = {.sp = sp, .text = text, .pos = text};
	struct tm_inih lib;
	int r, first = sp->n_arms;

	if (tm_dl_load(TM_INIH_SONAME, "experiment files need it (Debian: libinih1)", fns, 1, &lib,
	               sizeof(lib)))
		return -1;
	/* Errors in keys are kept in c.err; inih's own (syntax) come back as
	 * a line number, whichever comes first in the file wins. */
	r = lib.ini_parse_stream(read_ini_line, &c, on_ini_key, &c);
	if (r > 0 && (!c.failed || r < c.err_line))
		return tm_error("%s:%d: syntax error (expected [section], KEY=VALUE or a comment)",
		                origin, r);
	if (c.failed)
		return tm_error("%s:%d: %s", origin, c.err_line, c.err);
	if (r < 0)
		return tm_error("%s: cannot parse (out of memory)", origin);
	if (sp->n_arms == 0)
		return tm_error("%s: no arms (each section other than [bench] is an arm)", origin);
	for (int i = first; i < sp->n_arms; i++)
		if (sets_nothing(&sp->arms[i])) {
			char where[512], how[TM_BENCH_NAME_MAX + 32];
			snprintf(where, sizeof(where), "%s:%d: ", origin, c.arm_line[i]);
			snprintf(how, sizeof(how), "Allocator=glibc in [%s]", sp->arms[i].name);
			return tm_bench_arm_nothing_set(where, sp->arms[i].name, how);
		}
	return 0;
}

int tm_bench_load_file(struct tm_bench_spec *sp, const char *path)
{
	char *text = tm_read_file(path, NULL);
	int rc;

	if (!text)
		return tm_error("cannot read '%s': %s", path, strerror(errno));
	rc = tm_bench_parse_ini(sp, text, path);
	sp->param.from_file = sp->param.n > 0; /* the command line replaces it */
	free(text);
	return rc;
}
