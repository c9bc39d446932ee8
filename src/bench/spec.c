/*
 * bench: arms, the experiment file, the guard, each arm's environment.
 * See bench.h for the contracts and docs/bench.md for the formats.
 */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>
#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/limits.h"
#include "bench/bench.h"
#include "record/launch.h"
#include "record/recorder.h"
#include "base/banned.h"

static const struct {
	const char *name;   /* the shortcut */
	const char *expect; /* what /proc/PID/maps must show */
	/* libraries to look for, best first, with their Debian package */
	const char *lib[3];
	const char *pkg[3];
} alloc_table[TM_ALLOC_COUNT] = {
    [TM_ALLOC_GLIBC] = {"glibc", "glibc", {NULL}, {NULL}},
    [TM_ALLOC_ARENA1] = {"arena1", "glibc", {NULL}, {NULL}},
    [TM_ALLOC_JEMALLOC] = {"jemalloc", "jemalloc", {"libjemalloc.so.2"}, {"libjemalloc2"}},
    [TM_ALLOC_MIMALLOC] = {"mimalloc",
                           "mimalloc",
                           {"libmimalloc.so.2", "libmimalloc.so.2.0"},
                           {"libmimalloc2.0", "libmimalloc2.0"}},
    [TM_ALLOC_TCMALLOC] = {"tcmalloc",
                           "tcmalloc",
                           {"libtcmalloc_minimal.so.4", "libtcmalloc.so.4"},
                           {"libtcmalloc-minimal4", "libgoogle-perftools4"}},
};

const char *tm_bench_alloc_name(enum tm_bench_alloc a)
{
	return a < TM_ALLOC_COUNT ? alloc_table[a].name : "?";
}

const char *tm_bench_alloc_expect(enum tm_bench_alloc a)
{
	return a < TM_ALLOC_COUNT ? alloc_table[a].expect : NULL;
}

int tm_bench_alloc_by_name(const char *name)
{
	for (int i = 0; i < TM_ALLOC_COUNT; i++)
		if (!strcmp(name, alloc_table[i].name))
			return i;
	return -1;
}

/* Edit distance between A and B (both shorter than TM_BENCH_NAME_MAX). */
static int distance(const char *a, const char *b)
{
	int prev[TM_BENCH_NAME_MAX + 1], cur[TM_BENCH_NAME_MAX + 1];
	int la = (int)strnlen(a, TM_BENCH_NAME_MAX), lb = (int)strnlen(b, TM_BENCH_NAME_MAX);

	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++) {
		cur[0] = i;
		for (int j = 1; j <= lb; j++) {
			int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			int del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
	}
	return prev[lb];
}

const char *tm_bench_alloc_nearest(const char *name)
{
	int best = -1, best_d = 0;

	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		int d = distance(name, alloc_table[i].name);
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	/* a typo, not another word: at most 3 edits, and fewer than half the name */
	return best >= 0 && best_d <= 3 && 2 * best_d < (int)strlen(alloc_table[best].name)
	           ? alloc_table[best].name
	           : NULL;
}

/* The error for an arm NAME that is no shortcut and sets nothing, after
 * WHERE ("" or "FILE:LINE: "); HOW says how to write such an arm on purpose. */
static int nothing_set(const char *where, const char *name, const char *how)
{
	const char *near = tm_bench_alloc_nearest(name);

	if (near)
		return tm_error("%sarm '%s' is not a shortcut and sets nothing: did you mean '%s'? "
		                "(an arm with no settings on purpose: %s)",
		                where, name, near, how);
	return tm_error("%sarm '%s' is not a shortcut (glibc, arena1, jemalloc, mimalloc, "
	                "tcmalloc) and sets nothing (an arm with no settings on purpose: %s)",
	                where, name, how);
}

/* ---- spec and arms ---- */

void tm_bench_spec_init(struct tm_bench_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->runs = sp->warmup = sp->seed = -1;
	sp->memory_max_bytes = sp->memory_high_bytes = sp->swap_max_bytes = TM_LIMIT_UNSET;
	sp->timeout_usec = sp->settle_usec = sp->interval_usec = -1;
	sp->drop_caches = sp->inherit_env = sp->heap = -1;
}

