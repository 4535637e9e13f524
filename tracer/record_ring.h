/*
 * record_ring.h
 *		A time-bounded FIFO of records: what the live multi-window views
 *		(--window 5s,1m,5m) recompute from at every refresh. Pure.
 */
#ifndef PGWT_TRACER_RECORD_RING_H
#define PGWT_TRACER_RECORD_RING_H

#include <stddef.h>
#include <stdint.h>

#include "tracefmt/record.h"

typedef struct pgwt_record_ring
{
	pgwt_record *recs;
	size_t		cap;			/* power of two */
	size_t		head;			/* index of the oldest */
	size_t		n;
	size_t		max_cap;		/* growth limit; past it the oldest go */
	uint64_t	dropped;		/* records lost to max_cap */
} pgwt_record_ring;

extern void pgwt_ring_init(pgwt_record_ring *r, size_t max_cap);
extern void pgwt_ring_free(pgwt_record_ring *r);
/* Append (timestamps non-decreasing). -1 on out of memory. */
extern int	pgwt_ring_push(pgwt_record_ring *r, const pgwt_record *rec, size_t n);
/* Drop records older than min_ts. */
extern void pgwt_ring_trim(pgwt_record_ring *r, uint64_t min_ts);
/* Record i (0 = oldest). */
extern const pgwt_record *pgwt_ring_at(const pgwt_record_ring *r, size_t i);

#endif
