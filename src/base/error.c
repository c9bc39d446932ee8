#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/assert.h"
#include "base/error.h"

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "tidemark: %s%s\n", prefix, msg);
}

int tm_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
}

int tm_err_set(struct tm_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void tm_note(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void tm_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void tm_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tidemark: BUG at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void tm_assert_fail(const char *expr, const char *file, int line, const char *func)
{
	tm_bug(file, line, "%s: assertion '%s' failed", func, expr);
}

int tm_assert_level(void)
{
	return TM_DEBUG;
}
