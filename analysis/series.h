/*
 * series.h
 *		A time series of one range in one pass: [from, to) cut into N
 *		buckets of equal width (the last may be shorter), each holding the
 *		time the engine's time model bills per wait class there, and
 *		whether exact or sampled records billed it. Attached to an engine
 *		(pgwt_engine_set_series), it is filled by the same records, after
 *		the same rules, as the engine's windows: a wait's time is cut at
 *		every bucket edge (span_cut.h), a sample counts whole in the bucket
 *		of its instant unless an exact span supersedes it, idle time and
 *		background processes' time are no class's. So bucket i holds what a
 *		window [edge i, edge i+1) would show, for any N, from one read of
 *		the range (the engine keeps at most PGWT_MAX_WINDOWS windows).
 *
 * A wait is counted (for fidelity) in the bucket where it ends; one that
 * ends exactly at "to" in the last bucket, as pgwt_range_window_end makes
 * a loaded range's window do. Memory is fixed at creation. Pure: no I/O.
 */
#ifndef PGWT_ANALYSIS_SERIES_H
#define PGWT_ANALYSIS_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/fidelity.h"
#include "common/event_ids.h"

#define PGWT_SERIES_NCLASS	(PGWT_NCLASSES + 1)	/* class bytes + unknown */
#define PGWT_SERIES_MAX		100000	/* buckets at most */

typedef struct pgwt_series_bucket
{
	uint64_t	from_ns,
				to_ns;
	uint64_t	class_ns[PGWT_SERIES_NCLASS];	/* sessions' non-idle time */
	uint64_t	any_ns;			/* all billed time, idle and background too */
	bool		exact;			/* a transition billed time or ended here */
	bool		sampled;		/* a sample was billed here */
} pgwt_series_bucket;

typedef struct pgwt_series pgwt_series;

/*
 * [from, to) in at most "points" buckets of width ceil((to - from) /
 * points); fewer when that width covers the range sooner. NULL on bad
 * arguments (from >= to, points 0 or past PGWT_SERIES_MAX) or out of
 * memory, *err saying which.
 */
pgwt_series *pgwt_series_create(uint64_t from, uint64_t to, unsigned points, const char **err);
void		pgwt_series_free(pgwt_series *s);
void		pgwt_series_reset(pgwt_series *s);

unsigned	pgwt_series_len(const pgwt_series *s);
uint64_t	pgwt_series_width(const pgwt_series *s);
const pgwt_series_bucket *pgwt_series_get(const pgwt_series *s, unsigned i);
/* What the time model of the bucket's window says of its fidelity. */
pgwt_fidelity pgwt_series_fidelity(const pgwt_series_bucket *b);

/*
 * Billing, called by the engine (engine.c). A wait of event ev that
 * spent [start, end); a sample of ev at ts standing for weight_ns. db: the
 * time is a session's and not idle (it goes to ev's class).
 */
void		pgwt_series_bill_wait(pgwt_series *s, uint32_t ev, uint64_t start, uint64_t end, bool db);
void		pgwt_series_bill_sample(pgwt_series *s, uint32_t ev, uint64_t ts, uint64_t weight_ns,
									bool db);

/*
 * A summary frame's time (analysis/summary.c): ns of event ev billed
 * whole to the bucket holding instant "at" (the frame's start), exact
 * and/or sampled. Equal to the records' billing only when the frame lies
 * inside one bucket: the caller aligns the buckets to the frames.
 */
void		pgwt_series_bill_block(pgwt_series *s, uint32_t ev, uint64_t at, uint64_t ns,
								   bool db, bool exact, bool sampled);

#endif							/* PGWT_ANALYSIS_SERIES_H */
