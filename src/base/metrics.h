/*
 * The metric registry: every number a sample can hold.
 *
 * A metric has a stable numeric id (its position here: append only, never
 * reorder, since the store encodes samples by id), a name with its unit in
 * it, a unit and a kind.  A counter only grows (deltas are meaningful); a
 * gauge is a level.  The store keeps this table in the database too, so a
 * file stays readable by name after the list grows.
 */
#ifndef TM_METRICS_H
#define TM_METRICS_H

#include <stdbool.h>
#include <stdint.h>

enum tm_unit { TM_UNIT_BYTES, TM_UNIT_USEC, TM_UNIT_COUNT };
enum tm_kind { TM_GAUGE, TM_COUNTER };

/* X(ENUM, "name", unit, kind) */
#define TM_METRIC_LIST(X)                                                                          \
	/* process tree, summed over the target and its descendants */                             \
	X(PROC_COUNT, "proc_count", TM_UNIT_COUNT, TM_GAUGE)                                       \
	X(PROC_THREADS, "proc_threads", TM_UNIT_COUNT, TM_GAUGE)                                   \
	X(PROC_RSS_BYTES, "proc_rss_bytes", TM_UNIT_BYTES, TM_GAUGE)                               \
	X(PROC_RSS_ANON_BYTES, "proc_rss_anon_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(PROC_RSS_FILE_BYTES, "proc_rss_file_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(PROC_RSS_SHMEM_BYTES, "proc_rss_shmem_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	X(PROC_SWAP_BYTES, "proc_swap_bytes", TM_UNIT_BYTES, TM_GAUGE)                             \
	X(PROC_PSS_BYTES, "proc_pss_bytes", TM_UNIT_BYTES, TM_GAUGE)                               \
	X(PROC_PRIVATE_DIRTY_BYTES, "proc_private_dirty_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(PROC_SHARED_DIRTY_BYTES, "proc_shared_dirty_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(PROC_MINFLT, "proc_minflt", TM_UNIT_COUNT, TM_COUNTER)                                   \
	X(PROC_MAJFLT, "proc_majflt", TM_UNIT_COUNT, TM_COUNTER)                                   \
	X(PROC_UTIME_USEC, "proc_utime_usec", TM_UNIT_USEC, TM_COUNTER)                            \
	X(PROC_STIME_USEC, "proc_stime_usec", TM_UNIT_USEC, TM_COUNTER)                            \
	X(PROC_READ_BYTES, "proc_read_bytes", TM_UNIT_BYTES, TM_COUNTER)                           \
	X(PROC_WRITE_BYTES, "proc_write_bytes", TM_UNIT_BYTES, TM_COUNTER)                         \
	/* the target's memory cgroup (v2 names; v1 files map onto them) */                        \
	X(CG_CURRENT_BYTES, "cg_current_bytes", TM_UNIT_BYTES, TM_GAUGE)                           \
	X(CG_PEAK_BYTES, "cg_peak_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_MAX_BYTES, "cg_max_bytes", TM_UNIT_BYTES, TM_GAUGE)                                   \
	X(CG_HIGH_BYTES, "cg_high_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_SWAP_MAX_BYTES, "cg_swap_max_bytes", TM_UNIT_BYTES, TM_GAUGE)                         \
	X(CG_SWAP_CURRENT_BYTES, "cg_swap_current_bytes", TM_UNIT_BYTES, TM_GAUGE)                 \
	X(CG_ANON_BYTES, "cg_anon_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_FILE_BYTES, "cg_file_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_ACTIVE_FILE_BYTES, "cg_active_file_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	X(CG_INACTIVE_FILE_BYTES, "cg_inactive_file_bytes", TM_UNIT_BYTES, TM_GAUGE)               \
	X(CG_KERNEL_BYTES, "cg_kernel_bytes", TM_UNIT_BYTES, TM_GAUGE)                             \
	X(CG_KERNEL_STACK_BYTES, "cg_kernel_stack_bytes", TM_UNIT_BYTES, TM_GAUGE)                 \
	X(CG_SLAB_BYTES, "cg_slab_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_SOCK_BYTES, "cg_sock_bytes", TM_UNIT_BYTES, TM_GAUGE)                                 \
	X(CG_SHMEM_BYTES, "cg_shmem_bytes", TM_UNIT_BYTES, TM_GAUGE)                               \
	X(CG_FILE_MAPPED_BYTES, "cg_file_mapped_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	X(CG_FILE_DIRTY_BYTES, "cg_file_dirty_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(CG_FILE_WRITEBACK_BYTES, "cg_file_writeback_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(CG_ANON_THP_BYTES, "cg_anon_thp_bytes", TM_UNIT_BYTES, TM_GAUGE)                         \
	X(CG_PGFAULT, "cg_pgfault", TM_UNIT_COUNT, TM_COUNTER)                                     \
	X(CG_PGMAJFAULT, "cg_pgmajfault", TM_UNIT_COUNT, TM_COUNTER)                               \
	X(CG_WORKINGSET_REFAULT_FILE, "cg_workingset_refault_file", TM_UNIT_COUNT, TM_COUNTER)     \
	X(CG_EVENTS_LOW, "cg_events_low", TM_UNIT_COUNT, TM_COUNTER)                               \
	X(CG_EVENTS_HIGH, "cg_events_high", TM_UNIT_COUNT, TM_COUNTER)                             \
	X(CG_EVENTS_MAX, "cg_events_max", TM_UNIT_COUNT, TM_COUNTER)                               \
	X(CG_EVENTS_OOM, "cg_events_oom", TM_UNIT_COUNT, TM_COUNTER)                               \
	X(CG_EVENTS_OOM_KILL, "cg_events_oom_kill", TM_UNIT_COUNT, TM_COUNTER)                     \
	X(CG_FAILCNT, "cg_failcnt", TM_UNIT_COUNT, TM_COUNTER)                                     \
	X(CG_CPU_USAGE_USEC, "cg_cpu_usage_usec", TM_UNIT_USEC, TM_COUNTER)                        \
	X(CG_CPU_USER_USEC, "cg_cpu_user_usec", TM_UNIT_USEC, TM_COUNTER)                          \
	X(CG_CPU_SYSTEM_USEC, "cg_cpu_system_usec", TM_UNIT_USEC, TM_COUNTER)                      \
	X(CG_CPU_THROTTLED_USEC, "cg_cpu_throttled_usec", TM_UNIT_USEC, TM_COUNTER)                \
	X(CG_IO_READ_BYTES, "cg_io_read_bytes", TM_UNIT_BYTES, TM_COUNTER)                         \
	X(CG_IO_WRITE_BYTES, "cg_io_write_bytes", TM_UNIT_BYTES, TM_COUNTER)                       \
	X(CG_PSI_MEM_SOME_USEC, "cg_psi_mem_some_usec", TM_UNIT_USEC, TM_COUNTER)                  \
	X(CG_PSI_MEM_FULL_USEC, "cg_psi_mem_full_usec", TM_UNIT_USEC, TM_COUNTER)                  \
	X(CG_PSI_IO_SOME_USEC, "cg_psi_io_some_usec", TM_UNIT_USEC, TM_COUNTER)                    \
	X(CG_PSI_IO_FULL_USEC, "cg_psi_io_full_usec", TM_UNIT_USEC, TM_COUNTER)                    \
	X(CG_PSI_CPU_SOME_USEC, "cg_psi_cpu_some_usec", TM_UNIT_USEC, TM_COUNTER)                  \
	X(CG_PSI_CPU_FULL_USEC, "cg_psi_cpu_full_usec", TM_UNIT_USEC, TM_COUNTER)                  \
	/* the host */                                                                             \
	X(HOST_MEM_TOTAL_BYTES, "host_mem_total_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	X(HOST_MEM_AVAILABLE_BYTES, "host_mem_available_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(HOST_SWAP_TOTAL_BYTES, "host_swap_total_bytes", TM_UNIT_BYTES, TM_GAUGE)                 \
	X(HOST_SWAP_FREE_BYTES, "host_swap_free_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	X(HOST_PSI_MEM_SOME_USEC, "host_psi_mem_some_usec", TM_UNIT_USEC, TM_COUNTER)              \
	X(HOST_PSI_MEM_FULL_USEC, "host_psi_mem_full_usec", TM_UNIT_USEC, TM_COUNTER)              \
	X(HOST_PSI_IO_SOME_USEC, "host_psi_io_some_usec", TM_UNIT_USEC, TM_COUNTER)                \
	X(HOST_PSI_IO_FULL_USEC, "host_psi_io_full_usec", TM_UNIT_USEC, TM_COUNTER)                \
	X(HOST_PSI_CPU_SOME_USEC, "host_psi_cpu_some_usec", TM_UNIT_USEC, TM_COUNTER)              \
	X(HOST_CPU_BUSY_USEC, "host_cpu_busy_usec", TM_UNIT_USEC, TM_COUNTER)                      \
	X(HOST_CPU_STEAL_USEC, "host_cpu_steal_usec", TM_UNIT_USEC, TM_COUNTER)                    \
	X(HOST_CPU_TOTAL_USEC, "host_cpu_total_usec", TM_UNIT_USEC, TM_COUNTER)                    \
	/* the heap shim (libtidemark-heap.so), summed over shimmed processes */                   \
	X(HEAP_PROCS, "heap_procs", TM_UNIT_COUNT, TM_GAUGE)                                       \
	X(HEAP_LIVE_BYTES, "heap_live_bytes", TM_UNIT_BYTES, TM_GAUGE)                             \
	X(HEAP_PEAK_BYTES, "heap_peak_bytes", TM_UNIT_BYTES, TM_GAUGE)                             \
	X(HEAP_ALLOC_BYTES, "heap_alloc_bytes", TM_UNIT_BYTES, TM_COUNTER)                         \
	X(HEAP_ALLOCS, "heap_allocs", TM_UNIT_COUNT, TM_COUNTER)                                   \
	X(HEAP_FREES, "heap_frees", TM_UNIT_COUNT, TM_COUNTER)                                     \
	X(HEAP_HELD_BYTES, "heap_held_bytes", TM_UNIT_BYTES, TM_GAUGE)                             \
	/* JVMs of the tree, from HotSpot's hsperfdata counters (src/runtime/hsperf.h) */          \
	X(JVM_PROCS, "jvm_procs", TM_UNIT_COUNT, TM_GAUGE)                                         \
	X(JVM_HEAP_USED_BYTES, "jvm_heap_used_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(JVM_HEAP_COMMITTED_BYTES, "jvm_heap_committed_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(JVM_EDEN_USED_BYTES, "jvm_eden_used_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(JVM_EDEN_COMMITTED_BYTES, "jvm_eden_committed_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(JVM_SURVIVOR_USED_BYTES, "jvm_survivor_used_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(JVM_SURVIVOR_COMMITTED_BYTES, "jvm_survivor_committed_bytes", TM_UNIT_BYTES, TM_GAUGE)   \
	X(JVM_OLD_USED_BYTES, "jvm_old_used_bytes", TM_UNIT_BYTES, TM_GAUGE)                       \
	X(JVM_OLD_COMMITTED_BYTES, "jvm_old_committed_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(JVM_METASPACE_USED_BYTES, "jvm_metaspace_used_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(JVM_METASPACE_COMMITTED_BYTES, "jvm_metaspace_committed_bytes", TM_UNIT_BYTES, TM_GAUGE) \
	X(JVM_YOUNG_GCS, "jvm_young_gcs", TM_UNIT_COUNT, TM_COUNTER)                               \
	X(JVM_YOUNG_GC_USEC, "jvm_young_gc_usec", TM_UNIT_USEC, TM_COUNTER)                        \
	X(JVM_FULL_GCS, "jvm_full_gcs", TM_UNIT_COUNT, TM_COUNTER)                                 \
	X(JVM_FULL_GC_USEC, "jvm_full_gc_usec", TM_UNIT_USEC, TM_COUNTER)                          \
	/* a GC runtime's own report of each collection (record --runtime go|ghc) */               \
	X(GC_HEAP_LIVE_BYTES, "gc_heap_live_bytes", TM_UNIT_BYTES, TM_GAUGE)                       \
	X(GC_CYCLES, "gc_cycles", TM_UNIT_COUNT, TM_COUNTER)                                       \
	/* a Go program's own /metrics (record --scrape, runtime/scrapesel.h) */                   \
	X(GO_HEAP_ALLOC_BYTES, "go_heap_alloc_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	X(GO_HEAP_INUSE_BYTES, "go_heap_inuse_bytes", TM_UNIT_BYTES, TM_GAUGE)                     \
	/* the heap shim: the tree's peak of live bytes that the counters prove was held at        \
	 * one moment (heap_peak_bytes is its upper bound; equal: exact; heap/heaptree.h) */       \
	X(HEAP_PEAK_PROVEN_BYTES, "heap_peak_proven_bytes", TM_UNIT_BYTES, TM_GAUGE)               \
	/* how far the live heap moved while the sample read anon: the heap's reading              \
	 * just before the process and cgroup files against the one after them */                  \
	X(HEAP_READ_SKEW_BYTES, "heap_read_skew_bytes", TM_UNIT_BYTES, TM_GAUGE)                   \
	/* JVMs of the tree that publish no hsperfdata counters (libjvm.so mapped,     */          \
	/* no hsperfdata file: -XX:-UsePerfData, -XX:+PerfDisableSharedMem)            */          \
	X(JVM_PROCS_NO_COUNTERS, "jvm_procs_no_counters", TM_UNIT_COUNT, TM_GAUGE)                 \
	/* the launched JVM's own GC log (-Xlog:gc, runtime/jvmgclog.h): its last pause */         \
	X(JVM_LOG_HEAP_BEFORE_BYTES, "jvm_log_heap_before_bytes", TM_UNIT_BYTES, TM_GAUGE)         \
	X(JVM_LOG_HEAP_AFTER_BYTES, "jvm_log_heap_after_bytes", TM_UNIT_BYTES, TM_GAUGE)           \
	X(JVM_LOG_OLD_AFTER_BYTES, "jvm_log_old_after_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(JVM_LOG_GCS, "jvm_log_gcs", TM_UNIT_COUNT, TM_COUNTER)                                   \
	/* the JVMs' Java heap mappings' resident anonymous bytes (smaps of the heap's   */        \
	/* reserved range, sample/jvmresident.h), and how many JVMs they were read of    */        \
	X(JVM_HEAP_RESIDENT_BYTES, "jvm_heap_resident_bytes", TM_UNIT_BYTES, TM_GAUGE)             \
	X(JVM_HEAP_RESIDENT_PROCS, "jvm_heap_resident_procs", TM_UNIT_COUNT, TM_GAUGE)             \
	/* processes under the heap shim whose malloc is defined in the executable (a  */          \
	/* static allocator): their live heap comes from the allocator's own statistics */         \
	X(HEAP_EXE_PROCS, "heap_exe_procs", TM_UNIT_COUNT, TM_GAUGE)                               \
	/* huge pages khugepaged collapsed in the cgroup (memory.stat thp_collapse_alloc, */       \
	/* v2): each is charged before the pages it replaces are freed, so memory.peak    */       \
	/* can pass anon by one huge page that anon never held                            */       \
	X(CG_THP_COLLAPSE_ALLOC, "cg_thp_collapse_alloc", TM_UNIT_COUNT, TM_COUNTER)               \
	/* the host's huge page (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size)      */       \
	X(HOST_HPAGE_PMD_BYTES, "host_hpage_pmd_bytes", TM_UNIT_BYTES, TM_GAUGE)

enum tm_metric {
#define TM_X_ENUM(e, name, unit, kind) TM_M_##e,
	TM_METRIC_LIST(TM_X_ENUM)
#undef TM_X_ENUM
	    TM_METRIC_COUNT
};

struct tm_metric_info {
	const char *name;
	enum tm_unit unit;
	enum tm_kind kind;
};

/* The registry, indexed by enum tm_metric. */
const struct tm_metric_info *tm_metric_info(enum tm_metric m);

/* True when V can be a value of M: every metric counts or measures
 * something, so is at least 0; a limit (cg_max_bytes, cg_high_bytes,
 * cg_swap_max_bytes) may also be -1, "no limit". */
bool tm_metric_value_ok(enum tm_metric m, int64_t v);

/* Id of the metric called NAME, or -1. */
int tm_metric_by_name(const char *name);

const char *tm_unit_name(enum tm_unit u);

#endif
