#include "report/run/endrule.h"
#include "base/banned.h"

enum tm_end_na tm_end_decide(const struct tm_end_facts *f, enum tm_end_kind *kind)
{
	*kind = TM_END_KIND_NONE;
	if (f->outcome == TM_OUTCOME_OOM_KILLED)
		return TM_END_OOM_KILLED;
	if (!f->ended && f->command)
		return TM_END_NO_END;
	if (!f->ended) {
		*kind = TM_END_RUNNING; /* a unit or cgroup still running is measured now */
		return TM_END_MEASURED;
	}
	if (f->work_end_mono_usec >= 0) {
		if (f->held_mono_usec < f->work_end_mono_usec)
			return TM_END_GONE_AFTER;
		*kind = TM_END_AFTER_WORK;
		return TM_END_MEASURED;
	}
	if (f->stopped || f->outcome == TM_OUTCOME_DETACHED) {
		*kind = TM_END_STOPPED;
		return TM_END_MEASURED;
	}
	return TM_END_EXITED;
}

const char *tm_end_na_text(enum tm_end_na na)
{
	switch (na) {
	case TM_END_MEASURED:
		return "";
	case TM_END_OOM_KILLED:
		return "the OOM killer ended the work, there is no after";
	case TM_END_NO_END:
		return "the run has not ended (still running, or its recorder died)";
	case TM_END_EXITED:
		return "the program ended by itself during the work, so every sample is from the "
		       "work (an 'end' mark or --until-progress, with --settle, measures what it "
		       "holds after)";
	case TM_END_GONE_AFTER:
		return "the work ended, but the program was gone before a sample after it "
		       "(--settle keeps it running to be measured)";
	}
	return "?";
}

const char *tm_end_kind_text(enum tm_end_kind kind)
{
	switch (kind) {
	case TM_END_KIND_NONE:
		return "";
	case TM_END_AFTER_WORK:
		return "after the work's end (its 'end' mark or --until-progress target)";
	case TM_END_STOPPED:
		return "when the recording stopped with the program running (--timeout or "
		       "interrupted; its work had not ended)";
	case TM_END_RUNNING:
		return "the last sample, the target still running";
	}
	return "?";
}

const char *tm_end_kind_name(enum tm_end_kind kind)
{
	switch (kind) {
	case TM_END_AFTER_WORK:
		return "after_work_end";
	case TM_END_STOPPED:
		return "recording_stopped";
	case TM_END_RUNNING:
		return "running";
	case TM_END_KIND_NONE:
		break;
	}
	return NULL;
}
