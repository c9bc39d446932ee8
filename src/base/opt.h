/*
 * Option tables: each option described once (its flag, its experiment-file
 * key, its type and bounds, its help), and read from the command line
 * (getopt_long), from an experiment file (KEY=VALUE) or printed as help,
 * all from the same entry, so a value is refused with the same reason
 * wherever it was written:
 *
 *   tidemark: error: --runs '0': expected a count from 1 to 1000
 *   tidemark: error: exp.ini:4: Runs '0': expected a count from 1 to 1000
 *
 * A table is an array of struct tm_opt ending with an entry whose type is
 * TM_OPT_END.  Each entry stores into a struct through OFF (offsetof); a
 * command passes, per table, the struct to fill (struct tm_optset).
 * The recorder's options are in record/options.h, the bench's in
 * bench/bench.h; a command's own (--db, --json) in its cmd/ file.
 *
 * To add an option: one entry in the table of the part that uses it, with
 * the scopes that may set it.  Nothing else parses it.
 */
#ifndef TM_OPT_H
#define TM_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"

/* Where an option may be written (a mask). */
enum tm_opt_scope {
	TM_OPT_RECORD = 1 << 0, /* tidemark record's command line */
	TM_OPT_BENCH = 1 << 1,  /* tidemark bench's command line */
	TM_OPT_FILE = 1 << 2,   /* an experiment file's [bench] section */
	TM_OPT_OTHER = 1 << 3,  /* a command's own table (heap, report, ...) */
	/* Not a scope: given to tm_opts_parse, options may also follow
	 * operands (getopt's permutation) until "--". */
	TM_OPT_PERMUTE = 1 << 8,
};

enum tm_opt_type {
	TM_OPT_END,      /* ends a table */
	TM_OPT_BOOL,     /* bool; a flag without value sets it to !INVERT; a file says yes/no */
	TM_OPT_STRING,   /* char * (malloc'd copy; tm_opts_release frees it) */
	TM_OPT_COUNT,    /* int64_t, a whole number in [MIN, MAX] */
	TM_OPT_SIZE,     /* int64_t bytes (include/tidemark-size.h), in [MIN, MAX] */
	TM_OPT_DURATION, /* int64_t usec ("250ms", "2s", "1.5m"), in [MIN, MAX] */
	TM_OPT_NUMBER,   /* double, finite; and the bool at SET_OFF becomes true */
	TM_OPT_CHOICE,   /* int: the index of the value in CHOICES */
	TM_OPT_CUSTOM,   /* PARSE_ERR(field, value, err), or PARSE(field, value, why) */
};

/* Bounds meaning "no bound" for TM_OPT_COUNT / SIZE / DURATION. */
#define TM_OPT_NO_MAX INT64_MAX

struct tm_opt {
	const char *flag; /* "interval" for --interval, or NULL (file only) */
	int short_name;   /* 'i' for -i, or 0 */
	const char *key;  /* "Interval" in an experiment file, or NULL */
	unsigned scopes;  /* enum tm_opt_scope mask: where it may be written */
	enum tm_opt_type type;
	size_t off;                 /* offsetof the field in the set's struct */
	size_t set_off;             /* TM_OPT_NUMBER: offsetof a bool set when given (0: none) */
	int64_t min, max;           /* COUNT, SIZE, DURATION bounds (inclusive) */
	bool invert;                /* BOOL: the flag sets false (--no-cgroup, --show-output) */
	bool optional_arg;          /* CUSTOM: --flag or --flag=VALUE (VALUE NULL when absent) */
	bool no_arg;                /* CUSTOM: a flag that takes no value */
	const char *const *choices; /* CHOICE: NULL-terminated names */
	/* CUSTOM: parses VALUE into FIELD (a pointer to the entry's field, or
	 * the struct itself when OFF is 0 and the entry needs more than one
	 * field).  0, or -1 with ERR->msg ("'x': expected ...") set, or with
	 * ERR->msg left empty after tm_error said more. */
	int (*parse)(void *field, const char *value, struct tm_err *err);
	/* COUNT, SIZE, DURATION: a further check of a value within the bounds
	 * (NULL: none); 0, or -1 with ERR->msg set (the reason, without the
	 * value's text: "1024 bytes is below 128 KiB, ..."). */
	int (*check)(int64_t value, struct tm_err *err);
	const char *metavar; /* "DUR", "SIZE", "REGEX" in help */
	const char *help;    /* one line; "(default X)" is added from the struct */
	const char *more;    /* NULL, or a second help line */
};

/* A table and the struct its entries store into. */
struct tm_optset {
	const struct tm_opt *opts;
	void *base;
};

/*
 * Sets one option from VALUE (NULL for a flag given without value) into
 * its set's struct.  0, or -1 with ERR->msg set to "'VALUE': expected ..."
 * (or empty when tm_error already reported it).
 */
int tm_opt_set(const struct tm_opt *o, void *base, const char *value, struct tm_err *err);

/*
 * Parses ARGV (from argv[1], stopping at the first non-option or "--";
 * with TM_OPT_PERMUTE in SCOPE, only at "--", the operands moved to the
 * end as getopt does) against every entry of SETS (N of them) that has SCOPE.  CMD names the
 * command in messages.  Returns 0 with *NEXT the index of the first
 * operand, 1 when --help/-h was given (nothing printed), or -1 after
 * tm_error named the bad option ("--interval '10ms': expected a duration
 * of at least 50ms", "bad option '--bogus'") - the command then exits 2.
 */
int tm_opts_parse(const struct tm_optset *sets, size_t n, unsigned scope, const char *cmd, int argc,
                  char **argv, int *next);

/*
 * Sets the experiment-file KEY from VALUE: the entry of SETS with this key
 * and TM_OPT_FILE.  0; 1 when no entry has the key; -1 with ERR->msg set
 * to "KEY 'VALUE': expected ..." (empty when tm_error said it).
 */
int tm_opts_set_key(const struct tm_optset *sets, size_t n, const char *key, const char *value,
                    struct tm_err *err);

/*
 * Prints the help lines of SETS' entries with SCOPE: "  -i, --interval DUR
 * help (default 1s)", the default read from the set's struct as it is now.
 */
void tm_opts_help(FILE *f, const struct tm_optset *sets, size_t n, unsigned scope);

/* Frees the TM_OPT_STRING fields of SETS' structs and sets them to NULL. */
void tm_opts_release(const struct tm_optset *sets, size_t n);

/* "1s", "200ms", "2m", "90us" into BUF: the shortest exact spelling. */
const char *tm_fmt_duration(char *buf, size_t size, int64_t usec);

#endif
