/* tidemark doctor: is this host ready, and what to change. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/term.h"
#include "cmd/cmds.h"
#include "doctor/doctor.h"
#include "base/banned.h"

static const char usage_text[] =
    "usage: tidemark doctor [--json] [--root DIR]\n"
    "\n"
    "Checks whether this host can record and bench, and says what to change:\n"
    "cgroup mode (v1, hybrid, v2) and the memory controller, pressure (PSI), swap\n"
    "and swap accounting, the files that depend on the kernel's version\n"
    "(memory.peak ...), whether this user may create cgroups, what --memory-high\n"
    "means here, the allocators bench arms preload (and the Debian package of\n"
    "each missing one), and whether the heap shim loads.  Raspberry Pi kernels\n"
    "need `cgroup_enable=memory` and `psi=1` on their command line\n"
    "(/boot/firmware/cmdline.txt; /boot/cmdline.txt before bookworm).\n"
    "\n"
    "  --json       the checks as JSON (name, status, summary, fix, value)\n"
    "  --root DIR   check the files of a host mounted at DIR (a Pi's SD card, a\n"
    "               fixture tree) instead of this one; the checks that need the\n"
    "               running system are skipped.  On an SD card (no /proc) the\n"
    "               memory controller and PSI are read from cmdline.txt: give\n"
    "               the boot partition, or the root file system with the boot\n"
    "               partition at /boot/firmware\n"
    "\n"
    "Exits 1 when a check finds a problem, 0 otherwise.  record, bench and advise\n"
    "--verify say once when this host has no memory controller or PSI off.\n"
    "\n"
    "examples:\n"
    "  tidemark doctor\n"
    "  tidemark doctor --json | jq '.checks[] | select(.status == \"problem\")'\n"
    "  sudo tidemark doctor --root /media/$USER/bootfs\n";

/* The status word of R, PROBLEM in red and warn in yellow on a terminal,
 * padded to 8 columns. */
static void print_status(const struct tm_doc_result *r)
{
	const char *st = r->status == TM_DOC_PROBLEM ? "PROBLEM" : tm_doc_status_name(r->status);

	if (r->status == TM_DOC_PROBLEM || r->status == TM_DOC_WARN)
		tm_term_put(stdout, r->status == TM_DOC_PROBLEM ? TM_TONE_BAD : TM_TONE_WARN, st);
	else
		fputs(st, stdout);
	printf("%*s", 8 - (int)strlen(st), "");
}

static void print_text(const char *root, const struct tm_doc_result *res, int n)
{
	int counts[TM_DOC_SKIPPED + 1] = {0}, width = tm_term_width(stdout);

	printf("tidemark doctor: %s\n\n", strcmp(root, "/") ? root : "this host");
	for (int i = 0; i < n; i++) {
		const struct tm_doc_result *r = &res[i];
		fputs("  ", stdout);
		print_status(r);
		printf(" %-18s ", tm_doc_check_title(r->check));
		tm_term_wrap(stdout, r->summary, 30, 30, width);
		if (r->fix[0]) {
			printf("%30sfix: ", "");
			tm_term_wrap(stdout, r->fix, 35, 35, width);
		}
		counts[r->status]++;
	}
	printf("\n%d problem%s, %d warning%s, %d note%s, %d ok, %d skipped\n",
	       counts[TM_DOC_PROBLEM], counts[TM_DOC_PROBLEM] == 1 ? "" : "s", counts[TM_DOC_WARN],
	       counts[TM_DOC_WARN] == 1 ? "" : "s", counts[TM_DOC_NOTE],
	       counts[TM_DOC_NOTE] == 1 ? "" : "s", counts[TM_DOC_OK], counts[TM_DOC_SKIPPED]);
}

int cmd_doctor(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	static const struct option long_opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"root", required_argument, NULL, 'r'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct tm_doc_host host = {.root = "/", .live = true, .uid = geteuid()};
	struct tm_doc_result res[TM_DOC_COUNT];
	int json = 0, c, problems;

	(void)ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", long_opts, NULL)) != -1) {
		if (c == 'j') {
			json = 1;
		} else if (c == 'r') {
			if (access(optarg, R_OK | X_OK)) {
				fprintf(stderr, "tidemark doctor: cannot read the root '%s'\n",
				        optarg);
				return 2;
			}
			host.root = optarg;
			host.live = !strcmp(optarg, "/");
		} else if (c == 'h') {
			tm_help_write(stdout, usage_text);
			return 0;
		} else {
			tm_help_write(stderr, usage_text);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tidemark doctor: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	problems = tm_doctor_run(&host, res);
	if (json) {
		char *text = tm_doctor_json(host.root, res, TM_DOC_COUNT);
		if (!text) {
			fprintf(stderr, "tidemark doctor: out of memory\n");
			return 1;
		}
		puts(text);
		free(text);
	} else {
		print_text(host.root, res, TM_DOC_COUNT);
	}
	return problems ? 1 : 0;
}

void tm_cmd_host_notice(void)
{
	const char *root = "/";
#ifdef TM_TEST_HOOKS
	/* a test build's hook (build/tests/tidemark-hooks, Makefile): the
	 * notice of another host's root, a fixture's; the installed tool
	 * reads no such variable */
	const char *env = getenv("TIDEMARK_HOST_ROOT");
	if (env && *env)
		root = env;
#endif
	tm_doctor_notice(root, stderr);
}
