/*
 * Errors: library code reports and returns, commands decide.
 *
 * tm_error() prints "tidemark: error: MSG" to stderr and returns -1, so a
 * library function can say `return tm_error("cannot open '%s': %s", ...)`.
 * Messages are lowercase and quote their subject.  Only main() and the
 * cmd_*() entry points exit.
 *
 * A function whose caller decides what to do with a reason (print it, put
 * it in a 4xx, fold it into a notice) takes a struct tm_err *ERR instead of
 * a (char *why, size_t why_size) or (char *err, size_t errlen) pair: one
 * channel, and the size travels with the buffer.  Code writes to stderr
 * only through tm_error, tm_warn and tm_note (no raw fprintf), except the
 * commands (cmd/) and main.c.  A caller that only drops the reason passes
 * NULL.  One check holds all of src/ to this: scripts/errchannel.sh (run
 * by tests/e2e/style.sh), whose scripts/errchannel.folders lists every
 * folder of src/, the places allowed to print, and each function still
 * allowed a pair.
 */
#ifndef TM_ERROR_H
#define TM_ERROR_H

#include <stddef.h>

#define TM_ERR_MSG_MAX 1024

/* A reason handed to the caller: MSG (NUL-terminated, truncated to fit)
 * and CODE (an errno value when one applies, else 0). */
struct tm_err {
	int code;
	char msg[TM_ERR_MSG_MAX];
};

int tm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats into ERR->msg, sets ERR->code to CODE; returns -1 (so a
 * function can `return tm_err_set(err, 0, "...")`).  ERR may be NULL: the
 * reason is dropped. */
int tm_err_set(struct tm_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A line of progress for the person at the terminal ("wrote FILE"): FMT
 * and a newline to stderr, with no prefix. */
void tm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A programmer error: prints and aborts. */
#define TM_BUG(...) tm_bug(__FILE__, __LINE__, __VA_ARGS__)
void tm_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#endif
