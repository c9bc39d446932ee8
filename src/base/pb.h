/*
 * protobuf-c's runtime, loaded when first used, not linked: a pprof heap
 * profile written or read (heap/heapprof, heap/heaptop) and remote write
 * (serve/client/remotewrite) use it, a plain recorder never does, and
 * linked, its pages were 44 KiB of the recorder's RSS (issue 23;
 * base/dl.h).  The generated code calls the runtime by its own names;
 * base/pb_names.h, included first in every file, maps them to the
 * functions of base/pb.c, which take the library's on each call.  Its
 * empty string, the default of a proto3 string field, is ours: the
 * library compares a field with the default its descriptor names, never
 * with its own copy (a Windows DLL build of protobuf-c has one per module).
 */
#ifndef TM_BASE_PB_H
#define TM_BASE_PB_H

#include "base/pb_names.h"

/* The soname loaded (Debian's libprotobuf-c1). */
#define TM_PB_SONAME "libprotobuf-c.so.1"

/*
 * Loads the runtime (the first call maps it, for the process's life).  0,
 * or -1 after tm_error saying what is missing ("cannot load
 * libprotobuf-c.so.1: ...; ... (Debian: libprotobuf-c1)").  Call it before
 * packing or unpacking: the mapped functions cannot say why they fail
 * (a size of 0, a NULL message).
 */
int tm_pb_ready(void);

#endif
