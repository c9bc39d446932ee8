/*
 * The panel API's URLs, written once.  The server dispatches by them
 * (serve/http/server.c), the HTML report files the documents it embeds under
 * them (serve/html/htmlreport.c, advise/output.c), and the fuzzer reads
 * them; the panel's JavaScript asks for the same paths (web/js/).  One line
 * a route: its name, the path (ending in "/" when an id follows) and what
 * follows the id ("" for none).
 */
#ifndef TM_BASE_ROUTES_H
#define TM_BASE_ROUTES_H

#include <stddef.h>
#include <stdint.h>

#define TM_ROUTES(X)                                                                               \
	X(TM_ROUTE_MACHINES, "/api/v1/machines", "")                                               \
	X(TM_ROUTE_RUNS, "/api/v1/runs", "")                                                       \
	X(TM_ROUTE_RUN, "/api/v1/runs/", "")                                                       \
	X(TM_ROUTE_RUN_SERIES, "/api/v1/runs/", "/series")                                         \
	X(TM_ROUTE_RUN_SUMMARY, "/api/v1/runs/", "/summary")                                       \
	X(TM_ROUTE_BENCHES, "/api/v1/benches", "")                                                 \
	X(TM_ROUTE_SWEEPS, "/api/v1/sweeps", "")                                                   \
	X(TM_ROUTE_SWEEP, "/api/v1/sweeps/", "")                                                   \
	X(TM_ROUTE_BENCH, "/api/v1/bench/", "")                                                    \
	X(TM_ROUTE_BENCH_SWEEP, "/api/v1/bench/", "/sweep")                                        \
	X(TM_ROUTE_BENCH_ADVICE, "/api/v1/bench/", "/advice")

enum tm_route {
	TM_ROUTE_NONE = -1,
#define TM_ROUTE_ENUM(name, path, tail) name,
	TM_ROUTES(TM_ROUTE_ENUM)
#undef TM_ROUTE_ENUM
	    TM_ROUTE_COUNT
};

/* The route URL names (a path without its query string), with *ID set for a
 * route that takes one (an id is a whole number above 0); TM_ROUTE_NONE when
 * none matches.  Pure: fuzz/fuzz_serve.c. */
enum tm_route tm_route_parse(const char *url, int64_t *id);

/* The path of ROUTE for ID (ignored by a route without one) into OUT (SIZE
 * bytes).  0, or -1 when ROUTE is not a route or OUT is too small. */
int tm_route_path(enum tm_route route, int64_t id, char *out, size_t size);

/* Whether ROUTE takes an id. */
int tm_route_has_id(enum tm_route route);

#endif
