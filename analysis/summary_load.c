/*
 * summary_load.c
 *		Answers one loaded range from a trace directory as the range loader
 *		(range_load.h) would, cut to [from, to): whole minutes from minute
 *		rollups, remaining whole seconds from second frames, waits ending
 *		after the range from the crossings of later seconds (counted, cut
 *		at "to"; frames whose crossings cannot reach back into the range
 *		are skipped unread), partial seconds from records cut to the range.
 *
 * Exact for every column: a second in which a wait that began before
 * "from" ended is read from records (its frame counts that wait by its
 * whole length), so waits, avg, max and histograms equal the records'.
 * Past the loader's lookahead the crossings of later frames find the long
 * waits the loader searches for (non-idle, begun inside the range); only
 * frame headers are read until a frame's crossings reach back before "to".
 *
 * Leaves the window empty and says why (used_summary false) when a trace
 * file in the range has no summary (written before summaries, by the seed
 * tool, or with no_summary), when a frame inside the range is not exact
 * (folded keys, late records), when the engine keeps per-key histograms
 * (percentiles of session and query rows), or when background processes
 * are known:
 * the caller then reads the range through the range loader. The live
 * summary lags its trace by a few seconds: the seconds after its last
 * frame come from records.
 *
 * Pure: the trace comes in as a pgwt_tf_trace_source (tracefmt's table of
 * functions for records, frames and summary presence), so this file opens
 * nothing itself: callers build the source of a path with
 * pgwt_tf_trace_source_open(). No state beyond the call.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/engine_internal.h"
#include "analysis/range_load.h"
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
	uint64_t	rfrom,
				rto;			/* the range, engine clock */
	bool		started_inside; /* past the lookahead: the loader's search */
	/* seconds (trace clock) to read from records instead */
	uint64_t   *recsec;
	size_t		nrecsec,
				caprecsec;
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
sl_need_records(sl_ctx *c, uint64_t sec_ts)
{
	if (c->nrecsec == c->caprecsec)
	{
		size_t		cap = c->caprecsec ? c->caprecsec * 2 : 16;
		uint64_t   *n = realloc(c->recsec, cap * sizeof(*n));

		if (!n)
			return -PGWT_TF_NOMEM;
		c->recsec = n;
		c->caprecsec = cap;
	}
	c->recsec[c->nrecsec++] = sec_ts;
	return 0;
}

static int
sl_bill_frame(const pgwt_tf_second *s, void *arg)
{
	sl_bill_arg *b = arg;
	sl_ctx	   *c = b->c;
	pgwt_summary_fit fit = pgwt_summary_bill_range(b->eng, b->w, s, c->shift, c->rfrom,
												   c->rto, c->started_inside);

	if (b->minutes)
	{
		size_t		i = (size_t) ((s->sec_ts - c->mfirst) / SL_MINUTE);

		/* an inexact minute, or one holding a wait begun before "from",
		 * is left to its seconds */
		if (fit != PGWT_SUM_BILLED)
			return 0;
		c->mbits[i / 8] |= (uint8_t) (1u << (i % 8));
	}
	else if (fit == PGWT_SUM_NEEDS_RECORDS)
		return sl_need_records(c, s->sec_ts);
	else if (fit != PGWT_SUM_BILLED)
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
	const sl_ctx *c;
	pgwt_record *batch;
	uint64_t   *n;
} sl_feed_arg;

/* Records cut to the range, as the range loader hands them on. */
static int
sl_feed_block(const pgwt_record *recs, uint32_t n, void *arg)
{
	sl_feed_arg *f = arg;
	const sl_ctx *c = f->c;
	uint32_t	i,
				k = 0;

	for (i = 0; i < n; i++)
	{
		pgwt_record r = recs[i];

		r.ts_ns += (uint64_t) c->shift;
		if (c->started_inside &&
			(r.kind != PGWT_REC_TRANSITION || PGWT_IS_MARKER(r.new_event) ||
			 pgwt_event_is_cpu(r.old_event) || pgwt_event_is_idle(r.old_event) ||
			 r.duration_ns > r.ts_ns ||
			 r.ts_ns - r.duration_ns < c->rfrom))
			continue;
		if (pgwt_range_clip(&r, c->rfrom, c->rto, &f->batch[k]))
			k++;
	}
	pgwt_engine_add_many(f->eng, f->batch, k);
	*f->n += k;
	return 0;
}

static int
sl_feed(pgwt_engine *eng, const pgwt_tf_trace_source *src, uint64_t lo, uint64_t hi,
		const sl_ctx *c, uint64_t *n)
{
	sl_feed_arg f = {eng, c, NULL, n};
	int			rc;

	if (hi <= lo)
		return 0;
	if (!(f.batch = malloc(sizeof(pgwt_record) * PGWT_TF_BLOCK_MAX_RECORDS)))
		return -PGWT_TF_NOMEM;
	rc = src->records(src->arg, lo, hi, sl_feed_block, &f);
	free(f.batch);
	return rc;
}

