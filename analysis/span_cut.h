/*
 * span_cut.h
 *		The one rule for how much of a wait [start, end) lies inside an
 *		interval [from, to): the overlap [max(start, from), min(end, to)).
 *		The engine's windows (engine.c), the range loader's clipping
 *		(range_clip.c) and the time series' buckets (series.c) all cut a
 *		wait with it, so a wait split across any set of adjacent edges adds
 *		up to its whole time, to the ns. Pure, header-only.
 */
#ifndef PGWT_ANALYSIS_SPAN_CUT_H
#define PGWT_ANALYSIS_SPAN_CUT_H

#include <stdint.h>

/* ns of [start, end) inside [from, to), and the overlap's ends (*lo, *hi
 * are set even when it is empty; then *hi <= *lo). */
static inline uint64_t
pgwt_span_cut(uint64_t start, uint64_t end, uint64_t from, uint64_t to,
			  uint64_t *lo, uint64_t *hi)
{
	*lo = start > from ? start : from;
	*hi = end < to ? end : to;
	return *hi > *lo ? *hi - *lo : 0;
}

#endif							/* PGWT_ANALYSIS_SPAN_CUT_H */
