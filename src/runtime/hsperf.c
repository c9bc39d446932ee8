#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "runtime/hsperf.h"
#include "base/banned.h"

#define HS_MAGIC              0xcafec0c0u
#define HS_PROLOGUE_BYTES     32u
#define HS_ENTRY_HEADER_BYTES 20u

static const char *const field_names[TM_HS_FIELD_COUNT] = {
    [TM_HS_EDEN_USED] = "sun.gc.generation.0.space.0.used",
    [TM_HS_EDEN_CAP] = "sun.gc.generation.0.space.0.capacity",
    [TM_HS_S0_USED] = "sun.gc.generation.0.space.1.used",
    [TM_HS_S0_CAP] = "sun.gc.generation.0.space.1.capacity",
    [TM_HS_S1_USED] = "sun.gc.generation.0.space.2.used",
    [TM_HS_S1_CAP] = "sun.gc.generation.0.space.2.capacity",
    [TM_HS_OLD_USED] = "sun.gc.generation.1.space.0.used",
    [TM_HS_OLD_CAP] = "sun.gc.generation.1.space.0.capacity",
    [TM_HS_META_USED] = "sun.gc.metaspace.used",
    [TM_HS_META_CAP] = "sun.gc.metaspace.capacity",
    [TM_HS_YOUNG_GCS] = "sun.gc.collector.0.invocations",
    [TM_HS_YOUNG_TICKS] = "sun.gc.collector.0.time",
    [TM_HS_FULL_GCS] = "sun.gc.collector.1.invocations",
    [TM_HS_FULL_TICKS] = "sun.gc.collector.1.time",
    [TM_HS_HRT_FREQ] = "sun.os.hrt.frequency",
};

const char *tm_hsperf_name(enum tm_hs_field f)
{
	return (unsigned)f < TM_HS_FIELD_COUNT ? field_names[f] : "?";
}

/* The file in hand: bytes, length, byte order. */
struct hs_buf {
	const uint8_t *p;
	size_t len;
	bool little;
};

