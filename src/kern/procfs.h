/*
 * Pure parsers for /proc files.  Each takes the file's text (BUF, LEN; no NUL
 * needed, never read past LEN) and fills a struct or a tm_sample; none opens
 * a file.  They return 0, or -1 when the text is malformed or truncated (the
 * caller names the file in its error).  Fields the text lacks stay absent.
 * Sizes are stored in bytes (the kernel's kB are KiB), times in usec.
 */
#ifndef TM_KERN_PROCFS_H
#define TM_KERN_PROCFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/sample.h"

/*
 * /proc/PID/status: VmRSS -> PROC_RSS_BYTES, RssAnon, RssFile, RssShmem,
 * VmSwap -> PROC_SWAP_BYTES, Threads -> PROC_THREADS.  A kernel thread or a
 * zombie has no Vm* lines: those stay absent.
 */
int tm_parse_proc_status(const char *buf, size_t len, struct tm_sample *out);

/*
 * /proc/PID/statm: "size resident shared text lib data dt" in pages.  Sets
 * PROC_RSS_BYTES (resident) and PROC_RSS_ANON_BYTES (resident - shared:
 * the kernel's "shared" is file plus shmem pages, so this is RssAnon).  Far
 * cheaper for the kernel to produce than status, so it is read every sample.
 */
int tm_parse_proc_statm(const char *buf, size_t len, long page_size, struct tm_sample *out);

/* The kernel's TASK_COMM_LEN: a command name and its NUL. */
#define TM_COMM_LEN 16

/* A process's command name (stat's second field, as /proc/PID/comm has it). */
struct tm_comm {
	char name[TM_COMM_LEN];
};

/* /proc/PID/stat, the fields tidemark uses. */
struct tm_proc_stat {
	pid_t pid;
	struct tm_comm comm; /* between the first '(' and the last ')', cut at 15 bytes */
	char state;          /* R, S, D, Z, ... */
	pid_t ppid;
	int64_t minflt, majflt;
	int64_t utime_usec, stime_usec;
	int64_t num_threads;
	int64_t starttime; /* clock ticks after boot: with pid, a process identity */
};

/*
 * Parses /proc/PID/stat.  The command name may hold spaces and parentheses,
 * so fields are counted from the LAST ')'.  CLK_TCK is sysconf(_SC_CLK_TCK)
 * (utime/stime are in clock ticks).
 */
int tm_parse_proc_stat(const char *buf, size_t len, long clk_tck, struct tm_proc_stat *out);

/* PROC_MINFLT, PROC_MAJFLT, PROC_UTIME_USEC, PROC_STIME_USEC, PROC_THREADS from ST. */
void tm_proc_stat_to_sample(const struct tm_proc_stat *st, struct tm_sample *out);

/* /proc/PID/io: read_bytes -> PROC_READ_BYTES, write_bytes -> PROC_WRITE_BYTES. */
int tm_parse_proc_io(const char *buf, size_t len, struct tm_sample *out);

/* /proc/PID/smaps_rollup: Pss, Private_Dirty, Shared_Dirty (PROC_PSS_BYTES ...). */
int tm_parse_smaps_rollup(const char *buf, size_t len, struct tm_sample *out);

/* /proc/meminfo: MemTotal, MemAvailable, SwapTotal, SwapFree (HOST_*). */
int tm_parse_meminfo(const char *buf, size_t len, struct tm_sample *out);

/*
 * /proc/stat, its first "cpu " line (all CPUs): HOST_CPU_BUSY_USEC =
 * user+nice+system+irq+softirq+steal, HOST_CPU_STEAL_USEC, HOST_CPU_TOTAL_USEC
 * = busy+idle+iowait.  (guest time is already inside user.)
 */
int tm_parse_proc_stat_cpu(const char *buf, size_t len, long clk_tck, struct tm_sample *out);

/*
 * /proc/stat's "processes" line: the host's count of forks (threads
 * included) since boot, into *FORKS.  0, or -1 when the line is not in BUF
 * (a truncated read, a fixture without it): the caller must then assume
 * anything may have forked.
 */
int tm_parse_proc_stat_forks(const char *buf, size_t len, int64_t *forks);

/*
 * /proc/PID/maps -> the allocator the process has mapped: the family of
 * the first mapping named like a library of the registry's
 * (base/allocators.h: "jemalloc" for libjemalloc*, "mimalloc",
 * "tcmalloc"), else "glibc".  NULL when the text has no mapping at all (a kernel thread, or
 * the process is gone).  The result is a static string.
 */
const char *tm_parse_maps_allocator(const char *buf, size_t len);

/* /proc/PID/cgroup: where a process sits in each hierarchy. */
struct tm_proc_cgroup {
	bool has_memory, has_cpuacct, has_unified;
	char memory[PATH_MAX];  /* v1 "N:...memory...:/path" */
	char cpuacct[PATH_MAX]; /* v1 "N:...cpuacct...:/path" */
	char unified[PATH_MAX]; /* v2 "0::/path" */
};
int tm_parse_proc_cgroup(const char *buf, size_t len, struct tm_proc_cgroup *out);

/* From /proc/self/mountinfo: a hierarchy's mount point and the path inside
 * the hierarchy that it shows (its "root", usually "/"). */
struct tm_cg_mount {
	bool found;
	char dir[PATH_MAX];
	char root[PATH_MAX];
};
struct tm_cg_mounts {
	struct tm_cg_mount memory;  /* v1 hierarchy with the memory controller */
	struct tm_cg_mount cpuacct; /* v1 hierarchy with cpuacct */
	struct tm_cg_mount unified; /* the cgroup2 mount */
};

/* Finds the first mount of each; mount paths are unescaped (\040 -> ' '). */
int tm_parse_mountinfo(const char *buf, size_t len, struct tm_cg_mounts *out);

/*
 * A list of decimal pids separated by blanks or newlines (task/TID/children,
 * cgroup.procs).  Stores up to CAP of them in PIDS and the number found in
 * *N (which may exceed CAP: the caller can grow and retry).  -1 on a token
 * that is not a positive pid.
 */
int tm_parse_pid_list(const char *buf, size_t len, pid_t *pids, size_t cap, size_t *n);

#endif
