/* The top holders of a dump's heap; see hprof/holders.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "hprof/holders.h"
#include "base/banned.h"

#define NONE        TM_HG_NONE
#define U32         TM_HDOM_U32
#define U64         TM_HDOM_U64
#define HOLDERS_MAX 65536u
#define PATHS_MAX   100u       /* holders given a path */
#define PATH_KEEP   40u        /* steps of a path kept: its first 4 and last 36 */
#define PARTS_CELLS (2u << 20) /* holders x classes counted for the histograms */

struct cand {
	uint64_t ret;
	uint32_t pre;
};

/* A min-heap of the K largest candidates by retained bytes. */
static void heap_push(struct cand *hp, size_t *n, size_t k, struct cand c)
{
	if (*n == k && hp[0].ret >= c.ret)
		return;
	size_t i;
	if (*n < k) {
		i = (*n)++;
		while (i && hp[(i - 1) / 2].ret > c.ret)
			hp[i] = hp[(i - 1) / 2], i = (i - 1) / 2;
		hp[i] = c;
		return;
	}
	for (i = 0;;) { /* replace the smallest, sift down */
		size_t l = 2 * i + 1, s = i;
		uint64_t v = c.ret;
		if (l < *n && hp[l].ret < v)
			s = l, v = hp[l].ret;
		if (l + 1 < *n && hp[l + 1].ret < v)
			s = l + 1;
		if (s == i)
			break;
		hp[i] = hp[s], i = s;
	}
	hp[i] = c;
}

static int by_ret(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->ret != y->ret)
		return x->ret < y->ret ? 1 : -1;
	return x->pre < y->pre ? -1 : x->pre > y->pre;
}

static bool is_holder(const struct tm_holders *h, uint32_t i)
{
	const uint32_t *cls = U32(h->g.cls), *vertex = U32(h->d.vertex), *idom = U32(h->d.idom);
	if (cls[vertex[i]] == TM_HG_MIRROR)
		return false;
	return idom[i] == 0 || cls[vertex[idom[i]]] == TM_HG_MIRROR;
}

/* Every holder into the by-class sums; the K largest into rows. */
static int pick(struct tm_holders *h, size_t k)
{
	const uint32_t *cls = U32(h->g.cls), *vertex = U32(h->d.vertex), *size = U32(h->g.size);
	const uint64_t *ret = U64(h->d.ret);
	struct cand *hp = malloc(k * sizeof(*hp));
	size_t n = 0;
	if (!hp)
		return tm_error("out of memory for the holders");
	for (uint32_t i = 1; i < h->d.n_live; i++) {
		if (!is_holder(h, i))
			continue;
		struct tm_hold_class *c = &h->by_class[cls[vertex[i]]];
		c->holders++, c->holder_retained += ret[i];
		c->holder_shallow += size[vertex[i]] == NONE ? 0 : 8ull * size[vertex[i]];
		h->candidates++;
		heap_push(hp, &n, k, (struct cand){ret[i], i});
	}
	qsort(hp, n, sizeof(*hp), by_ret);
	h->rows = calloc(n ? n : 1, sizeof(*h->rows));
	if (!h->rows) {
		free(hp);
		return tm_error("out of memory for the holders");
	}
	for (size_t r = 0; r < n; r++) {
		struct tm_holder *o = &h->rows[r];
		uint32_t v = vertex[hp[r].pre];
		o->pre = hp[r].pre, o->node = v, o->retained_bytes = hp[r].ret;
		o->retained_objects = U32(h->d.cnt)[hp[r].pre];
		o->shallow_bytes = size[v] == NONE ? -1 : 8ll * size[v];
	}
	h->n_rows = n;
	free(hp);
	return 0;
}

/* Each object's live or unreachable count, by class. */
static void live_by_class(struct tm_holders *h)
{
	const uint32_t *cls = U32(h->g.cls), *pre = U32(h->d.pre), *size = U32(h->g.size);
	for (uint32_t v = 0; v < h->g.n; v++) {
		struct tm_hold_class *c = &h->by_class[cls[v]];
		uint64_t b = size[v] == NONE ? 0 : 8ull * size[v];
		c->mirror_unknown += size[v] == NONE;
		if (pre[v])
			c->live++, c->live_bytes += b, h->live_bytes += b;
		else
			c->dead++, c->dead_bytes += b, h->dead_bytes += b, h->dead_objects++;
	}
}

