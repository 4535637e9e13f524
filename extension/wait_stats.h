/*
 * wait_stats.h
 *		Pure logic of the coop tier: wait aggregates (histogram layout:
 *		common/histogram.h), the per-backend event table and the eviction choice of the query
 *		table.
 *
 * Nothing here touches the server: no locks, no allocation, no shared
 * memory. The extension includes it for its hot path and its readers, and
 * extension/test_wait_stats.c unit-tests it without a server (under
 * ASan+UBSan). Types come from <stdint.h> so both sides can include it.
 */
#ifndef PGWT_WAIT_STATS_H
#define PGWT_WAIT_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* class bytes, ClientRead, pgwt_event_is_idle(): shared by every tier */
#include "common/event_ids.h"
/* the 32-bucket ns layout of PgwtAgg.hist */
#include "common/histogram.h"

/*
 * Count, total, extremes and histogram of one stream of waits. min_ns is
 * meaningful only while count > 0 (a zeroed aggregate is empty); with
 * max_ns it clamps the percentiles estimated from hist.
 */
typedef struct PgwtAgg
{
	uint64_t	count;
	uint64_t	total_ns;
	uint64_t	min_ns;
	uint64_t	max_ns;
	uint64_t	hist[PGWT_HIST_NS_BUCKETS];
} PgwtAgg;

/* One row of an event table; event 0 marks an empty row. */
typedef struct PgwtEventStat
{
	uint32_t	event;
	uint32_t	pad;
	PgwtAgg		agg;
} PgwtEventStat;


static inline void
pgwt_agg_add(PgwtAgg *agg, uint64_t ns)
{
	if (ns < agg->min_ns || agg->count == 0)
		agg->min_ns = ns;
	agg->count++;
	agg->total_ns += ns;
	if (ns > agg->max_ns)
		agg->max_ns = ns;
	agg->hist[pgwt_hist_ns_bucket(ns)]++;
}

static inline void
pgwt_agg_merge(PgwtAgg *dst, const PgwtAgg *src)
{
	int			i;

	if (src->count > 0 && (dst->count == 0 || src->min_ns < dst->min_ns))
		dst->min_ns = src->min_ns;
	dst->count += src->count;
	dst->total_ns += src->total_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	for (i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
		dst->hist[i] += src->hist[i];
}

/*
 * Open-addressing lookup in an event table of 'size' rows (a power of two).
 * Returns the row holding 'event', or when absent and 'insert' is set, a
 * fresh row claimed for it; NULL when absent and not inserting, or when
 * the table is full. Event 0 is never stored (it means "no wait").
 */
static inline PgwtEventStat *
pgwt_event_lookup(PgwtEventStat *tab, int size, uint32_t event, bool insert)
{
	uint32_t	h = event * UINT32_C(2654435761);
	int			i;

	if (event == 0)
		return NULL;
	for (i = 0; i < size; i++)
	{
		PgwtEventStat *row = &tab[(h + (uint32_t) i) & (uint32_t) (size - 1)];

		if (row->event == event)
			return row;
		if (row->event == 0)
		{
			if (!insert)
				return NULL;
			row->event = event;
			return row;
		}
	}
	return NULL;
}

/*
 * One backend's running totals besides its event table: time with no wait
 * event set (CPU*), the end of its latest wait, and waits its table had no
 * room for. Folded by pgwt_fold_wait().
 */
typedef struct PgwtFoldState
{
	uint64_t	cpu_ns;
	uint64_t	last_end_ns;
	uint64_t	lost_waits;
	uint32_t	cached_row;		/* index of the last row used (any value is safe) */
	/*
	 * Bitmap of the table's rows in use (bit r of word r / 64), kept so
	 * that folding and clearing a table touch only those rows: every row
	 * with an event has its bit set. NULL: not kept.
	 */
	uint64_t   *used_rows;
} PgwtFoldState;

/* Words of a bitmap of 'size' rows. */
#define PGWT_USED_ROWS_WORDS(size) (((size) + 63) / 64)

/* The first row in use at or after 'from' (< size), or -1. */
static inline int
pgwt_used_rows_next(const uint64_t *used, int size, int from)
{
	int			w;

	if (from < 0)
		from = 0;
	for (w = from / 64; w < PGWT_USED_ROWS_WORDS(size); w++)
	{
		uint64_t	bits = used[w];

		if (w == from / 64)
			bits &= ~UINT64_C(0) << (from % 64);
		if (bits != 0)
		{
			int			r = w * 64 + __builtin_ctzll(bits);

			return r < size ? r : -1;
		}
	}
	return -1;
}

/* Zero the rows in use and the bitmap: the table is empty again. */
static inline void
pgwt_used_rows_clear(PgwtEventStat *tab, uint64_t *used, int size)
{
	int			r;

	for (r = pgwt_used_rows_next(used, size, 0); r >= 0; r = pgwt_used_rows_next(used, size, r + 1))
		memset(&tab[r], 0, sizeof(tab[r]));
	memset(used, 0, PGWT_USED_ROWS_WORDS(size) * sizeof(uint64_t));
}

/*
 * Fold one finished wait [start_ns, end_ns] of 'event' into an event table
 * of 'size' rows (a power of two) and the running totals. The row of the
 * previous wait is tried first (a backend mostly repeats the same wait),
 * checked by its event so a zeroed or different table just misses; the
 * hash lookup runs only on a miss. A gap since the previous wait's end is
 * CPU*; a wait that ends before it (clock skew) counts as 0 ns.
 */
static inline void
pgwt_fold_wait(PgwtEventStat *tab, int size, PgwtFoldState *st,
			   uint32_t event, uint64_t start_ns, uint64_t end_ns)
{
	PgwtEventStat *row = &tab[st->cached_row & (uint32_t) (size - 1)];

	if (row->event != event || event == 0)
	{
		row = pgwt_event_lookup(tab, size, event, true);
		if (row != NULL)
		{
			st->cached_row = (uint32_t) (row - tab);
			/* a row just claimed: no wait counted in it yet */
			if (st->used_rows != NULL && row->agg.count == 0)
				st->used_rows[st->cached_row / 64] |= UINT64_C(1) << (st->cached_row % 64);
		}
	}
	if (row != NULL)
		pgwt_agg_add(&row->agg, end_ns > start_ns ? end_ns - start_ns : 0);
	else
		st->lost_waits++;

	if (start_ns > st->last_end_ns)
		st->cpu_ns += start_ns - st->last_end_ns;
	if (end_ns > st->last_end_ns)
		st->last_end_ns = end_ns;
}

/*
 * Eviction choice of the bounded query table: the indexes of the k
 * entries with the smallest usage (ties broken by index, so the choice is
 * deterministic). 'order' is caller-provided scratch of n ints; on return
 * its first k elements are the chosen indexes. k is clamped to [0, n].
 */
static inline int
pgwt_pick_least_used(const double *usage, int n, int k, int *order)
{
	int			i,
				j;

	if (k > n)
		k = n;
	if (k < 0)
		k = 0;
	for (i = 0; i < n; i++)
		order[i] = i;
	/* partial selection sort: k is a few percent of n, and this runs rarely */
	for (i = 0; i < k; i++)
	{
		int			best = i;

		for (j = i + 1; j < n; j++)
		{
			double		uj = usage[order[j]];
			double		ub = usage[order[best]];

			if (uj < ub || (uj == ub && order[j] < order[best]))
				best = j;
		}
		if (best != i)
		{
			int			t = order[i];

			order[i] = order[best];
			order[best] = t;
		}
	}
	return k;
}

#endif							/* PGWT_WAIT_STATS_H */
