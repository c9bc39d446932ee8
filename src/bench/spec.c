/*
 * bench: the spec and its arms (--arm and the settings an arm's section
 * shares), the allocator shortcuts and their libraries, the run order.
 * The experiment file is ini.c, environments and command lines env.c.
 * See bench.h for the contracts and docs/bench.md for the formats.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "cgroup/limits.h"
#include "bench/spec_int.h"
#include "record/launch.h"
#include "record/recorder.h"
#include "base/banned.h"

/* The allocators are the registry's (base/allocators.h). */
const char *tm_bench_alloc_name(enum tm_alloc a)
{
	return a < TM_ALLOC_COUNT ? tm_alloc_info(a)->name : "?";
}

const char *tm_bench_alloc_expect(enum tm_alloc a)
{
	return a < TM_ALLOC_COUNT ? tm_alloc_info(a)->family : NULL;
}

int tm_bench_alloc_by_name(const char *name)
{
	return tm_alloc_by_name(name);
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
		int d = distance(name, tm_alloc_info(i)->name);
		if (best < 0 || d < best_d) {
			best = i;
			best_d = d;
		}
	}
	/* a typo, not another word: at most 3 edits, and fewer than half the name */
	return best >= 0 && best_d <= 3 && 2 * best_d < (int)strlen(tm_alloc_info(best)->name)
	           ? tm_alloc_info(best)->name
	           : NULL;
}

int tm_bench_arm_nothing_set(const char *where, const char *name, const char *how)
{
	const char *near = tm_bench_alloc_nearest(name);

	if (near)
		return tm_error("%sarm '%s' is not a shortcut and sets nothing: did you mean '%s'? "
		                "(an arm with no settings on purpose: %s)",
		                where, name, near, how);
	char names[256];
	return tm_error("%sarm '%s' is not a shortcut (%s) and sets nothing (an arm with no "
	                "settings on purpose: %s)",
	                where, name, tm_alloc_names(names, sizeof(names), ", "), how);
}

/* ---- spec and arms ---- */

