/*
 * summary_us.h
 *		The coarse microsecond buckets of the per-second summary file: a
 *		field of its format (docs/TRACE_FORMAT.md 11.4) that writers still
 *		fill so every reader of the format finds it, and that no view
 *		shows. Every view counts in the one layout of common/histogram.h.
 *
 *	PGWT_TF_US_BUCKETS = 16, log2 of microseconds: bucket 0 holds waits
 *	under 1 us; bucket b (1..14) holds [2^(b-1), 2^b) us; bucket 15
 *	everything from 16.384 ms up. Bounds in ns, lower inclusive, upper
 *	exclusive (PGWT_HIST_UNBOUNDED for the last).
 *
 * Pure and header-only.
 */
#ifndef PGWT_TRACEFMT_SUMMARY_US_H
#define PGWT_TRACEFMT_SUMMARY_US_H

#include <stdint.h>

#include "common/histogram.h"

#define PGWT_TF_US_BUCKETS	16

/* Bucket of a duration (no division: the summary builder runs it per wait). */
static inline unsigned
pgwt_tf_us_bucket(uint64_t ns)
{
	unsigned	lg,
				b;

	if (ns < 1000)
		return 0;
	if (ns >= (UINT64_C(1000) << (PGWT_TF_US_BUCKETS - 2)))
		return PGWT_TF_US_BUCKETS - 1;

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

/* Bounds of bucket b in ns. */
static inline void
pgwt_tf_us_bounds(unsigned b, uint64_t *lo_ns, uint64_t *hi_ns)
{
	*lo_ns = b == 0 ? 0 : (UINT64_C(1) << (b - 1)) * 1000;
	*hi_ns = b >= PGWT_TF_US_BUCKETS - 1 ? PGWT_HIST_UNBOUNDED :
		(UINT64_C(1) << b) * 1000;
}

#endif							/* PGWT_TRACEFMT_SUMMARY_US_H */
