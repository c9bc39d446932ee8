/* A bench's run targets: a command, a systemd unit (bench/target.h). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "bench/param.h"
#include "bench/target.h"
#include "record/recorder.h"
#include "base/banned.h"

/* ---- a command, in a fresh cgroup ---- */

static int cmd_check(struct tm_bench_spec *sp, char *const *argv)
{
	for (int i = 0; i < sp->n_arms; i++)
		if (!sp->arms[i].exec_start && !sp->exec_start && !argv)
			return tm_error("no command for arm '%s': give -- CMD ARGS or ExecStart=",
			                sp->arms[i].name);
	return tm_bench_param_check(sp, argv);
}

static void cmd_describe(const struct tm_bench_spec *sp, FILE *f)
{
	(void)sp;
	fprintf(f, "arms (the first is the control), each run in a fresh cgroup:\n");
}

static int cmd_start(struct tm_bench_target *t, struct tm_record_opts *o, char *cg, size_t size)
{
	(void)t, (void)o, (void)cg, (void)size;
	return 0; /* the recorder launches it */
}

static const struct tm_bench_target_ops command_target = {
    .check = cmd_check,
    .describe = cmd_describe,
    .start = cmd_start,
};

/* ---- a systemd unit, through drop-ins ---- */

/* the unit runs its own ExecStart, arms differ by drop-in */
static int unit_check(struct tm_bench_spec *sp, char *const *argv)
{
	char name[256];

	if (argv || sp->exec_start)
		return tm_error(
		    "--unit %s runs the unit's own command: give no -- CMD or ExecStart=",
		    sp->unit);
	for (int i = 0; i < sp->n_arms; i++)
		if (sp->arms[i].exec_start)
			return tm_error("--unit: arm '%s' has an ExecStart= of its own",
			                sp->arms[i].name);
	if (sp->param.n || sp->sweep.limit != TM_SWEEP_NONE)
		return tm_error(
		    "--unit with --param or --sweep: not yet (a bench on a unit runs its "
		    "arms as they are)");
	if (tm_bench_unit_name(sp->unit, name, sizeof(name)))
		return -1;
	free(sp->unit);
	if (!(sp->unit = strdup(name)))
		return tm_error("out of memory");
	return tm_bench_unit_guard(tm_bench_unit_dirs(), sp->unit);
}

static void unit_describe(const struct tm_bench_spec *sp, FILE *f)
{
	fprintf(f,
	        "arms (the first is the control), each a drop-in of %s (%s/%s.d/%s), the unit "
	        "restarted for each run and its cgroup recorded:\n",
	        sp->unit, TM_BENCH_UNIT_ROOT, sp->unit, TM_BENCH_UNIT_DROPIN);
}

static int unit_open(struct tm_bench_target *t, const struct tm_bench_spec *sp)
{
	return tm_bench_unit_open(&t->unit, sp->unit, TM_BENCH_UNIT_ROOT);
}

/* before the restore hook: the arm's drop-in in place, the unit stopped */
static int unit_before(struct tm_bench_target *t, const struct tm_bench_target_run *run)
{
	char *text =
	    tm_bench_unit_dropin(run->arm, run->limits, t->unit.name, run->bench_id, run->seq);
	int rc = text ? tm_bench_unit_arm(&t->unit, text) : -1;

	free(text);
	return rc;
}

/* the unit started, O recording its cgroup (into CG) */
static int unit_start(struct tm_bench_target *t, struct tm_record_opts *o, char *cg, size_t size)
{
	int rc = tm_bench_unit_start(&t->unit, NULL, cg, size);

	if (rc)
		return rc;
	o->argv = NULL;
	o->envp = NULL;
	o->new_cgroup = false;
	o->cgroup_path = cg;
	o->cgroup_name = NULL;
	/* progress from this start's journal entries, as record --unit reads them */
	o->journal_unit = t->unit.name;
	o->unit_invocation = t->unit.invocation;
	o->journal_from_start = true;
	o->unit_seq = o->bench_seq + 1;
	o->unit_main_pid = t->unit.main_pid;
	return 0;
}

static int unit_unrecorded(struct tm_bench_target *t, const struct tm_bench_unrecorded *ur,
                           struct tm_record_result *res)
{
	return tm_bench_unit_store_unrecorded(&t->unit, ur, res);
}

static int unit_after(struct tm_bench_target *t, const struct tm_bench_target_run *run,
                      struct tm_record_result *res)
{
	return tm_bench_unit_finish_run(&t->unit, run->st, run->arm, run->limits, res);
}

static int unit_close(struct tm_bench_target *t)
{
	return tm_bench_unit_close(&t->unit);
}

static const struct tm_bench_target_ops unit_target = {
    .check = unit_check,
    .describe = unit_describe,
    .open = unit_open,
    .before = unit_before,
    .start = unit_start,
    .unrecorded = unit_unrecorded,
    .after = unit_after,
    .close = unit_close,
};

const struct tm_bench_target_ops *tm_bench_target_for(const struct tm_bench_spec *sp)
{
	return sp->unit ? &unit_target : &command_target;
}
