/*
 * histogram.h
 *		The two wait-duration histogram layouts, their bucket functions and
 *		their bounds, in one place for every tier.
 *
 *	ns layout (PGWT_HIST_NS_BUCKETS = 32, log2 of nanoseconds): bucket 0
 *		holds waits under 2^10 ns (about 1 us); bucket b (1..30) holds
 *		[2^(9+b), 2^(10+b)) ns; bucket 31 everything from 2^40 ns (about
 *		18 minutes) up. The extension's live aggregates, the analysis
 *		engine and the per-second summaries count in it, and every SQL
 *		histogram shows it.
 *	us layout (PGWT_HIST_US_BUCKETS = 16, log2 of microseconds): bucket 0
 *		holds waits under 1 us; bucket b (1..14) holds [2^(b-1), 2^b) us;
 *		bucket 15 everything from 16.384 ms up. The per-second summaries
 *		carry it too, and pgwt-dump's coarse histogram prints it.
 *
 * Bounds are in ns, lower inclusive, upper exclusive; the last bucket's
 * upper bound is PGWT_HIST_UNBOUNDED. Display in microseconds goes through
 * pgwt_hist_bounds_us() so every view prints the same numbers.
 *
 * Percentiles (pgwt_hist_quantile): the bucket that holds the wait of
 * rank ceil(q * n) bounds the q-quantile; the estimate inside it
 * interpolates on the log scale by rank, and the smallest and largest wait
 * (where known) clamp both. The error bound is the bucket's: a factor of 2
 * in the ns layout (less where min or max cut the bucket); a view states
 * it by showing the bounds.
 *
 * Pure and header-only: the extension (also on its hot path), the tracer,
 * tracefmt and analysis include it.
 */
#ifndef PGWT_COMMON_HISTOGRAM_H
#define PGWT_COMMON_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define PGWT_HIST_NS_BUCKETS	32
#define PGWT_HIST_US_BUCKETS	16
#define PGWT_HIST_UNBOUNDED		UINT64_MAX

/* first bound of the ns layout: 2^10 ns */
#define PGWT_HIST_NS_FIRST_SHIFT 10

typedef enum pgwt_hist_layout
{
	PGWT_HIST_LAYOUT_NS,		/* 32 log2 ns buckets */
	PGWT_HIST_LAYOUT_US			/* 16 log2 us buckets */
} pgwt_hist_layout;

/* ns layout: bucket of a duration. */
static inline unsigned
pgwt_hist_ns_bucket(uint64_t ns)
{
	/*
	 * One count of leading zeros and no branch before the clamp: or-ing in
	 * the low 10 bits puts every ns < 2^10 at floor(log2) = 9, bucket 0.
	 * This runs once per wait on the extension's hot path.
	 */
	unsigned	b = (unsigned) (63 - __builtin_clzll(ns | ((UINT64_C(1) << PGWT_HIST_NS_FIRST_SHIFT) - 1))) -
		(PGWT_HIST_NS_FIRST_SHIFT - 1);

	return b < PGWT_HIST_NS_BUCKETS ? b : PGWT_HIST_NS_BUCKETS - 1;
}

/* us layout: bucket of a duration (no division: it runs once per wait). */
static inline unsigned
pgwt_hist_us_bucket(uint64_t ns)
{
	unsigned	lg,
				b;

	if (ns < 1000)
		return 0;
	if (ns >= (UINT64_C(1000) << (PGWT_HIST_US_BUCKETS - 2)))
		return PGWT_HIST_US_BUCKETS - 1;

	/*
	 * ns in [2^lg, 2^(lg+1)) holds at most one bound 1000 * 2^(b-1), so b
	 * is lg - 8 or lg - 9.
	 */
	lg = (unsigned) (63 - __builtin_clzll(ns));
	b = lg - 8;
	if (ns < (UINT64_C(1000) << (b - 1)))
		b--;
	return b;
}

/*
 * Both layouts' buckets of one duration from one count of leading zeros,
 * for a reader that fills both per wait (the analysis engine). With the
 * low 10 bits set, lg >= 9 and the us bucket is lg - 8, or lg - 9 below
 * the bound 1000 * 2^(lg - 9): that puts ns < 1000 in bucket 0 and
 * [1000, 1024) in bucket 1, as pgwt_hist_us_bucket does. Where lg - 9
 * reaches 54 the bound wraps, but b is then past the clamp either way.
 */
static inline void
pgwt_hist_buckets(uint64_t ns, unsigned *ns_bucket, unsigned *us_bucket)
{
	unsigned	lg = (unsigned) (63 - __builtin_clzll(ns | ((UINT64_C(1) << PGWT_HIST_NS_FIRST_SHIFT) - 1)));
	unsigned	b = lg - (PGWT_HIST_NS_FIRST_SHIFT - 1);
	unsigned	u = lg - 8 - (ns < (UINT64_C(1000) << (lg - 9)));

	*ns_bucket = b < PGWT_HIST_NS_BUCKETS ? b : PGWT_HIST_NS_BUCKETS - 1;
	*us_bucket = u < PGWT_HIST_US_BUCKETS ? u : PGWT_HIST_US_BUCKETS - 1;
}

