/*
 * A unit's journal, followed with libsystemd's sd-journal: the MESSAGE of
 * each new entry its processes log (_SYSTEMD_UNIT=NAME), with the entry's
 * own time stamps.  Read only, never blocking: a journal that is slow or
 * gone only means no lines.
 */
#ifndef TM_SYSD_JOURNAL_H
#define TM_SYSD_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

struct tm_journal;

/*
 * Opens the local system journal matched to UNIT's entries; with
 * INVOCATION (32 hex digits, or NULL) only that invocation's.  FROM_START:
 * from the first entry that matches (an invocation that started while we
 * watched); otherwise only entries added from now on.  0 with *OUT set, or
 * -1 after tm_error.
 */
int tm_journal_open(const char *unit, const char *invocation, bool from_start,
                    struct tm_journal **out);

/* One entry: its MESSAGE (NUL-terminated, without its newline; valid for
 * the call), when journald received it (wall and CLOCK_MONOTONIC usec; the
 * monotonic one is -1 when the entry is from another boot). */
typedef void (*tm_journal_cb)(void *ctx, const char *message, int64_t wall_usec, int64_t mono_usec);

/* Hands every entry added since the last call to CB, at most MAX of them.
 * The number handed, or -1 after tm_error (the journal cannot be read). */
int tm_journal_read(struct tm_journal *j, int max, tm_journal_cb cb, void *ctx);

/* The descriptor to poll (POLLIN) for new entries, or -1 when the journal
 * gives none (then the caller reads it on a period).  It stays the
 * journal's; a read after it is ready takes in what woke it. */
int tm_journal_fd(struct tm_journal *j);

/* How long (usec) the caller may wait for the descriptor before it reads
 * again anyway: 0 for as long as it likes (inotify sees every change), a
 * period when the journal cannot be watched (a network file system, at
 * least 100 ms), 1 when the last read stopped at its MAX with more left. */
int64_t tm_journal_wait_usec(struct tm_journal *j);

void tm_journal_close(struct tm_journal *j);

#endif
