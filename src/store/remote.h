/*
 * record --remote-write URL: how far each run has reached each receiver.
 * The store is the queue: a run's samples stay in it, and a row per (URL,
 * run) says the last sample seq the receiver acknowledged, so a receiver
 * that is down, a recorder restarted while it is down, or a reboot loses
 * nothing, and nothing acknowledged is sent again (docs/fleet.md).
 */
#ifndef TM_STORE_REMOTE_H
#define TM_STORE_REMOTE_H

#include <stdint.h>

struct tm_store;

/* The path of ST's file (borrowed), for a second connection of the
 * sending thread's own. */
const char *tm_store_file_path(const struct tm_store *st);

/* Creates the table if the file lacks it.  0, or -1 after tm_error. */
int tm_store_rw_init(struct tm_store *st);

/* RUN_ID is to reach URL: a row with nothing acknowledged yet (kept as it
 * is when the row exists).  Committed at once.  0, or -1 after tm_error. */
int tm_store_rw_add(struct tm_store *st, const char *url, int64_t run_id);

/* URL acknowledged the samples of RUN_ID up to SEQ.  Committed at once.
 * 0, or -1 after tm_error. */
int tm_store_rw_set_sent(struct tm_store *st, const char *url, int64_t run_id, int64_t seq);

/* Called for each run of URL with samples past the acknowledged SENT_SEQ
 * (-1: none acknowledged), oldest run first.  A non-zero return stops the
 * walk and is returned. */
typedef int (*tm_rw_pending_cb)(void *ctx, int64_t run_id, int64_t sent_seq);

/* Walks URL's runs with unsent samples.  0, the callback's stop value, or
 * -1 after tm_error. */
int tm_store_rw_each_pending(struct tm_store *st, const char *url, tm_rw_pending_cb cb, void *ctx);

#endif
