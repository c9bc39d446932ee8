/*
 * bench: command lines (ExecStart=), Environment= values, the guard
 * against our environment, and the environment each arm runs with.
 * See bench.h for the contracts.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/error.h"
#include "bench/bench.h"
#include "record/launch.h"
#include "base/banned.h"

/* ---- command lines ---- */

void tm_bench_env_free(char **envp)
{
	if (!envp)
		return;
	for (char **e = envp; *e; e++)
		free(*e);
	free(envp);
}

struct strvec {
	char **v;
	size_t n, cap;
};

static int strvec_push(struct strvec *sv, char *s)
{
	if (!s)
		return -1;
	if (sv->n + 2 > sv->cap) {
		size_t cap = sv->cap ? sv->cap * 2 : 16;
		char **v = realloc(sv->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return -1;
		}
		sv->v = v;
		sv->cap = cap;
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
	return 0;
}

/* One word of LINE starting at *P into WORD (size LINE's length + 1).
 * 1 when there is no more, -1 on an unterminated quote. */
static int next_word(const char **pp, char *word)
{
	const char *p = *pp;
	char quote = 0;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 1;
	for (; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (*p == '\\' && quote == '"' && p[1])
				word[n++] = *++p;
			else
				word[n++] = *p;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (*p == '\\' && p[1]) {
			word[n++] = *++p;
		} else if (isspace((unsigned char)*p)) {
			break;
		} else {
			word[n++] = *p;
		}
	}
	if (quote)
		return -1;
	word[n] = '\0';
	*pp = p;
	return 0;
}

char **tm_bench_split_command(const char *line)
{
	struct strvec sv = {0};
	char *word = malloc(strlen(line) + 1);
	const char *p = line;
	int r;

	if (!word)
		return tm_error("out of memory"), NULL;
	while ((r = next_word(&p, word)) == 0)
		if (strvec_push(&sv, strdup(word)))
			break;
	free(word);
	if (r < 0) {
		tm_bench_env_free(sv.v);
		return tm_error("unterminated quote in '%s'", line), NULL;
	}
	if (r == 0 || sv.n == 0) {
		tm_bench_env_free(sv.v);
		return tm_error(r == 0 ? "out of memory" : "empty command"), NULL;
	}
	return sv.v;
}

int tm_bench_parse_environment(struct tm_bench_arm *arm, const char *value)
{
	char *word = malloc(strlen(value) + 1);
	const char *p = value;
	int r;

	if (!word)
		return tm_error("out of memory");
	while ((r = next_word(&p, word)) == 0) {
		char *eq = strchr(word, '=');
		if (!eq || eq == word) {
			tm_error("Environment=: '%s' is not VAR=VALUE", word);
			r = -2;
			break;
		}
		*eq = '\0';
		if (tm_bench_arm_setenv(arm, word, eq + 1)) {
			r = -2;
			break;
		}
	}
	free(word);
	if (r == -1)
		return tm_error("Environment=: unterminated quote");
	return r == 1 ? 0 : -1;
}

/* Length of the name in "NAME=VALUE". */
static size_t env_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

static bool declared_by_any(const struct tm_bench_spec *sp, const char *name, size_t len)
{
	for (int i = 0; i < sp->n_arms; i++)
		for (int j = 0; j < sp->arms[i].n_env; j++)
			if (strlen(sp->arms[i].env[j].name) == len &&
			    !strncmp(sp->arms[i].env[j].name, name, len))
				return true;
	return false;
}

int tm_bench_guard(const struct tm_bench_spec *sp, char *const *envp, bool inherit)
{
	char found[1024] = "";
	size_t n = 0;

	if (inherit || !envp)
		return 0;
	for (char *const *e = envp; *e; e++) {
		size_t len = env_name_len(*e);
		char name[256];
		if (len >= sizeof(name))
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		if (!tm_env_alloc_var(name) || declared_by_any(sp, name, len))
			continue;
		if (n < sizeof(found))
			n += (size_t)snprintf(found + n, sizeof(found) - n, "%s  %s", n ? "\n" : "",
			                      *e);
	}
	if (!n)
		return 0;
	return tm_error("refusing to start: the environment carries allocation-relevant "
	                "variables no arm declares:\n%s\nevery arm would run with them (a control "
	                "arm with a leftover LD_PRELOAD measures the wrong allocator). Unset "
	                "them, declare them in an arm, or pass --inherit-env to keep them for "
	                "every arm",
	                found);
}

/* Whether the arm itself sets variable NAME (LEN bytes) in its environment. */
static bool arm_sets(const struct tm_bench_arm *arm, const char *name, size_t len)
{
	for (int j = 0; j < arm->n_env; j++)
		if (strlen(arm->env[j].name) == len && !strncmp(arm->env[j].name, name, len))
			return true;
	if (arm->preload && len == 10 && !strncmp(name, "LD_PRELOAD", len))
		return true;
	if (arm->alloc == TM_ALLOC_ARENA1 && len == 16 && !strncmp(name, "MALLOC_ARENA_MAX", len))
		return true;
	return false;
}

static char *env_entry(const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *s = malloc(len);
	if (s)
		snprintf(s, len, "%s=%s", name, value);
	return s;
}

char **tm_bench_arm_envp(const struct tm_bench_arm *arm, char *const *envp, bool inherit)
{
	struct strvec sv = {0};

	for (char *const *e = envp; e && *e; e++) {
		size_t len = env_name_len(*e);
		char name[256];
		if (len < sizeof(name)) {
			memcpy(name, *e, len);
			name[len] = '\0';
			if (tm_env_alloc_var(name) && (!inherit || arm_sets(arm, name, len)))
				continue;
		}
		if (strvec_push(&sv, strdup(*e)))
			goto oom;
	}
	for (int j = 0; j < arm->n_env; j++)
		if (strvec_push(&sv, env_entry(arm->env[j].name, arm->env[j].value)))
			goto oom;
	if (arm->alloc == TM_ALLOC_ARENA1 && !tm_bench_arm_getenv(arm, "MALLOC_ARENA_MAX") &&
	    strvec_push(&sv, env_entry("MALLOC_ARENA_MAX", "1")))
		goto oom;
	if (arm->preload && strvec_push(&sv, env_entry("LD_PRELOAD", arm->preload)))
		goto oom;
	if (!sv.v) {
		sv.v = calloc(1, sizeof(char *));
		if (!sv.v)
			goto oom;
	}
	return sv.v;
oom:
	tm_bench_env_free(sv.v);
	return tm_error("out of memory"), NULL;
}

char *tm_bench_env_json(char *const *envp)
{
	json_t *o = json_object();
	char *text;

	for (char *const *e = envp; e && *e; e++) {
		size_t len = env_name_len(*e);
		char name[256];
		if (len >= sizeof(name) || !(*e)[len])
			continue;
		memcpy(name, *e, len);
		name[len] = '\0';
		if (tm_env_alloc_var(name))
			json_object_set_new(o, name, json_string(*e + len + 1));
	}
	text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	return text;
}