/*
 * Nothing billed: the caller reads the range through the range loader.
 * Metadata stays, aggregates go.
 */
static int
sl_raw(pgwt_engine *eng, pgwt_summary_load_stats *st, const char *why)
{
	pgwt_engine_reset(eng);
	st->used_summary = false;
	st->why_raw = why;
	st->minutes = st->seconds = st->records = 0;
	return 0;
}

/* The live summary ends a few seconds before its trace: summaries only up
 * to its last frame. false: not even the range's whole seconds. */
static bool
sl_live_limit(pgwt_summary_plan *p, uint64_t from, uint64_t end, uint64_t lim)
{
	if (lim >= p->raw_hi[p->nraw - 1])
		return true;
	if (lim <= p->sum_from_ns)
		return false;
	if (lim < p->sum_to_ns)
	{
		p->nraw = 0;
		p->raw_lo[p->nraw] = from;
		p->raw_hi[p->nraw++] = p->sum_from_ns;
		p->raw_lo[p->nraw] = lim;
		p->raw_hi[p->nraw++] = end;
		p->sum_to_ns = lim;
		p->after_from_ns = p->after_to_ns = 0;
	}
	else if (lim < p->after_to_ns)
	{
		p->raw_hi[p->nraw - 1] = end;
		p->raw_lo[p->nraw - 1] = lim > p->after_from_ns ? lim : p->after_from_ns;
		p->after_to_ns = p->raw_lo[p->nraw - 1];
	}
	return true;
}

/* Frames: whole minutes, other whole seconds, crossings of later seconds
 * up to the lookahead's end, then (started_inside) beyond it. */
static int
sl_frames(pgwt_engine *eng, int w, const pgwt_tf_trace_source *src, sl_ctx *c,
		  const pgwt_summary_plan *p, uint64_t to, uint64_t beyond, pgwt_summary_load_stats *st)
{
	int			rc;

	c->mfirst = p->sum_from_ns - p->sum_from_ns % SL_MINUTE;
	c->mcount = (size_t) ((p->sum_to_ns - c->mfirst) / SL_MINUTE) + 1;
	c->mbits = calloc((c->mcount + 7) / 8, 1);
	if (!c->mbits)
		return -PGWT_TF_NOMEM;
	c->lo = p->sum_from_ns;
	c->hi = p->sum_to_ns;
	c->span = SL_MINUTE;
	rc = sl_bill(eng, w, src, c, &st->minutes, true);
	if (rc == 0)
	{
		c->span = SL_SECOND;
		c->skip_billed_minutes = true;
		rc = sl_bill(eng, w, src, c, &st->seconds, false);
	}
	c->skip_billed_minutes = false;
	c->reach_before = to;
	if (rc == 0 && p->after_to_ns > p->after_from_ns)
	{
		c->lo = p->after_from_ns;
		c->hi = p->after_to_ns;
		rc = sl_bill(eng, w, src, c, &st->seconds, false);
	}
	if (rc == 0 && beyond != UINT64_MAX)
	{
		/* the loader's search past its lookahead (range_load.h) */
		c->lo = beyond;
		c->hi = c->last_end ? (c->last_end > beyond ? c->last_end : beyond) : UINT64_MAX;
		c->started_inside = true;
		rc = sl_bill(eng, w, src, c, &st->seconds, false);
		c->started_inside = false;
	}
	return rc;
}

static bool
sl_want_second_at(uint64_t sec_ts, uint64_t span_ns, uint64_t reach_ns, void *arg)
{
	(void) reach_ns;
	return span_ns == SL_SECOND && sec_ts == *(const uint64_t *) arg;
}

static int
sl_frame_flags(const pgwt_tf_second *s, void *arg)
{
	*(uint32_t *) arg |= s->flags;
	return 0;
}

static void
sl_marker(pgwt_engine *eng, uint32_t marker, uint64_t ts)
{
	pgwt_record m;

	memset(&m, 0, sizeof(m));
	m.kind = PGWT_REC_TRANSITION;
	m.ts_ns = ts;
	m.old_event = PGWT_EVENT_NONE;
	m.new_event = marker;
	m.cpu_ns = PGWT_CPU_UNKNOWN;
	pgwt_engine_add(eng, &m);
}

/*
 * Records of [lo, hi) with the escalation windows the loader's engine
 * would know there: the ESC_START of a window open at lo lies in a frame
 * billed whole, so the frame at lo says it (its flags) and a marker at lo
 * stands for it; a window still open at hi is closed there, as the frames
 * after hi carry its samples already sorted. Without this a sample in a
 * second read from records inside a window would count as sampled time.
 */
