/* A run's command line as text; see report/run/runtext.h. */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "base/util.h"
#include "report/run/runtext.h"
#include "store/store.h"
#include "base/banned.h"

const char *tm_run_command_text(const struct tm_run_info *ri, char *buf, size_t size)
{
	json_t *arr = ri->command_json ? json_loads(ri->command_json, 0, NULL) : NULL;
	char raw[4096];
	size_t len = 0;

	raw[0] = '\0';
	if (!json_is_array(arr)) {
		snprintf(raw, sizeof(raw), "%s %s", ri->target ? ri->target : "?",
		         ri->cgroup_path ? ri->cgroup_path : "");
	} else {
		for (size_t i = 0; i < json_array_size(arr); i++) {
			const char *a = json_string_value(json_array_get(arr, i));
			int n = snprintf(raw + len, sizeof(raw) - len, "%s%s", i ? " " : "",
			                 a ? a : "");
			if (n < 0 || (size_t)n >= sizeof(raw) - len)
				break;
			len += (size_t)n;
		}
	}
	json_decref(arr);
	return tm_text_safe(buf, size, raw);
}