static int by_bytes(const void *a, const void *b)
{
	const struct tm_hold_part *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->objects < y->objects ? 1 : x->objects > y->objects ? -1 : 0;
}

/* Holder S's cells into its parts, largest first. */
static int take_parts(struct tm_holder *o, const struct tm_hold_part *cells, uint32_t nc)
{
	size_t n = 0;
	for (uint32_t c = 0; c < nc; c++)
		n += cells[c].objects > 0;
	if (!(o->parts = malloc((n ? n : 1) * sizeof(*o->parts))))
		return tm_error("out of memory for the holders");
	for (uint32_t c = 0; c < nc; c++)
		if (cells[c].objects)
			o->parts[o->n_parts++] =
			    (struct tm_hold_part){c, cells[c].objects, cells[c].bytes};
	qsort(o->parts, o->n_parts, sizeof(*o->parts), by_bytes);
	return 0;
}

/* What the first holders retain, by class: each object counts for the
 * nearest listed holder that dominates it, and a holder's counts are then
 * added into the holder dominating it (a holder nested in another). */
static int parts(struct tm_holders *h)
{
	uint32_t nc = h->g.n_classes, k = (uint32_t)h->n_rows;
	if (k > PARTS_CELLS / nc)
		k = PARTS_CELLS / nc;
	if (!k)
		return 0;
	uint32_t *slot = U32(h->d.work), *idom = U32(h->d.idom), *vertex = U32(h->d.vertex);
	const uint32_t *cls = U32(h->g.cls), *size = U32(h->g.size);
	struct tm_hold_part *cells = calloc((size_t)k * nc, sizeof(*cells));
	if (!cells)
		return tm_error("out of memory for the holders' histograms");
	for (uint32_t s = 0; s < k; s++)
		slot[h->rows[s].pre] = s + 1;
	for (uint32_t i = 1; i < h->d.n_live; i++) {
		if (!slot[i])
			slot[i] = slot[idom[i]];
		if (!slot[i])
			continue;
		struct tm_hold_part *c = &cells[(size_t)(slot[i] - 1) * nc + cls[vertex[i]]];
		c->objects++;
		c->bytes += size[vertex[i]] == NONE ? 0 : 8ull * size[vertex[i]];
	}
	for (uint32_t i = h->d.n_live - 1; i >= 1; i--) { /* nested holders, inner first */
		uint32_t s = slot[i], up = slot[idom[i]];
		if (!s || i != h->rows[s - 1].pre || !up || up == s)
			continue;
		for (uint32_t c = 0; c < nc; c++) {
			cells[(size_t)(up - 1) * nc + c].objects +=
			    cells[(size_t)(s - 1) * nc + c].objects;
			cells[(size_t)(up - 1) * nc + c].bytes +=
			    cells[(size_t)(s - 1) * nc + c].bytes;
		}
	}
	int rc = 0;
	for (uint32_t s = 0; s < k && !rc; s++)
		rc = take_parts(&h->rows[s], cells + (size_t)s * nc, nc);
	free(cells);
	return rc;
}

/* ---- paths ---- */

static void label_of(const struct tm_holders *h, uint32_t v, struct tm_hold_step *s)
{
	char name[240];
	uint32_t ix;
	s->id = tm_hg_id(&h->g, v);
	s->cls = U32(h->g.cls)[v];
	if (s->cls != TM_HG_MIRROR) {
		tm_hg_class_name(&h->g, s->cls, s->label, sizeof(s->label));
		return;
	}
	if (!tm_idmap_get(&h->g.class_ix, s->id, &ix))
		ix = NONE;
	snprintf(s->label, sizeof(s->label), "class %s",
	         ix == NONE ? "?" : tm_hg_class_name(&h->g, ix, name, sizeof(name)));
}

/* Holder O's path from the super-root, and the PARENT of each step kept:
 * two walks up the breadth-first tree (a path may be as long as the heap
 * has objects: it is not copied, and only its ends are kept). */
