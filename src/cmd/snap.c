/* tidemark snap: one snapshot of a process, taken now. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/term.h"
#include "base/util.h"
#include "cmd/cmds.h"
#include "snap/kinds.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark snap KIND PID [-d DIR] [--url URL] [--timeout DUR]\n"
    "\n"
    "Takes one snapshot of process PID now, writes it into DIR, and prints the\n"
    "file's path and a one-line summary.  These are the snapshots `tidemark\n"
    "guard` takes when a rule fires (docs/snap.md).  KIND is one of:\n"
    "\n"
    "  heap-profile    the native heap profile (pprof, with sites) of a process\n"
    "                  running under the shim (record --heap, heap run)\n"
    "  jvm-histogram   jcmd PID GC.class_histogram: instances and bytes per class\n"
    "                  (summary: the top classes)\n"
    "  jvm-heap-dump   jcmd PID GC.heap_dump -gz=1, then, with the JVM running\n"
    "                  again, its holders (tidemark hprof holders) beside it in\n"
    "                  FILE.holders.txt (summary: the top holder, its retained size)\n"
    "  go-heap         a Go program's heap profile from --url (its net/http/pprof\n"
    "                  /debug/pprof/heap; summary: the top in-use site)\n"
    "\n"
    "jcmd runs as the JVM's user (from root, or as that user); it is the one\n"
    "beside the JVM's java, else the first on $PATH ($TIDEMARK_JCMD overrides).\n"
    "Past --timeout, jcmd is killed and the snapshot refused.\n"
    "\n"
    "options:\n";

static const char usage_tail[] =
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 when the snapshot was written, 1 when it was refused (the\n"
    "reason on stderr), 2 for bad usage.\n"
    "\n"
    "examples:\n"
    "  tidemark snap jvm-histogram $(pidof java)\n"
    "  tidemark snap jvm-heap-dump $(pidof java) -d /var/tmp/snaps --timeout 5m\n"
    "  tidemark snap go-heap $(pidof server) --url http://127.0.0.1:6060/debug/pprof/heap\n";

struct snap_cli {
	char *dir;
	char *url;
	int64_t timeout_usec;
};

#define OFF(f) offsetof(struct snap_cli, f)

static const struct tm_opt snap_options[] = {
    {.flag = "dir",
     .short_name = 'd',
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = OFF(dir),
     .metavar = "DIR",
     .help = "write the snapshot here (default: the current directory)"},
    {.flag = "url",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = OFF(url),
     .metavar = "URL",
     .help = "go-heap: the program's /debug/pprof/heap"},
    {.flag = "timeout",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_DURATION,
     .off = OFF(timeout_usec),
     .min = 1000,
     .max = 24LL * 3600 * 1000000,
     .metavar = "DUR",
     .help = "give up after this long"},
    {.type = TM_OPT_END},
};

/* The taker of the kind named NAME (snap/kinds.h), or NULL after tm_error. */
static tm_snap_fn *kind(const char *name)
{
	int k = tm_snap_kind_by_name(name);

	char known[256] = "";
	size_t at = 0;

	if (k >= 0)
		return tm_snap_kind_desc(k)->take;
	for (k = 0; k < TM_SNAP_KIND_COUNT && at < sizeof(known); k++) {
		int n = snprintf(known + at, sizeof(known) - at, "%s%s", k ? ", " : "",
		                 tm_snap_kind_desc(k)->name);
		at += n > 0 ? (size_t)n : 0;
	}
	for (char *c = known; *c; c++)
		*c = *c == '_' ? '-' : *c;
	tm_error("no snapshot kind '%s' (%s)", name, known);
	return NULL;
}

int cmd_snap(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct snap_cli cli = {.timeout_usec = 60LL * 1000000};
	const struct tm_optset set = {snap_options, &cli};
	struct tm_err why = {0};
	struct tm_snap_out out = {0};
	int64_t pid;
	int next;

	(void)ctx;
	int rc = tm_opts_parse(&set, 1, TM_OPT_OTHER | TM_OPT_PERMUTE, "snap", argc, argv, &next);
	if (rc) {
		if (rc > 0) {
			tm_help_write(stdout, usage_head);
			tm_opts_help(stdout, &set, 1, TM_OPT_OTHER);
			tm_help_write(stdout, usage_tail);
		}
		tm_opts_release(&set, 1);
		return rc > 0 ? 0 : 2;
	}
	tm_snap_fn *take = next + 2 == argc ? kind(argv[next]) : NULL;
	if (next + 2 != argc)
		tm_error("snap takes KIND PID (see 'tidemark snap --help')");
	if (take && (tm_parse_int64(argv[next + 1], &pid) || pid <= 0 || pid > INT_MAX)) {
		tm_error("'%s' is not a process id", argv[next + 1]);
		take = NULL;
	}
	rc = 2;
	if (take) {
		struct tm_snap_req req = {.pid = (pid_t)pid,
		                          .dir = cli.dir ? cli.dir : ".",
		                          .deadline_usec = tm_now_mono_usec() + cli.timeout_usec,
		                          .url = cli.url};
		rc = take(&req, &out, &why) ? 1 : 0;
		if (rc)
			tm_error("no %s of pid %d: %s", argv[next], (int)pid, why.msg);
		else
			printf("%s\n%s\n", out.path, out.summary);
	}
	tm_opts_release(&set, 1);
	return rc;
}
