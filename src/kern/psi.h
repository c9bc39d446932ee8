/*
 * Pressure stall information: /proc/pressure/{memory,io,cpu} and the
 * cgroup's {memory,io,cpu}.pressure.  Text in, 0 or -1 when malformed.
 *
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=22594
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=18844
 *
 * total is cumulative stall time in usec.  Older kernels have no "full" line
 * for cpu: has_full stays false.
 */
#ifndef TM_KERN_PSI_H
#define TM_KERN_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tm_psi {
	bool has_some, has_full;
	int64_t some_total_usec, full_total_usec;
};

int tm_parse_psi(const char *buf, size_t len, struct tm_psi *out);

#endif
