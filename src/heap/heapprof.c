#include <errno.h>
#include <stdint.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.pb-c.h"

#include "base/error.h"
#include "base/pb.h"
#include "base/util.h"
#include "base/zlib.h"
#include "heap/heapprof.h"
#include "heap/symbolize.h"
#include "base/banned.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Line Line;

/* ---- snapshot ------------------------------------------------------------ */

/* MILLI/1000 rounded half up (as (MILLI + 500) / 1000 for the values the
 * shim writes), without overflow for any value a process may write. */
static int64_t from_milli(int64_t milli)
{
	return milli / 1000 + (milli % 1000 >= 500);
}

static int read_sites(const struct tmh_region *r, bool gone, struct tm_heap_snapshot *out)
{
	struct tmh_stack *st = malloc(sizeof(r->stacks));
	out->sites = calloc(TMH_STACKS, sizeof(*out->sites));
	if (!st || !out->sites) {
		free(st);
		return tm_error("out of memory");
	}
	if (tm_heap_region_stacks(r, gone, st, &out->torn) < 0) {
		free(st);
		return tm_error("the sampled stacks of pid %d kept changing", (int)out->pid);
	}
	for (size_t i = 0; i < TMH_STACKS; i++) {
		if (st[i].samples == 0)
			continue;
		struct tm_heap_site *s = &out->sites[out->nsites++];
		s->depth = st[i].depth > TMH_MAX_DEPTH ? TMH_MAX_DEPTH : (int)st[i].depth;
		memcpy(s->pc, st[i].pc, sizeof(s->pc[0]) * (size_t)s->depth);
		s->alloc_objects = from_milli(st[i].alloc_objects_milli);
		s->alloc_bytes = st[i].alloc_bytes;
		s->inuse_objects = from_milli(st[i].inuse_objects_milli);
		s->inuse_bytes = st[i].inuse_bytes;
		s->samples = st[i].samples;
	}
	free(st);
	return 0;
}

/* The map to symbolize with: the live process's, else the copy it saved at
 * exit, else FALLBACK (the caller's last look at a process that died
 * without exiting: killed, OOM-killed). */
static int read_maps(const struct tmh_region *r, struct tm_heap_snapshot *out, const char *fallback,
                     size_t fallback_len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)out->pid);
	int alive = kill(out->pid, 0) == 0 || errno == EPERM;
	/* a detached agent's process runs on: its map is current */
	if (alive && (out->counters.state == TMH_RUNNING || out->counters.state == TMH_DETACHED)) {
		out->maps = tm_read_file(path, &out->maps_len);
		if (out->maps && out->maps_len > 0)
			return 0;
		free(out->maps); /* a zombie's maps are empty: it is gone */
		out->maps = NULL;
		out->maps_len = 0;
	}
	uint32_t len = __atomic_load_n(&r->maps_len, __ATOMIC_ACQUIRE);
	const char *from = r->maps;
	if (len == 0 || len >= sizeof(r->maps)) {
		if (!fallback)
			return tm_error("pid %d is gone and left no memory map to symbolize with "
			                "(run it with TIDEMARK_HEAP_KEEP=1)",
			                (int)out->pid);
		from = fallback;
		len = (uint32_t)fallback_len;
	}
	out->maps = malloc((size_t)len + 1);
	if (!out->maps)
		return tm_error("out of memory");
	memcpy(out->maps, from, len);
	out->maps[len] = '\0';
	out->maps_len = len;
	return 0;
}

int tm_heap_snapshot_take(pid_t pid, struct tm_heap_snapshot *out)
{
	const struct tmh_region *r = tm_heap_region_map(pid);
	if (!r) {
		memset(out, 0, sizeof(*out));
		if (errno == ENOENT)
			return tm_error("pid %d has no heap region (is it running with "
			                "libtidemark-heap.so in LD_PRELOAD?)",
			                (int)pid);
		return tm_error("cannot read the heap region of pid %d: %s", (int)pid,
		                strerror(errno));
	}
	/* a live process's: one that is gone keeps its region only when it
	 * saved its maps, and then it left no update half done */
	int rc = tm_heap_snapshot_region(r, pid, NULL, 0, false, out);
	tm_heap_region_unmap(r);
	return rc;
}

