/*
 * What `tidemark heap` does once its options are parsed: a profile of a
 * running process, profiles every DURATION until it exits, and a command
 * run under the shim with its profile at exit.  Each returns errors (after
 * tm_error) and never exits; cmd/heap.c maps the result to an exit code.
 */
#ifndef TM_HEAPCLI_H
#define TM_HEAPCLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * `tidemark heap PID`: a snapshot of PID's sampled sites written to OUT
 * (borrowed; NULL: heap.PID.pb.gz, or "-" with COLLAPSED): as a gzip'd
 * pprof profile, then "wrote OUT: N sites, sampled in use X MiB (shim live
 * Y MiB)" on stderr; or with COLLAPSED as "outer;...;leaf BYTES" lines (in-use
 * bytes, allocated bytes with ALLOC), OUT "-" meaning stdout.  0, or -1
 * after tm_error (no region, no sampling, a file that cannot be written).
 */
int tm_heap_cli_profile(pid_t pid, const char *out, bool collapsed, bool alloc);

/*
 * `tidemark heap PID --every`: writes PREFIX.1.pb.gz, PREFIX.2.pb.gz ...
 * (PREFIX borrowed; NULL: heap.PID) every EVERY_USEC microseconds, and at
 * once when *NOW is set (by the caller's signal handler; cleared here after
 * each profile), saying "wrote PATH" on stderr for each, until PID's region
 * says it has exited; the last profile is taken from the region it leaves
 * (TIDEMARK_HEAP_KEEP=1).  0 once the process is gone after at least one
 * profile, or -1 after tm_error (no region at the start, a profile of a
 * running process that failed).
 */
int tm_heap_cli_every(pid_t pid, const char *prefix, int64_t every_usec,
                      volatile sig_atomic_t *now);

/*
 * `tidemark heap run -- CMD`: runs CMD (a NULL-terminated argv, borrowed;
 * found in PATH) in a child with the shim first in LD_PRELOAD (the sites-only
 * build with SITES), TIDEMARK_HEAP_KEEP=1 and, when SAMPLE (the --sample text
 * as given) is not NULL, TIDEMARK_HEAP_SAMPLE=SAMPLE; waits for it; then
 * prints its counters to stdout (`heap stats`) when SAMPLE is "0", or writes
 * its profile as tm_heap_cli_profile(pid, OUT, false, false) does; and
 * removes the region it kept.  A child that cannot exec CMD says so on
 * stderr and exits 127.  0 and *EXIT_STATUS (the child's exit status, or
 * 128 + the signal that killed it), or -1 after tm_error (no shim, fork,
 * no profile).
 */
int tm_heap_cli_run(char **cmd, const char *out, const char *sample, bool sites, int *exit_status);

/*
 * `tidemark heap attach PID` (attach.h): attaches, then says on OUT what
 * it cost ("attached to PID: its main thread stopped 1.8 ms ...") or with
 * DRY_RUN what it would do.  SAMPLE: the mean bytes between sampled
 * allocations as text (tm_heap_sample_kib; NULL: 512K).  FAIL_AT: a step
 * to fail on purpose, 0 none (tm_attach_opts; the test build's hook).  0,
 * or -1 after tm_error (a refusal, a step that failed: PID is left as it
 * was).  `heap detach PID`: 0, or -1.
 */
int tm_heap_cli_attach(pid_t pid, bool dry_run, const char *sample, int fail_at, FILE *out);
int tm_heap_cli_detach(pid_t pid, FILE *out);

/* The agent's sample mean in KiB from TEXT (a size as TIDEMARK_HEAP_SAMPLE
 * takes it; NULL: 512K; a size under 1 KiB but not 0 is 1 KiB): 0 and
 * *KIB (0: no sites), or -1 after tm_error. */
int tm_heap_sample_kib(const char *text, uint32_t *kib);
int tm_heap_cli_detach(pid_t pid, FILE *out);

#endif