static void arm_release(struct tm_bench_arm *arm)
{
	for (int i = 0; i < arm->n_env; i++) {
		free(arm->env[i].name);
		free(arm->env[i].value);
	}
	free(arm->preload);
	free(arm->exec_start);
	memset(arm, 0, sizeof(*arm));
}

void tm_bench_spec_release(struct tm_bench_spec *sp)
{
	for (int i = 0; i < sp->n_arms; i++)
		arm_release(&sp->arms[i]);
	char **strs[] = {&sp->name,    &sp->exec_start,     &sp->order,
	                 &sp->restore, &sp->prepare,        &sp->cleanup,
	                 &sp->window,  &sp->progress_regex, &sp->progress_file};
	for (size_t i = 0; i < TM_ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
	sp->n_arms = 0;
}

static bool valid_arm_name(const char *s, size_t len)
{
	if (len == 0 || len >= TM_BENCH_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-+", s[i]))
			return false;
	return true;
}

static bool valid_var_name(const char *s, size_t len)
{
	if (len == 0 || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static struct tm_bench_arm *find_arm(struct tm_bench_spec *sp, const char *name)
{
	for (int i = 0; i < sp->n_arms; i++)
		if (!strcmp(sp->arms[i].name, name))
			return &sp->arms[i];
	return NULL;
}

/* A new arm called NAME (LEN bytes); NULL after tm_error. */
static struct tm_bench_arm *new_arm(struct tm_bench_spec *sp, const char *name, size_t len)
{
	struct tm_bench_arm *arm;

	if (!valid_arm_name(name, len))
		return tm_error("bad arm name '%.*s' (letters, digits, _ . - +; at most %d)",
		                (int)len, name, TM_BENCH_NAME_MAX - 1),
		       NULL;
	if (sp->n_arms == TM_BENCH_MAX_ARMS)
		return tm_error("too many arms (at most %d)", TM_BENCH_MAX_ARMS), NULL;
	arm = &sp->arms[sp->n_arms];
	memset(arm, 0, sizeof(*arm));
	memcpy(arm->name, name, len);
	arm->name[len] = '\0';
	if (find_arm(sp, arm->name))
		return tm_error("arm '%s' given twice", arm->name), NULL;
	arm->memory_max_bytes = arm->memory_high_bytes = arm->swap_max_bytes = TM_LIMIT_UNSET;
	int a = tm_bench_alloc_by_name(arm->name);
	arm->alloc = a < 0 ? TM_ALLOC_GLIBC : (enum tm_bench_alloc)a;
	arm->alloc_set = a >= 0;
	sp->n_arms++;
	return arm;
}

int tm_bench_arm_setenv(struct tm_bench_arm *arm, const char *name, const char *value)
{
	char *v;

	if (!valid_var_name(name, strlen(name)))
		return tm_error("bad variable name '%s'", name);
	for (int i = 0; i < arm->n_env; i++) {
		if (strcmp(arm->env[i].name, name))
			continue;
		if (!(v = strdup(value)))
			return tm_error("out of memory");
		free(arm->env[i].value);
		arm->env[i].value = v;
		return 0;
	}
	if (arm->n_env == TM_BENCH_MAX_ENV)
		return tm_error("arm '%s': too many variables (at most %d)", arm->name,
		                TM_BENCH_MAX_ENV);
	arm->env[arm->n_env].name = strdup(name);
	arm->env[arm->n_env].value = strdup(value);
	if (!arm->env[arm->n_env].name || !arm->env[arm->n_env].value)
		return tm_error("out of memory");
	arm->n_env++;
	return 0;
}

const char *tm_bench_arm_getenv(const struct tm_bench_arm *arm, const char *name)
{
	for (int i = 0; i < arm->n_env; i++)
		if (!strcmp(arm->env[i].name, name))
			return arm->env[i].value;
	return NULL;
}

static int parse_limit(const char *key, const char *value, int64_t *out)
{
	if (tm_parse_size(value, out))
		return tm_error("%s: bad size '%s' (e.g. 400M, 1.5G, max)", key, value);
	return strcmp(key, "MemorySwapMax") ? tm_limit_check(key, *out) : 0;
}

/* One arm setting (the keys arms share between --arm and the file).
 * 1 when KEY is not an arm setting. */
static int arm_setting(struct tm_bench_arm *arm, const char *key, const char *value)
{
	if (!strcmp(key, "Allocator")) {
		int a = tm_bench_alloc_by_name(value);
		if (a < 0)
			return tm_error("unknown allocator '%s' (glibc, arena1, jemalloc, "
			                "mimalloc, tcmalloc)",
			                value);
		arm->alloc = (enum tm_bench_alloc)a;
		arm->alloc_set = true;
		return 0;
	}
	if (!strcmp(key, "MemoryMax"))
		return parse_limit(key, value, &arm->memory_max_bytes);
	if (!strcmp(key, "MemoryHigh"))
		return parse_limit(key, value, &arm->memory_high_bytes);
	if (!strcmp(key, "MemorySwapMax"))
		return parse_limit(key, value, &arm->swap_max_bytes);
	if (!strcmp(key, "ExecStart")) {
		char *dup = strdup(value);
		if (!dup)
			return tm_error("out of memory");
		free(arm->exec_start);
		arm->exec_start = dup;
		return 0;
	}
	return 1;
}

/* Where the next KEY= starts after a comma at P, or NULL if P's comma is
 * part of a value. */
static bool comma_starts_key(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_')
		n++;
	return n > 0 && p[n] == '=';
}

static int arm_item(struct tm_bench_arm *arm, const char *item, size_t len)
{
	char buf[4096];
	const char *eq;

	if (len >= sizeof(buf))
		return tm_error("--arm %s: setting too long", arm->name);
	memcpy(buf, item, len);
	buf[len] = '\0';
	eq = strchr(buf, '=');
	if (!eq || eq == buf)
		return tm_error("--arm %s: '%s' is not KEY=VALUE", arm->name, buf);
	buf[eq - buf] = '\0';
	int r = arm_setting(arm, buf, eq + 1);
	if (r <= 0)
		return r;
	return tm_bench_arm_setenv(arm, buf, eq + 1);
}

int tm_bench_add_arm(struct tm_bench_spec *sp, const char *text)
{
	const char *colon = strchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	struct tm_bench_arm *arm = new_arm(sp, text, name_len);
	const char *p, *start;

	if (!arm)
		return -1;
	if (!colon && !arm->alloc_set) {
		char how[TM_BENCH_NAME_MAX + 16];
		snprintf(how, sizeof(how), "--arm %s:", arm->name);
		return nothing_set("", arm->name, how);
	}
	if (!colon)
		return 0;
	start = p = colon + 1;
	if (!*p)
		return 0; /* NAME: an arm that changes nothing, said on purpose */
	for (;; p++) {
		if (*p && !(*p == ',' && comma_starts_key(p + 1)))
			continue;
		if (arm_item(arm, start, (size_t)(p - start)))
			return -1;
		if (!*p)
			return 0;
		start = p + 1;
	}
}

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

/* ---- the experiment file ---- */

struct ini_ctx {
	struct tm_bench_spec *sp;
	const char *text, *pos;
	int line;
	char err[512]; /* the first error */
	int err_line;  /* and its line */
	bool failed;
	int arm_line[TM_BENCH_MAX_ARMS]; /* where each arm's section starts */
};

static bool ini_error(struct ini_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool ini_error(struct ini_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return false;
	c->failed = true;
	c->err_line = c->line;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return false;
}

/* A section header on a line of its own registers the arm, even when the
 * section stays empty (inih only reports sections that have keys). */
static void ini_see_line(struct ini_ctx *c, const char *line, size_t len)
{
	const char *end;

	while (len && isspace((unsigned char)*line))
		line++, len--;
	if (!len || *line != '[')
		return;
	end = memchr(line, ']', len);
	if (!end)
		return;
	const char *name = line + 1;
	size_t nlen = (size_t)(end - name);
	if ((nlen == 5 && !memcmp(name, "bench", 5)) || c->failed)
		return;
	char buf[TM_BENCH_NAME_MAX];
	if (nlen < sizeof(buf)) {
		memcpy(buf, name, nlen);
		buf[nlen] = '\0';
		if (find_arm(c->sp, buf))
			return;
	}
	if (!new_arm(c->sp, name, nlen))
		ini_error(c, "bad section [%.*s]", (int)nlen, name);
	else
		c->arm_line[c->sp->n_arms - 1] = c->line;
}

/* inih's line reader over a string, counting lines as it goes. */
static char *read_ini_line(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	const char *nl;
	size_t len;

	if (!*c->pos)
		return NULL;
	nl = strchr(c->pos, '\n');
	len = nl ? (size_t)(nl - c->pos) + 1 : strlen(c->pos);
	c->line++;
	if (len >= (size_t)num) {
		ini_error(c, "line longer than %d characters", num - 1);
		len = (size_t)num - 1;
	}
	memcpy(str, c->pos, len);
	str[len] = '\0';
	ini_see_line(c, c->pos, len);
	c->pos = nl ? nl + 1 : c->pos + strlen(c->pos);
	return str;
}

static int parse_bool(const char *v)
{
	static const char *yes[] = {"1", "yes", "true", "on"}, *no[] = {"0", "no", "false", "off"};
	for (size_t i = 0; i < TM_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(v, yes[i]))
			return 1;
		if (!strcasecmp(v, no[i]))
			return 0;
	}
	return -1;
}

static bool set_str(struct ini_ctx *c, char **dst, const char *value)
{
	char *dup = strdup(value);
	if (!dup)
		return ini_error(c, "out of memory");
	free(*dst);
	*dst = dup;
	return true;
}

static bool set_count(struct ini_ctx *c, int64_t *dst, const char *key, const char *value)
{
	if (tm_parse_int64(value, dst) || *dst < 0)
		return ini_error(c, "%s: '%s' is not a count", key, value);
	return true;
}

static bool set_duration(struct ini_ctx *c, int64_t *dst, const char *key, const char *value)
{
	if (tm_parse_duration(value, dst))
		return ini_error(c, "%s: bad duration '%s' (e.g. 250ms, 30s, 2m)", key, value);
	return true;
}

static bool set_bool(struct ini_ctx *c, int *dst, const char *key, const char *value)
{
	if ((*dst = parse_bool(value)) < 0)
		return ini_error(c, "%s: '%s' is not yes or no", key, value);
	return true;
}

static bool set_size(struct ini_ctx *c, int64_t *dst, const char *key, const char *value)
{
	if (tm_parse_size(value, dst))
		return ini_error(c, "%s: bad size '%s' (e.g. 400M, 1.5G, max)", key, value);
	return true;
}

/* A memory limit no program can start in is an error at its line. */
static bool set_floor(struct ini_ctx *c, int64_t bytes, const char *key)
{
	if (bytes == TM_LIMIT_UNSET || bytes >= TM_LIMIT_FLOOR_BYTES)
		return true;
	return ini_error(c, "%s=%lld bytes is below %d KiB, the least any program can start in",
	                 key, (long long)bytes, TM_LIMIT_FLOOR_BYTES / 1024);
}

static bool bench_key(struct ini_ctx *c, const char *key, const char *value)
{
	struct tm_bench_spec *sp = c->sp;
	char *end;

	if (!strcmp(key, "Name"))
		return set_str(c, &sp->name, value);
	if (!strcmp(key, "ExecStart"))
		return set_str(c, &sp->exec_start, value);
	if (!strcmp(key, "Order"))
		return set_str(c, &sp->order, value);
	if (!strcmp(key, "Restore"))
		return set_str(c, &sp->restore, value);
	if (!strcmp(key, "Prepare"))
		return set_str(c, &sp->prepare, value);
	if (!strcmp(key, "Cleanup"))
		return set_str(c, &sp->cleanup, value);
	if (!strcmp(key, "Window"))
		return set_str(c, &sp->window, value);
	if (!strcmp(key, "Progress"))
		return set_str(c, &sp->progress_regex, value);
	if (!strcmp(key, "ProgressFile"))
		return set_str(c, &sp->progress_file, value);
	if (!strcmp(key, "Runs"))
		return set_count(c, &sp->runs, key, value);
	if (!strcmp(key, "Warmup"))
		return set_count(c, &sp->warmup, key, value);
	if (!strcmp(key, "Seed"))
		return set_count(c, &sp->seed, key, value);
	if (!strcmp(key, "MemoryMax"))
		return set_size(c, &sp->memory_max_bytes, key, value) &&
		       set_floor(c, sp->memory_max_bytes, key);
	if (!strcmp(key, "MemoryHigh"))
		return set_size(c, &sp->memory_high_bytes, key, value) &&
		       set_floor(c, sp->memory_high_bytes, key);
	if (!strcmp(key, "MemorySwapMax"))
		return set_size(c, &sp->swap_max_bytes, key, value);
	if (!strcmp(key, "Timeout"))
		return set_duration(c, &sp->timeout_usec, key, value);
	if (!strcmp(key, "Settle"))
		return set_duration(c, &sp->settle_usec, key, value);
	if (!strcmp(key, "Interval"))
		return set_duration(c, &sp->interval_usec, key, value);
	if (!strcmp(key, "DropCaches"))
		return set_bool(c, &sp->drop_caches, key, value);
	if (!strcmp(key, "InheritEnvironment"))
		return set_bool(c, &sp->inherit_env, key, value);
	if (!strcmp(key, "Heap"))
		return set_bool(c, &sp->heap, key, value);
	if (!strcmp(key, "UntilProgress")) {
		errno = 0;
		sp->until_progress = strtod(value, &end);
		if (errno || end == value || *end)
			return ini_error(c, "UntilProgress: '%s' is not a number", value);
		sp->has_until_progress = true;
		return true;
	}
	return ini_error(c, "unknown key '%s' in [bench]", key);
}

static bool arm_key(struct ini_ctx *c, struct tm_bench_arm *arm, const char *key, const char *value)
{
	if (!strcmp(key, "Environment")) {
		if (tm_bench_parse_environment(arm, value))
			return ini_error(c, "[%s] bad Environment= value '%s'", arm->name, value);
		return true;
	}
	int r = arm_setting(arm, key, value);
	if (r < 0)
		return ini_error(c, "[%s] bad %s= value '%s'", arm->name, key, value);
	if (r > 0)
		return ini_error(c,
		                 "unknown key '%s' in [%s] (Allocator, Environment, "
		                 "MemoryMax, MemoryHigh, MemorySwapMax, ExecStart)",
		                 key, arm->name);
	return true;
}

static int on_ini_key(void *user, const char *section, const char *key, const char *value)
{
	struct ini_ctx *c = user;
	struct tm_bench_arm *arm;

	/* Errors are kept in C (the first one, with its line); returning 0
	 * would only give inih's line number without the reason. */
	if (c->failed)
		return 1;
	if (!*section || !strcmp(section, "bench")) {
		bench_key(c, key, value);
		return 1;
	}
	arm = find_arm(c->sp, section);
	if (!arm)
		ini_error(c, "bad section [%s]", section);
	else
		arm_key(c, arm, key, value);
	return 1;
}

/* An arm that is no shortcut and changes nothing at all. */
static bool sets_nothing(const struct tm_bench_arm *arm)
{
	return !arm->alloc_set && !arm->n_env && !arm->exec_start &&
	       arm->memory_max_bytes == TM_LIMIT_UNSET &&
	       arm->memory_high_bytes == TM_LIMIT_UNSET && arm->swap_max_bytes == TM_LIMIT_UNSET;
}

int tm_bench_parse_ini(struct tm_bench_spec *sp, const char *text, const char *origin)
{
	struct ini_ctx c = {.sp = sp, .text = text, .pos = text};
	int r, first = sp->n_arms;

	/* Errors in keys are kept in c.err; inih's own (syntax) come back as
	 * a line number, whichever comes first in the file wins. */
	r = ini_parse_stream(read_ini_line, &c, on_ini_key, &c);
	if (r > 0 && (!c.failed || r < c.err_line))
		return tm_error("%s:%d: syntax error (expected [section], KEY=VALUE or a comment)",
		                origin, r);
	if (c.failed)
		return tm_error("%s:%d: %s", origin, c.err_line, c.err);
	if (r < 0)
		return tm_error("%s: cannot parse (out of memory)", origin);
	if (sp->n_arms == 0)
		return tm_error("%s: no arms (each section other than [bench] is an arm)", origin);
	for (int i = first; i < sp->n_arms; i++)
		if (sets_nothing(&sp->arms[i])) {
			char where[512], how[TM_BENCH_NAME_MAX + 32];
			snprintf(where, sizeof(where), "%s:%d: ", origin, c.arm_line[i]);
			snprintf(how, sizeof(how), "Allocator=glibc in [%s]", sp->arms[i].name);
			return nothing_set(where, sp->arms[i].name, how);
		}
	return 0;
}

/* ---- allocators, the guard, environments ---- */

const char *const *tm_bench_lib_dirs(void)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/usr/lib/x86_64-linux-gnu",
		"/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/usr/lib/aarch64-linux-gnu",
		"/lib/aarch64-linux-gnu",
#elif defined(__arm__)
		"/usr/lib/arm-linux-gnueabihf",
		"/lib/arm-linux-gnueabihf",
#endif
		"/usr/local/lib",
		"/usr/lib",
		"/lib",
		NULL,
	};
	return dirs;
}

static char *find_lib(const char *const *dirs, const char *soname)
{
	char path[4096];

	for (const char *const *d = dirs; *d; d++) {
		snprintf(path, sizeof(path), "%s/%s", *d, soname);
		if (access(path, R_OK) == 0)
			return strdup(path);
	}
	return NULL;
}

char *tm_bench_alloc_find(enum tm_bench_alloc a, const char *const *dirs)
{
	char *path = NULL;

	for (int i = 0; a < TM_ALLOC_COUNT && i < 3 && alloc_table[a].lib[i] && !path; i++)
		path = find_lib(dirs, alloc_table[a].lib[i]);
	return path;
}

const char *tm_bench_alloc_package(enum tm_bench_alloc a)
{
	return a < TM_ALLOC_COUNT ? alloc_table[a].pkg[0] : NULL;
}

/* The allocator a preloaded library stands for, or -1 for none of ours. */
static int classify_preload(const char *value)
{
	if (strstr(value, "jemalloc"))
		return TM_ALLOC_JEMALLOC;
	if (strstr(value, "mimalloc"))
		return TM_ALLOC_MIMALLOC;
	if (strstr(value, "tcmalloc"))
		return TM_ALLOC_TCMALLOC;
	return -1;
}

static int resolve_arm(struct tm_bench_arm *arm, const char *const *dirs)
{
	const char *declared = tm_bench_arm_getenv(arm, "LD_PRELOAD");

	if (declared) {
		int a = classify_preload(declared);
		if (a >= 0 && arm->alloc_set && arm->alloc != (enum tm_bench_alloc)a &&
		    arm->alloc != TM_ALLOC_GLIBC)
			return tm_error("arm '%s' says %s but its LD_PRELOAD names %s", arm->name,
			                tm_bench_alloc_name(arm->alloc), declared);
		if (a >= 0)
			arm->alloc = (enum tm_bench_alloc)a;
		return 0;
	}
	if (!alloc_table[arm->alloc].lib[0])
		return 0;
	if ((arm->preload = tm_bench_alloc_find(arm->alloc, dirs)))
		return 0;
	char where[1024] = "";
	size_t n = 0;
	for (const char *const *d = dirs; *d && n < sizeof(where); d++)
		n += (size_t)snprintf(where + n, sizeof(where) - n, "%s%s", n ? ", " : "", *d);
	return tm_error("arm '%s': %s not found (looked for %s in %s); install the Debian "
	                "package %s",
	                arm->name, tm_bench_alloc_name(arm->alloc), alloc_table[arm->alloc].lib[0],
	                where, alloc_table[arm->alloc].pkg[0]);
}

int tm_bench_resolve_allocators(struct tm_bench_spec *sp, const char *const *dirs)
{
	for (int i = 0; i < sp->n_arms; i++)
		if (resolve_arm(&sp->arms[i], dirs))
			return -1;
	return 0;
}

const char *tm_bench_arm_expect(const struct tm_bench_arm *arm)
{
	return tm_bench_alloc_expect(arm->alloc);
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

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void tm_bench_order(int n_arms, int rounds, bool shuffle, uint64_t seed, int *order)
{
	uint64_t state = seed;

	for (int r = 0; r < rounds; r++) {
		int *round = order + (size_t)r * (size_t)n_arms;
		for (int a = 0; a < n_arms; a++)
			round[a] = a;
		if (!shuffle)
			continue;
		for (int a = n_arms - 1; a > 0; a--) {
			int j = (int)(splitmix64(&state) % (uint64_t)(a + 1));
			int t = round[a];
			round[a] = round[j];
			round[j] = t;
		}
	}
}
