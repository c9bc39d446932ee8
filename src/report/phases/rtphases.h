/*
 * Each runtime's own series in a phase row (report/phases/phases.h): one
 * line here, its descriptor (struct tm_phase_series_desc: key, label, how
 * a sample gives it, how it is derived, its note) in its own file of
 * report/phases/ (tm_phs_NAME).  A line without its descriptor does not
 * link.  The runtimes' series come after anon and heap and before the
 * generic GC live heap: their place is the order of the text's columns,
 * the JSON's keys and the CSV's columns, so append, never reorder.  A
 * runtime whose series is the generic GC live heap (--runtime go|ghc|node)
 * needs none.
 *
 * X(ID, descriptor, NIN)   the series TM_PS_ID; NIN: how many figures of a
 *                          sample its derive reads (0: none, its value is a
 *                          sample's figure), at tm_phase_pt.in[TM_PSI_ID ...]
 */
#ifndef TM_REPORT_RTPHASES_H
#define TM_REPORT_RTPHASES_H

#define TM_RT_PHASE_SERIES_LIST(X)                                                                 \
	X(JVM_HEAP, tm_phs_jvm_heap, 0)                                                            \
	X(JVM_OLD_GC, tm_phs_jvm_old_gc, 2)

#endif
