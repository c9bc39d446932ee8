/* What `tidemark heap` does once its options are parsed (heapcli.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/attach.h"
#include "heap/heapcli.h"
#include "heap/heapenv.h"
#include "heap/heapprof.h"
#include "heap/heapregion.h"
#include "tidemark-size.h"
#include "base/banned.h"

int tm_heap_cli_profile(pid_t pid, const char *out, bool collapsed, bool alloc)
{
	char def[64];
	if (!out) {
		snprintf(def, sizeof(def), collapsed ? "-" : "heap.%d.pb.gz", (int)pid);
		out = def;
	}
	struct tm_heap_snapshot s;
	if (tm_heap_snapshot_take(pid, &s) < 0)
		return -1;
	int rc;
	if (collapsed) {
		FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
		if (!f) {
			tm_heap_snapshot_release(&s);
			return tm_error("cannot write '%s': %s", out, strerror(errno));
		}
		rc = tm_heap_write_collapsed(&s, f, alloc);
		if (f != stdout && fclose(f) != 0)
			rc = tm_error("cannot write '%s': %s", out, strerror(errno));
	} else {
		rc = tm_heap_write_pprof(&s, out);
		if (rc == 0) {
			char a[32], b[32];
			int64_t inuse = 0;
			for (size_t i = 0; i < s.nsites; i++)
				inuse += s.sites[i].inuse_bytes;
			tm_note(
			    "wrote %s: %zu sites, sampled in use %s (shim live %s); unwinder %s",
			    out, s.nsites, tm_fmt_mib(a, sizeof(a), inuse),
			    tm_fmt_mib(b, sizeof(b), s.counters.live_bytes), s.unwinder);
		}
	}
	tm_heap_snapshot_release(&s);
	return rc < 0 ? -1 : 0;
}

int tm_heap_cli_every(pid_t pid, const char *prefix, int64_t every_usec, volatile sig_atomic_t *now)
{
	char def[64], path[4096];
	if (!prefix) {
		snprintf(def, sizeof(def), "heap.%d", (int)pid);
		prefix = def;
	}
	int64_t next = tm_now_mono_usec();
	for (int n = 1;; n++) {
		const struct tmh_region *r = tm_heap_region_map(pid);
		int running = r && __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == TMH_RUNNING;
		tm_heap_region_unmap(r);
		if (!r)
			return n > 1 ? 0 : tm_error("pid %d has no heap region", (int)pid);
		snprintf(path, sizeof(path), "%s.%d.pb.gz", prefix, n);
		if (tm_heap_profile_write(pid, path) < 0)
			return n > 1 && !running ? 0 : -1;
		tm_note("wrote %s", path);
		if (!running)
			return 0;
		if (!*now) {
			next += every_usec;
			tm_sleep_until_mono(next, (volatile const int *)now);
		}
		*now = 0;
	}
}

int tm_heap_cli_run(char **cmd, const char *out, const char *sample, bool sites, int *exit_status)
{
	char preload[8192], dir[256];
	if (tm_heap_preload_value(preload, sizeof(preload), getenv("LD_PRELOAD"), sites) < 0 ||
	    tm_heap_region_dir_prepare(dir, sizeof(dir)) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return tm_error("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		setenv("LD_PRELOAD", preload, 1);
		setenv("TIDEMARK_HEAP_KEEP", "1", 1);
		setenv(TMH_DIR_ENV, dir, 1);
		if (sample)
			setenv("TIDEMARK_HEAP_SAMPLE", sample, 1);
		execvp(cmd[0], cmd);
		tm_error("cannot run '%s': %s", cmd[0], strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int rc = sample && !strcmp(sample, "0") ? tm_heap_stats_print(pid, 0, stdout)
	                                        : tm_heap_cli_profile(pid, out, false, false);
	tm_heap_region_unlink(pid);
	if (rc != 0)
		return -1;
	*exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

/* What `heap attach` did to a process whose allocator is linked in. */
static int print_linked(pid_t pid, const struct tm_attach_result *r, FILE *out)
{
	char base[64] = "n/a (it gives no allocated figure)";
	if (r->base_bytes >= 0)
		snprintf(base, sizeof(base), "%.1f MiB", (double)r->base_bytes / 1048576.0);
	fprintf(out,
	        "attached to %d: its thread stopped %.1f ms in all (%d stop%s); its allocator "
	        "(%s) is linked into its executable: no relocation entry rewritten, its own "
	        "statistics are read at each sample (allocated at attach %s)\n"
	        "memory added: the region %.1f MiB and the agent %.1f MiB, mapped until it exits\n"
	        "record it with `tidemark record -p %d --heap`; `tidemark heap detach %d` lets "
	        "go\n",
	        (int)pid, (double)r->stopped_usec / 1000.0, r->tries, r->tries == 1 ? "" : "s",
	        r->family, base, (double)r->region_bytes / 1048576.0,
	        (double)r->agent_bytes / 1048576.0, (int)pid, (int)pid);
	return 0;
}

int tm_heap_sample_kib(const char *text, uint32_t *kib)
{
	int64_t bytes = 512 * 1024;
	if (text && (tm_size_parse(text, &bytes) || bytes < 0))
		return tm_error("'%s': expected %s for the sample mean (0: no sites)", text,
		                TM_SIZE_EXPECT);
	int64_t k = bytes == 0 ? 0 : bytes < 1024 ? 1 : (bytes + 512) / 1024;
	*kib = k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
	return 0;
}

int tm_heap_cli_attach(pid_t pid, bool dry_run, const char *sample, int fail_at, FILE *out)
{
	struct tm_attach_opts o = {.interval_msec = 1000, .dry_run = dry_run, .fail_at = fail_at};
	struct tm_attach_result r;
	if (tm_heap_sample_kib(sample, &o.sample_kib) < 0 || tm_heap_attach(pid, &o, &r, out) < 0)
		return -1;
	if (dry_run)
		return 0;
	if (r.linked)
		return print_linked(pid, &r, out);
	char sites[96];
	if (o.sample_kib)
		snprintf(sites, sizeof(sites), "sites sampled every %u KiB on average from now on",
		         o.sample_kib);
	else
		snprintf(sites, sizeof(sites), "no sites (--sample 0)");
	fprintf(out,
	        "attached to %d: its thread stopped %.1f ms in all (%d stop%s); %lld relocation "
	        "entries in %lld objects now count; live heap at attach %.1f MiB (the "
	        "allocator's own figure); %s\n"
	        "memory added: the region %.1f MiB and the agent %.1f MiB, mapped until it exits\n"
	        "read it with `tidemark heap stats %d` and `tidemark heap %d`; `tidemark heap "
	        "detach %d` lets go\n",
	        (int)pid, (double)r.stopped_usec / 1000.0, r.tries, r.tries == 1 ? "" : "s",
	        (long long)r.hooks, (long long)r.objects, (double)r.base_bytes / 1048576.0, sites,
	        (double)r.region_bytes / 1048576.0, (double)r.agent_bytes / 1048576.0, (int)pid,
	        (int)pid, (int)pid);
	return 0;
}

int tm_heap_cli_detach(pid_t pid, FILE *out)
{
	int64_t hooks = 0;
	if (tm_heap_detach(pid, 5000, &hooks) < 0)
		return -1;
	fprintf(out,
	        "detached from %d: %lld relocation entries put back; nothing of the agent's "
	        "is called any more (it did not stop)\n",
	        (int)pid, (long long)hooks);
	return 0;
}
