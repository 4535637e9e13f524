/*
 * summary.c
 *		Bills per-second summaries into an engine window (summary.h), the
 *		way engine.c bills the records they were built from: a second's
 *		stats go to the event, session, session x event, query x event,
 *		class and DB/idle tables; crossing waits are clipped to the window
 *		and billed as time without a wait count, as the engine bills the
 *		part of a wait that lies in a window where it did not end.
 *
 * Writes the window's tables directly (engine_internal.h): entries never
 * move, and the engine's key cache only defers additions, so billing
 * here and through pgwt_engine_add in any order gives the same sums.
 */
#include <string.h>

#include "analysis/series.h"
#include "analysis/summary.h"

#include "analysis/engine_internal.h"

#define SUM_SECOND PGWT_TF_SUM_SECOND_NS

static uint64_t
sum_ceil(uint64_t t)
{
	if (t % SUM_SECOND == 0)
		return t;
	return t > UINT64_MAX - SUM_SECOND ? UINT64_MAX : t - t % SUM_SECOND + SUM_SECOND;
}

static void
sum_plan_raw(pgwt_summary_plan *p, uint64_t lo, uint64_t hi)
{
	if (hi > lo && p->nraw < PGWT_SUMMARY_MAX_RAW)
	{
		p->raw_lo[p->nraw] = lo;
		p->raw_hi[p->nraw] = hi;
		p->nraw++;
	}
}

void
pgwt_summary_plan_window(uint64_t from_ns, uint64_t to_ns, uint64_t slack_ns,
						 pgwt_summary_plan *p)
{
	uint64_t	first = sum_ceil(from_ns);
	uint64_t	last = to_ns - to_ns % SUM_SECOND;
	/* the raw path's end, exclusive */
	uint64_t	end = to_ns > UINT64_MAX - slack_ns - 1 ? UINT64_MAX : to_ns + slack_ns + 1;
	uint64_t	after_from = sum_ceil(to_ns);
	uint64_t	after_to = end - end % SUM_SECOND;

	memset(p, 0, sizeof(*p));
	p->from_ns = from_ns;
	p->to_ns = to_ns;
	p->use_summary = first < last && to_ns != UINT64_MAX;
	if (!p->use_summary)
	{
		sum_plan_raw(p, from_ns, end);
		return;
	}
	p->sum_from_ns = first;
	p->sum_to_ns = last;
	sum_plan_raw(p, from_ns, first);
	if (after_to <= after_from)
	{
		/* the slack ends within the window's last second: records */
		sum_plan_raw(p, last, end);
		return;
	}
	sum_plan_raw(p, last, after_from);
	p->after_from_ns = after_from;
	p->after_to_ns = after_to;
	sum_plan_raw(p, after_to, end);
}

bool
pgwt_summary_second_usable(const pgwt_tf_second *s)
{
	return !pgwt_tf_second_folded(s) && s->c.late_records == 0;
}

static void
sum_stat_add(pgwt_stat *d, const pgwt_tf_sum_stat *s)
{
	/* a version 1 summary's min_ns is 0: the row's shortest stays unknown */
	if (s->waits > 0 && (d->waits == 0 || s->min_ns < d->min_ns))
		d->min_ns = s->min_ns;
	d->waits += s->waits;
	d->exact_ns += s->exact_ns;
	d->completed_ns += s->completed_ns;
	if (s->max_ns > d->max_ns)
		d->max_ns = s->max_ns;
	d->sampled_ns += s->sampled_ns;
	d->samples += s->samples;
}

static void
sum_cover(window_agg *wa, uint64_t lo, uint64_t hi)
{
	if (lo < wa->data_first_ns)
		wa->data_first_ns = lo;
	if (hi > wa->data_last_ns)
		wa->data_last_ns = hi;
}

