/*
 * tidemark: dispatch to a subcommand.  Each command lives in src/cmd/ and
 * parses its own options; `tidemark CMD --help` prints its usage.  The
 * table says which store each command uses and whether it writes it; the
 * store's path (--db, $TIDEMARK_DB, the default name) is resolved, and the
 * store opened and closed, in one place (cmd/cmds.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/term.h"
#include "cmd/cmds.h"
#include "base/banned.h"

#include "tm_version.h" /* build/gen, from VERSION: TIDEMARK_VERSION */

/* Which store file: the recorder's, or the server's. */
enum db_kind { DB_LOCAL, DB_SERVER };

struct command {
	const char *name;
	const char *sub; /* a subcommand (argv[2]) with needs of its own, or NULL */
	int (*fn)(int argc, char **argv, struct tm_cmd_ctx *ctx);
	enum tm_cmd_store store;
	enum db_kind db;
	const char *summary; /* NULL: not listed by usage() */
};

static const struct command commands[] = {
    {"record", NULL, cmd_record, TM_CMD_WRITE, DB_LOCAL,
     "sample a command, process tree or cgroup into the store"},
    {"report", NULL, cmd_report, TM_CMD_READ, DB_LOCAL,
     "summarise a run (or a bench) from the store"},
    {"runs", NULL, cmd_runs, TM_CMD_READ, DB_LOCAL, "list the runs in the store"},
    {"runs", "rm", cmd_runs_rm, TM_CMD_WRITE, DB_LOCAL, NULL},
    {"runs", "check", cmd_runs_check, TM_CMD_WRITE, DB_LOCAL, NULL},
    {"prune", NULL, cmd_prune, TM_CMD_WRITE, DB_LOCAL,
     "drop raw samples and rollups past their keep periods (raw=7d,minute=90d,...)"},
    {"mark", NULL, cmd_mark, TM_CMD_NO_STORE, DB_LOCAL,
     "record a named phase boundary in a running recording"},
    {"bench", NULL, cmd_bench, TM_CMD_WRITE, DB_LOCAL,
     "compare arms (allocator, env, limits) over repeated runs"},
    {"advise", NULL, cmd_advise, TM_CMD_WRITE, DB_LOCAL,
     "limits and allocator settings from measured runs, with their reasons"},
    {"heap", NULL, cmd_heap, TM_CMD_NO_STORE, DB_LOCAL,
     "heap profiles from processes running with the heap shim"},
    {"guard", NULL, cmd_guard, TM_CMD_WRITE, DB_LOCAL,
     "when a rule holds over a live run: a snapshot, and actions if asked"},
    {"hprof", NULL, cmd_hprof, TM_CMD_NO_STORE, DB_LOCAL,
     "what holds a JVM's heap: the class histogram of an HPROF dump"},
    {"snap", NULL, cmd_snap, TM_CMD_NO_STORE, DB_LOCAL,
     "one snapshot of a process now: a JVM's histogram or heap dump, a Go heap profile"},
    {"doctor", NULL, cmd_doctor, TM_CMD_NO_STORE, DB_LOCAL,
     "is this host ready (cgroups, PSI, swap, allocators, shim), and what to change"},
    {"serve", "push", cmd_serve, TM_CMD_READ, DB_LOCAL, NULL},
    {"serve", NULL, cmd_serve, TM_CMD_WRITE, DB_SERVER,
     "collect pushes from machines; live panel and /metrics"},
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		f = out;
	fprintf(f, "usage: tidemark <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (commands[i].summary)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'tidemark <command> --help' shows a command's options and examples.\n");
	if (f != out) {
		fclose(f);
		tm_help_write(out, buf); /* wrapped to the terminal */
		free(buf);
	}
}

/* The row for NAME, or for NAME SUB when the table has one. */
static const struct command *find(const char *name, const char *sub)
{
	const struct command *plain = NULL;

	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(commands[i].name, name))
			continue;
		if (!commands[i].sub && !plain)
			plain = &commands[i];
		else if (commands[i].sub && sub && !strcmp(commands[i].sub, sub))
			return &commands[i];
	}
	return plain;
}

static int run(const struct command *c, int argc, char **argv)
{
	char label[32];
	struct tm_cmd_ctx ctx = {
	    .name = label,
	    .store = c->store,
	    .db_default = c->db == DB_SERVER ? TM_SERVER_DB_DEFAULT : TM_DB_DEFAULT,
	    .db_env = c->db == DB_SERVER ? TM_SERVER_DB_ENV : TM_DB_ENV,
	};
	int rc;

	snprintf(label, sizeof(label), "%s%s%s", c->name, c->sub ? " " : "", c->sub ? c->sub : "");
	rc = c->fn(argc, argv, &ctx);
	tm_cmd_close(&ctx);
	return rc;
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct command *c;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (name && !strcmp(name, "help") && argc > 2 && (c = find(argv[2], NULL))) {
			char *help_argv[] = {argv[2], "--help", NULL};
			return run(c, 2, help_argv);
		}
		usage(name ? stdout : stderr);
		return name ? 0 : 2;
	}
	if (!strcmp(name, "--version")) {
		printf("tidemark %s\n", TIDEMARK_VERSION);
		return 0;
	}
	if ((c = find(name, argc > 2 ? argv[2] : NULL)))
		return run(c, argc - 1, argv + 1);
	fprintf(stderr, "tidemark: '%s' is not a tidemark command\n\n", name);
	usage(stderr);
	return 2;
}
