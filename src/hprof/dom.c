/* Reachability, dominators, retained sizes, shortest paths; see hprof/dom.h. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "hprof/dom.h"
#include "base/banned.h"

#define NONE TM_HG_NONE
#define U32  TM_HDOM_U32
#define U64  TM_HDOM_U64

/* The Lengauer-Tarjan arrays, in preorder numbers. */
struct lt {
	struct tm_spill parent, semi, ancestor, label, head, next, stack;
	struct tm_spill pred_off, pred; /* uint64_t[n_live + 1], uint32_t[live references] */
};

static void tick(struct tm_hgraph *g, const char *what, uint64_t i, uint64_t n)
{
	if (g->progress && (i & 0x3ffff) == 0)
		g->progress(what, i, n);
}

/* Depth-first from the super-root: pre, vertex and parent. */
static int dfs(struct tm_hdom *d, struct lt *t, struct tm_hgraph *g)
{
	struct tm_spill sn, sc;
	uint32_t n = g->n, k = 0;
	tm_spill_init(&sn), tm_spill_init(&sc);
	if (tm_spill_array(&d->pre, &g->pool, 4ull * (n + 1)) ||
	    tm_spill_array(&d->vertex, &g->pool, 4ull * (n + 1)) ||
	    tm_spill_array(&t->parent, &g->pool, 4ull * (n + 1)) ||
	    tm_spill_array(&sn, &g->pool, 4ull * (n + 1)) ||
	    tm_spill_array(&sc, &g->pool, 8ull * (n + 1))) {
		tm_spill_release(&sn), tm_spill_release(&sc);
		return -1;
	}
	uint32_t *pre = U32(d->pre), *vertex = U32(d->vertex), *parent = U32(t->parent);
	uint32_t *stk = U32(sn), *succ = U32(g->succ);
	uint64_t *cur = U64(sc), *off = U64(g->off), sp = 0;
	pre[n] = ++k, vertex[0] = n, parent[0] = NONE;
	stk[sp] = n, cur[sp++] = off[n];
	while (sp) {
		uint32_t v = stk[sp - 1];
		uint64_t c = cur[sp - 1];
		if (c == off[v + 1]) {
			sp--;
			continue;
		}
		uint32_t w = succ[c];
		cur[sp - 1] = c + 1;
		if (pre[w])
			continue;
		tick(g, "depth-first", k, n);
		vertex[k] = w, parent[k] = pre[v] - 1, pre[w] = ++k;
		stk[sp] = w, cur[sp++] = off[w];
	}
	d->n_live = k;
	tm_spill_release(&sn), tm_spill_release(&sc);
	return 0;
}

/* The predecessors of each reachable object, in preorder numbers. */
static int preds(struct tm_hdom *d, struct lt *t, struct tm_hgraph *g)
{
	uint32_t k = d->n_live, *pre = U32(d->pre), *vertex = U32(d->vertex), *succ = U32(g->succ);
	uint64_t *off = U64(g->off), e = 0;
	if (tm_spill_array(&t->pred_off, &g->pool, 8ull * (k + 1)))
		return -1;
	uint64_t *po = U64(t->pred_off);
	for (uint32_t i = 0; i < k; i++)
		for (uint64_t c = off[vertex[i]]; c < off[vertex[i] + 1]; c++, e++)
			po[pre[succ[c]] - 1]++;
	for (uint32_t i = 1; i <= k; i++) /* po[i] = the end of i's list */
		po[i] += po[i - 1];
	if (tm_spill_array(&t->pred, &g->pool, 4 * (e ? e : 1)))
		return -1;
	uint32_t *pr = U32(t->pred);
	for (uint32_t i = 0; i < k; i++)
		for (uint64_t c = off[vertex[i]]; c < off[vertex[i] + 1]; c++)
			pr[--po[pre[succ[c]] - 1]] = i;
	return 0; /* po[i] is now the start of i's list, po[i + 1] its end */
}

/* Path compression, without recursion (the forest may be deep). */
static uint32_t eval(struct lt *t, uint32_t v)
{
	uint32_t *anc = U32(t->ancestor), *label = U32(t->label), *semi = U32(t->semi);
	uint32_t *stk = U32(t->stack), sp = 0;
	if (anc[v] == NONE)
		return v;
	for (uint32_t x = v; anc[anc[x]] != NONE; x = anc[x])
		stk[sp++] = x;
	while (sp) {
		uint32_t y = stk[--sp], a = anc[y];
		if (semi[label[a]] < semi[label[y]])
			label[y] = label[a];
		anc[y] = anc[a];
	}
	return label[v];
}

