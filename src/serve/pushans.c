/* The pusher's reading of the server's answers (serve/client/push.h): pure, no
 * I/O, so that they can be fuzzed (fuzz/fuzz_serve.c) outside the network
 * half. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "serve/ingest.h"
#include "base/banned.h"

int tm_push_ack_parse(const char *text, size_t len, struct tm_push_ack *out)
{
	json_t *a = text ? json_loadb(text, len, 0, NULL) : NULL;
	json_int_t seq, ev, pr, mk, id;
	int ended = 0, rc = -1;

	if (a &&
	    !json_unpack(a, "{s:I, s:I, s:I, s:I, s:I, s:b}", "run_id", &id, "next_seq", &seq,
	                 "next_event", &ev, "next_progress", &pr, "next_mark", &mk, "ended",
	                 &ended) &&
	    id > 0 && seq >= 0 && ev >= 0 && pr >= 0 && mk >= 0) {
		const char *m = json_string_value(json_object_get(a, "machine"));
		*out = (struct tm_push_ack){id, seq, ev, pr, mk, ended, ""};
		if (m && tm_name_valid(m))
			snprintf(out->machine, sizeof(out->machine), "%s", m);
		rc = 0;
	}
	json_decref(a);
	return rc;
}

void tm_push_refusal_why(const char *text, size_t len, char *out, size_t size)
{
	json_t *a = text ? json_loadb(text, len, 0, NULL) : NULL;
	const char *why = a ? json_string_value(json_object_get(a, "error")) : NULL;

	if (size)
		tm_text_safe(out, size, why ? why : "");
	json_decref(a);
}
