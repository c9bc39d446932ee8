/*
 * The subcommands.  Each lives in src/cmd/<name>.c as
 * cmd_<name>(argc, argv, ctx), with argv[0] the subcommand's name.  It parses
 * its own options, calls library code, and returns the process exit status.
 *
 * The store is handled once, here and in main.c: the command table says
 * which store a command uses and how (enum tm_cmd_store); a command hands
 * its -o/--db value to tm_cmd_set_db() and asks for the store with
 * tm_cmd_store() once its arguments are checked; main closes it.  The path
 * is --db, else the table's environment variable ($TIDEMARK_DB for the
 * recorder's store), else the table's default name.
 */
#ifndef TM_CMDS_H
#define TM_CMDS_H

#include "base/opt.h"

struct tm_store;

/* The recorder's store: its default name and the variable that overrides it. */
#define TM_DB_DEFAULT "tidemark.db"
#define TM_DB_ENV     "TIDEMARK_DB"
/* The server's store (tidemark serve, serve token). */
#define TM_SERVER_DB_DEFAULT "tidemark-server.db"
#define TM_SERVER_DB_ENV     "TIDEMARK_SERVER_DB"

/* What a command does with the store. */
enum tm_cmd_store {
	TM_CMD_NO_STORE, /* never opens one */
	TM_CMD_READ,     /* opens an existing store read-only */
	TM_CMD_WRITE,    /* opens (creating) read-write */
};

/* Filled by main from the command table; commands only pass it on. */
struct tm_cmd_ctx {
	const char *name;         /* "record", "serve push", ... for messages */
	enum tm_cmd_store store;  /* the most the command may do with the store */
	const char *db_default;   /* the name used when neither --db nor the env is set */
	const char *db_env;       /* the variable that overrides it, or NULL */
	const char *db_opt;       /* --db as given, or NULL */
	struct tm_store *st;      /* opened by tm_cmd_store(), closed by main */
	enum tm_cmd_store opened; /* how st was opened */
};

/* Records -o/--db PATH (the last one given wins).  PATH is borrowed (argv). */
void tm_cmd_set_db(struct tm_cmd_ctx *ctx, const char *path);

/* The store's path: --db, else $db_env when set and not empty, else the
 * default.  Borrowed; valid while argv and the environment are. */
const char *tm_cmd_db_path(const struct tm_cmd_ctx *ctx);

/* The path when it is not the default (for a hint such as "tidemark report
 * 3 --db PATH"), else NULL.  Borrowed, as tm_cmd_db_path(). */
const char *tm_cmd_db_nondefault(const struct tm_cmd_ctx *ctx);

/* The store, opened on first call with ACCESS (TM_CMD_READ or TM_CMD_WRITE),
 * which must not exceed what the command table allows (a programmer error
 * otherwise).  Read-only needs an existing store.  Later calls return the
 * same store (a read-only one is not reopened for writing: asking for WRITE
 * after READ is a programmer error).  NULL after tm_error.  Main closes it
 * with tm_cmd_close(). */
struct tm_store *tm_cmd_store(struct tm_cmd_ctx *ctx, enum tm_cmd_store access);

/* Closes the store if one was opened; safe to call twice. */
void tm_cmd_close(struct tm_cmd_ctx *ctx);

/* -o/--db PATH as an option table (base/opt.h) whose set's base is the
 * command's struct tm_cmd_ctx: tm_optset {tm_cmd_db_options, ctx}. */
extern const struct tm_opt tm_cmd_db_options[];

int cmd_record(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_report(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_runs(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_runs_rm(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_runs_check(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_prune(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_mark(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_bench(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_heap(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_advise(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_snap(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_hprof(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_serve(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_doctor(int argc, char **argv, struct tm_cmd_ctx *ctx);
int cmd_guard(int argc, char **argv, struct tm_cmd_ctx *ctx);

/* For record, bench and advise --verify, once each: one line on stderr when this host has
 * no memory controller or PSI off, pointing to `tidemark doctor`
 * (cmd/doctor.c).  The host is /; a test build with TM_TEST_HOOKS
 * (build/tests/tidemark-hooks) reads $TIDEMARK_HOST_ROOT instead when set. */
void tm_cmd_host_notice(void);

#endif
