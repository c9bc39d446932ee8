/* bench --param: the grammar of its values and {NAME} substitution; see bench/param.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "bench/bench.h"
#include "bench/param.h"
#include "base/banned.h"

#define VALUE_MAX 1e15

static bool valid_name(const char *s, size_t len)
{
	if (len == 0 || len >= TM_BENCH_PARAM_NAME_MAX ||
	    !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A number of [S, E): whole, or with at most 6 decimals when DECIMALS.
 * 0 with *V, or -1. */
static int number(const char *s, const char *e, bool decimals, double *v)
{
	const char *p = s, *dot = NULL;
	char buf[40];
	char *end;

	if (e <= s || (size_t)(e - s) >= sizeof(buf))
		return -1;
	for (; p < e; p++) {
		if (*p == '.' && !dot && decimals && p > s && p + 1 < e)
			dot = p;
		else if (!isdigit((unsigned char)*p))
			return -1;
	}
	if (dot && e - dot - 1 > 6)
		return -1;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = '\0';
	errno = 0;
	*v = strtod(buf, &end);
	return errno || *end || !(*v <= VALUE_MAX) ? -1 : 0;
}

struct acc {
	double v[TM_BENCH_PARAM_MAX];
	char t[TM_BENCH_PARAM_MAX][TM_BENCH_PARAM_TEXT_MAX];
	int n;
};

static int add(struct acc *a, double v, const char *text, size_t len)
{
	if (a->n == TM_BENCH_PARAM_MAX)
		return -1;
	a->v[a->n] = v;
	if (text)
		snprintf(a->t[a->n], TM_BENCH_PARAM_TEXT_MAX, "%.*s", (int)len, text);
	else
		snprintf(a->t[a->n], TM_BENCH_PARAM_TEXT_MAX, "%.0f", v);
	a->n++;
	return 0;
}

/* A..B[:+K|:xK] in [S, E).  0, or -1 with WHY. */
static int range(struct acc *a, const char *s, const char *e, const char *dots, struct tm_err *err)
{
	const char *colon = memchr(dots, ':', (size_t)(e - dots));
	const char *bend = colon ? colon : e;
	double lo, hi, k = 1;
	bool geo = false;

	if (number(s, dots, false, &lo) || number(dots + 2, bend, false, &hi))
		return tm_err_set(err, 0, "'%.*s': a range is A..B of whole numbers", (int)(e - s),
		                  s),
		       -1;
	if (colon) {
		geo = colon[1] == 'x';
		if ((colon[1] != 'x' && colon[1] != '+') || number(colon + 2, e, false, &k) ||
		    k < (geo ? 2 : 1))
			return tm_err_set(err, 0,
			                  "'%.*s': a step is :+K (K >= 1) or :xK (K >= 2), whole",
			                  (int)(e - s), s),
			       -1;
	}
	if (hi < lo || (geo && lo < 1))
		return tm_err_set(err, 0, "'%.*s': expected A <= B%s", (int)(e - s), s,
		                  geo ? " and A >= 1 for :xK" : ""),
		       -1;
	for (double v = lo; v <= hi; v = geo ? v * k : v + k)
		if (add(a, v, NULL, 0))
			return tm_err_set(err, 0, "'%.*s': more than %d values", (int)(e - s), s,
			                  TM_BENCH_PARAM_MAX),
			       -1;
	return 0;
}

static int cmp_index(const void *x, const void *y, void *ctx)
{
	const double *v = ctx;
	double a = v[*(const int *)x], b = v[*(const int *)y];
	return (a > b) - (a < b);
}

/* Sorts A's values into OUT, refusing duplicates.  0 or -1 with WHY. */
static int finish(const struct acc *a, struct tm_bench_param *out, struct tm_err *err)
{
	int idx[TM_BENCH_PARAM_MAX];

	for (int i = 0; i < a->n; i++)
		idx[i] = i;
	qsort_r(idx, (size_t)a->n, sizeof(int), cmp_index, (void *)a->v);
	for (int i = 0; i < a->n; i++) {
		if (i && a->v[idx[i]] == a->v[idx[i - 1]])
			return tm_err_set(err, 0, "value %s is given twice", a->t[idx[i]]), -1;
		out->values[i] = a->v[idx[i]];
		memcpy(out->texts[i], a->t[idx[i]], TM_BENCH_PARAM_TEXT_MAX);
	}
	out->n = a->n;
	return 0;
}

int tm_bench_param_parse(const char *text, struct tm_bench_param *out, struct tm_err *err)
{
	const char *eq = strchr(text, '=');
	struct acc *a = calloc(1, sizeof(*a));
	struct tm_bench_param p = {0};
	int rc = -1;

	if (!a)
		return tm_err_set(err, 0, "out of memory"), -1;
	if (!eq || !valid_name(text, (size_t)(eq - text)) || !eq[1]) {
		tm_err_set(err, 0,
		           "'%s': expected NAME=VALUES (N=10000,100000 or N=1000..1000000:x10)",
		           text);
		goto out;
	}
	if (strlen(text) >= sizeof(p.spec)) {
		tm_err_set(err, 0, "'%.40s...': too long", text);
		goto out;
	}
	for (const char *s = eq + 1;;) {
		const char *e = s + strcspn(s, ",");
		const char *dots = strstr(s, "..");
		if (dots && dots < e) {
			if (range(a, s, e, dots, err))
				goto out;
		} else {
			double v;
			if (number(s, e, true, &v)) {
				tm_err_set(
				    err, 0,
				    "'%.*s': expected a number >= 0 (at most 6 decimals) or A..B",
				    (int)(e - s), s);
				goto out;
			}
			if (add(a, v, s, (size_t)(e - s))) {
				tm_err_set(err, 0, "more than %d values", TM_BENCH_PARAM_MAX);
				goto out;
			}
		}
		if (!*e)
			break;
		s = e + 1;
	}
	if (finish(a, &p, err))
		goto out;
	snprintf(p.name, sizeof(p.name), "%.*s", (int)(eq - text), text);
	snprintf(p.spec, sizeof(p.spec), "%s", text);
	*out = p;
	rc = 0;
out:
	free(a);
	return rc;
}