static void semidominators(struct tm_hdom *d, struct lt *t, struct tm_hgraph *g)
{
	uint32_t k = d->n_live, *semi = U32(t->semi), *idom = U32(d->idom);
	uint32_t *head = U32(t->head), *next = U32(t->next), *parent = U32(t->parent);
	uint32_t *anc = U32(t->ancestor), *pr = U32(t->pred);
	uint64_t *po = U64(t->pred_off);
	for (uint32_t w = k - 1; w >= 1; w--) {
		tick(g, "dominators", k - w, k);
		for (uint64_t c = po[w]; c < po[w + 1]; c++) {
			uint32_t u = eval(t, pr[c]);
			if (semi[u] < semi[w])
				semi[w] = semi[u];
		}
		next[w] = head[semi[w]], head[semi[w]] = w;
		uint32_t p = parent[w];
		anc[w] = p;
		for (uint32_t v = head[p]; v != NONE; v = next[v]) {
			uint32_t u = eval(t, v);
			idom[v] = semi[u] < semi[v] ? u : p;
		}
		head[p] = NONE;
	}
	for (uint32_t w = 1; w < k; w++)
		if (idom[w] != semi[w])
			idom[w] = idom[idom[w]];
	idom[0] = 0;
}

static int lengauer_tarjan(struct tm_hdom *d, struct lt *t, struct tm_hgraph *g)
{
	uint64_t k = d->n_live;
	if (tm_spill_array(&d->idom, &g->pool, 4 * k) ||
	    tm_spill_array(&t->semi, &g->pool, 4 * k) ||
	    tm_spill_array(&t->ancestor, &g->pool, 4 * k) ||
	    tm_spill_array(&t->label, &g->pool, 4 * k) ||
	    tm_spill_array(&t->head, &g->pool, 4 * k) ||
	    tm_spill_array(&t->next, &g->pool, 4 * k) || tm_spill_array(&t->stack, &g->pool, 4 * k))
		return -1;
	uint32_t *semi = U32(t->semi), *label = U32(t->label), *anc = U32(t->ancestor);
	uint32_t *head = U32(t->head);
	for (uint32_t i = 0; i < k; i++)
		semi[i] = label[i] = i, anc[i] = head[i] = NONE;
	semidominators(d, t, g);
	return 0;
}

/* Retained bytes and objects: each object's own, added up the tree. */
static int retained(struct tm_hdom *d, struct tm_hgraph *g)
{
	uint64_t k = d->n_live;
	if (tm_spill_array(&d->ret, &g->pool, 8 * k) || tm_spill_array(&d->cnt, &g->pool, 4 * k))
		return -1;
	uint64_t *ret = U64(d->ret);
	uint32_t *cnt = U32(d->cnt), *vertex = U32(d->vertex), *idom = U32(d->idom);
	const uint32_t *size = U32(g->size);
	for (uint32_t i = 1; i < k; i++) {
		uint32_t s8 = size[vertex[i]];
		ret[i] = s8 == NONE ? 0 : 8ull * s8;
		cnt[i] = 1;
	}
	for (uint32_t i = (uint32_t)k - 1; i >= 1; i--)
		ret[idom[i]] += ret[i], cnt[idom[i]] += cnt[i];
	return 0;
}

/* Breadth-first from the super-root: one shortest path to each object. */
static int shortest(struct tm_hdom *d, struct tm_hgraph *g)
{
	struct tm_spill q;
	uint32_t n = g->n;
	tm_spill_init(&q);
	if (tm_spill_array(&d->bfs, &g->pool, 4ull * (n + 1)) ||
	    tm_spill_array(&q, &g->pool, 4ull * d->n_live))
		return -1;
	uint32_t *par = U32(d->bfs), *queue = U32(q), *succ = U32(g->succ);
	uint64_t *off = U64(g->off), h = 0, tl = 0;
	par[n] = n + 1;
	queue[tl++] = n;
	while (h < tl) {
		uint32_t v = queue[h++];
		tick(g, "shortest paths", h, d->n_live);
		for (uint64_t c = off[v]; c < off[v + 1]; c++)
			if (!par[succ[c]])
				par[succ[c]] = v + 1, queue[tl++] = succ[c];
	}
	tm_spill_release(&q);
	return 0;
}

static void lt_release(struct lt *t)
{
	struct tm_spill *all[] = {&t->parent, &t->semi,  &t->ancestor, &t->label, &t->head,
	                          &t->next,   &t->stack, &t->pred_off, &t->pred};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tm_spill_release(all[i]);
}

int tm_hdom_compute(struct tm_hdom *d, struct tm_hgraph *g)
{
	struct lt t;
	struct tm_spill *all[] = {&d->pre,  &d->vertex, &d->idom,    &d->ret,     &d->cnt,  &d->bfs,
	                          &d->work, &t.parent,  &t.semi,     &t.ancestor, &t.label, &t.head,
	                          &t.next,  &t.stack,   &t.pred_off, &t.pred};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tm_spill_init(all[i]);
	d->n_live = 0;
	int rc = dfs(d, &t, g) || preds(d, &t, g) || lengauer_tarjan(d, &t, g);
	lt_release(&t);
	if (!rc)
		rc = retained(d, g) || shortest(d, g) ||
		     tm_spill_array(&d->work, &g->pool, 4ull * d->n_live);
	if (g->progress)
		g->progress(NULL, 0, 0);
	return rc ? -1 : 0;
}

void tm_hdom_release(struct tm_hdom *d)
{
	struct tm_spill *all[] = {&d->pre, &d->vertex, &d->idom, &d->ret,
	                          &d->cnt, &d->bfs,    &d->work};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		tm_spill_release(all[i]);
}
