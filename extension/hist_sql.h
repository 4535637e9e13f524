/*
 * hist_sql.h
 *		The one row shape of every SQL histogram function (the live
 *		pgwt_event_histogram and the history pgwt_history_histogram):
 *
 *		  wait_event_type text, wait_event text, bucket int,
 *		  lower_us float8, upper_us float8, waits bigint,
 *		  pct_waits float8, fidelity text
 *
 *		bucket is a bucket of common/histogram.h's 32-bucket ns layout;
 *		lower_us is inclusive, upper_us exclusive and NULL for the last
 *		bucket; pct_waits is the bucket's share of the event's waits. Only
 *		non-empty buckets are rows. The per-second summaries keep this ns
 *		layout beside their 16 us buckets, so a history answer built from
 *		summaries fills the same rows; the us layout is never mapped onto
 *		these columns.
 *
 *		The per-key views (pgwt_session_event, pgwt_query_event and their
 *		history twins) carry the same buckets as one column, histogram
 *		bigint[32], element b+1 = waits in bucket b (pgwt_hist_array).
 *
 *		Every event view (system, session, query; live and history) ends
 *		with p50_us, p95_us, p99_us (0.8): estimates from those buckets cut
 *		at the row's smallest and largest wait (pgwt_hist_quantile). The
 *		bound is the bucket's: the true percentile lies in the bucket
 *		[2^k, 2^(k+1)) ns that holds the value shown, a factor of 2 (less
 *		where the extremes cut it; identical waits give their value). NULL where the row has no exact wait
 *		(the sampler's rows, sampled history).
 *
 * Server code (Datum, tuplestore), header-only; no shared state.
 */
#ifndef PGWT_HIST_SQL_H
#define PGWT_HIST_SQL_H

#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "common/histogram.h"
#include "common/units.h"

#define PGWT_HIST_SQL_COLS 8

/*
 * Append the row of ns bucket b of one event: n of the event's total waits
 * fell in it. type and name may be NULL (shown as NULL).
 */
static inline void
pgwt_hist_put_row(ReturnSetInfo *rsinfo, const char *type, const char *name,
				  unsigned b, uint64 n, uint64 total, const char *fidelity)
{
	Datum		v[PGWT_HIST_SQL_COLS];
	bool		nulls[PGWT_HIST_SQL_COLS] = {false};
	double		lo_us,
				hi_us;

	v[0] = type ? CStringGetTextDatum(type) : (Datum) 0;
	nulls[0] = type == NULL;
	v[1] = name ? CStringGetTextDatum(name) : (Datum) 0;
	nulls[1] = name == NULL;
	v[2] = Int32GetDatum((int32) b);
	nulls[4] = !pgwt_hist_bounds_us(b, &lo_us, &hi_us);
	v[3] = Float8GetDatum(lo_us);
	v[4] = Float8GetDatum(hi_us);
	v[5] = Int64GetDatum((int64) n);
	v[6] = Float8GetDatum(pgwt_pct((double) n, (double) total));
	v[7] = CStringGetTextDatum(fidelity);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, nulls);
}

/* The 32 ns buckets as the histogram bigint[] column (index 1 = bucket 0). */
static inline Datum
pgwt_hist_array(const uint64 *counts)
{
	Datum		elems[PGWT_HIST_NS_BUCKETS];

	for (unsigned b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
		elems[b] = Int64GetDatum((int64) counts[b]);
	/* construct_array_builtin() is 16+; int8's storage spelled out for 15 */
	return PointerGetDatum(construct_array(elems, PGWT_HIST_NS_BUCKETS, INT8OID,
										   sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/* columns of p50_us, p95_us, p99_us */
#define PGWT_PCT_SQL_COLS PGWT_HIST_NPCTS

/*
 * p50_us, p95_us, p99_us from column col on, from the 32 ns buckets of
 * one row (NULL: no exact wait, all three NULL) cut at its smallest and
 * largest wait (max_ns 0: both unknown; min_ns 0: the smallest unknown).
 * Returns the next column.
 */
static inline int
pgwt_hist_pct_columns(Datum *v, bool *n, int col, const uint64 *counts,
					  uint64 min_ns, uint64 max_ns)
{
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
	{
		pgwt_hist_pct p;

		if (counts != NULL && pgwt_hist_quantile(counts, pgwt_hist_pct_q(i), min_ns, max_ns, &p))
		{
			v[col + i] = Float8GetDatum(pgwt_us_of_ns((double) p.est_ns));
			n[col + i] = false;
		}
		else
			n[col + i] = true;
	}
	return col + PGWT_HIST_NPCTS;
}

#endif							/* PGWT_HIST_SQL_H */
