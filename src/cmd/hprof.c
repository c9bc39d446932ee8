/* tidemark hprof: what fills and what holds a JVM's heap, from an HPROF heap dump. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "base/term.h"
#include "cmd/cmds.h"
#include "hprof/holders.h"
#include "hprof/hprof.h"
#include "hprof/print.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark hprof top DUMP [-n N] [--json | --csv] [--oops compressed|full]\n"
    "                                [--class-pointers compressed|full]\n"
    "       tidemark hprof holders DUMP [-n N] [--json | --csv | --html FILE]\n"
    "                                [--oops ...] [--class-pointers ...]\n"
    "\n"
    "top reads an HPROF heap dump (jcmd PID GC.heap_dump FILE, or\n"
    "-XX:+HeapDumpOnOutOfMemoryError) in one streaming pass and prints the class\n"
    "histogram: instances and shallow bytes per class, largest first, as\n"
    "`jcmd PID GC.class_histogram` counts them.  Its memory is bounded whatever\n"
    "the dump holds, so a dump can be read on the machine that wrote it, next to\n"
    "the running JVM.  A gzip-compressed dump (DUMP.gz) is read as it is.  A dump\n"
    "cut short prints the histogram of what it holds, marked PARTIAL, and exits 1.\n"
    "\n"
    "holders reads the dump in three passes and computes what holds the heap:\n"
    "which objects the GC roots reach, the dominator tree, and each object's\n"
    "retained size.  It prints the top holders (the objects a GC root or a\n"
    "static field keeps alive, by retained size) with their shallow size,\n"
    "retained objects, one shortest path from a GC root with field names, and\n"
    "what each retains by class; then holders by class, and each class's live\n"
    "and unreachable objects.  Its working set is in files in $TMPDIR (about\n"
    "72 bytes an object and 8 a reference; docs/hprof.md), removed as it exits.\n"
    "\n"
    "Shallow sizes follow the dumping JVM's object layout (docs/hprof.md): the\n"
    "defaults are HotSpot's on a 64-bit JVM with a heap under 32 GiB.\n"
    "\n"
    "options:\n"
    "  -n N                 rows to print (default 20; 0 for all)\n"
    "      --json           the histogram as JSON (raw bytes; null where unknown)\n"
    "      --csv            class,instances,shallow_bytes; for holders, one row a\n"
    "                       reachable object: id,class,shallow_bytes,\n"
    "                       retained_bytes,retained_objects,dominator\n"
    "      --html FILE      holders: one self-contained HTML page (no script) with\n"
    "                       the top holders, their paths, holders by class and the\n"
    "                       live and unreachable objects of each class\n"
    "      --oops full      the JVM ran without compressed references\n"
    "                       (-XX:-UseCompressedOops, or a heap of 32 GiB or more)\n"
    "      --class-pointers full   it ran with -XX:-UseCompressedClassPointers\n"
    "  -h, --help           this help\n"
    "\n"
    "examples:\n"
    "  jcmd $(pidof java) GC.heap_dump /var/tmp/node.hprof\n"
    "  tidemark hprof top /var/tmp/node.hprof -n 30\n"
    "  tidemark hprof top /var/tmp/node.hprof --csv -n 0 > classes.csv\n"
    "  TMPDIR=/var/tmp tidemark hprof holders /var/tmp/node.hprof -n 10\n"
    "  tidemark hprof holders /var/tmp/node.hprof --html node-holders.html\n";

enum fmt { FMT_TEXT, FMT_JSON, FMT_CSV, FMT_HTML };

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

static int parse(int argc, char **argv, struct tm_hprof_layout *l, enum fmt *fmt, int64_t *top,
                 bool *holders, const char **html)
{
	static const struct option long_opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"html", required_argument, NULL, 'H'},
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
		if (c == 'H') {
			*fmt = FMT_HTML;
			*html = optarg;
		}
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
	if (argc - optind != 2 || (strcmp(argv[optind], "top") && strcmp(argv[optind], "holders")))
		return usage_error("expected 'top DUMP' or 'holders DUMP', got",
		                   optind < argc ? argv[optind] : "");
	*holders = !strcmp(argv[optind], "holders");
	if (*fmt == FMT_HTML && !*holders)
		return usage_error("--html is for holders, not", argv[optind]);
	return 0;
}

/* A progress bar on stderr, when it is a terminal: WHAT at DONE of TOTAL
 * (0: unknown); WHAT NULL clears the line. */
static void progress(const char *what, uint64_t done, uint64_t total)
{
	if (!isatty(STDERR_FILENO))
		return;
	if (!what) {
		fputs("\r\033[K", stderr);
		return;
	}
	int pct = total ? (int)(100 * done / total) : 0;
	if (pct > 100)
		pct = 100;
	char bar[31];
	memset(bar, ' ', 30);
	memset(bar, '#', (size_t)(pct * 30 / 100));
	bar[30] = 0;
	fprintf(stderr, "\r\033[Kholders: %-20s [%s] %3d%%", what, bar, pct);
}

/* The HTML page of H into FILE, written whole or not at all. */
static int write_html(const struct tm_holders *h, const struct tm_hprof_layout *l, const char *file)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return tm_error("path too long: '%s'", file);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return tm_error("cannot write '%s': %s", tmp, strerror(errno));
	int rc = tm_holders_print_html(h, l, f);
	if (fclose(f) || rc || rename(tmp, file)) {
		unlink(tmp);
		return rc ? -1 : tm_error("cannot write '%s': %s", file, strerror(errno));
	}
	return 0;
}

static int run_holders(const char *path, const struct tm_hprof_layout *l, enum fmt fmt, size_t top,
                       const char *html)
{
	struct tm_holders h;
	if (tm_holders_compute(&h, path, l, top, progress))
		return 1;
	int rc = 0;
	if (fmt == FMT_HTML)
		rc = write_html(&h, l, html) ? 1 : 0;
	else if (fmt == FMT_JSON)
		rc = tm_holders_print_json(&h, l, stdout) ? 1 : 0;
	else if (fmt == FMT_CSV)
		tm_holders_print_csv(&h, stdout);
	else
		tm_holders_print_text(&h, l, top, stdout);
	tm_holders_release(&h);
	return rc;
}

int cmd_hprof(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_hprof_layout layout;
	struct tm_hprof_histogram h;
	enum fmt fmt = FMT_TEXT;
	int64_t top = 20;
	bool holders = false;
	const char *html = NULL;

	(void)ctx;
	tm_hprof_layout_default(&layout);
	int rc = parse(argc, argv, &layout, &fmt, &top, &holders, &html);
	if (rc)
		return rc == 1 ? 0 : rc;
	const char *path = argv[argc - 1];
	if (holders)
		return run_holders(path, &layout, fmt, (size_t)top, html);
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
