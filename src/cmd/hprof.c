/* tidemark hprof: what holds a JVM's heap, from an HPROF heap dump. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "hprof/hprof.h"
#include "hprof/print.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark hprof top DUMP [-n N] [--json | --csv] [--oops compressed|full]\n"
    "                                [--class-pointers compressed|full]\n"
    "\n"
    "Reads an HPROF heap dump (jcmd PID GC.heap_dump FILE, or\n"
    "-XX:+HeapDumpOnOutOfMemoryError) in one streaming pass and prints the class\n"
    "histogram: instances and shallow bytes per class, largest first, as\n"
    "`jcmd PID GC.class_histogram` counts them.  Its memory is bounded whatever\n"
    "the dump holds, so a dump can be read on the machine that wrote it, next to\n"
    "the running JVM.  A gzip-compressed dump (DUMP.gz) is read as it is.  A dump\n"
    "cut short prints the histogram of what it holds, marked PARTIAL, and exits 1.\n"
    "\n"
    "Shallow sizes follow the dumping JVM's object layout (docs/hprof.md): the\n"
    "defaults are HotSpot's on a 64-bit JVM with a heap under 32 GiB.\n"
    "\n"
    "options:\n"
    "  -n N                 rows to print (default 20; 0 for all)\n"
    "      --json           the histogram as JSON (raw bytes; null where unknown)\n"
    "      --csv            class,instances,shallow_bytes\n"
    "      --oops full      the JVM ran without compressed references\n"
    "                       (-XX:-UseCompressedOops, or a heap of 32 GiB or more)\n"
    "      --class-pointers full   it ran with -XX:-UseCompressedClassPointers\n"
    "  -h, --help           this help\n"
    "\n"
    "examples:\n"
    "  jcmd $(pidof java) GC.heap_dump /var/tmp/node.hprof\n"
    "  tidemark hprof top /var/tmp/node.hprof -n 30\n"
    "  tidemark hprof top /var/tmp/node.hprof --csv -n 0 > classes.csv\n";

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV };

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "tidemark hprof: %s '%s'\n(see 'tidemark hprof --help')\n", what, arg);
	return 2;
}

/* "compressed" or "full" into *ON; -1 otherwise. */
static int compressed(const char *arg, bool *on)
{
	if (!strcmp(arg, "compressed") || !strcmp(arg, "full")) {
		*on = !strcmp(arg, "compressed");
		return 0;
	}
	return -1;
}

static int parse(int argc, char **argv, struct tm_hprof_layout *l, enum fmt *fmt, int64_t *top)
{
	static const struct option long_opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"oops", required_argument, NULL, 'O'},
	    {"class-pointers", required_argument, NULL, 'K'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:h", long_opts, NULL)) != -1) {
		if (c == 'n' && (tm_parse_int64(optarg, top) || *top < 0))
			return usage_error("bad row count", optarg);
		if (c == 'j' || c == 'c')
			*fmt = c == 'j' ? FMT_JSON : FMT_CSV;
		if (c == 'O' && compressed(optarg, &l->compressed_oops))
			return usage_error("--oops takes compressed or full, not", optarg);
		if (c == 'K' && compressed(optarg, &l->compressed_class_pointers))
			return usage_error("--class-pointers takes compressed or full, not",
			                   optarg);
		if (c == 'h') {
			tm_help_write(stdout, usage_text);
			return 1;
		}
		if (c == '?') {
			tm_help_write(stderr, usage_text);
			return 2;
		}
	}
	if (argc - optind != 2 || strcmp(argv[optind], "top"))
		return usage_error("expected 'top DUMP', got", optind < argc ? argv[optind] : "");
	return 0;
}

int cmd_hprof(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_hprof_layout layout;
	struct tm_hprof_histogram h;
	enum fmt fmt = FMT_TEXT;
	int64_t top = 20;

	(void)ctx;
	tm_hprof_layout_default(&layout);
	int rc = parse(argc, argv, &layout, &fmt, &top);
	if (rc)
		return rc == 1 ? 0 : rc;
	const char *path = argv[argc - 1];
	/* a dump cut short: the histogram of what was read, marked partial,
	 * the cut said on stderr, and a failing status */
	int partial = tm_hprof_histogram_file(path, &layout, &h);
	if (partial < 0)
		return 1;
	if (fmt == FMT_JSON)
		rc = tm_hprof_print_json(&h, &layout, path, (size_t)top, stdout) ? 1 : 0;
	else if (fmt == FMT_CSV)
		tm_hprof_print_csv(&h, (size_t)top, stdout);
	else
		tm_hprof_print_text(&h, &layout, path, (size_t)top, stdout);
	tm_hprof_histogram_release(&h);
	return partial ? 1 : rc;
}