/* The executable in MAPS: the first mapping's path, or "the executable". */
static void exe_of_maps(const char *maps, size_t len, char *buf, size_t size)
{
	const char *eol = maps ? memchr(maps, '\n', len) : NULL;
	const char *slash =
	    maps ? memchr(maps, '/', (size_t)((eol ? eol : maps + len) - maps)) : NULL;
	if (slash)
		snprintf(buf, size, "%.*s", (int)((eol ? eol : maps + len) - slash), slash);
	else
		snprintf(buf, size, "the executable");
}

/* "; sites since the attach at 2026-12-02 08:40:12 UTC" for an attached
 * region (the sites cover what was allocated since), else "". */
static void since_text(const struct tmh_region *r, char *buf, size_t size)
{
	int64_t usec = __atomic_load_n(&r->attach_wall_usec, __ATOMIC_RELAXED);
	time_t t = (time_t)(usec / 1000000);
	struct tm tm;
	buf[0] = 0;
	if (__atomic_load_n(&r->attach_count, __ATOMIC_RELAXED) == 0)
		return;
	const char *until =
	    __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == TMH_DETACHED ? " until the detach" : "";
	char at[40];
	if (usec <= 0 || !gmtime_r(&t, &tm) ||
	    !strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, size, "; sites since the attach (its time n/a)%s", until);
	else
		snprintf(buf, size, "; sites since the attach at %s%s", at, until);
}

/* OUT's unwinder text from R (its maps read already), with the attach's
 * time when the sites cover only what came after it. */
static void unwinder_text(const struct tmh_region *r, struct tm_heap_snapshot *out)
{
	char exe[256], since[100];
	since_text(r, since, sizeof(since));
	exe_of_maps(out->maps, out->maps_len, exe, sizeof(exe));
	if (!r->unwinder && r->unwinder_auto == 2)
		snprintf(out->unwinder, sizeof(out->unwinder),
		         "frame pointers (none in %s and no libunwind.so.8: callers n/a)%s", exe,
		         since);
	else if (!r->unwinder)
		snprintf(out->unwinder, sizeof(out->unwinder), "frame pointers%s", since);
	else if (!r->unwinder_auto)
		snprintf(out->unwinder, sizeof(out->unwinder), "libunwind (TIDEMARK_HEAP_UNWIND)%s",
		         since);
	else
		snprintf(out->unwinder, sizeof(out->unwinder),
		         "libunwind (no frame pointers in %s)%s", exe, since);
}

int tm_heap_snapshot_region(const struct tmh_region *r, pid_t pid, const char *maps,
                            size_t maps_len, bool gone, struct tm_heap_snapshot *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	out->time_nanos = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	int64_t start = r->start_wall_usec; /* as the process wrote it: 0 when absurd */
	out->start_nanos = start > 0 && start < INT64_MAX / 1000 ? start * 1000 : 0;
	int rc = tm_heap_region_counters(r, &out->counters);
	if (rc < 0)
		tm_error("the counters of pid %d kept changing", (int)pid);
	else if (out->counters.sample_mean_bytes <= 0)
		rc = tm_error("pid %d runs with sampling off (TIDEMARK_HEAP_SAMPLE=0)", (int)pid);
	if (rc == 0)
		rc = read_sites(r, gone, out);
	if (rc == 0)
		rc = read_maps(r, out, maps, maps_len);
	if (rc == 0)
		unwinder_text(r, out);
	if (rc < 0)
		tm_heap_snapshot_release(out);
	return rc;
}

void tm_heap_snapshot_release(struct tm_heap_snapshot *s)
{
	free(s->sites);
	free(s->maps);
	s->sites = NULL;
	s->maps = NULL;
	s->nsites = 0;
}

/* ---- small interning tables ---------------------------------------------- */

struct strtab {
	char **v;
	size_t n, cap;
	size_t *hash_idx; /* open addressing: index+1, 0 empty */
	size_t hcap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static int strtab_grow(struct strtab *t)
{
	size_t hcap = t->hcap ? t->hcap * 2 : 1024;
	size_t *h = calloc(hcap, sizeof(*h));
	if (!h)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash_str(t->v[i]) & (hcap - 1);
		while (h[j])
			j = (j + 1) & (hcap - 1);
		h[j] = i + 1;
	}
	free(t->hash_idx);
	t->hash_idx = h;
	t->hcap = hcap;
	return 0;
}

