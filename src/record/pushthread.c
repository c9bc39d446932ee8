/* bench --push: the bench's runs to a server from a thread of their own;
 * see record/pushthread.h. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "record/netlib.h"
#include "record/pushthread.h"
#include "store/store.h"
#include "base/banned.h"

#define MAX_BENCHES 256 /* benches whose end is sent (a sweep makes one per probe) */
#define STEP_USEC   250000

struct bench_end {
	int64_t bench_id, run_id; /* the bench, and its last run sent */
};

struct tm_push_thread {
	struct tm_net net;
	enum tm_push_kind kind;
	char *url, *token_file, *store_path;
	pthread_t thread;
	bool started;
	/* shared with the thread, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int64_t *queue; /* runs to send, oldest first */
	size_t nq, capq;
	bool over;
	int64_t deadline_usec; /* once over: when to stop sending (monotonic) */
	bool down;             /* no request reached the server yet, or the last did not */
	bool detached;         /* the bench did not wait: the thread frees BP */
	/* the thread's own until it is joined */
	struct tm_store *st;
	struct bench_end ends[MAX_BENCHES];
	int nends, sent;
	bool gave_up, unreachable;
};

void tm_push_thread_add(struct tm_push_thread *bp, int64_t run_id)
{
	if (!bp)
		return;
	pthread_mutex_lock(&bp->mu);
	if (bp->nq == bp->capq) {
		size_t cap = bp->capq ? bp->capq * 2 : 16;
		int64_t *q = realloc(bp->queue, cap * sizeof(*q));
		if (q) {
			bp->queue = q;
			bp->capq = cap;
		}
	}
	if (bp->nq < bp->capq) /* else out of memory: the local store has the run */
		bp->queue[bp->nq++] = run_id;
	pthread_cond_signal(&bp->cv);
	pthread_mutex_unlock(&bp->mu);
}

void tm_push_thread_reached(struct tm_push_thread *bp, bool reached)
{
	if (!bp)
		return;
	pthread_mutex_lock(&bp->mu);
	bp->down = !reached;
	pthread_mutex_unlock(&bp->mu);
}

/* The run to send next into *RUN (0: none yet), whether the bench is over
 * and until when to send; waits while there is nothing to do.  False once
 * the bench is over and every run was sent. */
static bool next_run(struct tm_push_thread *bp, int64_t *run, bool *over, int64_t *deadline)
{
	bool more;

	pthread_mutex_lock(&bp->mu);
	while (!bp->nq && !bp->over)
		pthread_cond_wait(&bp->cv, &bp->mu);
	*run = bp->nq ? bp->queue[0] : 0;
	*over = bp->over;
	*deadline = bp->deadline_usec;
	more = bp->nq > 0;
	pthread_mutex_unlock(&bp->mu);
	return more;
}

/* RUN reached the server: off the queue, and its bench's end is to send. */
static void sent(struct tm_push_thread *bp, int64_t run)
{
	struct tm_run_info ri;
	int i;

	pthread_mutex_lock(&bp->mu);
	memmove(bp->queue, bp->queue + 1, (bp->nq - 1) * sizeof(*bp->queue));
	bp->nq--;
	pthread_mutex_unlock(&bp->mu);
	bp->sent++;
	if (tm_store_run_get(bp->st, run, &ri) != 0)
		return;
	for (i = 0; i < bp->nends && bp->ends[i].bench_id != ri.bench_id; i++)
		;
	if (i < MAX_BENCHES && ri.bench_id > 0) {
		bp->ends[i] = (struct bench_end){ri.bench_id, run};
		bp->nends += i == bp->nends;
	}
	tm_run_info_release(&ri);
}

/* Each bench's end: a hello of its last run carries the bench as it is
 * now, ended. */
static void send_ends(struct tm_push_thread *bp)
{
	for (int i = 0; i < bp->nends; i++) {
		struct tm_pusher *p;
		if (bp->net.pusher_new(bp->url, bp->token_file, bp->st, bp->ends[i].run_id, &p))
			return;
		bp->net.pusher_free(p);
	}
}

static void release(struct tm_push_thread *bp)
{
	if (bp->net.handle)
		tm_net_unload(&bp->net);
	pthread_mutex_destroy(&bp->mu);
	pthread_cond_destroy(&bp->cv);
	free(bp->queue);
	free(bp->url);
	free(bp->token_file);
	free(bp->store_path);
	free(bp);
}

/* Whether P's last request reached the server, for the bench's end. */
static void note_reach(struct tm_push_thread *bp, const struct tm_pusher *p)
{
	bool down = !bp->net.pusher_reached(p);
	pthread_mutex_lock(&bp->mu);
	bp->down = down;
	pthread_mutex_unlock(&bp->mu);
}

/* Whether RUN has its end in the store: a run still being recorded is sent
 * as it grows, and is not done when everything stored so far arrived. */
static bool run_over(struct tm_push_thread *bp, int64_t run)
{
	struct tm_run_info ri;
	bool ended;

	if (tm_store_run_get(bp->st, run, &ri) != 0)
		return true; /* unreadable: waiting would not help */
	ended = ri.ended_wall_usec != 0;
	tm_run_info_release(&ri);
	return ended;
}

