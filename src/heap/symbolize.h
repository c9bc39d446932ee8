/*
 * Symbolizing a process's return addresses from outside it, with libdw,
 * from the text of its /proc/PID/maps (live, or saved in its region at
 * exit).  Never inside the target.
 */
#ifndef TM_SYMBOLIZE_H
#define TM_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One executable file mapping of the process. */
struct tm_heap_mapping {
	uint64_t start, limit, offset;
	char *path;
	char build_id[81]; /* hex, "" when the file has none or cannot be read */
};

/*
 * Parses maps text (BUF, LEN) into the executable mappings backed by a file
 * ("r-xp ... /usr/lib/libc.so.6").  *OUT is malloc'd, each path too.
 * Returns the number of mappings, or -1 (out of memory).
 */
ssize_t tm_heap_parse_maps(const char *buf, size_t len, struct tm_heap_mapping **out);
void tm_heap_mappings_free(struct tm_heap_mapping *m, size_t n);

struct tm_sym;

/* A symbolizer over MAPS (text as in /proc/PID/maps).  NULL after tm_error. */
struct tm_sym *tm_sym_new(const char *maps, size_t len);
void tm_sym_free(struct tm_sym *s);

/* The executable mappings, with build IDs filled in. */
const struct tm_heap_mapping *tm_sym_mappings(const struct tm_sym *s, size_t *n);

/*
 * Symbolizes the return address PC (looks up PC - 1, the call).  Sets *FUNC
 * and *FILE (valid until tm_sym_free; NULL when unknown) and *LINE (0 when
 * unknown).  Returns the index of the mapping holding PC, or -1.
 */
int tm_sym_lookup(struct tm_sym *s, uint64_t pc, const char **func, const char **file, int *line);

#endif