void tm_bench_spec_init(struct tm_bench_spec *sp)
{
	memset(sp, 0, sizeof(*sp));
	tm_record_opts_init(&sp->rec);
	sp->rec.new_cgroup = true;
	sp->rec.quiet_child = true;
	sp->rec.interval_usec = 200000;
	sp->rec.commit_every_usec = 0; /* a bench's arm: every sample lands at once */
	sp->runs = 3;
	sp->seed = -1;
	sp->order = TM_ORDER_INTERLEAVE;
	sp->sweep.resolution = 32 * 1048576;
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
	struct tm_optset sets[TM_BENCH_OPTSETS];

	for (int i = 0; i < sp->n_arms; i++)
		arm_release(&sp->arms[i]);
	sp->n_arms = 0;
	tm_bench_optsets(sp, sets);
	tm_opts_release(sets, TM_BENCH_OPTSETS);
	free(sp->window); /* a checked string (TM_OPT_CUSTOM) */
	sp->window = NULL;
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

struct tm_bench_arm *tm_bench_arm_find(struct tm_bench_spec *sp, const char *name)
{
	for (int i = 0; i < sp->n_arms; i++)
		if (!strcmp(sp->arms[i].name, name))
			return &sp->arms[i];
	return NULL;
}

/* A new arm called NAME (LEN bytes); NULL after tm_error. */
struct tm_bench_arm *tm_bench_arm_new(struct tm_bench_spec *sp, const char *name, size_t len)
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
	if (tm_bench_arm_find(sp, arm->name))
		return tm_error("arm '%s' given twice", arm->name), NULL;
	arm->memory_max_bytes = arm->memory_high_bytes = arm->swap_max_bytes = TM_LIMIT_UNSET;
	int a = tm_bench_alloc_by_name(arm->name);
	arm->alloc = a < 0 ? TM_ALLOC_GLIBC : (enum tm_alloc)a;
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

static int parse_allocator(void *field, const char *value, struct tm_err *err)
{
	struct tm_bench_arm *arm = field;
	int a = tm_bench_alloc_by_name(value);

	if (a < 0) {
		char names[256];
		return tm_err_set(err, 0, "'%s': expected an allocator: %s", value,
		                  tm_alloc_names(names, sizeof(names), " or "));
	}
	arm->alloc = (enum tm_alloc)a;
	arm->alloc_set = true;
	return 0;
}

#define ARM_OFF(f) offsetof(struct tm_bench_arm, f)

/* The settings of one arm, shared by --arm KEY=VALUE and an arm's section;
 * the limits read like the recorder's own (record/options.c). */
static const struct tm_opt arm_options[] = {
    {.key = "Allocator", .scopes = TM_OPT_FILE, .type = TM_OPT_CUSTOM, .parse = parse_allocator},
    {.key = "MemoryMax",
     .scopes = TM_OPT_FILE,
     .type = TM_OPT_SIZE,
     .off = ARM_OFF(memory_max_bytes),
     .check = tm_limit_floor_why,
     .max = TM_OPT_NO_MAX},
    {.key = "MemoryHigh",
     .scopes = TM_OPT_FILE,
     .type = TM_OPT_SIZE,
     .off = ARM_OFF(memory_high_bytes),
     .check = tm_limit_floor_why,
     .max = TM_OPT_NO_MAX},
    {.key = "MemorySwapMax",
     .scopes = TM_OPT_FILE,
     .type = TM_OPT_SIZE,
     .off = ARM_OFF(swap_max_bytes),
     .max = TM_OPT_NO_MAX},
    {.key = "ExecStart",
     .scopes = TM_OPT_FILE,
     .type = TM_OPT_STRING,
     .min = 1,
     .off = ARM_OFF(exec_start)},
    {.type = TM_OPT_END},
};

/* One arm setting (the keys arms share between --arm and the file): 0,
 * 1 when KEY is not an arm setting, -1 with ERR ("MemoryMax 'x': expected ..."). */
int tm_bench_arm_set(struct tm_bench_arm *arm, const char *key, const char *value,
                     struct tm_err *err)
{
	struct tm_optset set = {arm_options, arm};
	return tm_opts_set_key(&set, 1, key, value, err);
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
	struct tm_err why = {0};
	int r = tm_bench_arm_set(arm, buf, eq + 1, &why);
	if (r < 0)
		return tm_error("--arm %s: %s", arm->name, why.msg);
	if (r == 0)
		return 0;
	return tm_bench_arm_setenv(arm, buf, eq + 1);
}

int tm_bench_add_arm(struct tm_bench_spec *sp, const char *text)
{
	const char *colon = strchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	struct tm_bench_arm *arm = tm_bench_arm_new(sp, text, name_len);
	const char *p, *start;

	if (!arm)
		return -1;
	if (!colon && !arm->alloc_set) {
		char how[TM_BENCH_NAME_MAX + 16];
		snprintf(how, sizeof(how), "--arm %s:", arm->name);
		return tm_bench_arm_nothing_set("", arm->name, how);
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

char *tm_bench_alloc_find(enum tm_alloc a, const char *const *dirs)
{
	char *path = NULL;

	for (int i = 0; a < TM_ALLOC_COUNT && i < 2 && tm_alloc_info(a)->lib[i] && !path; i++)
		path = find_lib(dirs, tm_alloc_info(a)->lib[i]);
	return path;
}

const char *tm_bench_alloc_package(enum tm_alloc a)
{
	return a < TM_ALLOC_COUNT ? tm_alloc_info(a)->pkg[0] : NULL;
}

/* The allocator a preloaded library stands for (the first of the
 * registry's with a library whose family its path names), or -1. */
static int classify_preload(const char *value)
{
	for (int i = 0; i < TM_ALLOC_COUNT; i++)
		if (tm_alloc_info(i)->lib[0] && strstr(value, tm_alloc_info(i)->family))
			return i;
	return -1;
}

static int resolve_arm(struct tm_bench_arm *arm, const char *const *dirs)
{
	const char *declared = tm_bench_arm_getenv(arm, "LD_PRELOAD");

	if (declared) {
		int a = classify_preload(declared);
		bool same =
		    a >= 0 && !strcmp(tm_alloc_info(a)->family, tm_bench_alloc_expect(arm->alloc));
		if (a >= 0 && arm->alloc_set && !same && arm->alloc != TM_ALLOC_GLIBC)
			return tm_error("arm '%s' says %s but its LD_PRELOAD names %s", arm->name,
			                tm_bench_alloc_name(arm->alloc), declared);
		if (a >= 0 && !same)
			arm->alloc = (enum tm_alloc)a;
		return 0;
	}
	const struct tm_alloc_info *ai = tm_alloc_info(arm->alloc);
	if (!ai->lib[0])
		return 0;
	if ((arm->preload = tm_bench_alloc_find(arm->alloc, dirs)))
		return 0;
	char where[1024] = "";
	size_t n = 0;
	for (const char *const *d = dirs; *d && n < sizeof(where); d++)
		n += (size_t)snprintf(where + n, sizeof(where) - n, "%s%s", n ? ", " : "", *d);
	return tm_error("arm '%s': %s not found (looked for %s in %s); install the Debian "
	                "package %s",
	                arm->name, ai->name, ai->lib[0], where, ai->pkg[0]);
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
