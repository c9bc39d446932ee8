#include "report/run/rtreport.h"
#include "base/banned.h"

/* Indexed by enum tm_runtime: the runtimes with a part of their own in the
 * report (TM_RT_REPORT_LIST). */
static const struct tm_rt_report *const reports[TM_RUNTIME_COUNT] = {
#define TM_X_RTR_PTR(e, desc) [TM_RUNTIME_##e] = &desc,
    TM_RT_REPORT_LIST(TM_X_RTR_PTR)
#undef TM_X_RTR_PTR
};

const struct tm_rt_report *tm_rt_report(enum tm_runtime rt)
{
	if ((int)rt <= TM_RUNTIME_NONE || rt >= TM_RUNTIME_COUNT)
		return NULL;
	return reports[rt];
}

void tm_rt_report_text(FILE *out, const struct tm_summary *s)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (reports[rt] && reports[rt]->text)
			reports[rt]->text(out, s);
}

void tm_rt_report_json(json_t *figures, const struct tm_summary *s)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (reports[rt] && reports[rt]->json)
			reports[rt]->json(figures, s);
}

void tm_rt_report_reset(struct tm_summary *s)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (reports[rt] && reports[rt]->reset)
			reports[rt]->reset(s);
}

void tm_rt_report_withhold(struct tm_summary *s)
{
	for (int rt = TM_RUNTIME_NONE + 1; rt < TM_RUNTIME_COUNT; rt++)
		if (reports[rt] && reports[rt]->withhold)
			reports[rt]->withhold(s);
}
