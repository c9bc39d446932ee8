/* Filing a decoded batch: exactly once per item, one transaction per batch. */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "serve/ingest.h"
#include "store/bench_params.h"
#include "store/bench_tables.h"
#include "store/server_tables.h"
#include "store/scraped.h"
#include "store/store.h"
#include "base/banned.h"

/* Per-run counts of events, progress points and marks already stored.  They
 * are counted from the store the first time a run is seen after start-up and
 * then kept up to date, so they always equal what is committed. */
struct cursor {
	int64_t run_id, next_event, next_progress, next_mark;
};

#define CURSOR_CAP 512

struct tm_ingest {
	struct cursor c[CURSOR_CAP];
	size_t n;
};

struct tm_ingest *tm_ingest_new(void)
{
	return calloc(1, sizeof(struct tm_ingest));
}

void tm_ingest_free(struct tm_ingest *ing)
{
	free(ing);
}

static void cursor_drop(struct tm_ingest *ing, int64_t run_id)
{
	for (size_t i = 0; i < ing->n; i++)
		if (ing->c[i].run_id == run_id) {
			ing->c[i] = ing->c[--ing->n];
			return;
		}
}

static struct cursor *cursor_get(struct tm_ingest *ing, struct tm_store *st, int64_t run_id)
{
	struct cursor c = {.run_id = run_id};
	struct tm_item_counts n;

	for (size_t i = 0; i < ing->n; i++)
		if (ing->c[i].run_id == run_id)
			return &ing->c[i];
	if (tm_store_count_items(st, run_id, &n) < 0)
		return NULL;
	c.next_event = n.events;
	c.next_progress = n.progress;
	c.next_mark = n.marks;
	if (ing->n == CURSOR_CAP)
		ing->n--; /* forget one; it is recounted when it comes back */
	ing->c[ing->n] = c;
	return &ing->c[ing->n++];
}

