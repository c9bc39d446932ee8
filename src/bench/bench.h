/*
 * bench: the experiment model.  Arms (an allocator, an environment, limits,
 * optionally a command of their own), how they are spelled on the command
 * line and in an experiment file, the contamination guard, and the
 * environment each arm really runs with.
 *
 * Everything here is pure (text in, structs out) except
 * tm_bench_resolve_allocators(), which looks for libraries on disk under
 * the directories it is given.  docs/bench.md describes the formats.
 */
#ifndef TM_BENCH_H
#define TM_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/allocators.h"

#include "base/opt.h"
#include "bench/param.h"
#include "record/recorder.h"

#define TM_BENCH_MAX_ARMS 16
#define TM_BENCH_MAX_ENV  32
#define TM_BENCH_NAME_MAX 64

/* "glibc", "arena1", ...; the name tm_bench_alloc_by_name() accepts. */
const char *tm_bench_alloc_name(enum tm_alloc a);
/* What /proc/PID/maps must show: "glibc" for glibc and arena1. */
const char *tm_bench_alloc_expect(enum tm_alloc a);
/* -1 when NAME is not a known allocator shortcut. */
int tm_bench_alloc_by_name(const char *name);
/* The shortcut NAME is a typo of (a few edits away), or NULL. */
const char *tm_bench_alloc_nearest(const char *name);

struct tm_bench_env {
	char *name, *value; /* malloc'd */
};

struct tm_bench_arm {
	char name[TM_BENCH_NAME_MAX];
	enum tm_alloc
	    alloc; /* of the registry (base/allocators.h); TM_ALLOC_GLIBC when nothing is said */
	bool alloc_set; /* said explicitly (Allocator= or the name) */
	char *preload;  /* library path for LD_PRELOAD once resolved (malloc'd) */
	struct tm_bench_env env[TM_BENCH_MAX_ENV];
	int n_env; /* variables the arm declares itself */
	int64_t memory_max_bytes, memory_high_bytes, swap_max_bytes; /* TM_LIMIT_UNSET: default */
	char *exec_start; /* ExecStart= (a shell-like command line), malloc'd, or NULL */
};

/* The order of the runs (Order=, --order). */
enum tm_bench_order_kind {
	TM_ORDER_INTERLEAVE, /* A B C A B C ... */
	TM_ORDER_SHUFFLE,    /* each round shuffled (seeded) */
};

/* "interleave" or "shuffle". */
const char *tm_bench_order_name(int order);

/* Which limit a sweep (bench --sweep) bisects. */
enum tm_bench_sweep_limit {
	TM_SWEEP_NONE,
	TM_SWEEP_MEMORY_MAX,  /* the smallest MemoryMax every run survives */
	TM_SWEEP_MEMORY_HIGH, /* the smallest MemoryHigh no run is held in throttle limbo at */
};

struct tm_bench_sweep {
	int limit;          /* enum tm_bench_sweep_limit */
	int64_t lo, hi;     /* bytes: the range searched (--sweep MemoryMax=LO..HI) */
	int64_t resolution; /* bytes: bisection stops when the bracket is this narrow */
};

/*
 * A bench: its arms and its options.  tm_bench_spec_init() sets the
 * defaults; an experiment file, then the command line, set what they say
 * (both through the option tables, tm_bench_optsets()).
 */
struct tm_bench_spec {
	struct tm_bench_arm arms[TM_BENCH_MAX_ARMS];
	int n_arms;
	/* What every run records with (record/options.h): interval, progress,
	 * timeout, settle, grace, heap, and the limits arms do not set
	 * themselves.  The runner fills in the target and bookkeeping. */
	struct tm_record_opts rec;
	char *name, *exec_start, *restore, *prepare, *cleanup, *window; /* malloc'd or NULL */
	char *unit; /* --unit NAME: arms as drop-ins of this service (bench/unit.h), or NULL */
	int order;  /* enum tm_bench_order_kind */
	int64_t runs, warmup, seed; /* seed -1: a fresh one is drawn for shuffle */
	bool drop_caches, inherit_env;
	struct tm_bench_sweep sweep; /* --sweep, --resolution */
	struct tm_bench_param param; /* --param NAME=VALUES (bench/param.h) */
};

/* The bench's own options (--runs, Runs=, ...); they store into a struct tm_bench_spec. */
extern const struct tm_opt tm_bench_options[];

/* The tables an experiment file and `tidemark bench` read SP's options
 * from: the recorder's (into SP->rec) and the bench's (into SP). */
#define TM_BENCH_OPTSETS 2
void tm_bench_optsets(struct tm_bench_spec *sp, struct tm_optset sets[TM_BENCH_OPTSETS]);

