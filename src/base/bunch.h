/*
 * Progress that arrived in bursts.  A program that prints through stdio
 * into a pipe is block-buffered: its progress lines reach us a block at a
 * time, or all at its exit, and a rate or a per-unit slope computed from
 * their arrival times is nonsense.  The recorder warns about it at the end of
 * a run and the report omits those figures; both decide it here, from the
 * points' arrival times as stored.
 */
#ifndef TM_BUNCH_H
#define TM_BUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Points within this much of the first point of an instant arrived at that
 * instant ("at once"): a block of buffered output is read in one go, within
 * microseconds; lines a program prints as it works are milliseconds apart. */
#define TM_BUNCH_WINDOW_USEC 5000

/* At most this many points may share an instant whatever their number (a
 * recorder that was slow to read for a moment joins a few lines)... */
#define TM_BUNCH_SMALL 3
/* ...or else at most 1/TM_BUNCH_SHARE of all points (5 %: the first and
 * the last instant then move a rate by about a tenth at most). */
#define TM_BUNCH_SHARE 20

/* The arrival pattern of N progress points. */
struct tm_arrivals {
	size_t points;     /* N */
	size_t instants;   /* distinct arrival instants (TM_BUNCH_WINDOW_USEC each) */
	size_t largest;    /* points of the instant that held the most */
	int64_t span_usec; /* from the first arrival to the last */
	bool continuous;   /* arrivals fill the span: nine in ten of its
	                      TM_BUNCH_WINDOW_USEC slots (from the first
	                      arrival on) saw one */
	bool supported;    /* a rate and per-unit slopes may be computed */
};

/*
 * The arrival pattern of the N points whose arrival times T_USEC are given
 * in ascending order (CLOCK_MONOTONIC usec; NULL when N is 0).  Points are
 * grouped into instants, each the points within TM_BUNCH_WINDOW_USEC of its
 * first.  A rate and per-unit figures are supported when there are at least
 * two instants and either no instant holds more than TM_BUNCH_SMALL points,
 * or none holds more than 1/TM_BUNCH_SHARE of them, or the output arrived
 * continuously (every point then arrived within 5 ms of being written).
 * Three blocks of 372, 372 and 56 lines are not supported: each block's
 * lines were written over seconds and arrived at one instant.
 */
void tm_progress_arrivals(const int64_t *t_usec, size_t n, struct tm_arrivals *out);

/*
 * Whether N points (N >= 2) arrived in a pattern that cannot support a
 * rate (tm_progress_arrivals).  *LARGEST (may be NULL): how many points the
 * fullest instant held.
 */
bool tm_progress_bunched(const int64_t *t_usec, size_t n, size_t *largest);

#endif
