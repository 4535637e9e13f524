/*
 * record_ring.c
 *		Growable circular buffer of records, trimmed by age (pure).
 */
#include "tracer/record_ring.h"

#include <stdlib.h>
#include <string.h>

void
pgwt_ring_init(pgwt_record_ring *r, size_t max_cap)
{
	memset(r, 0, sizeof(*r));
	r->max_cap = max_cap ? max_cap : ((size_t) 1 << 24);
}

void
pgwt_ring_free(pgwt_record_ring *r)
{
	free(r->recs);
	memset(r, 0, sizeof(*r));
}

static int
ring_grow(pgwt_record_ring *r)
{
	size_t		nc = r->cap ? r->cap * 2 : 1024;
	pgwt_record *nr;

	if (nc > r->max_cap)
		return -1;
	nr = malloc(nc * sizeof(pgwt_record));
	if (!nr)
		return -1;
	/* unroll so the oldest is at 0 */
	for (size_t i = 0; i < r->n; i++)
		nr[i] = r->recs[(r->head + i) & (r->cap - 1)];
	free(r->recs);
	r->recs = nr;
	r->cap = nc;
	r->head = 0;
	return 0;
}

int
pgwt_ring_push(pgwt_record_ring *r, const pgwt_record *rec, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		if (r->n == r->cap && ring_grow(r) != 0)
		{
			if (r->cap == 0)
				return -1;
			/* full at the limit: the oldest record goes */
			r->head = (r->head + 1) & (r->cap - 1);
			r->n--;
			r->dropped++;
		}
		r->recs[(r->head + r->n) & (r->cap - 1)] = rec[i];
		r->n++;
	}
	return 0;
}

void
pgwt_ring_trim(pgwt_record_ring *r, uint64_t min_ts)
{
	while (r->n && r->recs[r->head].ts_ns < min_ts)
	{
		r->head = (r->head + 1) & (r->cap - 1);
		r->n--;
	}
}

const pgwt_record *
pgwt_ring_at(const pgwt_record_ring *r, size_t i)
{
	return &r->recs[(r->head + i) & (r->cap - 1)];
}
