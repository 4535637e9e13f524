/*
 * compare.h
 *		Two periods side by side (AWR's "compare periods"): rows keyed by a
 *		class, an event or a (query, event), each with its time and share
 *		of DB time in period A and in period B, and the change from A to
 *		B. The merge is pure; the rows come from the views of two engines
 *		(pgwt-server's /api/compare), the rendering is render_compare.c's.
 */
#ifndef PGWT_ANALYSIS_COMPARE_H
#define PGWT_ANALYSIS_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/render.h"

typedef enum pgwt_cmp_kind
{
	PGWT_CMP_CLASS,				/* k1 = class index */
	PGWT_CMP_EVENT,				/* k1 = event id */
	PGWT_CMP_QUERY_EVENT		/* k1 = query id, k2 = event id */
} pgwt_cmp_kind;

/* One key's time in one period. */
typedef struct pgwt_cmp_item
{
	uint64_t	k1,
				k2;
	uint64_t	ns;
} pgwt_cmp_item;

typedef struct pgwt_cmp_row
{
	uint64_t	k1,
				k2;
	uint64_t	a_ns,
				b_ns;
	double		a_pct,			/* share of the period's DB time */
				b_pct;
	int64_t		delta_ns;		/* b - a */
	double		delta_pct;		/* b_pct - a_pct (points) */
} pgwt_cmp_row;

/*
 * Merge the items of A (na, DB time a_db) and of B into rows, one per key
 * found in either (absent = 0 ns), largest |delta_ns| first, ties by key.
 * Items may come in any order; a key given twice in one period adds up.
 * *out is malloc'd (free it); -1 when out of memory.
 */
int			pgwt_compare(const pgwt_cmp_item *a, size_t na, uint64_t a_db,
						 const pgwt_cmp_item *b, size_t nb, uint64_t b_db,
						 pgwt_cmp_row **out, size_t *nout);

/* JSON ({"compare": kind, "a_db_ns", "b_db_ns", "rows": [...]}) or CSV. */
void		pgwt_render_compare(pgwt_buf *buf, const pgwt_render_opts *o, pgwt_cmp_kind kind,
								uint64_t a_db, uint64_t b_db,
								const pgwt_cmp_row *rows, size_t n);

#endif							/* PGWT_ANALYSIS_COMPARE_H */
