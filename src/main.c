/*
 * tidemark: dispatch to a subcommand.  Each command lives in src/cmd/ and
 * parses its own options; `tidemark CMD --help` prints its usage.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "base/banned.h"

#define TIDEMARK_VERSION "0.1.0"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "sample a command, process tree or cgroup into the store"},
    {"report", cmd_report, "summarise a run (or a bench) from the store"},
    {"runs", cmd_runs, "list the runs in the store"},
    {"mark", cmd_mark, "record a named phase boundary in a running recording"},
    {"bench", cmd_bench, "compare arms (allocator, env, limits) over repeated runs"},
    {"heap", cmd_heap, "heap profiles from processes running with the heap shim"},
    {"serve", cmd_serve, "collect pushes from machines; live panel and /metrics"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: tidemark <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'tidemark <command> --help' shows a command's options and examples.\n");
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (name && !strcmp(name, "help") && argc > 2) {
			char *help_argv[] = {argv[2], "--help", NULL};
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(commands[i].name, argv[2]))
					return commands[i].fn(2, help_argv);
		}
		usage(name ? stdout : stderr);
		return name ? 0 : 2;
	}
	if (!strcmp(name, "--version")) {
		printf("tidemark %s\n", TIDEMARK_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "tidemark: '%s' is not a tidemark command\n\n", name);
	usage(stderr);
	return 2;
}
