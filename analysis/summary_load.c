/*
 * summary_load.c
 *		Answers one engine window from a trace directory: whole minutes
 *		from minute rollups, remaining whole seconds from second frames,
 *		waits ending after the window from the crossings of later seconds
 *		(frames whose crossings cannot reach back into the window are
 *		skipped unread), partial seconds from records.
 *
 * Falls back to records for the whole window when a trace file in the
 * directory has no summary (written before summaries, by the seed tool,
 * or with no_summary), or when a frame inside the window is not exact
 * (folded keys, late records). The live summary lags its trace by a few
 * seconds: the seconds after its last frame come from records.
 *
 * Pure: the trace comes in as a pgwt_tf_trace_source (tracefmt's table of
 * functions for records, frames and summary presence), so this file opens
 * nothing itself: callers build the source of a path with
 * pgwt_tf_trace_source_open(). No state beyond the call.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/engine_internal.h"
#include "analysis/summary_load.h"

#define SL_SECOND PGWT_TF_SUM_SECOND_NS
#define SL_MINUTE PGWT_TF_SUM_MINUTE_NS

typedef struct sl_ctx
{
	uint64_t	lo,
				hi;				/* frames must lie inside [lo, hi) */
	uint64_t	span;			/* the span wanted */
	uint64_t	reach_before;	/* after the window: crossings reaching below */
	/* minutes billed, as a bitmap over [mfirst, ...) */
	uint64_t	mfirst;
	uint8_t    *mbits;
	size_t		mcount;
	bool		skip_billed_minutes;
	uint64_t	last_end;		/* live summary: end of its last frame */
	int64_t		shift;			/* engine clock = trace clock + shift */
} sl_ctx;

static bool
sl_minute_billed(const sl_ctx *c, uint64_t ts)
{
	uint64_t	m = ts - ts % SL_MINUTE;
	size_t		i;

	if (!c->mbits || m < c->mfirst)
		return false;
	i = (size_t) ((m - c->mfirst) / SL_MINUTE);
	return i < c->mcount && (c->mbits[i / 8] & (1u << (i % 8)));
}

static bool
sl_want(uint64_t sec_ts, uint64_t span_ns, uint64_t reach_ns, void *arg)
{
	sl_ctx	   *c = arg;

	if (span_ns != c->span || sec_ts < c->lo || sec_ts + span_ns > c->hi)
		return false;
	if (c->reach_before && (reach_ns == 0 || sec_ts - reach_ns >= c->reach_before))
		return false;
	if (c->skip_billed_minutes && sl_minute_billed(c, sec_ts))
		return false;
	return true;
}

typedef struct sl_bill_arg
{
	pgwt_engine *eng;
	int			w;
	sl_ctx	   *c;
	uint64_t   *n;
	bool		minutes;
	bool		inexact;
} sl_bill_arg;

static int
sl_bill_frame(const pgwt_tf_second *s, void *arg)
{
	sl_bill_arg *b = arg;

	if (b->minutes)
	{
		size_t		i = (size_t) ((s->sec_ts - b->c->mfirst) / SL_MINUTE);

		/* an inexact minute is left to its seconds */
		if (!pgwt_summary_bill_frame(b->eng, b->w, s, b->c->shift))
			return 0;
		b->c->mbits[i / 8] |= (uint8_t) (1u << (i % 8));
	}
	else if (!pgwt_summary_bill_frame(b->eng, b->w, s, b->c->shift))
	{
		b->inexact = true;
		return -1;
	}
	(*b->n)++;
	return 0;
}

/* Bills every wanted frame; -1 = a frame was not usable. */
static int
sl_bill(pgwt_engine *eng, int w, const pgwt_tf_trace_source *src, sl_ctx *c,
		uint64_t *n, bool minutes)
{
	sl_bill_arg b = {eng, w, c, n, minutes, false};
	bool		bad = false;
	int			rc;

	if (c->hi <= c->lo)
		return 0;
	rc = src->frames(src->arg, c->lo, c->hi, sl_want, c, sl_bill_frame, &b, &bad);
	if (b.inexact || (rc == 0 && bad))
		return -1;
	return rc;
}

typedef struct sl_feed_arg
{
	pgwt_engine *eng;
	int64_t		shift;
	pgwt_record *batch;
	uint64_t   *n;
} sl_feed_arg;

static int
sl_feed_block(const pgwt_record *recs, uint32_t n, void *arg)
{
	sl_feed_arg *f = arg;

	if (f->batch)
	{
		uint32_t	i;

		for (i = 0; i < n; i++)
		{
			f->batch[i] = recs[i];
			f->batch[i].ts_ns += (uint64_t) f->shift;
		}
		pgwt_engine_add_many(f->eng, f->batch, n);
	}
	else
		pgwt_engine_add_many(f->eng, recs, n);
	*f->n += n;
	return 0;
}

static int
sl_feed(pgwt_engine *eng, const pgwt_tf_trace_source *src, uint64_t lo, uint64_t hi,
		int64_t shift, uint64_t *n)
{
	sl_feed_arg f = {eng, shift, NULL, n};
	int			rc;

	if (hi <= lo)
		return 0;
	if (shift != 0 && !(f.batch = malloc(sizeof(pgwt_record) * PGWT_TF_BLOCK_MAX_RECORDS)))
		return -PGWT_TF_NOMEM;
	rc = src->records(src->arg, lo, hi, sl_feed_block, &f);
	free(f.batch);
	return rc;
}

