/* Small helpers every part uses: checked number parsing, clocks, files. */
#ifndef TM_UTIL_H
#define TM_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define TM_MIB           (1024.0 * 1024.0)
#define TM_NAME_MAX      64

/* A machine or token name: 1-64 of [A-Za-z0-9._-], not starting with '.'
 * or '-' (safe in a label, a path and a URL). */
bool tm_name_valid(const char *s);

/* Whole decimal integer, the whole string, no overflow.  0 or -1. */
int tm_parse_int64(const char *s, int64_t *out);

/*
 * A size: "400M", "1.5G", "512KiB", "4096" (bytes), "max": the one grammar
 * of include/tidemark-size.h, which the heap shim reads too.  0 or -1.
 */
int tm_parse_size(const char *s, int64_t *out_bytes);

/* A duration: "250ms", "2s", "1.5m", "1h", "30" (seconds).  In usec. */
int tm_parse_duration(const char *s, int64_t *out_usec);

int64_t tm_now_wall_usec(void);
int64_t tm_now_mono_usec(void);

/* Sleeps until CLOCK_MONOTONIC reaches DEADLINE_USEC (restarts on EINTR
 * unless *STOP becomes true). */
void tm_sleep_until_mono(int64_t deadline_usec, volatile const int *stop);

/*
 * Reads a whole small file (kernel files are small) into BUF, NUL-terminated.
 * Returns the length, or -1 with errno set.  Uses pread at offset 0, so the
 * same fd can be read again each sample.
 */
ssize_t tm_pread_all(int fd, char *buf, size_t size);

/* Opens PATH relative to DIRFD and reads it as above; -1 with errno. */
ssize_t tm_read_at(int dirfd, const char *path, char *buf, size_t size);

/* Reads the small file PATH as above, opened without following a last
 * symlink or waiting on a FIFO (a path an observed process could plant);
 * its length, or -1 with errno. */
ssize_t tm_read_small(const char *path, char *buf, size_t size);

/* Reads a whole file of any size into a malloc'd, NUL-terminated buffer. */
char *tm_read_file(const char *path, size_t *len_out);

/* Writes a string to a file (for cgroup control files); 0 or -1 with errno. */
int tm_write_file(const char *path, const char *text);

/*
 * Makes room for one more element in a growing array: when *N == *CAP,
 * doubles *CAP (first FIRST) and reallocs *ARRAY (a pointer to the array
 * pointer).  0, or -1 after tm_error (the array is unchanged then).
 */
int tm_grow(void *array, size_t *cap, size_t n, size_t elem_size, size_t first);

/*
 * SIZE bytes of zeroed memory mapped from the kernel, for a long-lived
 * buffer or state most of which a process may never write (room for a
 * file read whole, the line buffers of inputs a recording does not have):
 * a page of it costs memory only once written, where the heap may hand
 * back pages an earlier allocation already made resident, and calloc may
 * clear every page.  NULL when out of memory; freed by tm_pages_free with
 * the same SIZE.
 */
void *tm_pages_alloc(size_t size);
void tm_pages_free(void *p, size_t size);

/*
 * Where one of our own libraries is: ENV_VAR when set, else NAME next to
 * the running tidemark binary (build/ in a checkout).  0, or -1 after
 * tm_error saying how to fix it.
 */
int tm_lib_path(const char *name, const char *env_var, char *buf, size_t size);

/* The directory PATH names a file in, into BUF: "/" for "/x", "." for "x". */
void tm_path_parent(const char *path, char *buf, size_t size);

/*
 * SRC made safe to print on a terminal or in one line of a table, into BUF
 * (cut to SIZE - 1 bytes, never mid-escape): C0 controls, DEL and a
 * backslash become \xNN, and the Unicode characters that can reorder or
 * hide text (C1 U+0080..U+009F, every format character: the bidi marks,
 * embeddings, overrides and isolates, zero-width ones such as U+200B and
 * U+FEFF, interlinear annotation U+FFF9..U+FFFB, tags U+E0000..U+E007F;
 * the line and paragraph separators U+2028, U+2029; invisible fillers and
 * variation selectors) become \u{NNNN}.  Other UTF-8 passes through.  Returns BUF.
 * For strings that came from elsewhere: argv, pushed marks, machine names.
 */
const char *tm_text_safe(char *buf, size_t size, const char *src);

/* True when the UTF-8 character at S (N bytes left) is one that
 * tm_text_safe escapes as \u{...}; *LEN is then its length in bytes. */
bool tm_text_is_hidden_control(const unsigned char *s, size_t n, size_t *len);

/* "1234.5 MiB" into BUF. */
const char *tm_fmt_mib(char *buf, size_t size, int64_t bytes);
/* A figure in bytes as "1234.5 MiB" into BUF, or "n/a" (a constant) when
 * BYTES is not finite (not known).  BUF or the constant. */
const char *tm_mib_text(char *buf, size_t size, double bytes);
/* A duration in µs as "12.3 s" into BUF, or "n/a" when USEC is not finite. */
const char *tm_secs_text(char *buf, size_t size, double usec);
/* A count as "123" into BUF, or "n/a" when V is not finite. */
const char *tm_count_text(char *buf, size_t size, double v);
/* A cost (per unit of work, per connection) in the unit that gives it
 * three significant digits (bytes up to 1023 whole): BYTES as "183 B",
 * "1012 B", "1.45 KiB", "23.8 MiB", "1.20 GiB"; USEC as "28 µs", "3.10 ms",
 * "1.20 s".  A leading '+' for
 * a positive value when SIGN; "n/a" (a constant) when not finite.  BUF or
 * the constant. */
const char *tm_cost_bytes_text(char *buf, size_t size, double bytes, bool sign);
const char *tm_cost_usec_text(char *buf, size_t size, double usec, bool sign);

#endif
