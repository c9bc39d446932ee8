/* The native heap profile snapshot: a process under the shim, as pprof
 * (snap/kinds.h's heap_profile). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/heapprof.h"
#include "snap/kinds.h"
#include "base/banned.h"

/* One row of `tidemark heap top` ("    33.5 MiB 100.0%   536   33.5 MiB  site
 * < caller") as "33.5 MiB (100.0%) in use at site < caller" after BUF[*N]. */
static void add_row(const char *line, char *buf, size_t size, size_t *n)
{
	double inuse, pct, alloc;
	long long objs;
	char unit[8], aunit[8];
	int site = 0;
	if (sscanf(line, "%lf %7s %lf%% %lld %lf %7s %n", &inuse, unit, &pct, &objs, &alloc, aunit,
	           &site) < 6 ||
	    site <= 0)
		return;
	int w = snprintf(buf + *n, size - *n, "%s%.1f %s (%.1f%%) in use at %s", *n ? "; " : "",
	                 inuse, unit, pct, line + site);
	if (w > 0)
		*n = *n + (size_t)w < size ? *n + (size_t)w : size - 1;
}

/* The top sites of the profile at PATH as one line (add_row's, "; "
 * between them).  Empty on failure. */
static void top_line(const char *path, char *buf, size_t size)
{
	char *text = NULL, *save = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&text, &len);
	buf[0] = 0;
	if (!f)
		return;
	int rc = tm_heap_top(path, f, 3);
	fclose(f);
	if (rc == 0 && text) {
		int row = 0;
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save))
			if (row++ > 0 && strncmp(line, "total", 5))
				add_row(line, buf, size, &n); /* not the header, not the total */
	}
	free(text);
}

int tm_snap_heap_profile(const struct tm_snap_req *req, struct tm_snap_out *out, struct tm_err *err)
{
	if (tm_now_mono_usec() >= req->deadline_usec)
		return tm_err_set(err, 0, "no time left before the deadline");
	struct tm_heap_snapshot s;
	if (tm_heap_snapshot_take(req->pid, &s) < 0)
		return tm_err_set(err, 0,
		                  "pid %d: no heap profile (no shim region, or no "
		                  "sampling)",
		                  (int)req->pid);
	int n = snprintf(out->path, sizeof(out->path), "%s/heap-%d-%lld.pb.gz", req->dir,
	                 (int)req->pid, (long long)tm_now_wall_usec());
	int rc = n < 0 || (size_t)n >= sizeof(out->path) ? -1 : tm_heap_write_pprof(&s, out->path);
	int64_t live = s.counters.live_bytes;
	tm_heap_snapshot_release(&s);
	if (rc < 0)
		return tm_err_set(err, 0, "cannot write the profile under '%s'", req->dir);
	struct stat sb;
	out->file_bytes = stat(out->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	char top[400], mib[32];
	top_line(out->path, top, sizeof(top));
	snprintf(out->summary, sizeof(out->summary), "live %s; %s",
	         tm_fmt_mib(mib, sizeof(mib), live), top[0] ? top : "no sampled sites");
	return 0;
}