/* The window [from, to) in the trace's clock. */
typedef struct sl_win
{
	uint64_t	from_ns;
	uint64_t	to_ns;
} sl_win;

static int
sl_raw(pgwt_engine *eng, const sl_win *spec, const pgwt_tf_trace_source *src,
	   uint64_t slack, int64_t shift, pgwt_summary_load_stats *st, const char *why)
{
	uint64_t	end = spec->to_ns > UINT64_MAX - slack - 1 ? UINT64_MAX : spec->to_ns + slack + 1;

	st->used_summary = false;
	st->why_raw = why;
	return sl_feed(eng, src, spec->from_ns, end, shift, &st->records);
}

int
pgwt_summary_load_source(pgwt_engine *eng, int w, const pgwt_tf_trace_source *src,
						 uint64_t slack_ns, int64_t shift, pgwt_summary_load_stats *st)
{
	sl_win		win;
	const sl_win *spec = &win;
	pgwt_summary_plan p;
	sl_ctx		c;
	uint64_t	live_end;
	unsigned	i;
	int			rc;

	memset(st, 0, sizeof(*st));
	if (w < 0 || w >= pgwt_engine_nwindows(eng))
		return -PGWT_TF_INVAL;
	win.from_ns = pgwt_engine_window(eng, w)->from_ns - (uint64_t) shift;
	win.to_ns = pgwt_engine_window(eng, w)->to_ns;
	if (win.to_ns != UINT64_MAX)
		win.to_ns -= (uint64_t) shift;
	if (pgwt_engine_window(eng, w)->from_ns < (uint64_t) (shift > 0 ? shift : 0))
		win.from_ns = 0;
	pgwt_summary_plan_window(spec->from_ns, spec->to_ns, slack_ns, &p);
	if (!p.use_summary)
		return sl_raw(eng, spec, src, slack_ns, shift, st, "no whole second in the window");
	/* summaries total each second's events over all pids: they cannot keep
	 * background processes out of DB time (common/process_rule.h) */
	if (pgwt_engine_has_background(eng))
		return sl_raw(eng, spec, src, slack_ns, shift, st,
					  "background processes in the trace (the summaries do not tell them apart)");
	if (!src->all_summarized(src->arg, spec->from_ns, p.raw_hi[p.nraw - 1], shift))
		return sl_raw(eng, spec, src, slack_ns, shift, st,
					  "a trace file has no summary (or another clock offset)");

	/* the live summary ends a few seconds before its trace */
	memset(&c, 0, sizeof(c));
	c.shift = shift;
	if (src->live_summary_end(src->arg, &live_end))
	{
		c.last_end = live_end;
		if (c.last_end < p.raw_hi[p.nraw - 1])
		{
			/* summaries only up to the live summary's end */
			uint64_t	lim = c.last_end;

			if (lim <= p.sum_from_ns)
				return sl_raw(eng, spec, src, slack_ns, shift, st, "the live summary lags");
			if (lim < p.sum_to_ns)
			{
				p.nraw = 0;
				p.raw_lo[p.nraw] = spec->from_ns;
				p.raw_hi[p.nraw++] = p.sum_from_ns;
				p.raw_lo[p.nraw] = lim;
				p.raw_hi[p.nraw++] = spec->to_ns + slack_ns + 1;
				p.sum_to_ns = lim;
				p.after_from_ns = p.after_to_ns = 0;
			}
			else if (lim < p.after_to_ns)
			{
				p.raw_hi[p.nraw - 1] = spec->to_ns + slack_ns + 1;
				p.raw_lo[p.nraw - 1] = lim > p.after_from_ns ? lim : p.after_from_ns;
				p.after_to_ns = p.raw_lo[p.nraw - 1];
			}
		}
	}

	/* 1. whole minutes inside the window */
	c.mfirst = p.sum_from_ns - p.sum_from_ns % SL_MINUTE;
	c.mcount = (size_t) ((p.sum_to_ns - c.mfirst) / SL_MINUTE) + 1;
	c.mbits = calloc((c.mcount + 7) / 8, 1);
	if (!c.mbits)
		return -PGWT_TF_NOMEM;
	c.lo = p.sum_from_ns;
	c.hi = p.sum_to_ns;
	c.span = SL_MINUTE;
	rc = sl_bill(eng, w, src, &c, &st->minutes, true);
	/* 2. the other whole seconds */
	if (rc == 0)
	{
		c.span = SL_SECOND;
		c.skip_billed_minutes = true;
		rc = sl_bill(eng, w, src, &c, &st->seconds, false);
	}
	/* 3. waits that end after the window, from later seconds' crossings */
	if (rc == 0 && p.after_to_ns > p.after_from_ns)
	{
		c.lo = p.after_from_ns;
		c.hi = p.after_to_ns;
		c.skip_billed_minutes = false;
		c.reach_before = spec->to_ns;
		rc = sl_bill(eng, w, src, &c, &st->seconds, false);
	}
	free(c.mbits);
	if (rc == -1)
	{
		/* start again from records: nothing billed so far may stay */
		pgwt_engine_reset(eng);
		return sl_raw(eng, spec, src, slack_ns, shift, st, "a summary frame is not exact");
	}
	if (rc < 0)
		return rc;
	st->used_summary = true;
	/* 4. partial seconds */
	for (i = 0; i < p.nraw; i++)
		if ((rc = sl_feed(eng, src, p.raw_lo[i], p.raw_hi[i], shift, &st->records)) < 0)
			return rc;
	return 0;
}
