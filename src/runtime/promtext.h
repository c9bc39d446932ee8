/*
 * The Prometheus text exposition format (version 0.0.4), as a program's
 * own /metrics serves it: one sample a line,
 *   name{label="value",...} value [timestamp_ms]
 * with "# HELP" / "# TYPE" comments and blank lines between.  Pure: a
 * buffer in, one callback per sample; nothing is allocated and nothing
 * outside the buffer is read.
 */
#ifndef TM_PROMTEXT_H
#define TM_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_err;

/* A family's type, from its "# TYPE name kind" line (UNTYPED without one). */
enum tm_prom_type {
	TM_PROM_UNTYPED,
	TM_PROM_COUNTER,
	TM_PROM_GAUGE,
	TM_PROM_HISTOGRAM,
	TM_PROM_SUMMARY,
};

/* "untyped", "counter", "gauge", "histogram", "summary". */
const char *tm_prom_type_name(enum tm_prom_type t);

struct tm_prom_sample {
	const char *name; /* not NUL-terminated: NAME_LEN bytes inside the buffer */
	size_t name_len;
	const char *labels; /* between the braces, raw (escapes kept); "" when none */
	size_t labels_len;
	double value; /* NaN, +Inf and -Inf as the format spells them */
	bool has_timestamp;
	int64_t timestamp_ms;
	/* The family the sample belongs to: the last "# TYPE" line's name when
	 * the sample is that name (or, for a histogram, NAME_bucket, _sum,
	 * _count; for a summary NAME_sum, _count), with its type; else the
	 * sample's own name, UNTYPED. */
	enum tm_prom_type type;
	size_t family_len; /* the family is the first FAMILY_LEN bytes of NAME */
};

/* Called once per sample, in order; a non-zero return stops the parse and
 * is returned. */
typedef int (*tm_prom_cb)(void *ctx, const struct tm_prom_sample *s);

/*
 * Parses LEN bytes of exposition text.  0 when every line parsed (CB was
 * called for each sample), CB's non-zero value when it stopped, or -1 with
 * the reason and the line number in ERR; the samples before
 * the bad line were delivered.
 */
int tm_prom_parse(const char *buf, size_t len, tm_prom_cb cb, void *ctx, struct tm_err *err);

/*
 * The value of label LABEL in a sample's raw LABELS (unescaped into OUT,
 * SIZE bytes, NUL-terminated).  0, or -1 when absent or too long.
 */
int tm_prom_label(const char *labels, size_t labels_len, const char *label, char *out, size_t size);

/*
 * The next label of a sample's raw LABELS from *POS (0 at first): its name
 * into NAME (NSIZE bytes) and its value, unescaped, into VALUE (VSIZE
 * bytes), both NUL-terminated, and *POS past it.  1 when one was read, 0
 * at the end, -1 when a name or value does not fit (or LABELS is not a
 * label set the parser accepted).
 */
int tm_prom_label_next(const char *labels, size_t labels_len, size_t *pos, char *name, size_t nsize,
                       char *value, size_t vsize);

#endif
