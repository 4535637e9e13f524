/*
 * summary.h
 *		Views from per-second summaries (tracefmt/summary.h) instead of
 *		records: the seconds are billed into an engine window's tables, so
 *		every view of views.h reads them unchanged and gives the numbers it
 *		would give from the records.
 *
 * A window [from, to) is answered in three parts (pgwt_summary_plan):
 *	- the whole seconds inside it, from their summaries;
 *	- the partial seconds at its edges, from records (pgwt_engine_add);
 *	- waits that end after it but began inside it (the raw path reads
 *	  records up to `to + slack` for those): from the crossing entries of
 *	  the whole seconds after it, and records for a partial last second.
 * pgwt_summary_bill_second/_frame bill by the engine's window rule (a
 * wait counted whole where it ends); pgwt_summary_bill_range by the range
 * loader's (range_load.h: cut to the range), which summary_load.c uses.
 * A second whose tables were folded past a cap, or that saw late
 * records, is not usable: the caller reads records for the window instead.
 *
 * Pure: no I/O. Not thread-safe (one engine per thread).
 */
#ifndef PGWT_ANALYSIS_SUMMARY_H
#define PGWT_ANALYSIS_SUMMARY_H

#include "analysis/engine.h"
#include "tracefmt/summary.h"

#define PGWT_SUMMARY_MAX_RAW 3

/*
 * How to answer [from, to) when the raw path reads records in
 * [from, to + slack]: summaries of the seconds in [sum_from, sum_to)
 * (inside the window) and of those in [after_from, after_to) (crossings
 * only), records for the ranges raw[] (each [lo, hi), hi exclusive).
 */
typedef struct pgwt_summary_plan
{
	uint64_t	from_ns;
	uint64_t	to_ns;
	bool		use_summary;	/* at least one whole second inside */
	uint64_t	sum_from_ns;
	uint64_t	sum_to_ns;
	uint64_t	after_from_ns;
	uint64_t	after_to_ns;
	unsigned	nraw;
	uint64_t	raw_lo[PGWT_SUMMARY_MAX_RAW];
	uint64_t	raw_hi[PGWT_SUMMARY_MAX_RAW];
} pgwt_summary_plan;

/* slack_ns: how far past `to` the raw path reads records. */
void		pgwt_summary_plan_window(uint64_t from_ns, uint64_t to_ns, uint64_t slack_ns,
									 pgwt_summary_plan *plan);

/* Whether a second can stand for its records (no folding, no late ones). */
bool		pgwt_summary_second_usable(const pgwt_tf_second *s);

/*
 * Bill frame s (a second, or a minute rollup) into window w: its stats
 * when it lies inside the window,
 * and the part of its crossing waits that falls inside the window in any
 * case (a second before the window adds nothing). Returns false when s is
 * not usable or w is out of range (nothing billed).
 */
bool		pgwt_summary_bill_second(pgwt_engine *eng, int w, const pgwt_tf_second *s);

/* The same for an engine whose clock is the frame's clock + shift ns
 * (e.g. realtime = monotonic + start_realtime - start_monotonic). */
bool		pgwt_summary_bill_frame(pgwt_engine *eng, int w, const pgwt_tf_second *s,
									int64_t shift);

/*
 * Bill frame s into window w as the range loader (range_load.h) would fill
 * it for the range [from, to) (engine clock; the window is [from,
 * pgwt_range_window_end(to))): a frame inside the range whole, unless one
 * of its waits began before "from" (PGWT_SUM_NEEDS_RECORDS: read its
 * records, cut, instead); a frame after the range gives its waits that
 * crossed "to" cut to the range and counted there (with started_inside,
 * only the waits, neither CPU* nor idle, that began inside the range: the
 * loader's search past its lookahead); a frame before it, nothing.
 */
typedef enum pgwt_summary_fit
{
	PGWT_SUM_BILLED = 0,
	PGWT_SUM_UNUSABLE,			/* folded, late records, or partial */
	PGWT_SUM_NEEDS_RECORDS		/* nothing billed: read its records */
} pgwt_summary_fit;

pgwt_summary_fit pgwt_summary_bill_range(pgwt_engine *eng, int w, const pgwt_tf_second *s,
										 int64_t shift, uint64_t from, uint64_t to,
										 bool started_inside);

#endif							/* PGWT_ANALYSIS_SUMMARY_H */