/* ERR->msg from FMT; returns STATUS (an HTTP status). */
static int fail(int status, struct tm_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(int status, struct tm_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return status;
	err->code = 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return status;
}

/* Finds or creates the batch's bench (by its uuid, the machine's own) into
 * *BENCH_ID (0: the run is no bench's), ending it when the batch says it
 * ended; 0, or an HTTP status. */
static int find_bench(struct tm_store *st, const char *machine, const struct tm_batch *b,
                      int64_t *bench_id, struct tm_err *err)
{
	const struct tm_batch_bench *bn = &b->bench;
	struct tm_bench_info bi;
	int rc;

	*bench_id = 0;
	if (!b->has_bench)
		return 0;
	rc = tm_bench_store_by_uuid(st, bn->uuid, bench_id);
	if (rc < 0)
		return fail(500, err, "store error looking up the bench");
	if (rc > 0) {
		struct tm_bench_row row = {.name = bn->name,
		                           .spec_json = bn->spec_json,
		                           .order = bn->order,
		                           .host = bn->host,
		                           .seed = bn->seed,
		                           .started_wall_usec = bn->started_wall_usec,
		                           .uuid = bn->uuid,
		                           .machine = machine};
		if (tm_bench_store_begin(st, &row, bench_id) < 0)
			return fail(500, err, "store error creating the bench");
	}
	if (tm_bench_store_get(st, *bench_id, &bi) != 0)
		return fail(500, err, "store error reading the bench");
	bool mine = bi.machine && !strcmp(bi.machine, machine), ended = bi.ended_wall_usec != 0;
	tm_bench_info_release(&bi);
	if (!mine)
		return fail(403, err, "bench %s belongs to another machine", bn->uuid);
	if (bn->ended_wall_usec && !ended &&
	    tm_bench_store_end(st, *bench_id, bn->ended_wall_usec) < 0)
		return fail(500, err, "store error ending the bench");
	return 0;
}

/* What the bench noted of the run, under the server's ids; 0 or 500. */
static int file_bench_note(struct tm_store *st, const struct tm_batch *b, int64_t bench_id,
                           int64_t run_id, struct tm_err *err)
{
	const struct tm_batch_bench_run *n = &b->bench_run;
	struct tm_bench_run_note note = {.bench_id = bench_id,
	                                 .run_id = run_id,
	                                 .seq = b->meta.bench_seq,
	                                 .arm_index = n->arm_index,
	                                 .warmup = n->warmup,
	                                 .wall_usec = n->wall_usec,
	                                 .rig_cpu_usec = n->rig_cpu_usec};

	if (!bench_id || !b->has_bench_run)
		return 0;
	if (tm_bench_store_run(st, &note) < 0 ||
	    (n->param_name && (tm_bench_params_init(st) < 0 ||
	                       tm_bench_params_store(st, bench_id, run_id, n->param_name,
	                                             n->param_value, n->param_text) < 0)))
		return fail(500, err, "store error filing the bench's note of the run");
	return 0;
}

/* Finds or creates the run (in its bench); 0, or an HTTP status. */
static int find_run(struct tm_store *st, const char *machine, const struct tm_batch *b,
                    int64_t *run_id, bool *ended, struct tm_err *err)
{
	struct tm_run_info ri;
	int64_t bench_id;
	int rc = find_bench(st, machine, b, &bench_id, err);

	if (rc)
		return rc;
	rc = tm_store_run_by_uuid(st, b->meta.uuid, run_id);
	if (rc < 0)
		return fail(500, err, "store error looking up the run");
	if (rc > 0) {
		struct tm_run_meta m = b->meta;
		m.machine = machine;
		m.bench_id = bench_id;
		*ended = false;
		if (tm_store_run_begin(st, &m, run_id) < 0)
			return fail(500, err, "store error creating the run");
		return file_bench_note(st, b, bench_id, *run_id, err);
	}
	if (tm_store_run_get(st, *run_id, &ri) != 0)
		return fail(500, err, "store error reading the run");
	bool mine = ri.machine && !strcmp(ri.machine, machine);
	bool same_bench = ri.bench_id == bench_id;
	*ended = ri.ended_wall_usec != 0;
	tm_run_info_release(&ri);
	if (!mine)
		return fail(403, err, "run %s belongs to another machine", b->meta.uuid);
	/* a run first pushed without its bench stays a loose run */
	return same_bench ? file_bench_note(st, b, bench_id, *run_id, err) : 0;
}

/* 409 when the batch starts past what the server has. */
static int check_gaps(const struct tm_batch *b, const struct tm_push_ack *a, struct tm_err *err)
{
	if (b->n_samples && b->samples[0].seq > a->next_seq)
		return fail(409, err, "samples start at %lld, server expects %lld",
		            (long long)b->samples[0].seq, (long long)a->next_seq);
	if (b->n_events && b->events[0].i > a->next_event)
		return fail(409, err, "events start past the server's position");
	if (b->n_progress && b->progress[0].i > a->next_progress)
		return fail(409, err, "progress starts past the server's position");
	if (b->n_marks && b->marks[0].i > a->next_mark)
		return fail(409, err, "marks start past the server's position");
	return 0;
}

/* Adds the items the server does not have yet; the new positions go to A. */
static int add_new(struct tm_store *st, const struct tm_batch *b, struct tm_push_ack *a)
{
	int64_t first_new = a->next_seq;

	for (size_t i = 0; i < b->n_samples; i++)
		if (b->samples[i].seq == a->next_seq) {
			if (tm_store_add_sample(st, a->run_id, &b->samples[i]) < 0)
				return -1;
			a->next_seq++;
		}
	/* the scraped values of the samples filed now (not of duplicates) */
	for (size_t i = 0; i < b->n_scraped; i++) {
		const struct tm_batch_scraped *v = &b->scraped[i];
		int64_t id;
		if (v->seq < first_new || v->seq >= a->next_seq)
			continue;
		if (tm_store_scraped_series(st, a->run_id, v->name, v->kind,
		                            v->source ? v->source : "", &id) < 0 ||
		    tm_store_add_scraped(st, a->run_id, id, v->seq, v->t_wall_usec, v->value) < 0)
			return -1;
	}
	for (size_t i = 0; i < b->n_events; i++)
		if (b->events[i].i == a->next_event) {
			if (tm_store_add_event(st, a->run_id, &b->events[i].ev) < 0)
				return -1;
			a->next_event++;
		}
	for (size_t i = 0; i < b->n_progress; i++)
		if (b->progress[i].i == a->next_progress) {
			const struct tm_batch_progress *p = &b->progress[i];
			if (tm_store_add_progress(st, a->run_id, p->t_wall_usec, p->t_mono_usec,
			                          p->value) < 0)
				return -1;
			a->next_progress++;
		}
	for (size_t i = 0; i < b->n_marks; i++)
		if (b->marks[i].i == a->next_mark) {
			const struct tm_batch_mark *m = &b->marks[i];
			if (tm_store_add_mark(st, a->run_id, m->t_wall_usec, m->t_mono_usec,
			                      m->text) < 0)
				return -1;
			a->next_mark++;
		}
	return 0;
}

int tm_ingest_apply(struct tm_ingest *ing, struct tm_store *st, const char *machine,
                    const char *peer, const struct tm_batch *b, struct tm_push_ack *ack,
                    struct tm_err *err)
{
	struct cursor *c;
	int64_t last, before;
	int rc;

	memset(ack, 0, sizeof(*ack));
	rc = find_run(st, machine, b, &ack->run_id, &ack->ended, err);
	if (rc)
		return rc;
	c = cursor_get(ing, st, ack->run_id);
	if (!c || tm_store_last_seq(st, ack->run_id, &last) < 0)
		return fail(500, err, "store error reading the run's positions");
	ack->next_seq = last + 1;
	ack->next_event = c->next_event;
	ack->next_progress = c->next_progress;
	ack->next_mark = c->next_mark;
	rc = check_gaps(b, ack, err);
	if (rc) {
		tm_store_commit(st); /* a run just created; nothing else was added */
		return rc;
	}
	before = ack->next_seq;
	if (add_new(st, b, ack) < 0)
		goto store_error;
	if (b->has_end && !ack->ended) {
		if (tm_store_run_end(st, ack->run_id, &b->end) < 0)
			goto store_error;
		ack->ended = true;
	}
	if (tm_store_machine_pushed(st, machine, peer, ack->next_seq - before, tm_now_wall_usec()) <
	        0 ||
	    tm_store_commit(st) < 0)
		goto store_error;
	c->next_event = ack->next_event;
	c->next_progress = ack->next_progress;
	c->next_mark = ack->next_mark;
	return 0;
store_error:
	/* what was added is consistent (positions are contiguous), so it is kept
	 * rather than left in an open transaction; positions are recounted */
	tm_store_commit(st);
	cursor_drop(ing, ack->run_id);
	return fail(500, err, "store error while filing the batch");
}

char *tm_push_ack_json(const struct tm_push_ack *a, const char *uuid)
{
	json_t *o =
	    json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:b}", "run_uuid", uuid, "run_id",
	              (json_int_t)a->run_id, "next_seq", (json_int_t)a->next_seq, "next_event",
	              (json_int_t)a->next_event, "next_progress", (json_int_t)a->next_progress,
	              "next_mark", (json_int_t)a->next_mark, "ended", a->ended);
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	return s;
}