void tm_bench_spec_init(struct tm_bench_spec *sp);
void tm_bench_spec_release(struct tm_bench_spec *sp);

/*
 * Adds the arm spelled NAME[:KEY=VAL[,KEY=VAL...]] (the --arm argument).
 * KEY is an environment variable, or one of Allocator, MemoryMax,
 * MemoryHigh, MemorySwapMax.  A comma only separates when what follows is
 * KEY=, so MALLOC_CONF=a:1,b:2 keeps its commas.  An arm named like an
 * allocator shortcut (jemalloc, arena1, ...) uses it.  A bare NAME that is
 * no shortcut sets nothing and is refused (a typo: "tcmaloc" suggests
 * tcmalloc); "NAME:" is an arm with no settings, on purpose.
 * 0, or -1 after tm_error naming the problem.
 */
int tm_bench_add_arm(struct tm_bench_spec *sp, const char *text);

/*
 * Parses an experiment file held in TEXT (NUL-terminated) into SP.  Section
 * [bench] holds the options (the keys of tm_bench_optsets()); every other
 * section is an arm, in order (the first is the control).  Errors name
 * ORIGIN and the line, with the same reason as the command line gives.
 * 0 or -1.
 */
int tm_bench_parse_ini(struct tm_bench_spec *sp, const char *text, const char *origin);

/*
 * Parses systemd's Environment= value (space-separated VAR=VAL, double or
 * single quotes allowed) into the arm.  0 or -1 after tm_error.
 */
int tm_bench_parse_environment(struct tm_bench_arm *arm, const char *value);

/* Sets (replacing) one declared variable.  0 or -1 when full or invalid. */
int tm_bench_arm_setenv(struct tm_bench_arm *arm, const char *name, const char *value);
const char *tm_bench_arm_getenv(const struct tm_bench_arm *arm, const char *name);

/*
 * The library search: for each allocator arm that needs a preload, finds
 * its library in one of DIRS (NULL-terminated) and sets arm->preload.
 * A missing library is an error naming the Debian package.  An arm that
 * declares LD_PRELOAD itself is classified by the library it names.
 */
int tm_bench_resolve_allocators(struct tm_bench_spec *sp, const char *const *dirs);

/* The library of allocator A (the first of its sonames found in DIRS, a
 * NULL-terminated list) as a malloc'd path, or NULL when none is there or A
 * needs no library (glibc, arena1).  The search arms use. */
char *tm_bench_alloc_find(enum tm_alloc a, const char *const *dirs);

/* The Debian package that installs allocator A's library; NULL for glibc. */
const char *tm_bench_alloc_package(enum tm_alloc a);

/* The default library directories of this host (NULL-terminated). */
const char *const *tm_bench_lib_dirs(void);

/*
 * The contamination guard.  ENVP is our environment.  Refuses (returns -1
 * after tm_error listing the variables) when it carries an
 * allocation-relevant variable no arm declares explicitly, unless
 * INHERIT.  0 when clean.
 */
int tm_bench_guard(const struct tm_bench_spec *sp, char *const *envp, bool inherit);

/*
 * The environment arm ARM runs with: ENVP with every allocation-relevant
 * variable removed (kept when INHERIT and the arm does not set it), then
 * the arm's own variables and its preload.  A NULL-terminated malloc'd
 * array of malloc'd "VAR=VAL" strings; free with tm_bench_env_free.
 */
char **tm_bench_arm_envp(const struct tm_bench_arm *arm, char *const *envp, bool inherit);
void tm_bench_env_free(char **envp);

/* The allocation-relevant part of an environment as a JSON object text (malloc'd). */
char *tm_bench_env_json(char *const *envp);

/* The allocator /proc/PID/maps must show for this arm. */
const char *tm_bench_arm_expect(const struct tm_bench_arm *arm);

/*
 * Splits a command line (ExecStart=) into argv like a shell without
 * expansions: whitespace separates, quotes group, backslash escapes.
 * NULL-terminated malloc'd array; free with tm_bench_env_free.  NULL after
 * tm_error on an unterminated quote or an empty command.
 */
char **tm_bench_split_command(const char *line);

/*
 * The run order: ROUNDS rounds of N_ARMS arms, arm indexes written to
 * ORDER (ROUNDS * N_ARMS of them).  Interleaved (0 1 2 0 1 2 ...) unless
 * SHUFFLE, then each round is shuffled with a generator seeded by SEED,
 * so each arm still runs once per round.
 */
void tm_bench_order(int n_arms, int rounds, bool shuffle, uint64_t seed, int *order);

#endif
