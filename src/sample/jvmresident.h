/*
 * A JVM's Java heap resident pages, each sample (sample/javaheap.h finds
 * the heap's range and sums its resident anonymous pages): what the JVM
 * split needs to tell the Java heap's free but touched pages from other
 * anon (code cache, thread stacks, GC data).
 */
#ifndef TM_SAMPLE_JVMRESIDENT_H
#define TM_SAMPLE_JVMRESIDENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "sample/proctree.h"

/*
 * Adds P's Java heap resident anonymous bytes to OUT (JVM_HEAP_RESIDENT_BYTES,
 * and 1 to JVM_HEAP_RESIDENT_PROCS) when its range is known or found now.
 * HS: the LEN bytes of P's hsperfdata file as read this sample (its
 * generations' maxCapacity give the reserved size, their capacity the
 * committed); BUF: BUF_SIZE bytes of scratch, which may be HS itself (HS is
 * read first).  NOW paces the looks for the range (0.25 s doubling to 30 s).
 * Reads at most BUF_SIZE bytes of /proc/PID/maps or smaps, smaps only as
 * far as the heap's end.  Never an error: what cannot be read adds nothing.
 */
void tm_jvm_resident_sample(struct tm_proc *p, const uint8_t *hs, size_t len, int64_t now_mono_usec,
                            uint8_t *buf, size_t buf_size, struct tm_sample *out);

#endif
