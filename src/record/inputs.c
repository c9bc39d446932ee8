/*
 * The recorder's inputs, one descriptor each, in one table: what the wait
 * between samples polls (a descriptor) or wakes for (a period), what each
 * does when its descriptor is ready or after any wake, what it puts into a
 * sample, and what it does when the run is over.  recorder.c walks the
 * table; an input is one entry here and its functions in its own file.
 * The order is the order of their work: descriptors first (signals before
 * marks before output), then what is read after any wake, and in a sample
 * the runtimes' GC lines before the scrapes (whose Go series fill only what
 * the lines left absent).
 */
#include <poll.h>

#include "record/rec.h"
#include "base/banned.h"

/* How often the wait wakes at least while an input needs looking at
 * without a descriptor to poll: a followed file inotify cannot watch, the
 * rest of a daemon whose first process exited. */
#define LOOK_USEC 100000

static int sig_fd(const struct rec *r)
{
	return r->sigfd;
}

static void sig_ready(struct rec *r)
{
	tm_rec_on_signal(r);
}

static int marks_fd(const struct rec *r)
{
	return r->marks.fd;
}

static void marks_ready(struct rec *r)
{
	tm_rec_drain_marks(r);
}

static int out_fd(const struct rec *r)
{
	return r->relay.fwd_fd[0];
}

static void out_ready(struct rec *r)
{
	if (r->relay.fwd_fd[0] >= 0)
		tm_rec_drain_forwarded(r, 0);
}

static int err_fd(const struct rec *r)
{
	return r->relay.fwd_fd[1];
}

static void err_ready(struct rec *r)
{
	if (r->relay.fwd_fd[1] >= 0)
		tm_rec_drain_forwarded(r, 1);
}

static int64_t follow_period(const struct rec *r)
{
	return r->follow.path && r->follow.ino_fd < 0 ? LOOK_USEC : 0;
}

static void follow_wake(struct rec *r)
{
	if (r->follow.ino_fd < 0)
		tm_rec_follow_poll(r);
}

static void follow_sample(struct rec *r, int64_t deadline, struct tm_sample *s)
{
	(void)deadline;
	(void)s;
	tm_rec_follow_poll(r); /* a write inotify does not see (NFS) */
}

static int64_t rest_period(const struct rec *r)
{
	return r->o->until.ended || r->child_gone ? LOOK_USEC : 0;
}

/* without a descriptor that says all (no inotify, a journal on a network
 * file system, a read that stopped at its max), read on each wake */
static void journal_wake(struct rec *r)
{
	if (tm_rec_journal_wait_usec(r) != 0)
		tm_rec_journal_read(r);
}

/* and at each sample, as the followed file: entries carry their own time
 * stamps, so a wake the descriptor missed costs nothing but a delay */
static void journal_sample(struct rec *r, int64_t deadline, struct tm_sample *s)
{
	(void)deadline;
	(void)s;
	tm_rec_journal_read(r);
}

static void gc_sample(struct rec *r, int64_t deadline, struct tm_sample *s)
{
	(void)deadline;
	tm_gcwatch_poll(&r->gc);
	tm_gcwatch_sample(&r->gc, s);
}

static void gc_end(struct rec *r)
{
	tm_gcwatch_close(&r->gc);
}

static void gc_output(struct rec *r, int i, const char *data, size_t n)
{
	tm_gcwatch_feed(&r->gc, i, data, n);
}

static void gc_output_end(struct rec *r, int i)
{
	tm_gcwatch_flush(&r->gc, i);
}

static void jlog_sample(struct rec *r, int64_t deadline, struct tm_sample *s)
{
	(void)deadline;
	tm_jvmlog_poll(&r->jlog);
	tm_jvmlog_sample(&r->jlog, s);
}

static void jlog_end(struct rec *r)
{
	tm_jvmlog_close(&r->jlog);
}

static void jlog_output(struct rec *r, int i, const char *data, size_t n)
{
	tm_jvmlog_feed(&r->jlog, i, data, n);
}

static void jlog_output_end(struct rec *r, int i)
{
	tm_jvmlog_flush(&r->jlog, i);
}

static const struct tm_rec_input inputs[] = {
    {.name = "signals", .fd = sig_fd, .on_ready = sig_ready},
    {.name = "marks", .fd = marks_fd, .on_ready = marks_ready},
    {.name = "stdout", .fd = out_fd, .on_ready = out_ready},
    {.name = "stderr", .fd = err_fd, .on_ready = err_ready},
    {.name = "followed file",
     .fd = tm_rec_follow_fd,
     .period_usec = follow_period,
     .on_ready = tm_rec_follow_ready,
     .on_wake = follow_wake,
     .on_sample = follow_sample},
    {.name = "progress command",
     .fd = tm_rec_progsrc_fd,
     .on_ready = tm_rec_progcmd_read,
     .on_end = tm_rec_progsrc_close},
    {.name = "unit's journal",
     .fd = tm_rec_journal_fd,
     .period_usec = tm_rec_journal_wait_usec,
     .on_ready = tm_rec_journal_read,
     .on_wake = journal_wake,
     .on_sample = journal_sample},
    {.name = "the target's rest", .period_usec = rest_period},
    {.name = "runtime GC lines",
     .on_sample = gc_sample,
     .on_end = gc_end,
     .on_output = gc_output,
     .on_output_end = gc_output_end},
    {.name = "JVM GC log",
     .on_sample = jlog_sample,
     .on_end = jlog_end,
     .on_output = jlog_output,
     .on_output_end = jlog_output_end},
    {.name = "scrapes", .on_sample = tm_rec_scrape_take},
};

_Static_assert(sizeof(inputs) / sizeof(inputs[0]) <= TM_REC_INPUTS_MAX,
               "every input fits the wait's poll array");

const struct tm_rec_input *tm_rec_inputs(size_t *n)
{
	*n = sizeof(inputs) / sizeof(inputs[0]);
	return inputs;
}
