/*
 * The Java heap's resident pages: HotSpot reserves the whole heap as one
 * range of address space (MaxHeapSize; hsperfdata's generations'
 * maxCapacity give its size, not its address) and commits parts of it.
 * The range is found in /proc/PID/maps by its shape: contiguous private
 * mappings, anonymous or a CDS archive mapped into the heap, that span
 * exactly the reserved size and whose read-write parts hold at least the
 * committed size hsperfdata gives (more while G1 has yet to uncommit what
 * it shrank), found once: two such ranges are no answer.  Its resident anonymous pages are then
 * summed from /proc/PID/smaps, read only as far as the range's end.
 *
 * The parsers are pure (text in, figures out; nothing allocated, nothing
 * read outside the text), fuzzed by fuzz/fuzz_javaheap.c.
 */
#ifndef TM_SAMPLE_JAVAHEAP_H
#define TM_SAMPLE_JAVAHEAP_H

#include <stddef.h>
#include <stdint.h>

struct tm_javaheap_range {
	uint64_t start, end; /* [start, end), bytes of address space */
};

/*
 * Finds in LEN bytes of /proc/PID/maps text the range of RESERVED bytes
 * (> 0) tiled by contiguous private mappings (anonymous, or a file whose
 * name ends in ".jsa"), starting at one's start and ending at one's end,
 * whose read-write mappings add up to at least COMMITTED - TOL bytes.  0 and
 * *OUT when exactly one range is so; -1 when none, or more than one (which
 * is the heap cannot be told).  A line that does not parse ends any range.
 */
int tm_javaheap_find(const char *maps, size_t len, uint64_t reserved, uint64_t committed,
                     uint64_t tol, struct tm_javaheap_range *out);

/*
 * Sums the "Anonymous:" lines (kB) of the mappings of LEN bytes of
 * /proc/PID/smaps text that lie in R into *ANON_BYTES.  The text may stop
 * anywhere after R's last mapping.  0, or -1 when the mappings found do not
 * tile R exactly (it was unmapped, or the text stopped inside it) or one of
 * them has no Anonymous line.
 */
int tm_javaheap_smaps_anon(const char *smaps, size_t len, const struct tm_javaheap_range *r,
                           uint64_t *anon_bytes);

/*
 * Whether LEN bytes of smaps text hold a mapping header that starts at or
 * after END (the text has gone past a range ending there; the reader stops).
 */
int tm_javaheap_smaps_past(const char *smaps, size_t len, uint64_t end);

#endif
