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

/* The top sites of the profile at PATH as one line: "12.0 MiB 93.1% site;
 * ..." (the rows of `tidemark heap top`, spaces folded).  Empty on failure. */
static void top_line(const char *path, char *buf, size_t size)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	buf[0] = 0;
	if (!f)
		return;
	int rc = tm_heap_top(path, f, 3);
	fclose(f);
	if (rc == 0 && text) {
		size_t n = 0;
		char *save = NULL;
		int row = 0;
		for (char *line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (row++ == 0 || !strncmp(line, "total", 5))
				continue; /* the header, the total */
			if (n && n + 2 < size) {
				memcpy(buf + n, "; ", 2);
				n += 2;
			}
			for (const char *p = line; *p && n + 1 < size; p++)
				if (*p != ' ' || (n && buf[n - 1] != ' ' && buf[n - 1] != ';'))
					buf[n++] = *p;
			buf[n] = 0;
		}
	}
	free(text);
}

int tm_snap_heap_profile(const struct tm_snap_req *req, struct tm_snap_out *out, char *why,
                         size_t why_size)
{
	if (tm_now_mono_usec() >= req->deadline_usec)
		return tm_error_buf(why, why_size, "no time left before the deadline");
	struct tm_heap_snapshot s;
	if (tm_heap_snapshot_take(req->pid, &s) < 0)
		return tm_error_buf(why, why_size,
		                    "pid %d: no heap profile (no shim region, or no "
		                    "sampling)",
		                    (int)req->pid);
	int n = snprintf(out->path, sizeof(out->path), "%s/heap-%d-%lld.pb.gz", req->dir,
	                 (int)req->pid, (long long)tm_now_wall_usec());
	int rc = n < 0 || (size_t)n >= sizeof(out->path) ? -1 : tm_heap_write_pprof(&s, out->path);
	int64_t live = s.counters.live_bytes;
	tm_heap_snapshot_release(&s);
	if (rc < 0)
		return tm_error_buf(why, why_size, "cannot write the profile under '%s'", req->dir);
	struct stat sb;
	out->file_bytes = stat(out->path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
	char top[400], mib[32];
	top_line(out->path, top, sizeof(top));
	snprintf(out->summary, sizeof(out->summary), "live %s; %s",
	         tm_fmt_mib(mib, sizeof(mib), live), top[0] ? top : "no sampled sites");
	return 0;
}
