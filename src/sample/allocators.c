/* Which allocator each process of a target runs (allocators.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "sample/exesyms.h"
#include "kern/procfs.h"
#include "sample/allocators.h"
#include "base/banned.h"

#define SHARE_MIN_BYTES (1024 * 1024)

struct proc_alloc {
	pid_t pid;
	int looks;
	char allocator[32]; /* "" until classified */
	char comm[TM_COMM_LEN];
	int64_t max_anon_bytes; /* largest RssAnon seen (only if not the expected one) */
	int real_share;         /* held >= 10 % of the target's anon and 1 MiB once */
};

struct tm_allocators {
	struct proc_alloc *p;
	size_t n, cap;
};

struct tm_allocators *tm_allocators_new(void)
{
	return calloc(1, sizeof(struct tm_allocators));
}

void tm_allocators_free(struct tm_allocators *a)
{
	if (a)
		free(a->p);
	free(a);
}

static struct proc_alloc *find_or_add(struct tm_allocators *a, pid_t pid)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->p[i].pid == pid)
			return &a->p[i];
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 16;
		struct proc_alloc *p = realloc(a->p, cap * sizeof(*p));
		if (!p)
			return NULL;
		a->p = p;
		a->cap = cap;
	}
	a->p[a->n] = (struct proc_alloc){.pid = pid};
	return &a->p[a->n++];
}

/* E's allocator when its maps name none but glibc: "FAMILY (static)" when
 * its executable defines malloc itself ("malloc (static)" when no
 * allocator is recognised in it: stripped, or unknown), "glibc+FAMILY
 * (static)" when FAMILY is linked in beside glibc's malloc (Rust's
 * tikv-jemallocator). */
static void name_linked(struct proc_alloc *e)
{
	char path[64], family[16];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)e->pid);
	enum tm_exe_malloc m = tm_exe_malloc_of(path, family, sizeof(family));
	if (m == TM_EXE_MALLOC_LINKED)
		snprintf(e->allocator, sizeof(e->allocator), "%s (static)",
		         family[0] ? family : "malloc");
	else if (m == TM_EXE_MALLOC_BESIDE)
		snprintf(e->allocator, sizeof(e->allocator), "glibc+%s (static)", family);
}

/* 1 when it got classified now (named COMM). */
static int classify(struct proc_alloc *e, const char *comm)
{
	char path[64], *maps;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)e->pid);
	if (!(maps = tm_read_file(path, &len)))
		return 0;
	int loaded =
	    len > 0 && (strstr(maps, "/libc.so") || strstr(maps, "/libc-") || ++e->looks > 3);
	if (loaded) {
		snprintf(e->allocator, sizeof(e->allocator), "%s",
		         tm_parse_maps_allocator(maps, len));
		if (!strcmp(e->allocator, "glibc"))
			name_linked(e);
		snprintf(e->comm, sizeof(e->comm), "%s", comm[0] ? comm : "?");
	}
	free(maps);
	return loaded;
}

static int64_t rss_anon_bytes(pid_t pid)
{
	char path[64];
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	char *st = tm_read_file(path, &len);
	const char *p = st ? strstr(st, "\nRssAnon:") : NULL;
	int64_t kib = p ? strtoll(p + 9, NULL, 10) : -1;
	free(st);
	return kib < 0 ? -1 : kib * 1024;
}

int tm_allocators_update(struct tm_allocators *a, const pid_t *pids, const struct tm_comm *comms,
                         size_t npids, const char *expect, int64_t tree_anon_bytes)
{
	int changed = 0;
	for (size_t i = 0; i < npids; i++) {
		struct proc_alloc *e = find_or_add(a, pids[i]);
		const char *comm = comms[i].name;
		if (!e)
			continue;
		/* the same program still?  (exec: a new one; the name is the one
		 * the sampler's stat read: no file of its own per sample) */
		if (e->allocator[0] && comm[0] && strcmp(comm, e->comm))
			*e = (struct proc_alloc){.pid = e->pid};
		if (!e->allocator[0]) {
			if (!classify(e, comm))
				continue;
			changed = 1;
		}
		if (!expect || !strcmp(expect, e->allocator))
			continue;
		int64_t anon = rss_anon_bytes(e->pid);
		if (anon > e->max_anon_bytes)
			e->max_anon_bytes = anon;
		if (anon >= SHARE_MIN_BYTES && tree_anon_bytes > 0 && anon * 10 >= tree_anon_bytes)
			e->real_share = 1;
	}
	return changed;
}

/* Appends S to BUF (size SIZE) at *LEN, or "..." when it does not fit. */
static int append(char *buf, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 4 > size) {
		if (*len + 4 <= size)
			memcpy(buf + *len, "...", 4);
		return -1;
	}
	memcpy(buf + *len, s, n + 1);
	*len += n;
	return 0;
}

void tm_allocators_describe(const struct tm_allocators *a, char *buf, size_t size)
{
	size_t len = 0;
	if (size)
		buf[0] = '\0';
	for (size_t i = 0; i < a->n; i++) {
		const struct proc_alloc *e = &a->p[i];
		int first = 1;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(a->p[j].allocator, e->allocator) != 0 || !a->p[j].comm[0];
		if (!e->comm[0] || !first)
			continue;
		if ((len && append(buf, size, &len, ", ")) ||
		    append(buf, size, &len, e->allocator) || append(buf, size, &len, " ("))
			return;
		int names = 0;
		for (size_t j = i; j < a->n; j++) {
			const struct proc_alloc *f = &a->p[j];
			int dup = 0;
			for (size_t k = i; k < j && !dup; k++)
				dup = !strcmp(a->p[k].allocator, f->allocator) &&
				      !strcmp(a->p[k].comm, f->comm);
			if (!f->comm[0] || strcmp(f->allocator, e->allocator) || dup)
				continue;
			if ((names++ && append(buf, size, &len, ", ")) ||
			    append(buf, size, &len, f->comm))
				return;
		}
		if (append(buf, size, &len, ")"))
			return;
	}
}

const char *tm_allocators_first(const struct tm_allocators *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->p[i].comm[0])
			return a->p[i].allocator;
	return "";
}

int tm_allocators_mismatch(const struct tm_allocators *a, const char *expect, char *reason,
                           size_t size)
{
	for (size_t i = 0; expect && i < a->n; i++) {
		const struct proc_alloc *e = &a->p[i];
		if (!e->comm[0] || !e->real_share || !strcmp(e->allocator, expect))
			continue;
		snprintf(reason, size,
		         "arm expects %s but %s (pid %d), which held %.1f MiB of anon, runs %s "
		         "(/proc/%d/maps)",
		         expect, e->comm, (int)e->pid,
		         (double)e->max_anon_bytes / (1024.0 * 1024.0), e->allocator, (int)e->pid);
		return 1;
	}
	return 0;
}
