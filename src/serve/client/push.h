/*
 * Pushing a run to a tidemark server.  The local store is the buffer: the
 * pusher reads what the recorder committed and sends what the server does
 * not have yet, so a server that is down only delays the data.
 */
#ifndef TM_PUSH_H
#define TM_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_store;
struct tm_pusher;

/* 0, or -1 after tm_error (bad URL, unreadable token file). */
int tm_pusher_new(const char *url, const char *token_file, struct tm_store *st, int64_t run_id,
                  struct tm_pusher **out);
/* Sends what is new since the last acknowledged batch; never blocks longer
 * than about one second; a server that cannot be reached is not an error. */
void tm_pusher_tick(struct tm_pusher *p);
/* Whether the last request reached the server (whatever it answered):
 * false while it cannot be reached. */
bool tm_pusher_reached(const struct tm_pusher *p);
/* The name the server files this machine's runs under (its write token's
 * name), as its last acknowledgement said; NULL when none said it (not
 * reached yet, or an older server).  Valid until the next tick or free. */
const char *tm_pusher_machine(const struct tm_pusher *p);
/* Tries for up to TIMEOUT_USEC to send everything; 0 if all was sent.  No
 * request when nothing is new since the server's last answer. */
int tm_pusher_finish(struct tm_pusher *p, int64_t timeout_usec);
void tm_pusher_free(struct tm_pusher *p);

/*
 * `serve push`: sends runs of ST to the server at URL with the write token
 * in TOKEN_FILE, each until the server has acknowledged everything or for
 * up to 60 s: the N runs IDS, or every run of ST when N is 0.  A run not
 * fully acknowledged is said on stderr and counted in *FAILED, the others
 * in *SENT.  0, or -1 after tm_error (bad URL, unreadable token, the store).
 */
int tm_push_runs(struct tm_store *st, const char *url, const char *token_file, const int64_t *ids,
                 int n, int *sent, int *failed);

#endif
