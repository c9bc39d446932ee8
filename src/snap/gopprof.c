/*
 * A Go program's heap profile, as its net/http/pprof serves it at
 * /debug/pprof/heap (snap/takers.h): one bounded GET through the network
 * library (libtidemark-net.so, as record/netlib.h loads it), the profile's
 * top in-use site read with `tidemark heap top`'s reader.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/heapprof.h"
#include "snap/snapio.h"
#include "snap/takers.h"
#include "base/banned.h"

#define PROFILE_MAX_BYTES (64u << 20) /* a heap profile is a few hundred KiB */

/* ROW, a row of `heap top` ("  30.9 MiB  96.9%  493  30.9 MiB  site"), as
 * the summary.  0, or -1 when it is not one. */
static int summarize(const char *row, char *out, size_t size)
{
	char inuse[32], unit[16], pct[16], alloc[32], aunit[16];
	long long objects;
	int at = 0;

	if (sscanf(row, "%31s %15s %15s %lld %31s %15s %n", inuse, unit, pct, &objects, alloc,
	           aunit, &at) != 6 ||
	    !at || !row[at])
		return -1;
	snprintf(out, size, "top in-use site: %s, %s %s in use (%s of the sampled), %lld objects",
	         row + at, inuse, unit, pct, objects);
	return 0;
}

/* The summary: the top site of the profile at OUT->path, by `heap top`'s
 * reader; or the byte count when it cannot be read. */
static void top_site(struct tm_snap_out *out)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int done = -1;

	if (f) {
		int rc = tm_heap_top(out->path, f, 1);
		if (fclose(f) == 0 && rc == 0) {
			char *row = strchr(text, '\n'), *end = row ? strchr(row + 1, '\n') : NULL;
			if (end) {
				*end = 0;
				done = summarize(row + 1, out->summary, sizeof(out->summary));
			}
		}
		free(text);
	}
	if (done)
		snprintf(out->summary, sizeof(out->summary), "%llu bytes of profile (not read)",
		         (unsigned long long)out->file_bytes);
}

/* serve/client/httpget.h's tm_http_get_fd, in libtidemark-net.so: found
 * by dlsym, so no compiler checks that this type is still its type; change
 * both at once. */
typedef int http_get_fn(const char *url, int fd, uint64_t max_bytes, int64_t deadline_mono_usec,
                        uint64_t *wrote, struct tm_err *err);

/* The GET itself, into FD, through the network library loaded for it as
 * record/netlib.c loads it (next to the binary, or $TIDEMARK_NET_LIB).
 * 0, or -1 with ERR. */
static int fetch(const struct tm_snap_req *req, int fd, uint64_t *wrote, struct tm_err *err)
{
	char path[4096];
	http_get_fn *get;

	if (tm_lib_path("libtidemark-net.so", "TIDEMARK_NET_LIB", path, sizeof(path))) {
		tm_err_set(err, 0, "no network library (see above)");
		return -1;
	}
	/* NODELETE: as record/netlib.c, libcurl's state stays mapped */
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	void *sym = lib ? dlsym(lib, "tm_http_get_fd") : NULL;
	if (!sym) {
		tm_err_set(err, 0, "cannot load '%s': %s", path, dlerror());
		if (lib)
			dlclose(lib);
		return -1;
	}
	memcpy(&get, &sym, sizeof(sym));
	int rc = get(req->url, fd, PROFILE_MAX_BYTES, req->deadline_usec, wrote, err);
	dlclose(lib);
	return rc;
}

int tm_snap_go_heap(const struct tm_snap_req *req, struct tm_snap_out *out, struct tm_err *err)
{
	struct tm_snap_proc p;
	uint64_t wrote = 0;

	if (!req->url || (strncmp(req->url, "http://", 7) && strncmp(req->url, "https://", 8))) {
		tm_err_set(err, 0, "no URL of the program's /debug/pprof/heap (http://...)");
		return -1;
	}
	if (tm_snap_left_usec(req) <= 0) {
		tm_err_set(err, 0, "the deadline has passed");
		return -1;
	}
	if (tm_snap_proc(req, &p, err))
		return -1;
	int fd = tm_snap_create(req, "go-heap", "pb.gz", out, err);
	if (fd < 0)
		return -1;
	int rc = fetch(req, fd, &wrote, err);
	tm_snap_sized(fd, out);
	close(fd);
	if (rc) {
		unlink(out->path);
		return -1;
	}
	top_site(out);
	return 0;
}