/* Index of S in the table (added if new), or -1 (out of memory). */
static int64_t strtab_id(struct strtab *t, const char *s)
{
	if (2 * (t->n + 1) > t->hcap && strtab_grow(t) < 0)
		return -1;
	size_t j = hash_str(s) & (t->hcap - 1);
	for (; t->hash_idx[j]; j = (j + 1) & (t->hcap - 1))
		if (!strcmp(t->v[t->hash_idx[j] - 1], s))
			return (int64_t)t->hash_idx[j] - 1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		char **v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	if (!(t->v[t->n] = strdup(s)))
		return -1;
	t->hash_idx[j] = ++t->n;
	return (int64_t)t->n - 1;
}

static void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->hash_idx);
}

/* ---- building the profile ------------------------------------------------- */

struct builder {
	Profile prof;
	struct strtab str;
	struct tm_sym *sym;
	/* locations by pc: open addressing over loc_pc, value = location index + 1 */
	uint64_t *loc_pc;
	size_t *loc_idx;
	size_t loc_hcap;
	Location **loc;
	size_t nloc, caploc;
	Function **fn;
	size_t nfn, capfn;
	struct strtab fnkey; /* "name\x01file" -> function index */
	int failed;
};

static int64_t str_id(struct builder *b, const char *s)
{
	int64_t id = strtab_id(&b->str, s);
	if (id < 0)
		b->failed = 1;
	return id < 0 ? 0 : id;
}

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return v;
	size_t c = *cap ? *cap * 2 : 256;
	void *g = realloc(v, c * size);
	if (g)
		*cap = c;
	return g;
}

static uint64_t function_id(struct builder *b, const char *name, const char *file)
{
	char key[1024];
	snprintf(key, sizeof(key), "%s\x01%s", name, file ? file : "");
	size_t before = b->fnkey.n;
	int64_t k = strtab_id(&b->fnkey, key);
	if (k < 0) {
		b->failed = 1;
		return 0;
	}
	if ((size_t)k < before)
		return (uint64_t)k + 1;
	Function **fn = grow(b->fn, &b->capfn, b->nfn, sizeof(*fn));
	Function *f = malloc(sizeof(*f));
	if (!fn || !f) {
		free(f);
		b->failed = 1;
		return 0;
	}
	b->fn = fn;
	perftools__profiles__function__init(f);
	f->id = (uint64_t)k + 1;
	f->name = f->system_name = str_id(b, name);
	f->filename = str_id(b, file ? file : "");
	b->fn[b->nfn++] = f;
	return f->id;
}

static Location *new_location(struct builder *b, uint64_t pc)
{
	const char *func, *file;
	int line;
	int m = tm_sym_lookup(b->sym, pc, &func, &file, &line);
	if (pc == 0) /* the sample's stack was not recorded (stack table full) */
		func = "[stack not recorded]";
	Location *l = malloc(sizeof(*l));
	Line *ln = malloc(sizeof(*ln));
	Line **lines = malloc(sizeof(*lines));
	if (!l || !ln || !lines) {
		free(l), free(ln), free(lines);
		return NULL;
	}
	perftools__profiles__location__init(l);
	l->id = b->nloc + 1;
	l->mapping_id = m >= 0 ? (uint64_t)m + 1 : 0;
	l->address = pc;
	if (func) {
		perftools__profiles__line__init(ln);
		ln->function_id = function_id(b, func, file);
		ln->line = line;
		lines[0] = ln;
		l->line = lines;
		l->n_line = 1;
	} else {
		free(ln), free(lines);
	}
	return l;
}

static int loc_rehash(struct builder *b)
{
	size_t hcap = b->loc_hcap ? b->loc_hcap * 2 : 4096;
	uint64_t *pc = calloc(hcap, sizeof(*pc));
	size_t *idx = calloc(hcap, sizeof(*idx));
	if (!pc || !idx) {
		free(pc), free(idx);
		return -1;
	}
	for (size_t i = 0; i < b->nloc; i++) {
		size_t j = (b->loc[i]->address * 0x9E3779B97F4A7C15ull >> 20) & (hcap - 1);
		while (idx[j])
			j = (j + 1) & (hcap - 1);
		pc[j] = b->loc[i]->address;
		idx[j] = i + 1;
	}
	free(b->loc_pc), free(b->loc_idx);
	b->loc_pc = pc, b->loc_idx = idx, b->loc_hcap = hcap;
	return 0;
}

