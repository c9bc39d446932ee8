/* tidemark mark: a named phase boundary in a running recording. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
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

int cmd_mark(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	static const struct option long_opts[] = {
	    {"to", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *env = getenv("TIDEMARK_MARK");
	char path[512];
	int64_t pid = 0;
	int c;

	(void)ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+t:h", long_opts, NULL)) != -1) {
		if (c == 't') {
			if (tm_parse_int64(optarg, &pid) || pid <= 0 || pid > INT_MAX) {
				fprintf(stderr, "tidemark mark: --to '%s': expected a process id\n",
				        optarg);
				return 2;
			}
		} else if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		} else {
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (!pid && env && *env)
		snprintf(path, sizeof(path), "%s", env);
	else if (tm_mark_find((pid_t)pid, path, sizeof(path)))
		return 1;
	return tm_mark_send(path, argv[optind]) ? 1 : 0;
}
