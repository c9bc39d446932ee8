/*
 * Pushing to a tidemark server from a thread of its own (docs/push-protocol.md),
 * for `record --push` (the run being recorded, as it grows) and `bench --push`
 * (each run of the bench once it ended and the bench noted it: warmup, the
 * work's wall time; then each bench's end).  The thread has its own
 * connection to the store and reads from it, where the server's last
 * acknowledgement ended, what is still to send: the store is the queue, so it
 * is bounded by what was recorded and nothing is lost when the server is
 * slow or gone.  The recording never waits for the network: a server that
 * is slow, silent or gone neither stops nor slows the sampling, and the
 * local store keeps everything (`tidemark serve push` sends it later).
 */
#ifndef TM_RECORD_PUSHTHREAD_H
#define TM_RECORD_PUSHTHREAD_H

#include <stdbool.h>
#include <stdint.h>

struct tm_push_thread;

/* What is pushed, for what the end says on stderr. */
enum tm_push_kind {
	TM_PUSH_RECORD, /* one run, as it is recorded: quiet when all of it arrived */
	TM_PUSH_BENCH,  /* a bench's runs and the bench itself */
};

/* Starts pushing to URL with the write token in TOKEN_FILE, reading the
 * store at STORE_PATH; warns once, here, when TOKEN_FILE is readable by
 * group or others (not at each run it sends).  0 with *OUT set, or -1 after tm_error (the network
 * library or the thread could not start).  Signals stay blocked in the
 * thread: they remain the caller's. */
int tm_push_thread_start(const char *url, const char *token_file, const char *store_path,
                         enum tm_push_kind kind, struct tm_push_thread **out);

/* RUN_ID is to be pushed: in the background, after the runs added before
 * it; a run still being recorded is sent as it grows, until the thread
 * finishes.  Never blocks on the network. */
void tm_push_thread_add(struct tm_push_thread *bp, int64_t run_id);

/* The caller's own request just reached the server (REACHED) or did not:
 * what the finish goes by until the thread's first request is answered
 * (a short run ends before it is). */
void tm_push_thread_reached(struct tm_push_thread *bp, bool reached);

/*
 * The runs added are over (their ends are stored): sends what is left and
 * each bench's end while the server answers, for up to WAIT_USEC, and not
 * at all once it cannot be reached; says on stderr what did not reach the
 * server (and, for a bench, what did).  Frees BP (NULL: nothing).
 */
void tm_push_thread_finish(struct tm_push_thread *bp, int64_t wait_usec);

#endif