static uint64_t location_id(struct builder *b, uint64_t pc)
{
	if (2 * (b->nloc + 1) > b->loc_hcap && loc_rehash(b) < 0) {
		b->failed = 1;
		return 0;
	}
	size_t j = (pc * 0x9E3779B97F4A7C15ull >> 20) & (b->loc_hcap - 1);
	for (; b->loc_idx[j]; j = (j + 1) & (b->loc_hcap - 1))
		if (b->loc_pc[j] == pc)
			return b->loc_idx[j];
	Location **loc = grow(b->loc, &b->caploc, b->nloc, sizeof(*loc));
	Location *l = loc ? new_location(b, pc) : NULL;
	if (loc)
		b->loc = loc;
	if (!l) {
		b->failed = 1;
		return 0;
	}
	b->loc[b->nloc++] = l;
	b->loc_pc[j] = pc;
	b->loc_idx[j] = b->nloc;
	return b->nloc;
}

static const char *const sample_types[4][2] = {
    {"alloc_objects", "count"},
    {"alloc_space", "bytes"},
    {"inuse_objects", "count"},
    {"inuse_space", "bytes"},
};

static int add_samples(struct builder *b, const struct tm_heap_snapshot *s)
{
	Sample **smp = calloc(s->nsites ? s->nsites : 1, sizeof(*smp));
	if (!smp)
		return -1;
	b->prof.sample = smp;
	for (size_t i = 0; i < s->nsites; i++) {
		const struct tm_heap_site *site = &s->sites[i];
		Sample *x = calloc(1, sizeof(*x));
		if (!x)
			return -1;
		perftools__profiles__sample__init(x);
		smp[b->prof.n_sample++] = x;
		x->location_id = calloc((size_t)site->depth + 1, sizeof(uint64_t));
		x->value = calloc(4, sizeof(int64_t));
		if (!x->location_id || !x->value)
			return -1;
		for (int d = 0; d < site->depth; d++)
			x->location_id[x->n_location_id++] = location_id(b, site->pc[d]);
		if (site->depth == 0)
			x->location_id[x->n_location_id++] = location_id(b, 0);
		x->n_value = 4;
		x->value[0] = site->alloc_objects;
		x->value[1] = site->alloc_bytes;
		x->value[2] = site->inuse_objects;
		x->value[3] = site->inuse_bytes;
	}
	return b->failed ? -1 : 0;
}

static int add_mappings(struct builder *b)
{
	size_t n;
	const struct tm_heap_mapping *m = tm_sym_mappings(b->sym, &n);
	b->prof.mapping = calloc(n ? n : 1, sizeof(Mapping *));
	if (!b->prof.mapping)
		return -1;
	for (size_t i = 0; i < n; i++) {
		Mapping *x = malloc(sizeof(*x));
		if (!x)
			return -1;
		perftools__profiles__mapping__init(x);
		b->prof.mapping[b->prof.n_mapping++] = x;
		x->id = i + 1;
		x->memory_start = m[i].start;
		x->memory_limit = m[i].limit;
		x->file_offset = m[i].offset;
		x->filename = str_id(b, m[i].path);
		x->build_id = str_id(b, m[i].build_id);
		x->has_functions = x->has_filenames = x->has_line_numbers = 1;
	}
	return 0;
}

static int add_types(struct builder *b, ValueType *vt, ValueType *period, ValueType **vtp,
                     const struct tm_heap_snapshot *s)
{
	for (int i = 0; i < 4; i++) {
		perftools__profiles__value_type__init(&vt[i]);
		vt[i].type = str_id(b, sample_types[i][0]);
		vt[i].unit = str_id(b, sample_types[i][1]);
		vtp[i] = &vt[i];
	}
	b->prof.sample_type = vtp;
	b->prof.n_sample_type = 4;
	perftools__profiles__value_type__init(period);
	period->type = str_id(b, "space");
	period->unit = str_id(b, "bytes");
	b->prof.period_type = period;
	b->prof.period = s->counters.sample_mean_bytes;
	b->prof.default_sample_type = str_id(b, "inuse_space");
	b->prof.time_nanos = s->time_nanos;
	b->prof.duration_nanos =
	    s->time_nanos > s->start_nanos ? s->time_nanos - s->start_nanos : 0;
	return b->failed ? -1 : 0;
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; i < b->prof.n_sample; i++) {
		free(b->prof.sample[i]->location_id);
		free(b->prof.sample[i]->value);
		free(b->prof.sample[i]);
	}
	free(b->prof.sample);
	for (size_t i = 0; i < b->prof.n_mapping; i++)
		free(b->prof.mapping[i]);
	free(b->prof.mapping);
	for (size_t i = 0; i < b->nloc; i++) {
		if (b->loc[i]->n_line)
			free(b->loc[i]->line[0]);
		free(b->loc[i]->line);
		free(b->loc[i]);
	}
	free(b->loc), free(b->loc_pc), free(b->loc_idx);
	for (size_t i = 0; i < b->nfn; i++)
		free(b->fn[i]);
	free(b->fn);
	strtab_free(&b->str);
	strtab_free(&b->fnkey);
	tm_sym_free(b->sym);
}

