/*
 * HPROF heap dumps, as HotSpot writes them (`jcmd PID GC.heap_dump FILE`,
 * -XX:+HeapDumpOnOutOfMemoryError), read in one streaming pass into a class
 * histogram: instances and shallow bytes per class, counted the way
 * `jcmd PID GC.class_histogram` counts them.  Memory is bounded whatever
 * the dump holds (see tm_hprof_histogram_read), never by its size.  The
 * format and the object-layout rule are in docs/hprof.md.
 */
#ifndef TM_HPROF_H
#define TM_HPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hprof/input.h"

/*
 * How the dumping JVM laid out its objects; the dump itself says only the
 * identifier size.  Defaults (tm_hprof_layout_default) are HotSpot's on a
 * 64-bit JVM with a heap under 32 GiB: compressed references and class
 * pointers.
 */
struct tm_hprof_layout {
	bool compressed_oops;           /* references are 4 bytes (else the id size) */
	bool compressed_class_pointers; /* object headers are 12 bytes (else 16) */
};

void tm_hprof_layout_default(struct tm_hprof_layout *l);

/* The sizes, in bytes, a JVM with identifiers of ID_SIZE and layout L uses. */
struct tm_hprof_sizes {
	unsigned ref;        /* a reference field or array element */
	unsigned header;     /* an instance's header */
	unsigned array_base; /* an array's header and length */
};
void tm_hprof_sizes(unsigned id_size, const struct tm_hprof_layout *l, struct tm_hprof_sizes *s);

/* The offset in an instance after the fields of class NAME (as the dump
 * spells it, "java/lang/Thread"; NULL for unknown), given AT, the offset
 * after the fields the dump declares for it: adds what HotSpot injects
 * into that class and does not dump (docs/hprof.md). */
uint64_t tm_hprof_class_end(const char *name, unsigned id_size, unsigned ref_bytes, uint64_t at);

/* One class's row.  SHALLOW_BYTES is -1 where the dump cannot say (the
 * java.lang.Class mirrors: HotSpot adds fields to them that it does not
 * dump). */
struct tm_hprof_row {
	char *name; /* "java.lang.String", "[B", "[Ljava.lang.Object;" */
	uint64_t instances;
	int64_t shallow_bytes;
};

struct tm_hprof_histogram {
	struct tm_hprof_row *rows; /* sorted by shallow bytes, largest first */
	size_t n_rows;
	uint64_t instances;     /* over all rows */
	uint64_t shallow_bytes; /* over the rows whose size is known */
	unsigned id_size;       /* 4 or 8, from the dump's header */
	char format[32];        /* "JAVA PROFILE 1.0.2" */
	uint64_t dump_bytes;    /* bytes read */
	uint64_t records, heap_records;
	bool partial;           /* the dump was cut short: the rows are what was read */
	uint64_t names_dropped; /* strings not kept (over the bound): classes named by id */
};

/*
 * Reads the whole dump from IN and fills OUT (release with
 * tm_hprof_histogram_release).  0; 1 when the dump is cut short (said with
 * tm_error and its offset): OUT holds the histogram of what was read, with
 * OUT->partial set; -1 after tm_error naming the dump and the offset of what
 * is malformed, OUT then empty.  Memory is bounded whatever the dump says:
 * at most 4 KiB of each string, 256 MiB of strings, 8 Mi classes.
 */
int tm_hprof_histogram_read(struct tm_hp_in *in, const struct tm_hprof_layout *layout,
                            struct tm_hprof_histogram *out);

/* The same for the file at PATH (gzip-compressed or not). */
int tm_hprof_histogram_file(const char *path, const struct tm_hprof_layout *layout,
                            struct tm_hprof_histogram *out);

void tm_hprof_histogram_release(struct tm_hprof_histogram *h);

#endif