static uint32_t get_u32(const struct hs_buf *b, size_t off)
{
	const uint8_t *q = b->p + off;
	if (b->little)
		return (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
		       (uint32_t)q[3] << 24;
	return (uint32_t)q[3] | (uint32_t)q[2] << 8 | (uint32_t)q[1] << 16 | (uint32_t)q[0] << 24;
}

static int64_t get_i64(const struct hs_buf *b, size_t off)
{
	uint64_t lo = get_u32(b, off), hi = get_u32(b, off + 4);
	if (!b->little) {
		uint64_t t = lo;
		lo = hi;
		hi = t;
	}
	return (int64_t)(hi << 32 | lo);
}

/* One entry, as decoded from its header. */
struct hs_entry {
	const char *name; /* NUL-terminated inside the buffer */
	uint8_t type;     /* 'J' long, 'B' bytes */
	uint32_t vector_length;
	size_t data;     /* offset of the value in the buffer */
	uint32_t length; /* the whole entry */
};

/* Decodes the entry at OFF (END: where entries stop). 0 or -1 with ERR. */
static int decode_entry(const struct hs_buf *b, size_t off, size_t end, struct hs_entry *e,
                        struct tm_err *err)
{
	uint32_t name_off, data_off;
	size_t room;

	if (end - off < HS_ENTRY_HEADER_BYTES)
		return tm_err_set(err, 0, "hsperfdata: entry at offset %zu is cut short", off);
	e->length = get_u32(b, off);
	name_off = get_u32(b, off + 4);
	e->vector_length = get_u32(b, off + 8);
	e->type = b->p[off + 12];
	data_off = get_u32(b, off + 16);
	room = end - off;
	if (e->length < HS_ENTRY_HEADER_BYTES || e->length > room)
		return tm_err_set(err, 0, "hsperfdata: entry at offset %zu has length %u", off,
		                  (unsigned)e->length);
	if (name_off < HS_ENTRY_HEADER_BYTES || name_off >= e->length ||
	    !memchr(b->p + off + name_off, 0, e->length - name_off))
		return tm_err_set(err, 0, "hsperfdata: entry at offset %zu has a bad name", off);
	if (data_off > e->length || (e->type == 'J' && e->length - data_off < 8) ||
	    (e->type != 'J' && e->vector_length > e->length - data_off))
		return tm_err_set(err, 0, "hsperfdata: entry at offset %zu has bad data", off);
	e->name = (const char *)b->p + off + name_off;
	e->data = off + data_off;
	return 0;
}

typedef void (*hs_visit)(const struct hs_buf *b, const struct hs_entry *e, void *arg);

/* Checks the prologue and walks every entry. 0 or -1 with ERR. */
static int walk(const void *buf, size_t len, struct tm_hsperf *h, hs_visit visit, void *arg,
                struct tm_err *err)
{
	struct hs_buf b = {buf, len, false};
	uint32_t used, entry_off, n;

	memset(h, 0, sizeof(*h));
	if (len < HS_PROLOGUE_BYTES)
		return tm_err_set(err, 0, "hsperfdata: %zu bytes, shorter than its prologue", len);
	b.little = true; /* the magic is written big-endian whatever the byte order */
	if (((uint32_t)b.p[0] << 24 | (uint32_t)b.p[1] << 16 | (uint32_t)b.p[2] << 8 | b.p[3]) !=
	    HS_MAGIC)
		return tm_err_set(err, 0, "hsperfdata: bad magic at offset 0");
	if (b.p[4] > 1)
		return tm_err_set(err, 0, "hsperfdata: bad byte order %u at offset 4", b.p[4]);
	b.little = b.p[4] == 1;
	h->major = b.p[5];
	h->minor = b.p[6];
	h->accessible = b.p[7] != 0;
	used = get_u32(&b, 8);
	entry_off = get_u32(&b, 24);
	n = get_u32(&b, 28);
	if (used > len || used < HS_PROLOGUE_BYTES)
		return tm_err_set(err, 0, "hsperfdata: used size %u does not fit %zu bytes",
		                  (unsigned)used, len);
	if (entry_off < HS_PROLOGUE_BYTES || entry_off > used)
		return tm_err_set(err, 0, "hsperfdata: entries at offset %u outside the file",
		                  (unsigned)entry_off);
	for (size_t off = entry_off; h->entries < n; h->entries++) {
		struct hs_entry e;
		if (decode_entry(&b, off, used, &e, err))
			return -1;
		visit(&b, &e, arg);
		off += e.length;
	}
	return 0;
}

static void pick(const struct hs_buf *b, const struct hs_entry *e, void *arg)
{
	struct tm_hsperf *h = arg;

	if (e->type != 'J' || e->vector_length != 0 || strncmp(e->name, "sun.", 4))
		return;
	for (int f = 0; f < TM_HS_FIELD_COUNT; f++)
		if (!strcmp(e->name, field_names[f])) {
			if (tm_hsperf_has(h, (enum tm_hs_field)f))
				return; /* a repeated name: the first counts, as in lookup */
			h->v[f] = get_i64(b, e->data);
			h->present |= 1u << f;
			return;
		}
}

int tm_hsperf_parse(const void *buf, size_t len, struct tm_hsperf *out, struct tm_err *err)
{
	return walk(buf, len, out, pick, out, err);
}

struct lookup {
	const char *name;
	bool found;
	int64_t v;
};

static void find_one(const struct hs_buf *b, const struct hs_entry *e, void *arg)
{
	struct lookup *l = arg;

	if (!l->found && e->type == 'J' && e->vector_length == 0 && !strcmp(e->name, l->name)) {
		l->found = true;
		l->v = get_i64(b, e->data);
	}
}

int tm_hsperf_lookup(const void *buf, size_t len, const char *name, int64_t *out)
{
	struct tm_hsperf h;
	struct lookup l = {name, false, 0};

	if (walk(buf, len, &h, find_one, &l, NULL) || !l.found)
		return -1;
	*out = l.v;
	return 0;
}

/* TICKS of a clock running at FREQ per second, in usec, without overflow. */
static int64_t ticks_usec(int64_t ticks, int64_t freq)
{
	return ticks / freq * 1000000 + ticks % freq * 1000000 / freq;
}

/* Adds the sum of fields A and B (B optional: -1) as M when A is present. */
static void add_sum(const struct tm_hsperf *h, struct tm_sample *s, enum tm_metric m, int a, int b)
{
	if (!tm_hsperf_has(h, (enum tm_hs_field)a))
		return;
	int64_t v = h->v[a];
	if (b >= 0 && tm_hsperf_has(h, (enum tm_hs_field)b))
		v += h->v[b];
	tm_sample_add(s, m, v);
}

static void add_gc(const struct tm_hsperf *h, struct tm_sample *s, enum tm_hs_field n,
                   enum tm_hs_field t, enum tm_metric mn, enum tm_metric mt)
{
	add_sum(h, s, mn, n, -1);
	if (tm_hsperf_has(h, t) && tm_hsperf_has(h, TM_HS_HRT_FREQ) && h->v[TM_HS_HRT_FREQ] > 0 &&
	    h->v[t] >= 0)
		tm_sample_add(s, mt, ticks_usec(h->v[t], h->v[TM_HS_HRT_FREQ]));
}

void tm_hsperf_to_sample(const struct tm_hsperf *h, struct tm_sample *s)
{
	if (!h->accessible)
		return;
	tm_sample_add(s, TM_M_JVM_PROCS, 1);
	if (tm_hsperf_has(h, TM_HS_EDEN_USED) && tm_hsperf_has(h, TM_HS_OLD_USED)) {
		int64_t used = 0, cap = 0;
		bool caps = tm_hsperf_has(h, TM_HS_EDEN_CAP) && tm_hsperf_has(h, TM_HS_OLD_CAP);
		for (int f = TM_HS_EDEN_USED; f <= TM_HS_OLD_CAP; f += 2) {
			used += tm_hsperf_has(h, (enum tm_hs_field)f) ? h->v[f] : 0;
			cap += tm_hsperf_has(h, (enum tm_hs_field)(f + 1)) ? h->v[f + 1] : 0;
		}
		tm_sample_add(s, TM_M_JVM_HEAP_USED_BYTES, used);
		if (caps)
			tm_sample_add(s, TM_M_JVM_HEAP_COMMITTED_BYTES, cap);
	}
	add_sum(h, s, TM_M_JVM_EDEN_USED_BYTES, TM_HS_EDEN_USED, -1);
	add_sum(h, s, TM_M_JVM_EDEN_COMMITTED_BYTES, TM_HS_EDEN_CAP, -1);
	add_sum(h, s, TM_M_JVM_SURVIVOR_USED_BYTES, TM_HS_S0_USED, TM_HS_S1_USED);
	add_sum(h, s, TM_M_JVM_SURVIVOR_COMMITTED_BYTES, TM_HS_S0_CAP, TM_HS_S1_CAP);
	add_sum(h, s, TM_M_JVM_OLD_USED_BYTES, TM_HS_OLD_USED, -1);
	add_sum(h, s, TM_M_JVM_OLD_COMMITTED_BYTES, TM_HS_OLD_CAP, -1);
	add_sum(h, s, TM_M_JVM_METASPACE_USED_BYTES, TM_HS_META_USED, -1);
	add_sum(h, s, TM_M_JVM_METASPACE_COMMITTED_BYTES, TM_HS_META_CAP, -1);
	add_gc(h, s, TM_HS_YOUNG_GCS, TM_HS_YOUNG_TICKS, TM_M_JVM_YOUNG_GCS,
	       TM_M_JVM_YOUNG_GC_USEC);
	add_gc(h, s, TM_HS_FULL_GCS, TM_HS_FULL_TICKS, TM_M_JVM_FULL_GCS, TM_M_JVM_FULL_GC_USEC);
}
