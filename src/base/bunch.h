/*
 * Progress that arrived in one burst.  A program that prints through stdio
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

/* Points that arrive within this much of each other arrived "at once". */
#define TM_BUNCH_WINDOW_USEC 50000

/*
 * Whether more than half of the N points (N >= 2) arrived within
 * TM_BUNCH_WINDOW_USEC of each other.  T_USEC: arrival times in ascending
 * order (CLOCK_MONOTONIC usec).  *LARGEST (may be NULL): how many points the
 * densest window held.
 */
bool tm_progress_bunched(const int64_t *t_usec, size_t n, size_t *largest);

#endif
