/*
 * The JVMs of a tree: each process that maps a HotSpot hsperfdata file
 * (src/runtime/hsperf.h) adds its Java heap to the sample.
 *
 * The file is found through the process's own /proc/PID/maps (the JVM maps
 * it), so a stale file left by a crashed JVM whose pid was reused is never
 * read, and a JVM in another mount namespace (a container) is found by its
 * own path, opened through /proc/PID/root.  Processes that map none are
 * looked at again with a growing back-off (a JVM creates the file while it
 * starts), from 0.25 s up to 30 s.
 */
#ifndef TM_SAMPLE_JVM_H
#define TM_SAMPLE_JVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sample.h"
#include "sample/proctree.h"

/* Scratch space for one hsperfdata file; the biggest file read. */
#define TM_JVM_BUF_BYTES (1u << 20)

/*
 * Adds P's JVM figures to OUT when P maps an hsperfdata file (opened once,
 * kept in P->hsperf_fd, re-read with pread each sample).  BUF: at least
 * TM_JVM_BUF_BYTES of scratch.  NOW paces the looks.  Never an error: a
 * process with no file, or a file that does not parse, adds nothing; one
 * that maps libjvm.so and no file (a JVM run with -XX:-UsePerfData or
 * -XX:+PerfDisableSharedMem) adds 1 to JVM_PROCS_NO_COUNTERS.
 */
void tm_jvm_sample(struct tm_proc *p, int64_t now_mono_usec, uint8_t *buf, struct tm_sample *out);

/*
 * Finds the hsperfdata path in LEN bytes of /proc/PID/maps text: the first
 * mapped file whose name has a "/hsperfdata_" directory (not "(deleted)").
 * Copies it into PATH (SIZE bytes) with the kernel's escape of a newline
 * ("\012") undone and returns 0, or -1 when none.  The process chose that
 * name: tm_jvm_sample opens it only as a regular file of the process's uid,
 * without following a final link or waiting on a FIFO.
 */
int tm_jvm_maps_find(const char *maps, size_t len, char *path, size_t size);

/* Whether LEN bytes of /proc/PID/maps text map HotSpot's libjvm.so. */
bool tm_jvm_maps_is_jvm(const char *maps, size_t len);

#endif
