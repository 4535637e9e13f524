/*
 * histogram.h
 *		The wait-duration histogram layout of every view, its bucket
 *		function and its bounds, in one place for every tier.
 *
 *	Layout (PGWT_HIST_NS_BUCKETS = 32, log2 of nanoseconds): bucket 0
 *		holds waits under 2^10 ns (about 1 us); bucket b (1..30) holds
 *		[2^(9+b), 2^(10+b)) ns; bucket 31, open at the top, everything from
 *		2^40 ns (about 18 minutes) up. The extension's live aggregates, the
 *		analysis engine and the per-second summaries count in it; every SQL
 *		histogram, the tracer's --view histogram and pgwt-dump show it.
 *		(The per-second summary files also carry a coarser field of 16 us
 *		buckets for their format's sake, tracefmt/summary_us.h; no view
 *		shows it.)
 *
 * Bounds are in ns, lower inclusive, upper exclusive; the last bucket's
 * upper bound is PGWT_HIST_UNBOUNDED. Display in microseconds goes through
 * pgwt_hist_bounds_us() so every view prints the same numbers.
 *
 * Percentiles (pgwt_hist_quantile): the bucket that holds the wait of
 * rank ceil(q * n) bounds the q-quantile; the estimate inside it
 * interpolates on the log scale by rank, and the smallest and largest wait
 * (where known) clamp both; the rank n (1) is the largest (smallest) wait
 * itself, so where that is known the answer is exact. The error bound is
 * the bucket's: the true value and the estimate lie in the same bucket, a
 * factor of 2 wide (less where min or max cut it).
 *
 * Pure and header-only: the extension (also on its hot path), the tracer,
 * tracefmt and analysis include it.
 */
#ifndef PGWT_COMMON_HISTOGRAM_H
#define PGWT_COMMON_HISTOGRAM_H

#include <stdbool.h>
#include <stdint.h>

#define PGWT_HIST_NS_BUCKETS	32
#define PGWT_HIST_UNBOUNDED		UINT64_MAX

/* first bound of the ns layout: 2^10 ns */
#define PGWT_HIST_NS_FIRST_SHIFT 10

/* Bucket of a duration. */
static inline unsigned
pgwt_hist_ns_bucket(uint64_t ns)
{
	/*
	 * One count of leading zeros, no branch: ns is first cut to the last
	 * bucket's lower bound (so no clamp of the result is needed), and
	 * or-ing in the low 10 bits puts every ns < 2^10 at floor(log2) = 9,
	 * bucket 0. 63 ^ clz is floor(log2), which the compiler reads as one
	 * bit scan. This runs once per wait on the extension's hot path.
	 */
	const uint64_t top = UINT64_C(1) << (PGWT_HIST_NS_FIRST_SHIFT + PGWT_HIST_NS_BUCKETS - 2);
	uint64_t	x = (ns < top ? ns : top) | ((UINT64_C(1) << PGWT_HIST_NS_FIRST_SHIFT) - 1);

	return (unsigned) (63 ^ __builtin_clzll(x)) - (PGWT_HIST_NS_FIRST_SHIFT - 1);
}

/* Bounds of bucket b in ns. */
static inline void
pgwt_hist_ns_bounds(unsigned b, uint64_t *lo_ns, uint64_t *hi_ns)
{
	*lo_ns = b == 0 ? 0 : UINT64_C(1) << (PGWT_HIST_NS_FIRST_SHIFT - 1 + b);
	*hi_ns = b >= PGWT_HIST_NS_BUCKETS - 1 ? PGWT_HIST_UNBOUNDED :
		UINT64_C(1) << (PGWT_HIST_NS_FIRST_SHIFT + b);
}

/*
 * Bounds of bucket b for display, in microseconds (lower inclusive, upper
 * exclusive): false when the bucket has no upper bound (the last one; SQL
 * shows NULL), with *hi_us set to 0.
 */
static inline bool
pgwt_hist_bounds_us(unsigned b, double *lo_us, double *hi_us)
{
	uint64_t	lo,
				hi;

	pgwt_hist_ns_bounds(b, &lo, &hi);
	*lo_us = (double) lo / 1e3;
	*hi_us = hi == PGWT_HIST_UNBOUNDED ? 0 : (double) hi / 1e3;
	return hi != PGWT_HIST_UNBOUNDED;
}

/*
 * The percentiles every event view shows (p50, p95, p99), i = 0..2: the
 * one list the SQL columns and the CLI and dump tables share.
 */
#define PGWT_HIST_NPCTS 3

static inline double
pgwt_hist_pct_q(unsigned i)
{
	return i == 0 ? 0.50 : i == 1 ? 0.95 : 0.99;
}

static inline const char *
pgwt_hist_pct_name(unsigned i)
{
	return i == 0 ? "p50" : i == 1 ? "p95" : "p99";
}

/* What a percentile is known to: an estimate inside [lo_ns, hi_ns). */
typedef struct pgwt_hist_pct
{
	uint64_t	est_ns;
	uint64_t	lo_ns;			/* inclusive */
	uint64_t	hi_ns;			/* exclusive; PGWT_HIST_UNBOUNDED: no bound */
} pgwt_hist_pct;

/*
 * The q-quantile (0 < q <= 1) of the waits counted in the
 * PGWT_HIST_NS_BUCKETS counts, clamped by the smallest and largest wait when known
 * (max_ns 0: unknown). False when no wait is counted or q is out of range.
 */
static inline bool
pgwt_hist_quantile(const uint64_t *counts, double q,
				   uint64_t min_ns, uint64_t max_ns, pgwt_hist_pct *out)
{
	const unsigned nb = PGWT_HIST_NS_BUCKETS;
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
	pgwt_hist_ns_bounds(b, &out->lo_ns, &out->hi_ns);
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
	/* the wait of rank n is the largest, of rank 1 the smallest: known exactly */
	if (max_ns != 0 && rank == n)
		out->est_ns = max_ns;
	else if (min_ns != 0 && rank == 1 && min_ns >= out->lo_ns && min_ns < out->hi_ns)
		out->est_ns = min_ns;
	return true;
}

#endif							/* PGWT_COMMON_HISTOGRAM_H */
