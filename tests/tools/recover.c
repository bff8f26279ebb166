// SPDX-License-Identifier: GPL-2.0
/*
 * Pending writes after a cut: intents without an ack.  During replay they
 * are found again by (gen, start) through a small open-addressing
 * hash; afterwards the live ones are sorted by start so that the candidates
 * of any sector are found by binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "journal.h"

/* Fill writes one gen over many ranges: key on (gen, start). */
static size_t hash_slot(const struct pending *p, uint32_t gen, uint64_t start)
{
	return mix64(gen ^ mix64(start)) & (p->tabsz - 1);
}

static void hash_insert(struct pending *p, size_t idx)
{
	size_t h = hash_slot(p, p->e[idx].gen, p->e[idx].start);

	while (p->tab[h])
		h = (h + 1) & (p->tabsz - 1);
	p->tab[h] = idx + 1;
}

/* Drop dead entries and rebuild the hash at twice the live count. */
static int pending_compact(struct pending *p)
{
	size_t i, live = 0, sz = 64;
	struct pend *e;

	for (i = 0; i < p->n; i++)
		if (p->e[i].gen)
			p->e[live++] = p->e[i];
	p->n = live;
	while (sz < 4 * (live + 1))
		sz *= 2;
	e = realloc(p->e, sz / 2 * sizeof(*e));
	if (!e)
		return -ENOMEM;
	p->e = e;
	p->cap = sz / 2;
	free(p->tab);
	p->tab = calloc(sz, sizeof(*p->tab));
	if (!p->tab)
		return -ENOMEM;
	p->tabsz = sz;
	for (i = 0; i < p->n; i++)
		hash_insert(p, i);
	return 0;
}

int pending_add(struct pending *p, uint64_t start, uint32_t nsect,
		uint32_t gen)
{
	int ret;

	if (p->n == p->cap) {
		ret = pending_compact(p);
		if (ret)
			return ret;
	}
	p->e[p->n].start = start;
	p->e[p->n].nsect = nsect;
	p->e[p->n].gen = gen;
	hash_insert(p, p->n);
	p->n++;
	return 0;
}

void pending_drop(struct pending *p, uint32_t gen, uint64_t start)
{
	size_t h, idx;

	if (!p->tabsz)
		return;
	for (h = hash_slot(p, gen, start); p->tab[h];
	     h = (h + 1) & (p->tabsz - 1)) {
		idx = p->tab[h] - 1;
		if (p->e[idx].gen == gen && p->e[idx].start == start) {
			p->e[idx].gen = 0;
			return;
		}
	}
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* End of replay: keep the live entries, sorted by start. */
int pending_finish(struct pending *p)
{
	size_t i;
	int ret;

	ret = pending_compact(p);
	if (ret)
		return ret;
	qsort(p->e, p->n, sizeof(*p->e), pend_cmp);
	p->max_len = 0;
	for (i = 0; i < p->n; i++)
		if (p->e[i].nsect > p->max_len)
			p->max_len = p->e[i].nsect;
	return 0;
}

void pending_free(struct pending *p)
{
	free(p->e);
	free(p->tab);
	memset(p, 0, sizeof(*p));
}

static void cand_insert(struct cand *c, uint32_t gen)
{
	unsigned int k;

	if (c->n == MAX_CAND) {
		/* Keep the acked gen and the newest pending ones. */
		if (gen < c->gen[1])
			return;
		memmove(&c->gen[1], &c->gen[2],
			(MAX_CAND - 2) * sizeof(c->gen[0]));
		c->n--;
	}
	for (k = c->n; k > 1 && c->gen[k - 1] > gen; k--)
		c->gen[k] = c->gen[k - 1];
	c->gen[k] = gen;
	c->n++;
}

/*
 * What sector may hold after a cut: its acked gen, or the gen of any
 * pending write over it that is newer, oldest first.
 */
void journal_cand(const struct model *m, const struct pending *p,
		  uint64_t sector, bool torn_ok, struct cand *c)
{
	size_t lo = 0, hi = p->n, mid;
	const struct pend *e;

	c->n = 1;
	c->gen[0] = m->gen[sector];
	c->torn_ok = torn_ok;
	/* First entry starting after sector, then walk back. */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (p->e[mid].start <= sector)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		e = &p->e[lo];
		if (e->start + p->max_len <= sector)
			break;
		if (sector < e->start + e->nsect && e->gen > c->gen[0])
			cand_insert(c, e->gen);
	}
}