static int
sl_feed_esc(pgwt_engine *eng, const pgwt_tf_trace_source *src, uint64_t lo, uint64_t hi,
			const sl_ctx *c, bool first, uint64_t *n)
{
	uint32_t	flags = 0;
	bool		bad = false;
	int			rc;

	if (hi <= lo)
		return 0;
	if (!first && !eng->span_open)
	{
		rc = src->frames(src->arg, lo, lo + SL_SECOND, sl_want_second_at, &lo,
						 sl_frame_flags, &flags, &bad);
		if (rc < 0)
			return rc;
		if (flags & PGWT_TF_SUM_F_ESC_AT_START)
			sl_marker(eng, PGWT_MARKER_ESC_START, lo + (uint64_t) c->shift);
	}
	rc = sl_feed(eng, src, lo, hi, c, n);
	if (rc == 0 && eng->span_open && hi != UINT64_MAX)
		sl_marker(eng, PGWT_MARKER_ESC_END, hi + (uint64_t) c->shift);
	return rc;
}

/* Records: the partial seconds, the seconds a frame could not give, and
 * (started_inside) the parts of the search past the lookahead that no
 * frame covers. */
static int
sl_records(pgwt_engine *eng, const pgwt_tf_trace_source *src, sl_ctx *c,
		   const pgwt_summary_plan *p, uint64_t end, uint64_t beyond, uint64_t *n)
{
	unsigned	i;
	int			rc = 0;

	for (i = 0; i < p->nraw && rc == 0; i++)
		rc = sl_feed_esc(eng, src, p->raw_lo[i], p->raw_hi[i], c, p->raw_lo[i] == p->from_ns, n);
	for (size_t k = 0; k < c->nrecsec && rc == 0; k++)
		rc = sl_feed_esc(eng, src, c->recsec[k], c->recsec[k] + SL_SECOND, c, false, n);
	if (rc == 0 && end != UINT64_MAX)
	{
		c->started_inside = true;
		rc = sl_feed(eng, src, end, beyond, c, n);
		if (rc == 0 && c->last_end)
			rc = sl_feed(eng, src, c->last_end > beyond ? c->last_end : beyond, UINT64_MAX, c, n);
		c->started_inside = false;
	}
	return rc;
}

int
pgwt_summary_load_source(pgwt_engine *eng, int w, const pgwt_tf_trace_source *src,
						 uint64_t slack_ns, int64_t shift, pgwt_summary_load_stats *st)
{
	const pgwt_window_spec *ws;
	pgwt_summary_plan p;
	sl_ctx		c;
	uint64_t	from,
				to,
				end,
				beyond,
				live_end;
	int			rc;

	memset(st, 0, sizeof(*st));
	if (w < 0 || w >= pgwt_engine_nwindows(eng))
		return -PGWT_TF_INVAL;
	ws = pgwt_engine_window(eng, w);
	memset(&c, 0, sizeof(c));
	c.shift = shift;
	c.rfrom = ws->from_ns;
	c.rto = ws->to_ns == UINT64_MAX ? UINT64_MAX : ws->to_ns - 1;
	/* the range in the trace's clock */
	from = c.rfrom < (uint64_t) (shift > 0 ? shift : 0) ? 0 : c.rfrom - (uint64_t) shift;
	to = c.rto == UINT64_MAX ? UINT64_MAX : c.rto - (uint64_t) shift;
	end = to > UINT64_MAX - slack_ns - 1 ? UINT64_MAX : to + slack_ns + 1;
	beyond = end == UINT64_MAX || end % SL_SECOND == 0 ? end :
		(end > UINT64_MAX - SL_SECOND ? UINT64_MAX : end - end % SL_SECOND + SL_SECOND);
	pgwt_summary_plan_window(from, to, slack_ns, &p);
	if (!p.use_summary)
		return sl_raw(eng, st, "no whole second in the window");
	/* summaries total each second's events over all pids: they cannot keep
	 * background processes out of DB time (common/process_rule.h) */
	if (pgwt_engine_has_background(eng))
		return sl_raw(eng, st, "background processes in the trace (the summaries do not tell them apart)");
	/* summaries keep a histogram per event, not per (session or query,
	 * event): those rows' percentiles come only from records */
	if (eng->cfg.key_histograms)
		return sl_raw(eng, st, "per-session and per-query percentiles need the records");
	if (!src->all_summarized(src->arg, from, p.raw_hi[p.nraw - 1], shift))
		return sl_raw(eng, st, "a trace file has no summary (or another clock offset)");
	if (src->live_summary_end(src->arg, &live_end))
	{
		c.last_end = live_end ? live_end : 1;
		if (!sl_live_limit(&p, from, end, live_end))
			return sl_raw(eng, st, "the live summary lags");
	}
	rc = sl_frames(eng, w, src, &c, &p, to, beyond, st);
	free(c.mbits);
	if (rc == 0)
		rc = sl_records(eng, src, &c, &p, end, beyond, &st->records);
	free(c.recsec);
	if (rc == -1)
		return sl_raw(eng, st, "a summary frame is not exact");
	if (rc < 0)
		return rc;
	st->used_summary = true;
	return 0;
}
