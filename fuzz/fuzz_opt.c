/* libFuzzer target: the general option parser (src/base/opt.c) over the
 * recorder's and the bench's tables, the ones `record`, `bench` and an
 * experiment file read.  The first byte picks how (modulo 3): 0 `record`'s
 * command line, 1 `bench`'s, 2 experiment-file keys (KEY=VALUE lines);
 * the rest is split at newlines into arguments (at most 64).  It must never
 * crash, read out of bounds or leak, whatever the arguments; *NEXT is an
 * argument's index. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/opt.h"
#include "bench/bench.h"
#include "record/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 64

/* Splits BUF (NUL-terminated) at newlines into ARGV[1..]; returns argc. */
static int split(char *buf, char **argv)
{
	int argc = 1;

	argv[0] = "record";
	for (char *p = buf; argc < MAX_ARGS && p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		argv[argc++] = p;
		p = nl ? nl + 1 : NULL;
	}
	argv[argc] = NULL;
	return argc;
}

static void command_line(struct tm_bench_spec *sp, unsigned scope, char *buf)
{
	struct tm_optset sets[TM_BENCH_OPTSETS];
	char *argv[MAX_ARGS + 1];
	int argc = split(buf, argv), next = -1;

	tm_bench_optsets(sp, sets);
	if (tm_opts_parse(sets, TM_BENCH_OPTSETS, scope | TM_OPT_PERMUTE, "fuzz", argc, argv,
	                  &next) == 0 &&
	    (next < 1 || next > argc))
		abort();
	if (scope == TM_OPT_RECORD)
		tm_record_opts_check(&sp->rec, false);
}

static void file_keys(struct tm_bench_spec *sp, char *buf)
{
	struct tm_optset sets[TM_BENCH_OPTSETS];
	char *argv[MAX_ARGS + 1];
	struct tm_err why = {0};
	int argc = split(buf, argv);

	tm_bench_optsets(sp, sets);
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq)
			continue;
		*eq = '\0';
		tm_opts_set_key(sets, TM_BENCH_OPTSETS, argv[i], eq + 1, &why);
		if (!memchr(why.msg, '\0', sizeof(why.msg)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tm_bench_spec *sp;
	char *buf;

	if (size < 1 || !(buf = malloc(size)))
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	if (!(sp = calloc(1, sizeof(*sp)))) {
		free(buf);
		return 0;
	}
	tm_bench_spec_init(sp);
	switch (data[0] % 3) {
	case 0:
		command_line(sp, TM_OPT_RECORD, buf);
		break;
	case 1:
		command_line(sp, TM_OPT_BENCH, buf);
		break;
	default:
		file_keys(sp, buf);
		break;
	}
	tm_bench_spec_release(sp);
	free(sp);
	free(buf);
	return 0;
}
