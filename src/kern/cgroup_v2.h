/*
 * Pure parsers for cgroup v2 files (Documentation/admin-guide/cgroup-v2.rst).
 * Text in (BUF, LEN), never a path; 0, or -1 when malformed.  Keys the
 * kernel adds later are ignored; keys it lacks stay absent.
 *
 * Limits: a limit file holding "max" means unlimited and is stored as -1
 * (TM_CG_UNLIMITED).  All byte amounts are bytes; times are usec.
 */
#ifndef TM_KERN_CGROUP_V2_H
#define TM_KERN_CGROUP_V2_H

#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"

/* A cgroup limit metric (CG_MAX_BYTES, CG_HIGH_BYTES, CG_SWAP_MAX_BYTES)
 * holding this value means "no limit". */
#define TM_CG_UNLIMITED (-1)

/*
 * A single-value file: memory.current, memory.peak, memory.swap.current (a
 * number), or memory.max, memory.high, memory.swap.max (a number or "max",
 * giving TM_CG_UNLIMITED).  One trailing newline allowed.
 */
int tm_parse_cg2_value(const char *buf, size_t len, int64_t *out);

/* memory.stat: anon, file, active_file, inactive_file, kernel, kernel_stack,
 * slab, sock, shmem, file_mapped, file_dirty, file_writeback, anon_thp
 * (bytes), pgfault, pgmajfault, workingset_refault_file, thp_collapse_alloc
 * (counts). */
int tm_parse_cg2_memory_stat(const char *buf, size_t len, struct tm_sample *out);

/* memory.events: low, high, max, oom, oom_kill -> CG_EVENTS_*. */
int tm_parse_cg2_memory_events(const char *buf, size_t len, struct tm_sample *out);

/* cpu.stat: usage_usec, user_usec, system_usec, throttled_usec (the last
 * only exists with the cpu controller enabled). */
int tm_parse_cg2_cpu_stat(const char *buf, size_t len, struct tm_sample *out);

/*
 * io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N ..." per device; rbytes and
 * wbytes summed over devices -> CG_IO_READ_BYTES, CG_IO_WRITE_BYTES.  An
 * empty file (no I/O yet) gives 0 for both.
 */
int tm_parse_cg2_io_stat(const char *buf, size_t len, struct tm_sample *out);

#endif
