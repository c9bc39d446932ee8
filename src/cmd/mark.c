/* tidemark mark: a named phase boundary in a running recording. */
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "record/marks.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark mark [--to PID] TEXT\n"
    "\n"
    "Records TEXT as a mark in a running `tidemark record`: the one named by\n"
    "$TIDEMARK_MARK (set for recorded commands), the recorder with pid PID, or\n"
    "the only recorder running.  The mark 'end' ends the work (see --settle).\n"
    "\n"
    "examples:\n"
    "  tidemark mark busy-start\n"
    "  tidemark mark --to 4242 \"compaction begins\"\n"
    "  echo busy-end > \"$TIDEMARK_MARK\"     # from inside the recorded command\n";

/* --to PID */
static int parse_to(void *field, const char *value, struct tm_err *err)
{
	int64_t pid;

	if (tm_parse_int64(value, &pid) || pid <= 0 || pid > INT_MAX)
		return tm_err_set(err, 0, "'%s': expected a process id", value);
	*(pid_t *)field = (pid_t)pid;
	return 0;
}

static const struct tm_opt mark_options[] = {
    {.flag = "to",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .parse = parse_to,
     .metavar = "PID",
     .help = "the recorder with this pid"},
    {.type = TM_OPT_END},
};

int cmd_mark(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	const char *env = getenv("TIDEMARK_MARK");
	pid_t pid = 0;
	const struct tm_optset set = {mark_options, &pid};
	char path[512];
	int next, rc;

	(void)ctx;
	rc = tm_opts_parse(&set, 1, TM_OPT_OTHER, "mark", argc, argv, &next);
	if (rc)
		return rc > 0 ? (tm_help_write(stdout, usage_text), 0) : 2;
	if (next != argc - 1) {
		tm_error(
		    "mark takes one TEXT (quote it if it has spaces; see 'tidemark mark --help')");
		return 2;
	}
	if (!pid && env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else if (tm_mark_find(pid, path, sizeof(path)))
		return 1;
	return tm_mark_send(path, argv[next]) ? 1 : 0;
}
