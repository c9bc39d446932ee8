/*
 * A systemd unit, asked about over D-Bus with libsystemd's sd-bus
 * (org.freedesktop.systemd1): its name checked as systemd checks it, its
 * state, its cgroup and its invocation (a new one at each start, so a
 * restart is seen even between two looks).  Read only, but for one call:
 * tm_sdunit_restart(), which `tidemark guard --restart` alone makes.
 */
#ifndef TM_SYSD_UNIT_H
#define TM_SYSD_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TM_SDUNIT_NAME_MAX 256 /* with the NUL, as systemd's UNIT_NAME_MAX */

/*
 * Checks NAME as a unit that has a cgroup of its own and writes it, with
 * ".service" added when it has no unit type suffix (as systemctl does), into
 * OUT (TM_SDUNIT_NAME_MAX bytes).  0, or -1 with ERR saying what is wrong
 * ("'a b': a unit name has only ...").  No I/O.
 */
struct tm_err;
int tm_sdunit_name_normalize(const char *name, char *out, struct tm_err *err);

struct tm_sdunit;

/* What systemd says about a unit now. */
struct tm_sdunit_state {
	bool loaded;           /* LoadState "loaded" (false: not-found, masked, bad-setting...) */
	char load_state[32];   /* LoadState as systemd says it */
	char active_state[32]; /* ActiveState: active, activating, deactivating, inactive, failed,
	                          reloading */
	bool running;          /* active, activating or reloading, or deactivating */
	char invocation[33];   /* InvocationID as 32 hex digits; "" when it has none (stopped) */
	char cgroup[4096];     /* ControlGroup, relative to the hierarchy's root; "" when none */
	uint32_t main_pid;     /* a service's ExecMainPID's process now (MainPID), 0: none */
};

/*
 * Connects to the system bus (or, when no bus daemon runs, to systemd's own
 * socket /run/systemd/private, as root's systemctl does) and loads NAME (a
 * normalized name).  0 with *OUT set (tm_sdunit_close frees it); -1 after
 * tm_error when systemd cannot be reached or the unit does not exist.
 */
int tm_sdunit_open(const char *name, struct tm_sdunit **out);

/* The unit's name as opened. */
const char *tm_sdunit_name(const struct tm_sdunit *u);

/* Fills *ST.  0, or -1 after tm_error (the bus went away). */
int tm_sdunit_state(struct tm_sdunit *u, struct tm_sdunit_state *st);

/* What a unit's state says of the invocation a run follows. */
enum tm_sdunit_change {
	TM_SDUNIT_SAME,      /* still running it */
	TM_SDUNIT_STOPPED,   /* not running */
	TM_SDUNIT_RESTARTED, /* running another invocation */
	TM_SDUNIT_UNSURE,    /* running with no invocation: a stop seen between the reads of
	                        its properties (ActiveState still deactivating, InvocationID
	                        already gone); look again */
};

/* ST (tm_sdunit_state, read now) against INVOCATION, the 32 hex digits of
 * the invocation a run follows ("" when the unit gave none).  Pure. */
enum tm_sdunit_change tm_sdunit_change(const struct tm_sdunit_state *st, const char *invocation);

/* The one write: asks systemd to restart the unit (RestartUnit, mode
 * "replace", as `systemctl restart`), for `tidemark guard --restart`; does
 * not wait for the job.  0, or -1 after tm_error (no permission, the bus). */
int tm_sdunit_restart(struct tm_sdunit *u);

void tm_sdunit_close(struct tm_sdunit *u);

#endif
