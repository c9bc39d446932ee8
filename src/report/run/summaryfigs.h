/*
 * The summary figure registry: every double of struct tm_summary that
 * --json and --csv export, once, in their order.
 *
 * One line a figure; struct tm_summary's member (report/run/summary.h), its
 * start value (report/run/summary.c) and its place in the JSON and CSV
 * (report/run/summary_fields.h) derive from it, so a new figure is one line
 * here (and the code that computes it).  The position is the order of the
 * JSON's keys and the CSV's columns: append, never reorder, or pinned
 * outputs move.  tests/unit/test_report_summary.c walks it through both.
 *
 * F(name, START)  a double member NAME of struct tm_summary, exported under
 *                 its own name (the unit is in it); START is what it holds
 *                 before the samples are read: NAN (missing is not zero) or
 *                 0 for a count that is 0 with no samples
 * J(name, part)   a part of the JVM split (struct tm_jvm_split, member
 *                 jvm_split.PART), exported under NAME
 */
#ifndef TM_SUMMARYFIGS_H
#define TM_SUMMARYFIGS_H

/* clang-format off */
#define TM_SUMMARY_FIG_LIST(F, J)                                                                  \
	/* of the window (the whole run by default) */                                             \
	F(duration_usec, NAN)                                                                      \
	/* memory: anon is the cgroup's anon when there is a cgroup, else the  */                  \
	/* tree's RssAnon                                                      */                  \
	F(peak_anon_bytes, NAN)                                                                    \
	F(final_anon_bytes, NAN)                                                                   \
	/* anon at the end of the work: the last sample after the last         */                  \
	/* progress point or mark, or at exit; see docs                        */                  \
	F(held_anon_bytes, NAN)                                                                    \
	/* cgroup memory.current (v1 usage_in_bytes); for a whole run in its   */                  \
	/* fresh cgroup, never below cg_peak_bytes                             */                  \
	F(peak_current_bytes, NAN)                                                                 \
	/* the kernel's own memory.peak / max_usage_in_bytes                   */                  \
	F(cg_peak_bytes, NAN)                                                                      \
	F(median_file_bytes, NAN)                                                                  \
	F(peak_file_bytes, NAN)                                                                    \
	F(file_at_peak_bytes, NAN)                                                                 \
	F(peak_rss_bytes, NAN)                                                                     \
	/* heap shim, when present */                                                              \
	F(heap_live_peak_bytes, NAN)                                                               \
	F(heap_live_end_bytes, NAN)                                                                \
	/* anon = live heap + held by the allocator + other anon, from one     */                  \
	/* sample (at the end of the work, at the anon peak): held is the      */                  \
	/* allocators' own figure (heap_held_bytes) capped at anon - live,     */                  \
	/* other the rest; none below 0; NAN when the allocators gave no       */                  \
	/* figure                                                              */                  \
	F(anon_heap_live_end_bytes, NAN)                                                           \
	F(anon_allocator_held_end_bytes, NAN)                                                      \
	F(anon_other_end_bytes, NAN)                                                               \
	F(anon_heap_live_at_peak_bytes, NAN)                                                       \
	F(anon_allocator_held_at_peak_bytes, NAN)                                                  \
	F(anon_other_at_peak_bytes, NAN)                                                           \
	/* allocated over the window (usable bytes), and how many */                               \
	F(heap_alloc_bytes, NAN)                                                                   \
	F(heap_allocs, NAN)                                                                        \
	F(heap_alloc_bytes_per_sec, NAN)                                                           \
	/* the shim's peak of the tree's live bytes, between samples too       */                  \
	/* (whole run only): at most heap_peak_bytes, at least                 */                  \
	/* heap_peak_proven_bytes (below; heap/heaptree.h)                     */                  \
	F(heap_peak_bytes, NAN)                                                                    \
	/* limits and events over the window: last seen; -1 = none */                              \
	F(limit_max_bytes, NAN)                                                                    \
	F(limit_high_bytes, NAN)                                                                   \
	F(high_events, NAN)                                                                        \
	F(max_events, NAN)                                                                         \
	F(oom_events, NAN)                                                                         \
	F(oom_kills, NAN)                                                                          \
	/* cost: user + sys over the window */                                                     \
	F(cpu_usec, NAN)                                                                           \
	F(io_read_bytes, NAN)                                                                      \
	F(io_write_bytes, NAN)                                                                     \
	F(psi_mem_some_usec, NAN)                                                                  \
	F(psi_mem_full_usec, NAN)                                                                  \
	F(psi_io_some_usec, NAN)                                                                   \
	F(psi_io_full_usec, NAN)                                                                   \
	/* progress; the rate is NAN when the points arrived at once (bunched) */                  \
	F(progress_first, NAN)                                                                     \
	F(progress_last, NAN)                                                                      \
	F(progress_rate_per_min, NAN)                                                              \
	/* how many points; in the fullest instant; distinct arrival instants  */                  \
	/* (base/bunch.h)                                                      */                  \
	F(progress_points, 0)                                                                      \
	F(progress_points_bunched, 0)                                                              \
	F(progress_instants, 0)                                                                    \
	/* least-squares slopes of anon and cpu on progress */                                     \
	F(anon_bytes_per_unit, NAN)                                                                \
	F(anon_per_unit_r2, NAN)                                                                   \
	F(cpu_usec_per_unit, NAN)                                                                  \
	F(cpu_per_unit_r2, NAN)                                                                    \
	/* work done as the run was told it (--units N) or read it from its    */                  \
	/* output (--units-from REGEX): whole-run summaries only, else NAN.    */                  \
	/* With units and no progress line, cpu_usec_per_unit is cpu_usec /   */                  \
	/* units (cpu_per_unit_r2 stays NAN: no fit).  Per minute over the     */                  \
	/* duration; duration / units                                          */                  \
	F(units, NAN)                                                                              \
	F(units_per_min, NAN)                                                                      \
	F(wall_usec_per_unit, NAN)                                                                 \
	/* the JVMs of the tree (HotSpot's hsperfdata), when present: at the   */                  \
	/* end of the work as held_anon_bytes is; GCs (young + full) over the  */                  \
	/* window                                                              */                  \
	F(jvm_heap_used_peak_bytes, NAN)                                                           \
	F(jvm_heap_used_end_bytes, NAN)                                                            \
	F(jvm_heap_committed_end_bytes, NAN)                                                       \
	F(jvm_old_used_end_bytes, NAN)                                                             \
	F(jvm_metaspace_used_end_bytes, NAN)                                                       \
	/* the old gen used in the first sample after the JVMs' latest GC as   */                  \
	/* of the end (their live old data, what compares JVM arms); NAN       */                  \
	/* before any                                                          */                  \
	F(jvm_old_after_gc_end_bytes, NAN)                                                         \
	F(jvm_gcs, NAN)                                                                            \
	F(jvm_gc_usec, NAN)                                                                        \
	/* anon - Java heap used, at the end (the sample of                    */                  \
	/* jvm_heap_used_end_bytes): free but touched Java heap, the JVM's     */                  \
	/* malloc, code cache, thread stacks, GC data; NAN when used is more   */                  \
	/* than anon                                                           */                  \
	F(anon_minus_jvm_heap_used_end_bytes, NAN)                                                 \
	J(jvm_anon_end_bytes, anon_bytes)                                                          \
	J(jvm_anon_java_heap_end_bytes, java_heap_bytes)                                           \
	J(jvm_anon_malloc_end_bytes, malloc_bytes)                                                 \
	J(jvm_anon_malloc_live_end_bytes, malloc_live_bytes)                                       \
	J(jvm_anon_malloc_held_end_bytes, malloc_held_bytes)                                       \
	J(jvm_anon_other_end_bytes, other_bytes)                                                   \
	J(jvm_anon_over_end_bytes, over_bytes)                                                     \
	/* a GC runtime's own report (record --runtime, runtime/registry.h):   */                  \
	/* the live heap after its collections, the peak and the last in the   */                  \
	/* window, and how many                                                */                  \
	F(gc_heap_live_peak_bytes, NAN)                                                            \
	F(gc_heap_live_end_bytes, NAN)                                                             \
	F(gc_cycles, NAN)                                                                          \
	/* what the counters show held at one moment; NAN for a run recorded   */                  \
	/* before it was kept                                                  */                  \
	F(heap_peak_proven_bytes, NAN)                                                             \
	/* NAN, or how far the live heap moved while that sample read anon     */                  \
	/* when that was more than noise: the split's parts are then NAN (not  */                  \
	/* of one moment)                                                      */                  \
	F(anon_split_end_skew_bytes, NAN)                                                          \
	F(anon_split_at_peak_skew_bytes, NAN)                                                      \
	/* the allocators' own figure in the end's sample, before the cap at   */                  \
	/* anon - live (above anon_allocator_held_end_bytes: capped)           */                  \
	F(anon_allocator_held_end_own_bytes, NAN)                                                  \
	/* the launched JVM's own GC log (-Xlog:gc, runtime/jvmgclog.h): the   */                  \
	/* heap used before and after its last pause (whole MiB as it prints   */                  \
	/* them), the peak after a pause, the old gen after it (Parallel,      */                  \
	/* Serial: KiB; G1 logs whole regions, not taken), the GCs seen; and   */                  \
	/* the most JVMs seen at once without hsperfdata counters              */                  \
	/* (-XX:-UsePerfData, -XX:+PerfDisableSharedMem)                       */                  \
	F(jvm_log_heap_before_end_bytes, NAN)                                                      \
	F(jvm_log_heap_after_end_bytes, NAN)                                                       \
	F(jvm_log_heap_after_peak_bytes, NAN)                                                      \
	F(jvm_log_old_after_end_bytes, NAN)                                                        \
	F(jvm_log_gcs, NAN)                                                                        \
	F(jvm_procs_no_counters, NAN)                                                              \
	/* the most processes seen at once whose malloc is the executable's    */                  \
	/* own: live from their allocators' statistics, no exact peak          */                  \
	F(heap_exe_procs, NAN)                                                                     \
	/* huge pages khugepaged collapsed in the cgroup over the window       */                  \
	/* (memory.stat thp_collapse_alloc, v2), and the host's huge page      */                  \
	/* (hpage_pmd_size): memory.peak may pass anon by one of them          */                  \
	F(thp_collapses, NAN)                                                                      \
	F(hpage_bytes, NAN)                                                                        \
	J(jvm_anon_java_heap_resident_end_bytes, java_resident_bytes)                              \
	J(jvm_anon_java_heap_free_end_bytes, java_free_bytes)
/* clang-format on */

#endif
