/*
 * compare.c
 *		Merging two periods' items into compare rows (compare.h): both
 *		sides sorted by key, walked together. Pure; no I/O.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"

static int
cmp_by_key(const void *x, const void *y)
{
	const pgwt_cmp_item *a = x,
			   *b = y;

	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	return 0;
}

static uint64_t
cmp_abs(int64_t d)
{
	return d < 0 ? (uint64_t) 0 - (uint64_t) d : (uint64_t) d;
}

static int
cmp_by_delta(const void *x, const void *y)
{
	const pgwt_cmp_row *a = x,
			   *b = y;
	uint64_t	da = cmp_abs(a->delta_ns),
				db = cmp_abs(b->delta_ns);

	if (da != db)
		return da > db ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	if (a->k2 != b->k2)
		return a->k2 < b->k2 ? -1 : 1;
	return 0;
}

static double
cmp_pct(uint64_t ns, uint64_t db)
{
	return db == 0 ? 0.0 : 100.0 * (double) ns / (double) db;
}

/* A sorted copy of n items (NULL and n 0 are fine). */
static pgwt_cmp_item *
cmp_sorted(const pgwt_cmp_item *in, size_t n)
{
	pgwt_cmp_item *s = malloc((n ? n : 1) * sizeof(*s));

	if (s && n)
	{
		memcpy(s, in, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_by_key);
	}
	return s;
}

int
pgwt_compare(const pgwt_cmp_item *a, size_t na, uint64_t a_db,
			 const pgwt_cmp_item *b, size_t nb, uint64_t b_db,
			 pgwt_cmp_row **out, size_t *nout)
{
	pgwt_cmp_item *sa = cmp_sorted(a, na),
			   *sb = cmp_sorted(b, nb);
	pgwt_cmp_row *rows = malloc((na + nb ? na + nb : 1) * sizeof(*rows));
	size_t		i = 0,
				j = 0,
				n = 0;

	*out = NULL;
	*nout = 0;
	if (!sa || !sb || !rows)
	{
		free(sa);
		free(sb);
		free(rows);
		return -1;
	}
	while (i < na || j < nb)
	{
		pgwt_cmp_row *r;
		int			c = i == na ? 1 : j == nb ? -1 : cmp_by_key(&sa[i], &sb[j]);
		const pgwt_cmp_item *key = c <= 0 ? &sa[i] : &sb[j];

		if (n > 0 && rows[n - 1].k1 == key->k1 && rows[n - 1].k2 == key->k2)
			r = &rows[n - 1];	/* a key given twice in a period */
		else
		{
			r = &rows[n++];
			memset(r, 0, sizeof(*r));
			r->k1 = key->k1;
			r->k2 = key->k2;
		}
		if (c <= 0)
			r->a_ns += sa[i++].ns;
		if (c >= 0)
			r->b_ns += sb[j++].ns;
	}
	for (size_t k = 0; k < n; k++)
	{
		rows[k].a_pct = cmp_pct(rows[k].a_ns, a_db);
		rows[k].b_pct = cmp_pct(rows[k].b_ns, b_db);
		rows[k].delta_ns = (int64_t) (rows[k].b_ns - rows[k].a_ns);
		rows[k].delta_pct = rows[k].b_pct - rows[k].a_pct;
	}
	qsort(rows, n, sizeof(*rows), cmp_by_delta);
	free(sa);
	free(sb);
	*out = rows;
	*nout = n;
	return 0;
}
