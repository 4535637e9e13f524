/*
 * esc_lookup.c
 *		Escalation windows already open where a raw read begins
 *		(pgwt_tf_escalation_open_at, tracefmt.h).
 *
 * The raw path reads records from the window's start, but an exact window
 * (ESC_START .. ESC_END) that opened earlier still supersedes the samples
 * written beside its exact records: without its ESC_START the engine would
 * bill that time twice. So before the read, this finds the ESC_START of a
 * window open at the start and hands it to the engine first.
 *
 * Cheap when summaries exist: the second holding the start says whether a
 * window was open at its start or end; only then are records read back.
 * Without summaries (or when one says so) the records of the preceding
 * hour are scanned for escalation markers: exact windows are bounded by
 * the rolling-hour budget, so a window open at the start began less than
 * an hour before it (an unlimited budget can break this: see the README).
 */
#include <string.h>

#include "tracefmt/summary.h"
#include "tracefmt/tracefmt.h"

#define TF_ESC_LOOKBACK_NS	(3600ull * 1000000000ull)

/* 1: the summaries say no window was open in the second of mono_ns;
 * 0: they say one was, or they cannot tell. */
static int
tf_esc_summary_says_none(const char *path, uint64_t mono_ns)
{
	pgwt_tf_sum_reader *sr;
	const pgwt_tf_second *s;
	uint64_t	sec = mono_ns - mono_ns % 1000000000ull;
	int			seen = 0,
				open = 0,
				rc;

	if (pgwt_tf_sum_reader_open(path, sec, sec, &sr) < 0)
		return 0;
	while ((rc = pgwt_tf_sum_reader_next(sr, &s)) > 0)
	{
		if (s->span_ns != 1000000000ull || s->sec_ts != sec)
			continue;
		seen++;
		if (s->flags & (PGWT_TF_SUM_F_ESC_AT_START | PGWT_TF_SUM_F_ESC_AT_END))
			open++;
	}
	pgwt_tf_sum_reader_close(sr);
	return rc == 0 && seen > 0 && open == 0;
}

int
pgwt_tf_escalation_open_at(const char *path, uint64_t from_rt, pgwt_record *start,
						   uint64_t *start_rt, pgwt_tf_esc_lookup *st)
{
	pgwt_tf_read_opts ro = {0};
	pgwt_tf_reader *r;
	pgwt_tf_block blk;
	bool		open = false;
	int			rc;

	memset(st, 0, sizeof(*st));
	if (from_rt == 0)
		return 0;
	ro.t_start = from_rt > TF_ESC_LOOKBACK_NS ? from_rt - TF_ESC_LOOKBACK_NS : 0;
	ro.t_end = from_rt - 1;
	ro.range_realtime = true;
	if ((rc = pgwt_tf_reader_open(path, &ro, &r)) < 0)
		return rc;
	if (pgwt_tf_reader_nfiles(r) > 0)
	{
		/* the summaries' seconds are monotonic: the first file maps them */
		const pgwt_tf_file_header *h0 = pgwt_tf_reader_file_header(r, 0);
		int64_t		shift = (int64_t) (h0->start_realtime_ns - h0->start_monotonic_ns);

		if ((int64_t) from_rt > shift &&
			tf_esc_summary_says_none(path, (uint64_t) ((int64_t) from_rt - shift)))
		{
			st->by_summary = true;
			pgwt_tf_reader_close(r);
			return 0;
		}
	}
	st->scanned = true;
	while ((rc = pgwt_tf_reader_next_block(r, &blk)) > 0)
	{
		if (blk.type != PGWT_REC_TRANSITION)
			continue;
		for (uint32_t i = 0; i < blk.n; i++)
		{
			const pgwt_record *rec = &blk.recs[i];
			uint64_t	rt = pgwt_tf_to_realtime(blk.file, rec->ts_ns);

			st->records++;
			if (rt >= from_rt)
				continue;
			if (rec->new_event == PGWT_MARKER_ESC_START && !open)
			{
				open = true;
				*start = *rec;
				*start_rt = rt;
			}
			else if (rec->new_event == PGWT_MARKER_ESC_END && open)
				open = false;
		}
	}
	pgwt_tf_reader_close(r);
	if (rc < 0)
		return rc;
	return open ? 1 : 0;
}