/* All that is stored has arrived, and more will come: waits a step, or
 * until the caller finishes. */
static void idle(struct tm_push_thread *bp)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += STEP_USEC * 1000;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	pthread_mutex_lock(&bp->mu);
	if (!bp->over)
		pthread_cond_timedwait(&bp->cv, &bp->mu, &ts);
	pthread_mutex_unlock(&bp->mu);
}

static void *push_thread(void *arg)
{
	struct tm_push_thread *bp = arg;
	struct tm_pusher *p = NULL;
	int64_t run, deadline;
	bool over;

	if (tm_store_open_readonly(bp->store_path, &bp->st)) {
		bp->gave_up = true;
		return NULL;
	}
	while (next_run(bp, &run, &over, &deadline)) {
		if (!p && bp->net.pusher_new(bp->url, bp->token_file, bp->st, run, &p)) {
			p = NULL;
			bp->gave_up = true; /* refused (the reason is said): no use trying more */
			break;
		}
		note_reach(bp, p);
		if (over && (!bp->net.pusher_reached(p) || tm_now_mono_usec() >= deadline)) {
			bp->unreachable = !bp->net.pusher_reached(p);
			bp->gave_up = true;
			break;
		}
		/* read before sending, not after: a run whose end is committed
		 * between the pusher's last look and ours would count as sent
		 * without its end (the server's run never ended) */
		bool ended = over || run_over(bp, run);
		int rc = bp->net.pusher_finish(p, STEP_USEC);
		note_reach(bp, p);
		if (rc == 0 && !ended) {
			idle(bp);
		} else if (rc == 0) {
			bp->net.pusher_free(p);
			p = NULL;
			sent(bp, run);
		}
	}
	if (p)
		bp->net.pusher_free(p);
	if (!bp->gave_up)
		send_ends(bp);
	tm_store_close(bp->st);
	bp->st = NULL;
	pthread_mutex_lock(&bp->mu);
	bool alone = bp->detached;
	pthread_mutex_unlock(&bp->mu);
	if (alone)
		release(bp);
	return NULL;
}

int tm_push_thread_start(const char *url, const char *token_file, const char *store_path,
                         enum tm_push_kind kind, struct tm_push_thread **out)
{
	struct tm_push_thread *bp = calloc(1, sizeof(*bp));
	sigset_t all, old;
	int rc;

	*out = NULL;
	if (!bp)
		return tm_error("out of memory");
	pthread_mutex_init(&bp->mu, NULL);
	pthread_cond_init(&bp->cv, NULL);
	bp->down = true;
	bp->kind = kind;
	bp->url = strdup(url);
	bp->token_file = strdup(token_file);
	bp->store_path = strdup(store_path);
	if (!bp->url || !bp->token_file || !bp->store_path) {
		release(bp);
		return tm_error("out of memory");
	}
	if (tm_net_load(&bp->net)) {
		release(bp);
		return -1;
	}
	/* once a pusher (a record, a bench), not at each run it sends */
	struct stat sb;
	if (stat(token_file, &sb) == 0 && (sb.st_mode & 0044))
		tm_warn("token file '%s' is readable by others (chmod 600 it; serve token add "
		        "--token-file writes it so)",
		        token_file);
	/* every signal stays the bench's (its recorder reads them from a signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&bp->thread, NULL, push_thread, bp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		release(bp);
		return tm_error("push: cannot start a thread: %s", strerror(rc));
	}
	bp->started = true;
	*out = bp;
	return 0;
}

static void say_left(const struct tm_push_thread *bp, size_t left, bool down)
{
	if (bp->kind == TM_PUSH_RECORD) {
		if (left)
			tm_warn(
			    "push: the run did not all reach %s%s; the local store has it all "
			    "(tidemark serve push --token-file F --db STORE URL sends the rest)",
			    bp->url, down ? " (not reachable)" : "");
		return;
	}
	if (!left)
		tm_note("push: %d run(s) and their bench sent to %s", bp->sent, bp->url);
	else
		tm_warn("push: %zu run(s) did not reach %s%s; the local store has them all "
		        "(tidemark serve push --token-file F --db STORE URL sends them)",
		        left, bp->url, down ? " (not reachable)" : "");
}

void tm_push_thread_finish(struct tm_push_thread *bp, int64_t wait_usec)
{
	bool down;
	size_t left;

	if (!bp)
		return;
	pthread_mutex_lock(&bp->mu);
	bp->over = true;
	bp->deadline_usec = tm_now_mono_usec() + wait_usec;
	down = bp->down && bp->started;
	left = bp->nq;
	pthread_t thread = bp->thread;
	if (down) {
		/* no waiting for a request to a server that is gone to time out:
		 * the thread stops at its next step and frees BP */
		say_left(bp, left, true);
		bp->detached = true;
	}
	pthread_cond_signal(&bp->cv);
	pthread_mutex_unlock(&bp->mu);
	if (down) {
		pthread_detach(thread);
		return;
	}
	if (bp->started)
		pthread_join(bp->thread, NULL);
	say_left(bp, bp->nq, bp->unreachable);
	release(bp);
}