/* Totals by class (or idle) of one event's stat. */
static void
sum_bill_totals(window_agg *wa, uint32_t ev, const pgwt_tf_sum_stat *st)
{
	if (pgwt_event_is_idle(ev))
		sum_stat_add(&wa->idle, st);
	else
	{
		sum_stat_add(&wa->classes[pgwt_event_class(ev)], st);
		sum_stat_add(&wa->db, st);
	}
}

static void
sum_bill_session(window_agg *wa, uint32_t pid, uint32_t ev, const pgwt_tf_sum_stat *st)
{
	pgwt_session_stat *ss = pgwt_agg_get(&wa->sessions, pid, 0);

	if (pgwt_event_is_idle(ev))
		sum_stat_add(&ss->idle, st);
	else
	{
		sum_stat_add(&ss->db, st);
		if (pgwt_event_is_cpu(ev))
			sum_stat_add(&ss->cpu, st);
	}
	sum_stat_add(pgwt_agg_get(&wa->session_events, pid, ev), st);
}

/* ns of a crossing wait inside the window, billed without a count. */
static void
sum_bill_crossing(pgwt_engine *eng, window_agg *wa, const pgwt_tf_sum_crossing *c, uint64_t lo,
				  uint64_t hi, bool own_record)
{
	pgwt_tf_sum_stat st = {0};
	pgwt_event_stat *es;

	if (hi <= lo)
		return;
	/* the engine's series too (background time never reaches here: the
	 * summaries are not used when background processes are known) */
	if (eng->series)
		pgwt_series_bill_wait(eng->series, c->event, lo, hi, !pgwt_event_is_idle(c->event));
	st.exact_ns = hi - lo;
	/* a record already counted in its second's exact_records, or one the
	 * engine would bill here for the first time */
	if (!own_record)
		wa->exact_records++;
	es = pgwt_agg_get(&wa->events, c->event, 0);
	sum_stat_add(&es->st, &st);
	sum_bill_totals(wa, c->event, &st);
	sum_bill_session(wa, c->pid, c->event, &st);
	sum_stat_add(pgwt_agg_get(&wa->query_events, c->query_id, c->event), &st);
	sum_cover(wa, lo, hi);
}

/*
 * A wait that crossed "to" and ended in frame s (engine clock sec), as the
 * range loader hands it on: cut to [max(start, from), to) and counted
 * there, so waits, max and histograms see its time inside the range. The
 * crossing does not say which event came next: the record enters CPU*.
 */
static void
sum_range_crossing(pgwt_engine *eng, const pgwt_tf_sum_crossing *c, uint64_t sec,
				   uint64_t from, uint64_t to, bool started_inside)
{
	uint64_t	start = sec >= c->ns ? sec - c->ns : 0;
	pgwt_record r;

	if (start >= to || (started_inside && (start < from || pgwt_event_is_cpu(c->event) ||
											pgwt_event_is_idle(c->event))))
		return;
	if (start < from)
		start = from;
	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_TRANSITION;
	r.ts_ns = to;
	r.pid = c->pid;
	r.old_event = c->event;
	r.new_event = PGWT_EVENT_NONE;
	r.duration_ns = to - start;
	r.query_id = c->query_id;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	pgwt_engine_add(eng, &r);
}

pgwt_summary_fit
pgwt_summary_bill_range(pgwt_engine *eng, int w, const pgwt_tf_second *s, int64_t shift,
						uint64_t from, uint64_t to, bool started_inside)
{
	uint64_t	sec = s->sec_ts + (uint64_t) shift;
	uint32_t	i;

	if (w < 0 || w >= eng->nwindows || !pgwt_summary_second_usable(s))
		return PGWT_SUM_UNUSABLE;
	if (sec + s->span_ns <= from)
		return PGWT_SUM_BILLED;		/* before: nothing to bill */
	if (sec >= to)
	{
		for (i = 0; i < s->ncrossings; i++)
			sum_range_crossing(eng, &s->crossings[i], sec, from, to, started_inside);
		return PGWT_SUM_BILLED;
	}
	if (sec < from || sec + s->span_ns > to)
		return PGWT_SUM_UNUSABLE;	/* a partial frame: records */
	/* a wait that began before "from" and ends here is counted by its
	 * whole length in this frame: its time inside the range (and so its
	 * length for waits, max and histograms) needs its record */
	for (i = 0; i < s->ncrossings; i++)
		if (s->crossings[i].ns > sec - from)
			return PGWT_SUM_NEEDS_RECORDS;
	return pgwt_summary_bill_frame(eng, w, s, shift) ? PGWT_SUM_BILLED : PGWT_SUM_UNUSABLE;
}

