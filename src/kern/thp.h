/*
 * Transparent huge pages: /sys/kernel/mm/transparent_hugepage/enabled
 * ("always [madvise] never": the word in brackets is the mode) and
 * hpage_pmd_size (the huge page's size in bytes, "2097152").  Text in,
 * no I/O.
 */
#ifndef TM_KERN_THP_H
#define TM_KERN_THP_H

#include <stddef.h>
#include <stdint.h>

enum tm_thp_mode { TM_THP_UNKNOWN, TM_THP_ALWAYS, TM_THP_MADVISE, TM_THP_NEVER };

/* The mode of BUF[0..LEN) into *OUT: 0, or -1 (OUT TM_THP_UNKNOWN) when no
 * known word is in brackets. */
int tm_parse_thp_enabled(const char *buf, size_t len, enum tm_thp_mode *out);
/* "always", "madvise", "never", "unknown". */
const char *tm_thp_mode_name(enum tm_thp_mode m);
/* hpage_pmd_size: a positive number of bytes into *OUT; 0, or -1 when malformed. */
int tm_parse_thp_size(const char *buf, size_t len, int64_t *out);

#endif
