/* Prints the Prometheus exposition of a sample holding every registry metric,
 * for two machines, so `promtool check metrics` sees every name we can emit. */
#include <stdio.h>
#include <stdlib.h>

#include "serve/promfmt.h"

int main(void)
{
	struct tm_sample s;
	char *text;

	tm_sample_clear(&s);
	s.t_wall_usec = 1790000000000000LL;
	for (int m = 0; m < TM_METRIC_COUNT; m++)
		tm_sample_set(&s, (enum tm_metric)m, 1000 + m);
	/* and a scraped series (record --scrape), labels and all */
	static const struct tm_prom_scraped sc[] = {
	    {"app_held_bytes{kind=\"slabs\",zone=\"a\\b\"}", "gauge", 25165824},
	    {"http_requests_total", "counter", 1027}};
	struct tm_prom_target t[2] = {
	    {"pi", "run-1", "/a", &s, true, "live", sc, 2, NULL, 0},
	    {"vps", "run-2", "/b\"c", &s, true, "live", NULL, 0, NULL, 0}};
	text = tm_prom_format(t, 2);
	if (!text)
		return 1;
	fputs(text, stdout);
	free(text);
	return 0;
}
