/* A unit's journal followed with sd-journal (sysd/journal.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "sysd/journal.h"
#include "sysd/sdlib.h"
#include "base/banned.h"

struct tm_journal {
	struct tm_sdlib sd; /* libsystemd, loaded at open */
	sd_journal *j;
	sd_id128_t boot; /* ours: monotonic stamps of other boots are not our clock */
	int fd;          /* sd_journal_get_fd's, or -1 */
	bool more;       /* the last read stopped at its max */
	char line[8192];
};

int tm_journal_open(const char *unit, const char *invocation, bool from_start,
                    struct tm_journal **out)
{
	struct tm_journal *j = calloc(1, sizeof(*j));
	char match[512];
	int r;

	*out = NULL;
	if (!j)
		return tm_error("out of memory");
	if (tm_sdlib_load(&j->sd)) {
		free(j);
		return -1;
	}
	if ((r = j->sd.sd_journal_open(&j->j, SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)) < 0) {
		free(j);
		return tm_error("cannot open the journal: %s", strerror(-r));
	}
	snprintf(match, sizeof(match), "_SYSTEMD_UNIT=%s", unit);
	r = j->sd.sd_journal_add_match(j->j, match, 0);
	if (r >= 0 && invocation && *invocation) {
		snprintf(match, sizeof(match), "_SYSTEMD_INVOCATION_ID=%s", invocation);
		r = j->sd.sd_journal_add_match(j->j, match, 0);
	}
	if (r >= 0)
		r = from_start ? j->sd.sd_journal_seek_head(j->j)
		               : j->sd.sd_journal_seek_tail(j->j);
	/* at the tail, step back onto the last entry: next() then gives only new ones */
	if (r >= 0 && !from_start)
		r = j->sd.sd_journal_previous(j->j);
	if (r < 0) {
		tm_journal_close(j);
		return tm_error("cannot follow the journal of '%s': %s", unit, strerror(-r));
	}
	if (j->sd.sd_id128_get_boot(&j->boot) < 0)
		j->boot = SD_ID128_NULL;
	/* the watches are set up now: nothing added from here on is missed */
	j->fd = j->sd.sd_journal_get_fd(j->j);
	if (j->fd < 0)
		j->fd = -1;
	*out = j;
	return 0;
}

/* The entry's MESSAGE into j->line; false when it has none. */
static bool message(struct tm_journal *j)
{
	const void *data;
	size_t len;

	if (j->sd.sd_journal_get_data(j->j, "MESSAGE", &data, &len) < 0 || len < 8)
		return false;
	len -= 8; /* "MESSAGE=" */
	if (len >= sizeof(j->line))
		len = sizeof(j->line) - 1;
	memcpy(j->line, (const char *)data + 8, len);
	j->line[len] = '\0';
	j->line[strcspn(j->line, "\n")] = '\0';
	return true;
}

int tm_journal_read(struct tm_journal *j, int max, tm_journal_cb cb, void *ctx)
{
	int n = 0, r = 0;

	j->sd.sd_journal_process(j->j); /* takes in files journald added or rotated */
	while (n < max && (r = j->sd.sd_journal_next(j->j)) > 0) {
		uint64_t wall = 0, mono = 0;
		sd_id128_t boot;
		int64_t m = -1;
		if (!message(j))
			continue;
		j->sd.sd_journal_get_realtime_usec(j->j, &wall);
		if (j->sd.sd_journal_get_monotonic_usec(j->j, &mono, &boot) >= 0 &&
		    sd_id128_equal(boot, j->boot))
			m = (int64_t)mono;
		cb(ctx, j->line, (int64_t)wall, m);
		n++;
	}
	j->more = n == max;
	if (n < max && r < 0)
		return tm_error("cannot read the journal: %s", strerror(-r));
	return n;
}

int tm_journal_fd(struct tm_journal *j)
{
	return j->fd;
}

#define MIN_WAIT_USEC 100000

int64_t tm_journal_wait_usec(struct tm_journal *j)
{
	uint64_t until = UINT64_MAX;
	int64_t wait;

	if (j->more)
		return 1;
	if (j->fd < 0)
		return MIN_WAIT_USEC;
	if (j->sd.sd_journal_get_timeout(j->j, &until) < 0 || until == UINT64_MAX)
		return 0;
	wait = (int64_t)until - tm_now_mono_usec();
	return wait < MIN_WAIT_USEC ? MIN_WAIT_USEC : wait;
}

void tm_journal_close(struct tm_journal *j)
{
	if (!j)
		return;
	j->sd.sd_journal_close(j->j);
	free(j);
}
