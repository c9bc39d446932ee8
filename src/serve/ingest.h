/*
 * The ingest side of the push protocol (docs/push-protocol.md).
 *
 * tm_batch_decode() is a pure function from request body to a validated
 * batch: every field is type-, range- and length-checked and anything
 * unexpected is refused with a reason, before the store is touched.
 * tm_ingest_apply() then files the batch under the pushing machine's name,
 * skipping what the server already has (items are numbered per run and
 * kind, so a batch sent twice is stored once) and committing it in one
 * transaction with the positions it acknowledges.
 */
#ifndef TM_SERVE_INGEST_H
#define TM_SERVE_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "base/util.h" /* TM_NAME_MAX */
#include "base/error.h"
#include "store/store.h"

#define TM_PUSH_PROTOCOL     1
#define TM_BATCH_MAX_SAMPLES 2000
#define TM_BATCH_MAX_ITEMS   5000 /* events, progress points or marks, each */
/* What one batch may cost parsed (about 250 bytes an object or array, 50 a
 * value: 40 MiB at most), checked on its text before parsing: a full batch
 * (2000 samples of every metric and 5000 of each item: ~20k containers,
 * ~330k values) and the pusher's batches (500 samples, with up to 64
 * scraped values each: ~33k, ~250k) are within; a body of empty objects or
 * bare numbers is refused at once. */
#define TM_BATCH_MAX_DEPTH      16
#define TM_BATCH_MAX_CONTAINERS 65536
#define TM_BATCH_MAX_VALUES     524288

struct tm_batch_event {
	int64_t i;
	struct tm_event ev;
};
struct tm_batch_progress {
	int64_t i, t_wall_usec, t_mono_usec;
	double value;
};
struct tm_batch_mark {
	int64_t i, t_wall_usec, t_mono_usec;
	const char *text;
};
/* A value record --scrape read for sample SEQ (sent inside that sample). */
struct tm_batch_scraped {
	int64_t seq, t_wall_usec;
	const char *name, *kind, *source;
	double value;
};
#define TM_BATCH_MAX_SCRAPED 512 /* per sample */

/* The bench of a bench's run (docs/push-protocol.md): filed under its
 * uuid, the run's bench_id is the server's own. */
struct tm_batch_bench {
	const char *uuid, *name, *spec_json, *order, *host;
	int64_t seed, started_wall_usec, ended_wall_usec; /* ended: 0 while it runs */
};
/* What the bench noted of the run once it ended (store/bench_tables.h). */
struct tm_batch_bench_run {
	int arm_index;
	bool warmup;
	int64_t wall_usec, rig_cpu_usec; /* 0 and -1: unknown */
	const char *param_name;          /* bench --param: the value it ran at; NULL: none */
	double param_value;
	const char *param_text;
};

struct tm_batch {
	void *json; /* owns every string below */
	struct tm_run_meta meta;
	bool has_bench, has_bench_run;
	struct tm_batch_bench bench;
	struct tm_batch_bench_run bench_run;
	bool has_end;
	struct tm_run_end end;
	size_t n_samples, n_events, n_progress, n_marks, n_scraped;
	struct tm_sample *samples;        /* seq strictly consecutive */
	struct tm_batch_scraped *scraped; /* in sample order */
	struct tm_batch_event *events;
	struct tm_batch_progress *progress;
	struct tm_batch_mark *marks;
};

/* 0, or -1 with a reason in ERR (no tm_error: this is the client's fault). */
int tm_batch_decode(const char *body, size_t len, struct tm_batch *out, struct tm_err *err);
void tm_batch_release(struct tm_batch *b);

/* What the server has of a run: the next position it expects of each kind. */
struct tm_push_ack {
	int64_t run_id;
	int64_t next_seq, next_event, next_progress, next_mark;
	bool ended;
	char machine[TM_NAME_MAX + 1]; /* the server's name of the token ("": not said) */
};

struct tm_ingest;
struct tm_ingest *tm_ingest_new(void);
void tm_ingest_free(struct tm_ingest *ing);

/* Result of tm_ingest_apply: 0 stored (ACK filled), or an HTTP status
 * (403 run belongs to another machine, 409 gap: resume from ACK, 500). */
int tm_ingest_apply(struct tm_ingest *ing, struct tm_store *st, const char *machine,
                    const char *peer, const struct tm_batch *b, struct tm_push_ack *ack,
                    struct tm_err *err);

/* The ack as JSON text (malloc'd). */
char *tm_push_ack_json(const struct tm_push_ack *ack, const char *uuid);

/* The server's answers, read without I/O (pushans.c; fuzz/fuzz_serve.c): */
/* The acknowledgement in LEN bytes of TEXT (the struct above: a run
 * id above 0, positions of 0 or more, whether the run ended) into *OUT.
 * 0, or -1 when it is not one (*OUT untouched). */
int tm_push_ack_parse(const char *text, size_t len, struct tm_push_ack *out);
/* The "error" of a refusal's JSON body, made safe to print
 * (tm_text_safe), into OUT (SIZE bytes); "" when there is none. */
void tm_push_refusal_why(const char *text, size_t len, char *out, size_t size);

#endif