static int write_gzip(const char *path, const uint8_t *buf, size_t len)
{
	struct tm_zlib z;
	if (tm_zlib_load(&z))
		return -1;
	gzFile gz = z.gzopen(path, "wb");
	if (!gz)
		return tm_error("cannot write '%s': %s", path, strerror(errno));
	int ok = z.gzwrite(gz, buf, (unsigned)len) == (int)len;
	if (z.gzclose(gz) != Z_OK || !ok)
		return tm_error("cannot write '%s'", path);
	return 0;
}

int tm_heap_write_pprof(const struct tm_heap_snapshot *s, const char *path)
{
	struct builder b = {.prof = PERFTOOLS__PROFILES__PROFILE__INIT};
	ValueType vt[4], period, *vtp[4];
	if (tm_pb_ready())
		return -1;
	b.sym = tm_sym_new(s->maps, s->maps_len);
	if (!b.sym)
		return -1;
	str_id(&b, ""); /* string_table[0] */
	int rc = add_types(&b, vt, &period, vtp, s);
	if (rc == 0)
		rc = add_mappings(&b);
	if (rc == 0)
		rc = add_samples(&b, s);
	if (rc < 0) {
		builder_free(&b);
		return tm_error("out of memory building the profile");
	}
	b.prof.location = b.loc;
	b.prof.n_location = b.nloc;
	b.prof.function = b.fn;
	b.prof.n_function = b.nfn;
	char note[480];
	snprintf(note, sizeof(note), "tidemark unwinder: %s", s->unwinder);
	int64_t comment = str_id(&b, note);
	if (b.failed) {
		builder_free(&b);
		return tm_error("out of memory building the profile");
	}
	b.prof.comment = &comment;
	b.prof.n_comment = 1;
	b.prof.string_table = b.str.v;
	b.prof.n_string_table = b.str.n;
	size_t len = perftools__profiles__profile__get_packed_size(&b.prof);
	uint8_t *buf = malloc(len ? len : 1);
	if (buf) {
		perftools__profiles__profile__pack(&b.prof, buf);
		rc = write_gzip(path, buf, len);
	} else {
		rc = tm_error("out of memory packing the profile");
	}
	free(buf);
	builder_free(&b);
	return rc;
}

/* ---- collapsed stacks ----------------------------------------------------- */

static void put_frame(struct tm_sym *sym, uint64_t pc, FILE *out)
{
	const char *func, *file;
	int line;
	tm_sym_lookup(sym, pc, &func, &file, &line);
	if (func) {
		for (const char *c = func; *c; c++)
			fputc(*c == ';' || *c == ' ' ? '_' : *c, out);
	} else {
		fprintf(out, "0x%llx", (unsigned long long)pc);
	}
}

int tm_heap_write_collapsed(const struct tm_heap_snapshot *s, FILE *out, int alloc)
{
	struct tm_sym *sym = tm_sym_new(s->maps, s->maps_len);
	if (!sym)
		return -1;
	for (size_t i = 0; i < s->nsites; i++) {
		const struct tm_heap_site *site = &s->sites[i];
		int64_t v = alloc ? site->alloc_bytes : site->inuse_bytes;
		if (v <= 0)
			continue;
		if (site->depth == 0)
			fputs("[unknown]", out);
		for (int d = site->depth - 1; d >= 0; d--) {
			put_frame(sym, site->pc[d], out);
			if (d)
				fputc(';', out);
		}
		fprintf(out, " %lld\n", (long long)v);
	}
	tm_sym_free(sym);
	return ferror(out) ? tm_error("cannot write the collapsed stacks") : 0;
}

int tm_heap_profile_write(pid_t pid, const char *path)
{
	struct tm_heap_snapshot s;
	if (tm_heap_snapshot_take(pid, &s) < 0)
		return -1;
	int rc = tm_heap_write_pprof(&s, path);
	tm_heap_snapshot_release(&s);
	return rc;
}
