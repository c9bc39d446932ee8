/*
 * Errors: library code reports and returns, commands decide.
 *
 * tm_error() prints "tidemark: error: MSG" to stderr and returns -1, so a
 * library function can say `return tm_error("cannot open '%s': %s", ...)`.
 * Messages are lowercase and quote their subject.  Only main() and the
 * cmd_*() entry points exit.
 */
#ifndef TM_ERROR_H
#define TM_ERROR_H

#include <stddef.h>

int tm_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tm_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For checks that report to a caller's buffer (a server's 4xx reason):
 * formats into ERR and returns -1. */
int tm_error_buf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A programmer error: prints and aborts. */
#define TM_BUG(...) tm_bug(__FILE__, __LINE__, __VA_ARGS__)
void tm_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#endif