bool
pgwt_summary_bill_second(pgwt_engine *eng, int w, const pgwt_tf_second *s)
{
	return pgwt_summary_bill_frame(eng, w, s, 0);
}

bool
pgwt_summary_bill_frame(pgwt_engine *eng, int w, const pgwt_tf_second *s, int64_t shift)
{
	window_agg *wa;
	uint64_t	from,
				to;
	/* the frame's instants in the engine's clock (unsigned wrap is the
	 * intended arithmetic for a negative shift) */
	uint64_t	sec = s->sec_ts + (uint64_t) shift;
	uint32_t	i;

	if (w < 0 || w >= eng->nwindows || !pgwt_summary_second_usable(s))
		return false;
	wa = &eng->win[w];
	from = wa->spec.from_ns;
	to = wa->spec.to_ns;
	if (sec < from)
		return sec + s->span_ns <= from;	/* before: nothing to bill */
	if (sec >= to)
	{
		/* waits that ended after the window: their part inside it */
		for (i = 0; i < s->ncrossings; i++)
		{
			const pgwt_tf_sum_crossing *c = &s->crossings[i];
			uint64_t	start = sec - c->ns;

			sum_bill_crossing(eng, wa, c, start > from ? start : from, to, false);
		}
		return true;
	}
	if (sec + s->span_ns > to)
		return false;			/* a partial frame: the caller reads records */

	wa->exact_records += s->c.exact_records;
	wa->sample_records += s->c.sample_records;
	if (s->cover_lo <= s->cover_hi)
		sum_cover(wa, s->cover_lo + (uint64_t) shift, s->cover_hi + (uint64_t) shift);
	for (i = 0; i < s->nevents; i++)
	{
		const pgwt_tf_sum_event *e = &s->events[i];
		pgwt_event_stat *es = pgwt_agg_get(&wa->events, e->event, 0);
		unsigned	b;

		sum_stat_add(&es->st, &e->st);
		es->superseded_ns += e->superseded_ns;
		es->superseded_samples += e->superseded_samples;
		for (b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
			es->hist_ns[b] += e->hist_ns[b];
		sum_bill_totals(wa, e->event, &e->st);
		if (eng->series)
			pgwt_series_bill_block(eng->series, e->event, sec, e->st.exact_ns + e->st.sampled_ns,
								   !pgwt_event_is_idle(e->event), s->c.exact_records > 0,
								   s->c.sample_records > 0);
	}
	for (i = 0; i < s->npid_events; i++)
		sum_bill_session(wa, (uint32_t) s->pid_events[i].key, s->pid_events[i].event,
						 &s->pid_events[i].st);
	for (i = 0; i < s->npids; i++)
		if (s->pids[i].flags & PGWT_TF_SUM_PID_EXITED)
		{
			pgwt_session_stat *ss = pgwt_agg_get(&wa->sessions, s->pids[i].pid, 0);

			ss->exited = true;
		}
	for (i = 0; i < s->nquery_events; i++)
		sum_stat_add(pgwt_agg_get(&wa->query_events, s->query_events[i].key,
								  s->query_events[i].event),
					 &s->query_events[i].st);
	for (i = 0; i < s->ncrossings; i++)
	{
		const pgwt_tf_sum_crossing *c = &s->crossings[i];
		uint64_t	start = sec - c->ns;

		sum_bill_crossing(eng, wa, c, start > from ? start : from, sec, true);
	}
	return true;
}
