/*
 * What a bench's runs run, its run target: a command launched in a fresh
 * cgroup (the default), or a systemd unit restarted with each arm's drop-in
 * (--unit, bench/unit.h).  The runner (runner.c) calls the target's steps
 * and knows no target by name: check the spec, describe the arms' head line
 * of the plan, open once before the first run, before each run (ahead of
 * the restore and --prepare), start it (the recorder's options set to record
 * it), store a run it could not record, after each recording, and close
 * once after the last run whatever happened.  A new target is one ops table
 * here and its entry in tm_bench_target_for().
 */
#ifndef TM_BENCH_TARGET_H
#define TM_BENCH_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/bench.h"
#include "bench/unit.h"

struct tm_record_opts;
struct tm_record_result;
struct tm_store;

/* A bench's target and its state (the unit's hold: name "" when none). */
struct tm_bench_target {
	const struct tm_bench_target_ops *ops;
	struct tm_bench_unit unit;
};

/* Run SEQ of arm ARM under LIMITS, of bench BENCH_ID in store ST. */
struct tm_bench_target_run {
	struct tm_store *st;
	int64_t bench_id, seq;
	const struct tm_bench_arm *arm;
	const struct tm_limits *limits;
};

/* Each returns 0 or -1 after tm_error, but start: 0 to record the run, 1
 * when the target ended before it could be recorded (then unrecorded
 * stores it), -1. */
struct tm_bench_target_ops {
	/* the spec against ARGV (the shared command, NULL for none); may
	 * normalize it */
	int (*check)(struct tm_bench_spec *sp, char *const *argv);
	/* the plan's line above the arms */
	void (*describe)(const struct tm_bench_spec *sp, FILE *f);
	int (*open)(struct tm_bench_target *t, const struct tm_bench_spec *sp);
	int (*before)(struct tm_bench_target *t, const struct tm_bench_target_run *run);
	/* O (set up for a launched command) is changed to record the target;
	 * CG (SIZE bytes) holds what O points at */
	int (*start)(struct tm_bench_target *t, struct tm_record_opts *o, char *cg, size_t size);
	int (*unrecorded)(struct tm_bench_target *t, const struct tm_bench_unrecorded *ur,
	                  struct tm_record_result *res);
	int (*after)(struct tm_bench_target *t, const struct tm_bench_target_run *run,
	             struct tm_record_result *res);
	int (*close)(struct tm_bench_target *t);
};

/* The target of SP (--unit: the unit's; otherwise the command's); static. */
const struct tm_bench_target_ops *tm_bench_target_for(const struct tm_bench_spec *sp);

#endif
