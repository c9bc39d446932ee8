/*
 * The snapshot takers of this folder (snap/snap.h's tm_snap_fn), one per
 * kind.  docs/snap.md says what each writes and what its summary means.
 */
#ifndef TM_SNAP_TAKERS_H
#define TM_SNAP_TAKERS_H

#include "snap/snap.h"

/* `jcmd PID GC.class_histogram` into a .txt; summary: the top classes. */
tm_snap_fn tm_snap_jvm_histogram;
/* `jcmd PID GC.heap_dump -gz=1` into a .hprof.gz (plain on a JVM that
 * cannot compress), then, once the JVM runs again, its holders into
 * PATH.holders.txt; summary: the top holder and its retained size. */
tm_snap_fn tm_snap_jvm_heap_dump;
/* A Go program's /debug/pprof/heap (REQ->url) into a .pb.gz; summary: the
 * top in-use site. */
tm_snap_fn tm_snap_go_heap;

#endif
