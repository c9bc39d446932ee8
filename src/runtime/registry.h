/*
 * The runtime registry: one descriptor per language runtime whose own heap
 * figures tidemark reads (docs/runtimes.md), registered once in the lists
 * below.  A descriptor says how the runtime is found, what it publishes,
 * how its GC lines are read, which metrics it fills, its part of anon in
 * the report's split, and its row in docs/runtimes.md.  Each runtime's
 * descriptor lives in the file of its parser (`tm_rt_NAME`); a list line
 * without its descriptor does not link, and tests/unit/test_runtimes.c
 * walks the registry and checks that every output names each runtime once.
 * Pure data: no I/O.
 */
#ifndef TM_RUNTIME_REGISTRY_H
#define TM_RUNTIME_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/metrics.h"
#include "runtime/gclog.h"

/* Runtimes turned on by `--runtime NAME` (record, bench, Runtime=): their
 * GC lines are read from the launched command's output or a file.
 * X(ENUM, "name", descriptor) */
#define TM_RUNTIME_OPTION_LIST(X)                                                                  \
	X(GO, "go", tm_rt_go)                                                                      \
	X(GHC, "ghc", tm_rt_ghc)                                                                   \
	X(NODE, "node", tm_rt_node)

/* Runtimes found without the option (by what the processes map, or by their
 * command line's own flags). */
#define TM_RUNTIME_FOUND_LIST(X) X(JVM, "jvm", tm_rt_jvm)

enum tm_runtime {
	TM_RUNTIME_NONE, /* --runtime none, the default */
#define TM_X_RT_ENUM(e, name, desc) TM_RUNTIME_##e,
	TM_RUNTIME_OPTION_LIST(TM_X_RT_ENUM) TM_RUNTIME_FOUND_LIST(TM_X_RT_ENUM)
#undef TM_X_RT_ENUM
	    TM_RUNTIME_COUNT
};

/* The values --runtime takes are 0 ("none") .. TM_RUNTIME_OPTION_END - 1. */
#define TM_X_RT_ONE(e, name, desc) +1
enum { TM_RUNTIME_OPTION_END = 1 TM_RUNTIME_OPTION_LIST(TM_X_RT_ONE) };
#undef TM_X_RT_ONE

/* How a runtime is found (bits of found_by). */
enum {
	TM_RT_BY_OPTION = 1, /* --runtime NAME */
	TM_RT_BY_MAPS = 2,   /* a file or library the process maps */
	TM_RT_BY_FLAGS = 4,  /* the launched command line's own options */
	TM_RT_BY_EXE = 8,    /* the program's name (node, nodejs) */
};

/* Where a runtime writes its GC lines when its option is on. */
enum tm_rt_stream { TM_RT_STREAM_NONE, TM_RT_STREAM_STDOUT, TM_RT_STREAM_STDERR };

/* A line of GC output that is not the runtime's own: 1 (not mine); a
 * collection: 0 and OUT filled (live_bytes -1 when the line gives no
 * live figure, e.g. V8's minor GCs, whose "after" still holds old garbage). */
typedef int (*tm_rt_gc_line_fn)(const char *line, size_t len, struct tm_gc_event *out);

/* The /metrics HELP line of one of a runtime's own metrics. */
struct tm_rt_help {
	enum tm_metric metric;
	const char *text;
};

struct tm_runtime_desc {
	const char *name;         /* as --runtime takes it and docs/runtimes.md names it */
	const char *title;        /* its name in text: "Go", "GHC", "Node.js (V8)" */
	unsigned found_by;        /* TM_RT_BY_* bits */
	const char *publishes;    /* what it publishes about its heap, one phrase */
	enum tm_rt_stream stream; /* where its GC lines go (NONE: not GC lines) */
	tm_rt_gc_line_fn gc_line; /* parser of one GC line, NULL when none */
	/* the environment variable that turns the lines on, the word added to
	 * what it already holds and the separator; NULL when none */
	const char *env_var, *env_add, *env_sep;
	/* the command-line flag that turns the lines on, added after the
	 * program's name when it is the runtime's executable (exe_names,
	 * space-separated) and no word of the command line already names it;
	 * NULL when none */
	const char *flag, *exe_names;
	/* how a stored run shows it was recorded with the lines on: a text
	 * in its environment (env_json) or its command line (command_json) */
	const char *stored_env, *stored_command;
	const char *gc_note;           /* added to the report's "gc heap" line, "" when none */
	const char *split;             /* its part of anon in the report's split, NULL when the
	                                  report has no split line of its own for it */
	const enum tm_metric *figures; /* the metrics it fills, TM_METRIC_COUNT-ended */
	/* where each output shows it, once (tests/unit/test_runtimes.c): the
	 * label of its line in report's text, a figure of report's JSON and CSV
	 * (a summary field), and the word its figures' /metrics HELP names it by */
	const char *text_label, *summary_field, *help_word;
	/* the HELP line of each metric that is its own (one no other runtime
	 * fills), TM_METRIC_COUNT-ended; NULL when its figures are shared ones
	 * whose HELP is /metrics' own (serve/promfmt.c) */
	const struct tm_rt_help *help;
	/* the metrics it adds to the panel's default series (the API's
	 * /series without metrics=), after tidemark's own; TM_METRIC_COUNT-ended,
	 * NULL when none */
	const enum tm_metric *panel;
	const char *docs; /* its row in docs/runtimes.md's table of runtimes */
};

#define TM_X_RT_DECL(e, name, desc) extern const struct tm_runtime_desc desc;
TM_RUNTIME_OPTION_LIST(TM_X_RT_DECL)
TM_RUNTIME_FOUND_LIST(TM_X_RT_DECL)
#undef TM_X_RT_DECL

/* The descriptor of RT (TM_RUNTIME_NONE < RT < TM_RUNTIME_COUNT), or NULL
 * for any other value. */
const struct tm_runtime_desc *tm_runtime_desc(enum tm_runtime rt);

/* The option's runtime names as one literal, each after a space: " go ghc node". */
#define TM_X_RT_WORD(e, name, desc) " " name
#define TM_RUNTIME_WORDS            TM_RUNTIME_OPTION_LIST(TM_X_RT_WORD)

/* The names --runtime takes, in enum order from TM_RUNTIME_NONE ("none"),
 * NULL-terminated. */
extern const char *const tm_runtime_names[];

/* Whether NAME is the environment variable that turns some runtime's GC
 * lines on (GODEBUG, GHCRTS): the run stores its value. */
bool tm_runtime_env_var(const char *name);

/* The HELP line of metric M from the runtime whose own metric it is, NULL
 * when no runtime's help names it. */
const char *tm_runtime_metric_help(enum tm_metric m);

/* The option's runtime names joined by SEP ("go|ghc|node") into BUF (SIZE
 * bytes, always terminated); returns BUF. */
const char *tm_runtime_option_names(char *buf, size_t size, const char *sep);

#endif
