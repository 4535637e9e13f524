/*
 * srv_sum.c
 *		pgwt-server's fast path for long ranges: a range answered from the
 *		per-second summaries beside the trace files (minute rollups inside,
 *		seconds near the edges, records for the partial seconds at the
 *		range's ends: analysis/summary_load.c, docs/TRACE_FORMAT.md 11.4),
 *		which give every aggregate view the records' answer to the ns. Where
 *		the summaries cannot answer (no .sum file, background processes,
 *		no whole second, a frame not exact) the range is read from records
 *		as before. AAS buckets are aligned to whole minutes of the trace's
 *		clock so each frame falls in one bucket (srv_sum_align). Each
 *		request reads afresh; the one shared object is the memo of where
 *		the archived summaries' frames lie (tracefmt/summary.h, made once
 *		under pthread_once, locked inside), so a request's narrow frame
 *		reads skip the files outside their range.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "analysis/range_load.h"
#include "analysis/series.h"
#include "analysis/summary_load.h"
#include "tracefmt/tracefmt.h"
#include "srv_load.h"
#include "srv_sum.h"

#define SRV_MINUTE_NS (60ull * 1000000000ull)

static pgwt_tf_sum_memo *srv_sum_memo_obj;
static pthread_once_t srv_sum_memo_once = PTHREAD_ONCE_INIT;

static void
srv_sum_memo_init(void)
{
	srv_sum_memo_obj = pgwt_tf_sum_memo_create();
}

/* The process's memo of where the summary files' frames lie (NULL when it
 * could not be made: every read then walks the headers, as without it). */
static pgwt_tf_sum_memo *
srv_sum_memo(void)
{
	pthread_once(&srv_sum_memo_once, srv_sum_memo_init);
	return srv_sum_memo_obj;
}

/* wall-clock minus trace clock of the range's first file (0: none) */
static int64_t
srv_sum_shift_of(const pgwt_tf_reader *r)
{
	const pgwt_tf_file_header *h;

	if (pgwt_tf_reader_nfiles(r) == 0)
		return 0;
	h = pgwt_tf_reader_file_header(r, 0);
	return (int64_t) (h->start_realtime_ns - h->start_monotonic_ns);
}

bool
srv_sum_align(const char *path, uint64_t from, uint64_t to, unsigned points,
			  uint64_t *sfrom, uint64_t *sto, unsigned *npoints)
{
	pgwt_tf_reader *r = NULL;
	pgwt_tf_read_opts ro;
	uint64_t	width = (to - from + points - 1) / points,
				phase;
	int64_t		shift;

	/* the listing's file headers give the clock: no need of the range
	 * loader's escalation lookup, which the load itself does */
	memset(&ro, 0, sizeof(ro));
	ro.t_start = from;
	ro.t_end = to;
	ro.range_realtime = true;
	if (width < SRV_MINUTE_NS || pgwt_tf_reader_open(path, &ro, &r) < 0)
		return false;
	shift = srv_sum_shift_of(r);
	pgwt_tf_reader_close(r);
	width = (width + SRV_MINUTE_NS - 1) / SRV_MINUTE_NS * SRV_MINUTE_NS;
	/* the trace clock's minute boundaries, in wall-clock time */
	phase = (from - (uint64_t) shift) % SRV_MINUTE_NS;
	if (phase > from)
		return false;
	*sfrom = from - phase;
	*npoints = (unsigned) ((to - *sfrom + width - 1) / width);
	/* equal widths of exactly "width": the series may end after "to"
	 * (nothing is billed there; the answer clips the last bucket) */
	*sto = *sfrom + (uint64_t) *npoints * width;
	return *npoints >= 1 && *npoints <= points;
}

pgwt_series *
srv_sum_series(const char *path, uint64_t from, uint64_t to, unsigned points, bool *aligned)
{
	uint64_t	sfrom,
				sto;
	unsigned	np;

	/* long ranges: buckets of whole minutes, which the summaries fill */
	if ((*aligned = srv_sum_align(path, from, to, points, &sfrom, &sto, &np)))
		return pgwt_series_create(sfrom, sto, np, NULL);
	return pgwt_series_create(from, to, points, NULL);
}

/* The summaries' answer into a fresh engine; false (out cleared) when
 * they could not give it. */
static bool
srv_sum_try(const char *path, uint64_t from, uint64_t to, const pgwt_window_spec *win,
			bool with_side, struct pgwt_series *series, srv_loaded *out)
{
	pgwt_engine_config cfg = {0};
	pgwt_range_loader *l = NULL;
	pgwt_summary_load_stats ss;
	pgwt_tf_trace_source src;
	pgwt_record esc;
	const char *eerr = NULL;
	int			rc;

	(void) with_side;			/* the side files are read in any case */
	memset(out, 0, sizeof(*out));
	if (to == UINT64_MAX || pgwt_range_open(path, from, to, &l) < 0)
		return false;
	out->eng = pgwt_engine_create(&cfg, win, 1, &eerr);
	/* the backends always: the summaries refuse when some are background */
	if (!out->eng || srv_load_side(path, pgwt_range_reader(l), out) != 0)
	{
		pgwt_range_close(l);
		srv_loaded_free(out);
		return false;
	}
	pgwt_engine_set_series(out->eng, series);
	/* the escalation window open at "from", as the loader hands it first */
	if (pgwt_range_open_window(l, &esc))
		pgwt_engine_add(out->eng, &esc);
	rc = pgwt_tf_trace_source_open(path, &src);
	if (rc == 0)
	{
		pgwt_tf_trace_source_set_memo(&src, srv_sum_memo());
		rc = pgwt_summary_load_source(out->eng, 0, &src, PGWT_RANGE_SLACK_NS,
									  srv_sum_shift_of(pgwt_range_reader(l)), &ss);
		pgwt_tf_trace_source_close(&src);
	}
	pgwt_range_close(l);
	if (rc != 0 || !ss.used_summary)
	{
		srv_loaded_free(out);
		if (series)
			pgwt_series_reset(series);
		return false;
	}
	pgwt_engine_flush(out->eng);
	out->records = ss.records;
	out->first_rt = UINT64_MAX;
	return true;
}

int
srv_load_range_fast(const char *path, uint64_t from, uint64_t to,
					const pgwt_window_spec *win, bool with_side,
					struct pgwt_series *series, srv_loaded *out, bool *used,
					char *err, size_t errlen)
{
	*used = srv_sum_try(path, from, to, win, with_side, series, out);
	if (*used)
		return 0;
	return srv_load_range(path, from, to, win, 1, with_side, series, out, err, errlen);
}
