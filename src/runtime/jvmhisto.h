/*
 * The text of `jcmd PID GC.class_histogram`: a table of classes, largest
 * first, as HotSpot prints it,
 *    num     #instances         #bytes  class name (module)
 *   -------------------------------------------------------
 *      1:        300000       19200000  OldFill$Sidecar
 *      2:           440        1482248  [Ljava.lang.Object; (java.base@17.0.15)
 *   Total        309302       21103096
 * Pure: a buffer in, the first rows and the totals out; nothing allocated,
 * nothing outside the buffer read.
 */
#ifndef TM_JVMHISTO_H
#define TM_JVMHISTO_H

#include <stddef.h>
#include <stdint.h>

struct tm_err;

#define TM_JH_TOP 16 /* rows kept */

struct tm_jh_row {
	char name[256]; /* the class, as printed, without its "(module)"; cut to fit */
	uint64_t instances;
	uint64_t bytes;
};

struct tm_jvm_histo {
	struct tm_jh_row top[TM_JH_TOP]; /* the first rows, in the table's order */
	size_t n_top;
	uint64_t classes;         /* rows in the table */
	uint64_t total_instances; /* from the "Total" line */
	uint64_t total_bytes;
};

/*
 * Parses LEN bytes of jcmd's output into OUT.  0; or -1 with the reason in
 * ERR (starting "class histogram:") when the text has no
 * table (jcmd's own error, such as "Unable to open socket file", is then
 * quoted) or no "Total" line (cut short), or a row is malformed (its line
 * number said).
 */
int tm_jvm_histo_parse(const char *buf, size_t len, struct tm_jvm_histo *out, struct tm_err *err);

#endif
