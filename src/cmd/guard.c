/*
 * tidemark guard: watch a recorded run and, when a rule fires, take a
 * snapshot and, if asked, act (docs/guard.md).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/opt.h"
#include "base/term.h"
#include "base/util.h"
#include "cmd/cmds.h"
#include "guard/guard.h"
#include "snap/kinds.h"
#include "sysd/unit.h"
#include "base/banned.h"

static const char usage_head[] =
    "usage: tidemark guard [-o DB] --when RULE... [--run ID] [--snapshot KIND]\n"
    "                      [--signal SIG] [--exec CMD] [--restart --unit NAME]\n"
    "       tidemark guard [-o DB] --when RULE... --dry-run [--run ID]\n"
    "\n"
    "Follows a recorded run (the newest live run of the store, or --run ID) as\n"
    "`tidemark record` commits its samples, and when a rule fires prints it,\n"
    "takes a snapshot (by default the heap profile of each process under the\n"
    "shim) stored with the run, and does the actions asked for: none unless\n"
    "asked, each at most once per --act-every.  With --dry-run, over a stored\n"
    "run, it prints what would have fired and when, and does nothing\n"
    "(docs/guard.md).\n"
    "\n"
    "rules (spaces optional):\n";

static const char usage_tail[] =
    "\n"
    "examples:\n"
    "  tidemark guard --when 'anon>90%max' -o node.db\n"
    "  tidemark guard --when 'psi_full>10%for30s' --when 'high_events>5/s' --signal USR1\n"
    "  tidemark guard --when 'jvm_old>85%committed x3' --exec 'logger jvm old gen full'\n"
    "  tidemark guard --when 'heap_live grows for 5m' --dry-run --run 12\n"
    "  tidemark guard --rules /etc/tidemark/guard.rules --restart --unit node.service\n";

struct guard_cli {
	struct tm_guard_opts g;
	int64_t run_id, pid;
	bool no_snapshot;
	char *unit, *exec_cmd, *snap_dir, *go_url;
	char unit_name[TM_SDUNIT_NAME_MAX];
};

#define GOFF(f) offsetof(struct guard_cli, f)

static int add_rule(struct guard_cli *c, const char *text, struct tm_err *err)
{
	if (c->g.nrules >= TM_GUARD_MAX_RULES)
		return tm_err_set(err, 0, "at most %d rules", TM_GUARD_MAX_RULES);
	if (tm_guard_rule_parse(text, &c->g.rules[c->g.nrules++], err) < 0)
		return c->g.nrules--, -1;
	return 0;
}

static int parse_when(void *field, const char *value, struct tm_err *err)
{
	return add_rule(field, value, err);
}

/* --rules FILE: one rule a line; '#' starts a comment. */
static int parse_rules(void *field, const char *value, struct tm_err *err)
{
	size_t len;
	char *text = tm_read_file(value, &len), *save = NULL;
	struct tm_err inner;
	if (!text)
		return tm_err_set(err, 0, "'%s': cannot read: %s", value, strerror(errno));
	int line = 0, rc = 0;
	for (char *p = text; !rc && p && *p; line++) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		char *hash = strchr(p, '#');
		if (hash)
			*hash = 0;
		if (p[strspn(p, " \t\r")] && add_rule(field, p, &inner) < 0)
			rc = tm_err_set(err, 0, "%s:%d: %s", value, line + 1, inner.msg);
		p = nl ? nl + 1 : NULL;
	}
	(void)save;
	free(text);
	return rc;
}

static int parse_snapshot(void *field, const char *value, struct tm_err *err)
{
	struct guard_cli *c = field;
	if (!strcmp(value, "none")) {
		c->no_snapshot = true;
		return 0;
	}
	int k = tm_snap_kind_by_name(value);
	if (k < 0) {
		tm_err_set(err, 0, "'%s': expected none", value);
		size_t n = strlen(err->msg), cap = sizeof(err->msg);
		for (int i = 0; i < TM_SNAP_KIND_COUNT && n < cap; i++)
			n += (size_t)snprintf(err->msg + n, cap - n, " or %s",
			                      tm_snap_kind_desc((enum tm_snap_kind)i)->name);
		return -1;
	}
	c->g.snap_kinds |= 1u << k;
	return 0;
}

