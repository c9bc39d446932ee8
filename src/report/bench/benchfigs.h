/*
 * The bench figure registry: every figure of the bench table, once.
 *
 * One line a figure; everything else derives from this list: the enum
 * tm_bench_fig (the position here is the order of the JSON's "figures" and
 * the CSV's columns: append, never reorder, or pinned outputs move), the
 * table's descriptors (report/bench/benchtab.c), the row order of the text table
 * and the panel (RANK), where a run's value comes from (FROM,
 * report/bench/benchload.c), which figures a --param bench fits (PARAM,
 * report/bench/benchparam.c) and how a value in the figure's unit is printed
 * (UNIT).  A figure left out of a place is a compile error there (arrays
 * sized TM_BF_COUNT with designated initialisers, -Woverride-init for a
 * RANK given twice) or a failing test (tests/unit/test_bench_figs.c walks
 * this list through the text, JSON, CSV, panel cells and docs/bench.md).
 *
 * X(ID, "key", "label", UNIT, SCALE, NOISE, AGG, PARAM, RANK, FROM)
 *   key    JSON/CSV name, with its unit in it
 *   label  the text table's row (in the unit it shows)
 *   UNIT   enum tm_bench_fig_unit of the raw value
 *   SCALE  raw * SCALE is what the text table shows
 *   NOISE  the noise floor (raw units): a median below it gets no ratio and
 *          no test, a difference below it is never an outlier (a run
 *          40 KiB off a median of 0 is not news)
 *   AGG    enum tm_bench_agg: what of a run's window the value is
 *   PARAM  1: bench --param fits it against N (per unit of N), 0: not
 *   RANK   the row's place in the text table: rows sort by it; distinct,
 *          below TM_BF_RANK_LIMIT (gaps leave room for a new row)
 *   FROM   FIELD(name): the run summary's double NAME (report/run/summary.h);
 *          DERIVED(fn): benchload.c's derive_fn() computes it from several
 *          (in the order of this list: it may use figures above it);
 *          SCRAPED: from the run's scraped gauges (report/bench/benchscrape.c)
 */
#ifndef TM_BENCHFIGS_H
#define TM_BENCHFIGS_H

/* The unit of a figure's raw value. */
enum tm_bench_fig_unit {
	TM_BFU_BYTES,
	TM_BFU_USEC,
	TM_BFU_USEC_PER_UNIT, /* usec per progress unit */
	TM_BFU_EVENTS,        /* a count of events */
	TM_BFU_PROGRESS,      /* the program's own progress units */
	TM_BFU_PER_MIN,       /* progress units per minute */
	TM_BFU_GAUGE,         /* a scraped gauge's own unit */
};

/* What a figure is of a run's window. */
enum tm_bench_agg {
	TM_BA_PEAK,     /* the highest value */
	TM_BA_AT_PEAK,  /* at the moment another figure peaked */
	TM_BA_END,      /* at the end of the work */
	TM_BA_LAST,     /* the last value seen */
	TM_BA_TOTAL,    /* summed (a counter's increase) over the window */
	TM_BA_RATE,     /* per minute over the window */
	TM_BA_PER_UNIT, /* per progress unit */
};

#define TM_BF_RANK_LIMIT 1000