/* ns layout: bounds of bucket b in ns. */
static inline void
pgwt_hist_ns_bounds(unsigned b, uint64_t *lo_ns, uint64_t *hi_ns)
{
	*lo_ns = b == 0 ? 0 : UINT64_C(1) << (PGWT_HIST_NS_FIRST_SHIFT - 1 + b);
	*hi_ns = b >= PGWT_HIST_NS_BUCKETS - 1 ? PGWT_HIST_UNBOUNDED :
		UINT64_C(1) << (PGWT_HIST_NS_FIRST_SHIFT + b);
}

/* us layout: bounds of bucket b in ns. */
static inline void
pgwt_hist_us_bounds(unsigned b, uint64_t *lo_ns, uint64_t *hi_ns)
{
	*lo_ns = b == 0 ? 0 : (UINT64_C(1) << (b - 1)) * 1000;
	*hi_ns = b >= PGWT_HIST_US_BUCKETS - 1 ? PGWT_HIST_UNBOUNDED :
		(UINT64_C(1) << b) * 1000;
}

static inline unsigned
pgwt_hist_nbuckets(pgwt_hist_layout layout)
{
	return layout == PGWT_HIST_LAYOUT_NS ? PGWT_HIST_NS_BUCKETS : PGWT_HIST_US_BUCKETS;
}

/*
 * Bounds of bucket b for display, in microseconds (lower inclusive, upper
 * exclusive): false when the bucket has no upper bound (the last one; SQL
 * shows NULL), with *hi_us set to 0.
 */
static inline bool
pgwt_hist_bounds_us(pgwt_hist_layout layout, unsigned b, double *lo_us, double *hi_us)
{
	uint64_t	lo,
				hi;

	if (layout == PGWT_HIST_LAYOUT_NS)
		pgwt_hist_ns_bounds(b, &lo, &hi);
	else
		pgwt_hist_us_bounds(b, &lo, &hi);
	*lo_us = (double) lo / 1e3;
	*hi_us = hi == PGWT_HIST_UNBOUNDED ? 0 : (double) hi / 1e3;
	return hi != PGWT_HIST_UNBOUNDED;
}

/* What a percentile is known to: an estimate inside [lo_ns, hi_ns). */
typedef struct pgwt_hist_pct
{
	uint64_t	est_ns;
	uint64_t	lo_ns;			/* inclusive */
	uint64_t	hi_ns;			/* exclusive; PGWT_HIST_UNBOUNDED: no bound */
} pgwt_hist_pct;

/*
 * The q-quantile (0 < q <= 1) of the waits counted in the nbuckets
 * counts of layout, clamped by the smallest and largest wait when known
 * (max_ns 0: unknown). False when no wait is counted or q is out of range.
 */
static inline bool
pgwt_hist_quantile(pgwt_hist_layout layout, const uint64_t *counts, double q,
				   uint64_t min_ns, uint64_t max_ns, pgwt_hist_pct *out)
{
	unsigned	nb = pgwt_hist_nbuckets(layout);
	uint64_t	n = 0,
				rank,
				before = 0;
	unsigned	b;

	for (b = 0; b < nb; b++)
		n += counts[b];
	if (n == 0 || !(q > 0.0 && q <= 1.0))
		return false;
	rank = (uint64_t) (q * (double) n);
	if ((double) rank < q * (double) n)
		rank++;					/* ceil: the smallest rank with q of the waits at or below */
	if (rank == 0)
		rank = 1;
	for (b = 0; b < nb; b++)
	{
		if (before + counts[b] >= rank)
			break;
		before += counts[b];
	}
	if (b >= nb)
		b = nb - 1;
	if (layout == PGWT_HIST_LAYOUT_NS)
		pgwt_hist_ns_bounds(b, &out->lo_ns, &out->hi_ns);
	else
		pgwt_hist_us_bounds(b, &out->lo_ns, &out->hi_ns);
	if (max_ns != 0)
	{
		/* the known extremes cut the bucket: the answer lies between them */
		if (min_ns > out->lo_ns)
			out->lo_ns = min_ns;
		if (out->hi_ns == PGWT_HIST_UNBOUNDED || max_ns < out->hi_ns)
			out->hi_ns = max_ns + 1;
		if (out->lo_ns >= out->hi_ns)
			out->lo_ns = out->hi_ns - 1;
	}
	{
		/* the rank's place among the bucket's waits, on the log scale */
		double		f = ((double) (rank - before) - 0.5) / (double) counts[b];
		double		lo = (double) out->lo_ns,
					hi = out->hi_ns == PGWT_HIST_UNBOUNDED ? lo * 2.0 : (double) out->hi_ns;
		double		est;

		if (lo < 1.0)
			est = hi * f;		/* from 0: linear */
		else
			est = lo * __builtin_exp2(f * __builtin_log2(hi / lo));
		if (est < lo)
			est = lo;
		if (out->hi_ns != PGWT_HIST_UNBOUNDED && est >= (double) out->hi_ns)
			est = (double) out->hi_ns - 1.0;
		out->est_ns = (uint64_t) est;
	}
	return true;
}

#endif							/* PGWT_COMMON_HISTOGRAM_H */