static int parse_signal(void *field, const char *value, struct tm_err *err)
{
	const char *name = strncmp(value, "SIG", 3) ? value : value + 3;
	int64_t n;
	for (int s = 1; s < NSIG; s++) {
		const char *abbrev = sigabbrev_np(s);
		if (abbrev && !strcmp(abbrev, name)) {
			*(int *)field = s;
			return 0;
		}
	}
	if (tm_parse_int64(value, &n) == 0 && n >= 1 && n < NSIG) {
		*(int *)field = (int)n;
		return 0;
	}
	return tm_err_set(err, 0, "'%s': expected a signal such as USR1, SIGTERM or 10", value);
}

static const struct tm_opt guard_options[] = {
    {.flag = "when",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .off = 0,
     .parse = parse_when,
     .metavar = "RULE",
     .help = "a rule (above); repeatable: any of them fires"},
    {.flag = "rules",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .off = 0,
     .parse = parse_rules,
     .metavar = "FILE",
     .help = "rules from FILE, one a line ('#' starts a comment)"},
    {.flag = "run",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_COUNT,
     .off = GOFF(run_id),
     .min = 1,
     .max = TM_OPT_NO_MAX,
     .metavar = "ID",
     .help = "the run to follow (default the newest live run; --dry-run: the newest)"},
    {.flag = "dry-run",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = GOFF(g.dry_run),
     .help = "print what would fire and when over the stored run; take and do nothing"},
    {.flag = "snapshot",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .off = 0,
     .parse = parse_snapshot,
     .metavar = "KIND",
     .help = "what to take at a firing: heap_profile (the default), jvm_histogram,",
     .more = "jvm_heap_dump, go_heap (with --go-url) or none; repeatable"},
    {.flag = "snapshot-dir",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = GOFF(snap_dir),
     .min = 1,
     .metavar = "DIR",
     .help = "where snapshots go (default DB.snapshots/run-ID)"},
    {.flag = "snapshot-every",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_DURATION,
     .off = GOFF(g.snap_every_usec),
     .min = 0,
     .max = TM_OPT_NO_MAX,
     .metavar = "DUR",
     .help = "at most one snapshot of a kind per rule this often"},
    {.flag = "snapshot-timeout",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_DURATION,
     .off = GOFF(g.snap_timeout_usec),
     .min = 100000,
     .max = 3600 * 1000000LL,
     .metavar = "DUR",
     .help = "how long one snapshot may take"},
    {.flag = "go-url",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = GOFF(go_url),
     .min = 1,
     .metavar = "URL",
     .help = "a Go program's /debug/pprof/heap, for its snapshot"},
    {.flag = "signal",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_CUSTOM,
     .off = GOFF(g.signal),
     .parse = parse_signal,
     .metavar = "SIG",
     .help = "action: send SIG to the run's main process (off by default)"},
    {.flag = "exec",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = GOFF(exec_cmd),
     .min = 1,
     .metavar = "CMD",
     .help = "action: run sh -c CMD with TIDEMARK_GUARD_RULE, _RUN, _PID set"},
    {.flag = "restart",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_BOOL,
     .off = GOFF(g.restart),
     .help = "action: systemctl restart the --unit (off by default)"},
    {.flag = "unit",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_STRING,
     .off = GOFF(unit),
     .min = 1,
     .metavar = "NAME",
     .help = "the run's systemd unit: its main process, what --restart restarts"},
    {.flag = "pid",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_COUNT,
     .off = GOFF(pid),
     .min = 1,
     .max = 4194304,
     .metavar = "PID",
     .help = "the main process (default the run's, from its start)"},
    {.flag = "act-every",
     .scopes = TM_OPT_OTHER,
     .type = TM_OPT_DURATION,
     .off = GOFF(g.act_every_usec),
     .min = 0,
     .max = TM_OPT_NO_MAX,
     .metavar = "DUR",
     .help = "at most one action of a kind this often"},
    {.type = TM_OPT_END},
};

