/*
 * --restore SNAPSHOT:DIR: before every run, DIR is replaced by a copy of
 * SNAPSHOT, so every run starts from the same state and nothing a run
 * writes leaks into the next.  Files are reflinked (FICLONE) where the
 * filesystem allows it, else copied with copy_file_range.
 */
#ifndef TM_BENCHRESTORE_H
#define TM_BENCHRESTORE_H

#include <stddef.h>
#include <stdint.h>

struct tm_restore_stats {
	int64_t files, reflinked, bytes;
};

/* Splits "SNAPSHOT:DIR" (the last ':' separates) and checks both are usable
 * directories that do not contain each other.  0 or -1 after tm_error. */
int tm_bench_restore_parse(const char *spec, char *snapshot, char *dir, size_t size);

/* Replaces DIR by a copy of SNAPSHOT.  0 or -1 after tm_error. */
int tm_bench_restore(const char *snapshot, const char *dir, struct tm_restore_stats *stats);

#endif
