/* `tidemark heap top FILE`: the top sites of a pprof heap profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"

#include "base/error.h"
#include "base/pb.h"
#include "base/util.h"
#include "base/zlib.h"
#include "heap/heapprof.h"
#include "base/banned.h"

typedef Perftools__Profiles__Profile Profile;

struct site_row {
	char *label;
	int64_t inuse_bytes, inuse_objects, alloc_bytes;
};

static uint8_t *gunzip_file(const char *path, size_t *len)
{
	struct tm_zlib z;
	if (tm_zlib_load(&z))
		return NULL;
	gzFile gz = z.gzopen(path, "rb");
	if (!gz) {
		tm_error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	int r = 0;
	while (buf && (r = z.gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			uint8_t *g = cap < (1u << 30) ? realloc(buf, cap * 2) : NULL;
			if (!g) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = g;
			cap *= 2;
		}
	}
	z.gzclose(gz);
	if (!buf || r < 0) {
		free(buf);
		tm_error("cannot read '%s': not a gzip'd profile, or too large", path);
		return NULL;
	}
	*len = n;
	return buf;
}

static const char *str_at(const Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "";
}

static int value_index(const Profile *p, const char *type)
{
	for (size_t i = 0; i < p->n_sample_type; i++)
		if (!strcmp(str_at(p, p->sample_type[i]->type), type))
			return (int)i;
	return -1;
}

static const char *function_name(const Profile *p, uint64_t loc_id, char *buf, size_t size)
{
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];
		if (l->id != loc_id)
			continue;
		if (l->n_line == 0)
			break;
		for (size_t f = 0; f < p->n_function; f++)
			if (p->function[f]->id == l->line[0]->function_id) {
				snprintf(buf, size, "%s", str_at(p, p->function[f]->name));
				return buf;
			}
		break;
	}
	snprintf(buf, size, "?");
	return buf;
}

/* "leaf < caller < caller" for the first three frames. */
static char *site_label(const Profile *p, const Perftools__Profiles__Sample *s)
{
	char label[1024] = "", fn[512];
	size_t used = 0;
	for (size_t d = 0; d < s->n_location_id && d < 3; d++) {
		function_name(p, s->location_id[d], fn, sizeof(fn));
		int w = snprintf(label + used, sizeof(label) - used, "%s%s", d ? " < " : "", fn);
		if (w < 0 || (size_t)w >= sizeof(label) - used)
			break;
		used += (size_t)w;
	}
	return strdup(s->n_location_id ? label : "[unknown]");
}

static int by_label(const void *a, const void *b)
{
	return strcmp(((const struct site_row *)a)->label, ((const struct site_row *)b)->label);
}

/* Sites whose first frames read the same are one row. */
static size_t merge_rows(struct site_row *rows, size_t n)
{
	if (n == 0)
		return 0;
	qsort(rows, n, sizeof(*rows), by_label);
	size_t out = 0;
	for (size_t i = 1; i < n; i++) {
		if (!strcmp(rows[i].label, rows[out].label)) {
			rows[out].inuse_bytes += rows[i].inuse_bytes;
			rows[out].inuse_objects += rows[i].inuse_objects;
			rows[out].alloc_bytes += rows[i].alloc_bytes;
			free(rows[i].label);
		} else {
			rows[++out] = rows[i];
		}
	}
	return out + 1;
}

static int by_inuse(const void *a, const void *b)
{
	const struct site_row *x = a, *y = b;
	if (x->inuse_bytes != y->inuse_bytes)
		return (x->inuse_bytes < y->inuse_bytes) - (x->inuse_bytes > y->inuse_bytes);
	return (x->alloc_bytes < y->alloc_bytes) - (x->alloc_bytes > y->alloc_bytes);
}

static void print_rows(FILE *out, struct site_row *rows, size_t n, int top)
{
	int64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += rows[i].inuse_bytes;
	qsort(rows, n, sizeof(*rows), by_inuse);
	char mib[32], amib[32];
	fprintf(out, "%12s %6s %12s %14s  %s\n", "inuse", "%", "inuse_objs", "allocated",
	        "site (leaf < callers)");
	for (size_t i = 0; i < n && (int)i < top; i++) {
		double pct = total > 0 ? 100.0 * (double)rows[i].inuse_bytes / (double)total : 0;
		fprintf(out, "%12s %5.1f%% %12lld %14s  %s\n",
		        tm_fmt_mib(mib, sizeof(mib), rows[i].inuse_bytes), pct,
		        (long long)rows[i].inuse_objects,
		        tm_fmt_mib(amib, sizeof(amib), rows[i].alloc_bytes), rows[i].label);
	}
	fprintf(out, "total sampled in use: %s in %zu sites\n", tm_fmt_mib(mib, sizeof(mib), total),
	        n);
}

int tm_heap_top(const char *path, FILE *out, int top)
{
	size_t len;
	uint8_t *buf = gunzip_file(path, &len);
	if (!buf)
		return -1;
	int rc = tm_heap_top_buf(buf, len, path, out, top);
	free(buf);
	return rc;
}

int tm_heap_top_buf(const uint8_t *buf, size_t len, const char *path, FILE *out, int top)
{
	if (tm_pb_ready())
		return -1;
	Profile *p = perftools__profiles__profile__unpack(NULL, len, buf);
	if (!p)
		return tm_error("'%s' is not a pprof profile", path);
	int iu = value_index(p, "inuse_space"), io = value_index(p, "inuse_objects");
	int ia = value_index(p, "alloc_space");
	if (iu < 0) {
		perftools__profiles__profile__free_unpacked(p, NULL);
		return tm_error("'%s' is not a heap profile (no inuse_space)", path);
	}
	struct site_row *rows = calloc(p->n_sample ? p->n_sample : 1, sizeof(*rows));
	size_t n = 0;
	for (size_t i = 0; rows && i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		if (s->n_value != p->n_sample_type)
			continue;
		rows[n].label = site_label(p, s);
		rows[n].inuse_bytes = s->value[iu];
		rows[n].inuse_objects = io >= 0 ? s->value[io] : 0;
		rows[n].alloc_bytes = ia >= 0 ? s->value[ia] : 0;
		if (rows[n].label)
			n++;
	}
	int rc = rows ? 0 : tm_error("out of memory");
	if (rows) {
		n = merge_rows(rows, n);
		print_rows(out, rows, n, top);
	}
	for (size_t i = 0; i < n; i++)
		free(rows[i].label);
	free(rows);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return rc;
}
