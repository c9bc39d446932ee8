/* The panel API's URLs (routes.h): parsed for the server, written for the
 * HTML report. */
#include <stdio.h>
#include <string.h>

#include "base/routes.h"
#include "base/util.h"
#include "base/banned.h"

struct route {
	const char *path; /* ends in '/' when an id follows */
	const char *tail; /* after the id: "" or "/series" */
};

static const struct route routes[TM_ROUTE_COUNT] = {
#define TM_ROUTE_ROW(name, p, t) [name] = {p, t},
    TM_ROUTES(TM_ROUTE_ROW)
#undef TM_ROUTE_ROW
};

int tm_route_has_id(enum tm_route route)
{
	if (route < 0 || route >= TM_ROUTE_COUNT)
		return 0;
	size_t n = strlen(routes[route].path);
	return n > 0 && routes[route].path[n - 1] == '/';
}

/* The id at the start of S, up to its next '/' or end, read as the server
 * always has (tm_parse_int64, above 0): its length, or 0 when it is none. */
static size_t id_at(const char *s, int64_t *id)
{
	size_t n = strcspn(s, "/");
	char num[24];

	if (n == 0 || n >= sizeof(num))
		return 0;
	memcpy(num, s, n);
	num[n] = 0;
	if (tm_parse_int64(num, id) < 0 || *id <= 0)
		return 0;
	return n;
}

enum tm_route tm_route_parse(const char *url, int64_t *id)
{
	for (int r = 0; r < TM_ROUTE_COUNT; r++) {
		const char *path = routes[r].path;
		size_t n = strlen(path), k;

		if (!tm_route_has_id(r)) {
			if (!strcmp(url, path))
				return r;
			continue;
		}
		if (strncmp(url, path, n))
			continue;
		k = id_at(url + n, id);
		if (k && !strcmp(url + n + k, routes[r].tail))
			return r;
	}
	return TM_ROUTE_NONE;
}

int tm_route_path(enum tm_route route, int64_t id, char *out, size_t size)
{
	int n;

	if (route < 0 || route >= TM_ROUTE_COUNT)
		return -1;
	if (tm_route_has_id(route))
		n = snprintf(out, size, "%s%lld%s", routes[route].path, (long long)id,
		             routes[route].tail);
	else
		n = snprintf(out, size, "%s", routes[route].path);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
