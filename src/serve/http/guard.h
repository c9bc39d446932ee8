/*
 * Keeps the server answering while clients misbehave: a request must arrive
 * whole within a deadline (a client that trickles one byte a second is cut
 * off, though it never goes idle), and when the connections near their
 * limit, a new one pushes out the oldest that is still sending its request,
 * so a crowd of slow clients cannot hold every slot.  A connection that is
 * being answered is left alone (a slow reader of a large response is
 * libmicrohttpd's idle timeout's business).  Single-threaded: called from
 * the server's one event loop only.
 */
#ifndef TM_SERVE_GUARD_H
#define TM_SERVE_GUARD_H

#include <stdint.h>

#include <microhttpd.h>

struct tm_guard;

/* SOFT_LIMIT: connections at which a new one evicts the oldest still
 * receiving (one that has been at it for 100 ms or more); DEADLINE_USEC:
 * the time from a connection's start, or from its last answer, within
 * which the next request must have arrived.  NULL when out of memory. */
struct tm_guard *tm_guard_new(unsigned soft_limit, int64_t deadline_usec);
void tm_guard_free(struct tm_guard *g);

/* libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION callback; CLS is the guard. */
void tm_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                     enum MHD_ConnectionNotificationCode code);

/* The request on C is complete and being answered: no deadline until the
 * answer is sent (tm_guard_answered). */
void tm_guard_answering(struct MHD_Connection *c);

/* The answer on C is sent: a next request on the same connection has a new
 * deadline. */
void tm_guard_answered(struct MHD_Connection *c);

/* Cuts off the connections past their deadline (their socket is shut
 * down; libmicrohttpd then closes them).  Call every loop iteration.
 * Returns how many were cut. */
unsigned tm_guard_tick(struct tm_guard *g);

/* Connections cut off so far, for the logs and tests. */
uint64_t tm_guard_cut(const struct tm_guard *g);

#endif
