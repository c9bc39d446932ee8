#include <string.h>

#include "base/outcome.h"
#include "base/banned.h"

static const char *const names[] = {
#define TM_OUTCOME_NAME(e, name, text) [TM_OUTCOME_##e] = name,
    TM_OUTCOME_LIST(TM_OUTCOME_NAME)
#undef TM_OUTCOME_NAME
};

static const char *const texts[] = {
#define TM_OUTCOME_TEXT(e, name, text) [TM_OUTCOME_##e] = text,
    TM_OUTCOME_LIST(TM_OUTCOME_TEXT)
#undef TM_OUTCOME_TEXT
};

const char *tm_outcome_name(enum tm_outcome o)
{
	return (unsigned)o < TM_OUTCOME_COUNT ? names[o] : "?";
}

const char *tm_outcome_text(enum tm_outcome o)
{
	return (unsigned)o < TM_OUTCOME_COUNT ? texts[o] : "?";
}

int tm_outcome_parse(const char *name, enum tm_outcome *out)
{
	if (!name || !*name) {
		*out = TM_OUTCOME_LIVE;
		return 0;
	}
	for (int i = 0; i < TM_OUTCOME_COUNT; i++)
		if (!strcmp(name, names[i])) {
			*out = (enum tm_outcome)i;
			return 0;
		}
	return -1;
}

enum tm_outcome tm_outcome_of(const char *name)
{
	enum tm_outcome o = TM_OUTCOME_FAILED;
	tm_outcome_parse(name, &o);
	return o;
}

bool tm_outcome_counts(enum tm_outcome o)
{
	return o != TM_OUTCOME_LIVE && o != TM_OUTCOME_INVALID && o != TM_OUTCOME_INTERRUPTED;
}

static enum tm_outcome launched_outcome(const struct tm_outcome_facts *f, bool oom)
{
	bool work_done = f->reached_progress || f->ended_by_mark;

	if (f->exited)
		return f->exit_code != 0 && !work_done ? TM_OUTCOME_FAILED : TM_OUTCOME_COMPLETED;
	if (oom)
		return TM_OUTCOME_OOM_KILLED;
	if (f->term_signal && !work_done && !f->timed_out && !f->interrupted)
		return TM_OUTCOME_KILLED;
	return TM_OUTCOME_COMPLETED;
}

enum tm_outcome tm_outcome_decide(const struct tm_outcome_facts *f)
{
	bool oom = (f->term_signal && f->cgroup_oom) || f->host_oom;
	enum tm_outcome o;

	if (f->store_failed || f->loop_failed)
		return TM_OUTCOME_FAILED;
	if (f->invalid)
		return TM_OUTCOME_INVALID;
	if (!f->launched)
		return f->interrupted ? TM_OUTCOME_DETACHED : TM_OUTCOME_COMPLETED;
	o = launched_outcome(f, oom);
	if (o == TM_OUTCOME_OOM_KILLED)
		return o;
	if (f->timed_out)
		return TM_OUTCOME_TIMEOUT;
	if (f->interrupted)
		return TM_OUTCOME_INTERRUPTED;
	return o;
}