/* clang-format off */
#define TM_BENCH_FIG_LIST(X)                                                                       \
	X(PEAK_ANON, "peak_anon_bytes", "peak anon MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB,       \
	  TM_BA_PEAK, 1, 10, FIELD(peak_anon_bytes))                                               \
	/* the cgroup's own peak of memory.current */                                              \
	X(PEAK_MEM, "peak_memory_bytes", "peak memory MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB,    \
	  TM_BA_PEAK, 1, 20, DERIVED(peak_mem))                                                    \
	/* anon still held after the work (end of --settle) */                                     \
	X(HELD_ANON, "held_anon_bytes", "held after MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB,      \
	  TM_BA_END, 1, 30, FIELD(held_anon_bytes))                                                \
	/* page cache when memory.current peaked */                                                \
	X(FILE_AT_PEAK, "cache_at_peak_bytes", "cache at peak MiB", TM_BFU_BYTES, 1.0 / TM_MIB,    \
	  TM_MIB, TM_BA_AT_PEAK, 0, 200, FIELD(file_at_peak_bytes))                                \
	X(WALL, "wall_usec", "wall s", TM_BFU_USEC, 1e-6, 50e3, TM_BA_TOTAL, 1, 210, DERIVED(wall)) \
	/* user + sys */                                                                           \
	X(CPU, "cpu_usec", "cpu s", TM_BFU_USEC, 1e-6, 50e3, TM_BA_TOTAL, 1, 220, FIELD(cpu_usec)) \
	/* memory.high throttle events */                                                          \
	X(HIGH_EVENTS, "high_events", "high throttles", TM_BFU_EVENTS, 1, 1, TM_BA_TOTAL, 0, 230,  \
	  FIELD(high_events))                                                                      \
	/* some-stall */                                                                           \
	X(PSI_MEM, "psi_mem_some_usec", "psi mem stall s", TM_BFU_USEC, 1e-6, 50e3, TM_BA_TOTAL, 0, \
	  240, FIELD(psi_mem_some_usec))                                                           \
	X(PSI_IO, "psi_io_some_usec", "psi io stall s", TM_BFU_USEC, 1e-6, 50e3, TM_BA_TOTAL, 0,   \
	  250, FIELD(psi_io_some_usec))                                                            \
	/* read + written */                                                                       \
	X(IO, "io_bytes", "io MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB, TM_BA_TOTAL, 0, 260,       \
	  DERIVED(io))                                                                             \
	X(PROGRESS, "progress", "progress", TM_BFU_PROGRESS, 1, 0, TM_BA_LAST, 0, 270, DERIVED(progress)) \
	X(RATE, "progress_per_min", "rate /min", TM_BFU_PER_MIN, 1, 0, TM_BA_RATE, 0, 280,         \
	  DERIVED(rate))                                                                           \
	X(WALL_PER_UNIT, "wall_usec_per_unit", "wall ms/unit", TM_BFU_USEC_PER_UNIT, 1e-3, 0,      \
	  TM_BA_PER_UNIT, 0, 290, DERIVED(wall_per_unit))                                          \
	X(CPU_PER_UNIT, "cpu_usec_per_unit", "cpu ms/unit", TM_BFU_USEC_PER_UNIT, 1e-3, 0,         \
	  TM_BA_PER_UNIT, 0, 300, DERIVED(cpu_per_unit))                                           \
	/* the heap shim's peak of live heap (bench --heap), and the split of  */                  \
	/* held after: live heap, what the allocator holds beyond it (its own  */                  \
	/* figure), the rest of anon (program's own mappings, stacks)          */                  \
	X(HEAP_PEAK, "heap_peak_bytes", "heap peak MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB,       \
	  TM_BA_PEAK, 1, 40, FIELD(heap_peak_bytes))                                               \
	X(HEAP_END, "heap_live_end_bytes", "heap live after MiB", TM_BFU_BYTES, 1.0 / TM_MIB,      \
	  TM_MIB, TM_BA_END, 1, 50, DERIVED(heap_end))                                             \
	X(ALLOC_HELD, "allocator_held_end_bytes", "allocator held MiB", TM_BFU_BYTES,              \
	  1.0 / TM_MIB, TM_MIB, TM_BA_END, 1, 60, FIELD(anon_allocator_held_end_bytes))            \
	X(OTHER_ANON, "other_anon_end_bytes", "other anon MiB", TM_BFU_BYTES, 1.0 / TM_MIB, TM_MIB, \
	  TM_BA_END, 1, 70, FIELD(anon_other_end_bytes))                                           \
	/* a runtime's own heap, at the end of the work (docs/runtimes.md) */                      \
	X(JVM_OLD_AFTER_GC, "jvm_old_after_gc_end_bytes", "old after GC MiB", TM_BFU_BYTES,        \
	  1.0 / TM_MIB, TM_MIB, TM_BA_END, 1, 80, FIELD(jvm_old_after_gc_end_bytes))               \
	X(JVM_HEAP_USED, "jvm_heap_used_end_bytes", "java heap used MiB", TM_BFU_BYTES,            \
	  1.0 / TM_MIB, TM_MIB, TM_BA_END, 1, 90, FIELD(jvm_heap_used_end_bytes))                  \
	X(JVM_HEAP_COMMITTED, "jvm_heap_committed_end_bytes", "java committed MiB", TM_BFU_BYTES,  \
	  1.0 / TM_MIB, TM_MIB, TM_BA_END, 1, 100, FIELD(jvm_heap_committed_end_bytes))            \
	/* --runtime go|ghc: live after the last GC */                                             \
	X(GC_LIVE, "gc_heap_live_end_bytes", "gc live after MiB", TM_BFU_BYTES, 1.0 / TM_MIB,      \
	  TM_MIB, TM_BA_END, 1, 110, FIELD(gc_heap_live_end_bytes))                                \
	/* scraped gauges present in every arm (record --scrape; the table's   */                  \
	/* scraped[] names them, report/bench/benchscrape.c): peak and last value    */                  \
	/* over each whole run, two whose name ends in _bytes, two others      */                  \
	X(SCRAPED_1_PEAK, "scraped_1_peak_bytes", "scraped 1 peak MiB", TM_BFU_BYTES,              \
	  1.0 / TM_MIB, TM_MIB, TM_BA_PEAK, 1, 120, SCRAPED)                                       \
	X(SCRAPED_1_LAST, "scraped_1_last_bytes", "scraped 1 last MiB", TM_BFU_BYTES,              \
	  1.0 / TM_MIB, TM_MIB, TM_BA_LAST, 1, 130, SCRAPED)                                       \
	X(SCRAPED_2_PEAK, "scraped_2_peak_bytes", "scraped 2 peak MiB", TM_BFU_BYTES,              \
	  1.0 / TM_MIB, TM_MIB, TM_BA_PEAK, 1, 140, SCRAPED)                                       \
	X(SCRAPED_2_LAST, "scraped_2_last_bytes", "scraped 2 last MiB", TM_BFU_BYTES,              \
	  1.0 / TM_MIB, TM_MIB, TM_BA_LAST, 1, 150, SCRAPED)                                       \
	X(SCRAPED_3_PEAK, "scraped_3_peak", "scraped 3 peak", TM_BFU_GAUGE, 1, 0, TM_BA_PEAK, 0,   \
	  160, SCRAPED)                                                                            \
	X(SCRAPED_3_LAST, "scraped_3_last", "scraped 3 last", TM_BFU_GAUGE, 1, 0, TM_BA_LAST, 0,   \
	  170, SCRAPED)                                                                            \
	X(SCRAPED_4_PEAK, "scraped_4_peak", "scraped 4 peak", TM_BFU_GAUGE, 1, 0, TM_BA_PEAK, 0,   \
	  180, SCRAPED)                                                                            \
	X(SCRAPED_4_LAST, "scraped_4_last", "scraped 4 last", TM_BFU_GAUGE, 1, 0, TM_BA_LAST, 0,   \
	  190, SCRAPED)                                                                            \
	/* full-stall: every task of the cgroup stalled on memory at once */                       \
	X(PSI_MEM_FULL, "psi_mem_full_usec", "psi mem full s", TM_BFU_USEC, 1e-6, 50e3,            \
	  TM_BA_TOTAL, 0, 245, FIELD(psi_mem_full_usec))
/* clang-format on */

#endif
