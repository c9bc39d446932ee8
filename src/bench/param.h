/*
 * bench --param NAME=VALUES: one parameter of the work (a count of orders,
 * of connections), its values, and `{NAME}` substituted in what each run
 * runs.  The grammar (docs/bench.md, "Footprint per unit at scale"):
 *
 *   NAME=ITEM[,ITEM...]      NAME: a letter or _, then letters, digits, _
 *   ITEM = NUMBER            a whole number, or one with at most 6 decimals
 *        | A..B              A, A+1, ... up to B (whole numbers)
 *        | A..B:+K           A, A+K, A+2K, ... <= B
 *        | A..B:xK           A, A*K, A*K*K, ... <= B (A >= 1, K >= 2)
 *
 * Values are >= 0, at most 10^15, distinct, at most TM_BENCH_PARAM_MAX of
 * them; they run (and show) in ascending order.  Everything here is pure
 * except tm_bench_param_envp, which reads the environment it is given.
 */
#ifndef TM_BENCH_PARAM_H
#define TM_BENCH_PARAM_H

#include <stdbool.h>
#include <stddef.h>

struct tm_err;

#define TM_BENCH_PARAM_MAX      64
#define TM_BENCH_PARAM_NAME_MAX 32
#define TM_BENCH_PARAM_TEXT_MAX 24

struct tm_bench_param {
	char name[TM_BENCH_PARAM_NAME_MAX]; /* "" when the bench has no parameter */
	int n;                              /* values */
	double values[TM_BENCH_PARAM_MAX];  /* ascending */
	char texts[TM_BENCH_PARAM_MAX][TM_BENCH_PARAM_TEXT_MAX]; /* what {NAME} becomes */
	char spec[256];                                          /* the text given */
	bool from_file; /* set by an experiment file: the command line replaces it */
};

/*
 * Parses TEXT (the grammar above) into OUT.  0, or -1 with the reason in
 * ERR (quoting TEXT); OUT is then unchanged.
 */
int tm_bench_param_parse(const char *text, struct tm_bench_param *out, struct tm_err *err);

/* S with every "{NAME}" replaced by VALUE: malloc'd, or NULL when out of memory. */
char *tm_bench_param_subst(const char *s, const char *name, const char *value);

/* Whether "{NAME}" occurs in S (NULL: no). */
bool tm_bench_param_in(const char *s, const char *name);

/* ARGV (NULL-terminated) with {NAME} replaced in every word: a malloc'd
 * array of malloc'd strings (free with tm_bench_env_free), or NULL when
 * out of memory. */
char **tm_bench_param_argv(char *const *argv, const char *name, const char *value);

struct tm_bench_arm;
/* The environment arm ARM runs with (tm_bench_arm_envp over ENVP and
 * INHERIT), {NAME} replaced in the values the arm declares.  As
 * tm_bench_arm_envp: free with tm_bench_env_free; NULL when out of memory. */
char **tm_bench_param_envp(const struct tm_bench_arm *arm, const char *name, const char *value,
                           char *const *envp, bool inherit);

struct tm_bench_spec;
/*
 * Whether SP's parameter can run: {NAME} must occur in what the runs run
 * (ARGV, the shared or an arm's ExecStart=, an arm's Environment= value,
 * --prepare, --cleanup), else every value would run the same thing; no
 * --sweep with it.  0 (also without a parameter), or -1 after tm_error.
 */
int tm_bench_param_check(const struct tm_bench_spec *sp, char *const *argv);

/* What one run at value VI of arm AI runs: the command, the environment,
 * the hooks (NULL when not set), with {NAME} replaced; all malloc'd. */
struct tm_bench_param_run {
	char **argv, **envp;
	char *prepare, *cleanup;
};
/* Fills OUT from SP, arm AI's planned ARGV and our environment ENVP.
 * 0, or -1 after tm_error (out of memory); release OUT either way. */
int tm_bench_param_run_new(const struct tm_bench_spec *sp, int ai, int vi, char *const *argv,
                           char *const *envp, struct tm_bench_param_run *out);
void tm_bench_param_run_release(struct tm_bench_param_run *r);

/* The parameter as stored in a bench's spec_json: {"name", "spec",
 * "values": [numbers], "texts": [strings]}, or JSON null without one.
 * A new reference (NULL when out of memory). */
struct json_t;
struct json_t *tm_bench_param_json(const struct tm_bench_param *p);

#endif