static volatile sig_atomic_t stop_now;

static void on_stop(int sig)
{
	(void)sig;
	stop_now = 1;
}

/* The rule kinds, from the registry, wrapped to the terminal. */
static void print_rules_help(void)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	if (!m)
		return;
	for (int k = 0; k < TM_GUARD_KIND_COUNT; k++) {
		const struct tm_guard_kind_desc *d = tm_guard_kind_desc((enum tm_guard_kind)k);
		fprintf(m, "  %s\n      e.g. %s\n", d->syntax, d->example);
	}
	fclose(m);
	tm_help_write(stdout, buf);
	free(buf);
}

/* Checks what the options say together.  0, or 2 after tm_error. */
static int check(struct guard_cli *c)
{
	if (!c->g.nrules)
		return tm_error("guard needs a rule: --when RULE or --rules FILE (see --help)"), 2;
	if (c->g.restart && !c->unit)
		return tm_error("--restart needs --unit NAME (the unit to restart)"), 2;
	if (c->unit) {
		struct tm_err why = {0};
		if (tm_sdunit_name_normalize(c->unit, c->unit_name, &why) < 0)
			return tm_error("--unit %s", why.msg), 2;
		c->g.unit = c->unit_name;
	}
	if (c->g.dry_run && (c->g.signal || c->exec_cmd || c->g.restart))
		tm_warn("--dry-run does no action: --signal, --exec and --restart are ignored");
	if (!c->g.snap_kinds && !c->no_snapshot)
		c->g.snap_kinds = 1u << TM_SNAP_HEAP_PROFILE;
	if (c->no_snapshot)
		c->g.snap_kinds = 0;
	c->g.run_id = c->run_id;
	c->g.pid = (pid_t)c->pid;
	c->g.exec_cmd = c->exec_cmd;
	c->g.snap_dir = c->snap_dir;
	c->g.go_url = c->go_url;
	c->g.stop = &stop_now;
	return 0;
}

int cmd_guard(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct guard_cli *c = calloc(1, sizeof(*c));
	if (!c)
		return tm_error("out of memory"), 1;
	tm_guard_opts_init(&c->g);
	const struct tm_optset sets[] = {{tm_cmd_db_options, ctx}, {guard_options, c}};
	int next,
	    rc = tm_opts_parse(sets, 2, TM_OPT_OTHER | TM_OPT_PERMUTE, "guard", argc, argv, &next);
	if (rc == 0 && next < argc)
		rc =
		    (tm_error("unexpected argument '%s' (see 'tidemark guard --help')", argv[next]),
		     -1);
	if (rc > 0) {
		tm_help_write(stdout, usage_head);
		print_rules_help();
		printf("\noptions:\n");
		tm_opts_help(stdout, sets, 2, TM_OPT_OTHER);
		tm_help_write(stdout, usage_tail);
	}
	if (rc == 0 && (rc = check(c)) == 0) {
		struct sigaction sa = {.sa_handler = on_stop};
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		struct tm_store *st = tm_cmd_store(ctx, c->g.dry_run ? TM_CMD_READ : TM_CMD_WRITE);
		int64_t fires = st ? tm_guard_run(st, &c->g, stdout) : -1;
		if (fires >= 0 && c->g.dry_run)
			printf("%lld firing%s\n", (long long)fires, fires == 1 ? "" : "s");
		rc = fires < 0 ? 1 : 0;
	} else if (rc != 0) {
		rc = rc < 0 ? 2 : rc == 1 ? 0 : rc;
	}
	tm_opts_release(sets + 1, 1);
	free(c);
	return rc;
}
