/*
 * The program's own progress: a number taken from its output lines with a
 * regular expression (`height=(\d+)`), and the line splitting that feeds it.
 */
#ifndef TM_PROGRESS_H
#define TM_PROGRESS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

struct tm_progress_re {
	regex_t re;
	bool compiled;
};

/*
 * Compiles PATTERN (POSIX extended; \d is accepted as [0-9]).  It must have
 * at least one capture group; the first holds the number.  0, or -1 after
 * tm_error.
 */
int tm_progress_compile(struct tm_progress_re *p, const char *pattern);
void tm_progress_free(struct tm_progress_re *p);

/* Matches one line (no newline); true with *VALUE set when the line matches
 * and the group is a number. */
bool tm_progress_match(const struct tm_progress_re *p, const char *line, double *value);

/*
 * Splits a byte stream into lines.  A line longer than the buffer is cut
 * there (its tail is treated as a new line) rather than dropped.
 */
#define TM_LINE_MAX 4096
struct tm_lines {
	char buf[TM_LINE_MAX];
	size_t len;
};
typedef void (*tm_line_cb)(void *ctx, const char *line);
void tm_lines_feed(struct tm_lines *l, const char *data, size_t n, tm_line_cb cb, void *ctx);
/* Hands over a last line that had no newline. */
void tm_lines_flush(struct tm_lines *l, tm_line_cb cb, void *ctx);

#endif