bool tm_bench_param_in(const char *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s ? strchr(s, '{') : NULL; p; p = strchr(p + 1, '{'))
		if (!strncmp(p + 1, name, n) && p[1 + n] == '}')
			return true;
	return false;
}

char *tm_bench_param_subst(const char *s, const char *name, const char *value)
{
	size_t n = strlen(name), vlen = strlen(value), cap = strlen(s) + 1, len = 0;
	char *out;

	for (const char *p = s; (p = strchr(p, '{')); p++)
		if (!strncmp(p + 1, name, n) && p[1 + n] == '}')
			cap += vlen;
	if (!(out = malloc(cap)))
		return NULL;
	for (const char *p = s; *p;) {
		if (*p == '{' && !strncmp(p + 1, name, n) && p[1 + n] == '}') {
			memcpy(out + len, value, vlen);
			len += vlen;
			p += n + 2;
		} else {
			out[len++] = *p++;
		}
	}
	out[len] = '\0';
	return out;
}

char **tm_bench_param_argv(char *const *argv, const char *name, const char *value)
{
	size_t n = 0;
	char **out;

	while (argv[n])
		n++;
	if (!(out = calloc(n + 1, sizeof(char *))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(out[i] = tm_bench_param_subst(argv[i], name, value))) {
			tm_bench_env_free(out);
			return NULL;
		}
	return out;
}

char **tm_bench_param_envp(const struct tm_bench_arm *arm, const char *name, const char *value,
                           char *const *envp, bool inherit)
{
	struct tm_bench_arm *copy = malloc(sizeof(*copy));
	char **out = NULL;
	int i;

	if (!copy)
		return NULL;
	*copy = *arm; /* shallow: only the values below are its own */
	for (i = 0; i < arm->n_env; i++)
		if (!(copy->env[i].value = tm_bench_param_subst(arm->env[i].value, name, value)))
			break;
	if (i == arm->n_env)
		out = tm_bench_arm_envp(copy, envp, inherit);
	while (i-- > 0)
		free(copy->env[i].value);
	free(copy);
	return out;
}

int tm_bench_param_check(const struct tm_bench_spec *sp, char *const *argv)
{
	const struct tm_bench_param *p = &sp->param;
	bool used;

	if (!p->n)
		return 0;
	if (sp->sweep.limit != TM_SWEEP_NONE)
		return tm_error("--param %s and --sweep: a sweep bisects one limit per arm; run it "
		                "per value of %s",
		                p->spec, p->name);
	used = tm_bench_param_in(sp->exec_start, p->name) ||
	       tm_bench_param_in(sp->prepare, p->name) || tm_bench_param_in(sp->cleanup, p->name);
	for (char *const *a = argv; a && *a && !used; a++)
		used = tm_bench_param_in(*a, p->name);
	for (int i = 0; i < sp->n_arms && !used; i++) {
		used = tm_bench_param_in(sp->arms[i].exec_start, p->name);
		for (int j = 0; j < sp->arms[i].n_env && !used; j++)
			used = tm_bench_param_in(sp->arms[i].env[j].value, p->name);
	}
	if (!used)
		return tm_error(
		    "--param %s: {%s} is in neither the command, an ExecStart=, an "
		    "Environment= value, --prepare nor --cleanup, so every value would run "
		    "the same thing",
		    p->spec, p->name);
	return 0;
}

int tm_bench_param_run_new(const struct tm_bench_spec *sp, int ai, int vi, char *const *argv,
                           char *const *envp, struct tm_bench_param_run *out)
{
	const struct tm_bench_param *p = &sp->param;
	const char *v = p->texts[vi];

	memset(out, 0, sizeof(*out));
	out->argv = tm_bench_param_argv(argv, p->name, v);
	out->envp = tm_bench_param_envp(&sp->arms[ai], p->name, v, envp, sp->inherit_env);
	if (sp->prepare)
		out->prepare = tm_bench_param_subst(sp->prepare, p->name, v);
	if (sp->cleanup)
		out->cleanup = tm_bench_param_subst(sp->cleanup, p->name, v);
	if (!out->argv || !out->envp || (sp->prepare && !out->prepare) ||
	    (sp->cleanup && !out->cleanup))
		return tm_error("out of memory");
	return 0;
}

void tm_bench_param_run_release(struct tm_bench_param_run *r)
{
	if (r->argv)
		tm_bench_env_free(r->argv);
	if (r->envp)
		tm_bench_env_free(r->envp);
	free(r->prepare);
	free(r->cleanup);
	memset(r, 0, sizeof(*r));
}

json_t *tm_bench_param_json(const struct tm_bench_param *p)
{
	json_t *o, *values, *texts;

	if (!p->n)
		return json_null();
	o = json_object();
	values = json_array();
	texts = json_array();
	for (int i = 0; i < p->n; i++) {
		json_array_append_new(values, json_real(p->values[i]));
		json_array_append_new(texts, json_string(p->texts[i]));
	}
	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "spec", json_string(p->spec));
	json_object_set_new(o, "values", values);
	json_object_set_new(o, "texts", texts);
	return o;
}