static int walk(struct tm_holders *h, struct tm_holder *o, uint32_t **parent)
{
	const uint32_t *bfs = U32(h->d.bfs);
	uint32_t root = h->g.n;
	size_t n = 0;
	for (uint32_t v = o->node; v != root; v = bfs[v] - 1)
		n++;
	size_t keep = n <= PATH_KEEP ? n : PATH_KEEP;
	if (!(o->path = calloc(keep + 1, sizeof(*o->path))) ||
	    !(*parent = malloc((keep + 1) * sizeof(**parent))))
		return tm_error("out of memory for the holders' paths");
	o->path_elided = n - keep;
	o->n_path = keep;
	size_t at = 0; /* from the holder (0) up to the root's child (n - 1) */
	for (uint32_t v = o->node; v != root; v = bfs[v] - 1, at++) {
		size_t j; /* the root's end first: its first 4 and the holder's last */
		if (!o->path_elided || at >= n - 4)
			j = n - 1 - at;
		else if (at + 5 <= keep)
			j = keep - 1 - at;
		else
			continue;
		label_of(h, v, &o->path[j]);
		(*parent)[j] = bfs[v] - 1 == root ? NONE : bfs[v] - 1;
	}
	return 0;
}

static int by_parent(const void *a, const void *b)
{
	const struct tm_hg_step *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->child_id < y->child_id ? -1 : x->child_id > y->child_id;
}

static void fill_via(struct tm_hold_step *s, uint32_t parent, const struct tm_hg_step *st, size_t n)
{
	struct tm_hg_step key = {.parent = parent, .child_id = s->id};
	const struct tm_hg_step *f = bsearch(&key, st, n, sizeof(*st), by_parent);
	snprintf(s->via, sizeof(s->via), "%s", f && f->how[0] ? f->how : "?");
}

/* Paths of the first holders, named in one more pass over the dump. */
static int paths(struct tm_holders *h, const char *path)
{
	size_t k = h->n_rows < PATHS_MAX ? h->n_rows : PATHS_MAX, n = 0;
	uint32_t *par[PATHS_MAX] = {0};
	struct tm_hg_step *st = malloc((k * PATH_KEEP + 1) * sizeof(*st));
	int rc = st ? 0 : tm_error("out of memory for the holders' paths");
	for (size_t r = 0; r < k && !rc; r++) {
		rc = walk(h, &h->rows[r], &par[r]);
		for (size_t j = 0; !rc && j < h->rows[r].n_path; j++)
			st[n++] = (struct tm_hg_step){.parent = par[r][j],
			                              .child_id = h->rows[r].path[j].id};
	}
	if (!rc && n) {
		qsort(st, n, sizeof(*st), by_parent);
		rc = tm_hgraph_name_steps(&h->g, path, st, n);
	}
	for (size_t r = 0; r < k && !rc; r++)
		for (size_t j = 0; j < h->rows[r].n_path; j++)
			fill_via(&h->rows[r].path[j], par[r][j], st, n);
	for (size_t r = 0; r < k; r++)
		free(par[r]);
	free(st);
	return rc;
}

int tm_holders_compute(struct tm_holders *h, const char *path, const struct tm_hprof_layout *l,
                       size_t top, void (*progress)(const char *, uint64_t, uint64_t))
{
	memset(h, 0, sizeof(*h));
	int rc = tm_hgraph_build(&h->g, path, l, progress);
	if (rc) {
		tm_hgraph_release(&h->g);
		return -1;
	}
	rc = tm_hdom_compute(&h->d, &h->g);
	if (!rc && !(h->by_class = calloc(h->g.n_classes, sizeof(*h->by_class))))
		rc = tm_error("out of memory for the classes");
	if (!rc)
		rc = pick(h, top && top < HOLDERS_MAX ? top : HOLDERS_MAX);
	if (!rc) {
		live_by_class(h);
		rc = parts(h);
	}
	if (!rc)
		rc = paths(h, path);
	if (rc)
		tm_holders_release(h);
	return rc;
}

void tm_holders_release(struct tm_holders *h)
{
	for (size_t r = 0; r < h->n_rows; r++) {
		free(h->rows[r].path);
		free(h->rows[r].parts);
	}
	free(h->rows);
	free(h->by_class);
	h->rows = NULL, h->by_class = NULL, h->n_rows = 0;
	tm_hdom_release(&h->d);
	tm_hgraph_release(&h->g);
}
