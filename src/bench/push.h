/*
 * bench --push URL --token-file F: each run of the bench goes to a tidemark
 * server once it ended and the bench noted it (warmup, the work's wall
 * time), with its bench and arm, so the server shows the same table
 * (docs/push-protocol.md).  Pushing happens in a thread of its own, with
 * its own connection to the store, so the runs never wait for the server:
 * a server that is slow or gone neither stops nor slows the bench, and the
 * local store keeps everything (`tidemark serve push` sends it later).
 */
#ifndef TM_BENCH_PUSH_H
#define TM_BENCH_PUSH_H

#include <stdint.h>

struct tm_bench_pusher;

/* Starts pushing to URL with the write token in TOKEN_FILE, reading the
 * store at STORE_PATH.  0 with *OUT set, or -1 after tm_error (the network
 * library or the thread could not start). */
int tm_bench_pusher_start(const char *url, const char *token_file, const char *store_path,
                          struct tm_bench_pusher **out);

/* RUN_ID ended and its bench noted it: it is pushed in the background.
 * Never blocks on the network. */
void tm_bench_pusher_add(struct tm_bench_pusher *bp, int64_t run_id);

/*
 * The bench is over (its end is stored): sends what is left and each
 * bench's end while the server answers, for up to WAIT_USEC, and not at
 * all once it cannot be reached; says on stderr what reached the server.
 * Frees BP (NULL: nothing).
 */
void tm_bench_pusher_finish(struct tm_bench_pusher *bp, int64_t wait_usec);

#endif
