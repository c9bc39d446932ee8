/* The figures of struct tm_summary by name, for JSON and CSV output. */
#ifndef TM_SUMMARY_FIELDS_H
#define TM_SUMMARY_FIELDS_H

#include <stddef.h>
#include <string.h>

#include "report/run/summary.h"

struct tm_summary_field {
	const char *name; /* as in --json and --csv; the unit is in the name */
	size_t offset;    /* of a double in struct tm_summary */
};

#define TM_SF(f)                                                                                   \
	{                                                                                          \
#f, offsetof(struct tm_summary, f)                                                 \
	}
/* a part of the JVM split (struct tm_jvm_split), under its own name */
#define TM_SJ(name, f)                                                                             \
	{                                                                                          \
#name, offsetof(struct tm_summary, jvm_split.f)                                    \
	}
static const struct tm_summary_field tm_summary_fields[] = {
    TM_SF(duration_usec),
    TM_SF(peak_anon_bytes),
    TM_SF(final_anon_bytes),
    TM_SF(held_anon_bytes),
    TM_SF(peak_current_bytes),
    TM_SF(cg_peak_bytes),
    TM_SF(median_file_bytes),
    TM_SF(peak_file_bytes),
    TM_SF(file_at_peak_bytes),
    TM_SF(peak_rss_bytes),
    TM_SF(heap_live_peak_bytes),
    TM_SF(heap_live_end_bytes),
    TM_SF(anon_heap_live_end_bytes),
    TM_SF(anon_allocator_held_end_bytes),
    TM_SF(anon_other_end_bytes),
    TM_SF(anon_heap_live_at_peak_bytes),
    TM_SF(anon_allocator_held_at_peak_bytes),
    TM_SF(anon_other_at_peak_bytes),
    TM_SF(heap_alloc_bytes),
    TM_SF(heap_allocs),
    TM_SF(heap_alloc_bytes_per_sec),
    TM_SF(heap_peak_bytes),
    TM_SF(limit_max_bytes),
    TM_SF(limit_high_bytes),
    TM_SF(high_events),
    TM_SF(max_events),
    TM_SF(oom_events),
    TM_SF(oom_kills),
    TM_SF(cpu_usec),
    TM_SF(io_read_bytes),
    TM_SF(io_write_bytes),
    TM_SF(psi_mem_some_usec),
    TM_SF(psi_mem_full_usec),
    TM_SF(psi_io_some_usec),
    TM_SF(psi_io_full_usec),
    TM_SF(progress_first),
    TM_SF(progress_last),
    TM_SF(progress_rate_per_min),
    TM_SF(progress_points),
    TM_SF(progress_points_bunched),
    TM_SF(progress_instants),
    TM_SF(anon_bytes_per_unit),
    TM_SF(anon_per_unit_r2),
    TM_SF(cpu_usec_per_unit),
    TM_SF(cpu_per_unit_r2),
    TM_SF(units),
    TM_SF(units_per_min),
    TM_SF(wall_usec_per_unit),
    TM_SF(jvm_heap_used_peak_bytes),
    TM_SF(jvm_heap_used_end_bytes),
    TM_SF(jvm_heap_committed_end_bytes),
    TM_SF(jvm_old_used_end_bytes),
    TM_SF(jvm_metaspace_used_end_bytes),
    TM_SF(jvm_old_after_gc_end_bytes),
    TM_SF(jvm_gcs),
    TM_SF(jvm_gc_usec),
    TM_SF(anon_minus_jvm_heap_used_end_bytes),
    TM_SJ(jvm_anon_end_bytes, anon_bytes),
    TM_SJ(jvm_anon_java_heap_end_bytes, java_heap_bytes),
    TM_SJ(jvm_anon_malloc_end_bytes, malloc_bytes),
    TM_SJ(jvm_anon_malloc_live_end_bytes, malloc_live_bytes),
    TM_SJ(jvm_anon_malloc_held_end_bytes, malloc_held_bytes),
    TM_SJ(jvm_anon_other_end_bytes, other_bytes),
    TM_SJ(jvm_anon_over_end_bytes, over_bytes),
    TM_SF(gc_heap_live_peak_bytes),
    TM_SF(gc_heap_live_end_bytes),
    TM_SF(gc_cycles),
    TM_SF(heap_peak_proven_bytes),
    TM_SF(anon_split_end_skew_bytes),
    TM_SF(anon_split_at_peak_skew_bytes),
    TM_SF(anon_allocator_held_end_own_bytes),
    TM_SF(jvm_log_heap_before_end_bytes),
    TM_SF(jvm_log_heap_after_end_bytes),
    TM_SF(jvm_log_heap_after_peak_bytes),
    TM_SF(jvm_log_old_after_end_bytes),
    TM_SF(jvm_log_gcs),
    TM_SF(jvm_procs_no_counters),
    TM_SJ(jvm_anon_java_heap_resident_end_bytes, java_resident_bytes),
    TM_SJ(jvm_anon_java_heap_free_end_bytes, java_free_bytes),
};
#undef TM_SF
#undef TM_SJ

static inline double tm_summary_get(const struct tm_summary *s, const struct tm_summary_field *f)
{
	double v;
	memcpy(&v, (const char *)s + f->offset, sizeof(v));
	return v;
}

#endif
