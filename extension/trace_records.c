/*
 * trace_records.c
 *		Ring records to record-stream transitions, and the escalation
 *		policy's state to ESC_START/ESC_END markers (see trace_records.h).
 *		No shared state: each stream is owned by its caller (the drain
 *		worker keeps one per backend ring).
 */
#include "extension/trace_records.h"

#include <string.h>

#include "common/event_ids.h"

void
pgwt_trace_stream_init(pgwt_trace_stream *s, uint32_t pid, uint64_t first_pos)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->next_pos = first_pos;
	s->marker_grain_ns = PGWT_TRACE_MARKER_GRAIN_NS;
}

uint32_t
pgwt_trace_marker_event(uint32_t marker)
{
	switch ((pgwt_tring_marker) marker)
	{
		case PGWT_TMARK_STMT_START:
			return PGWT_MARKER_CMD_START;
		case PGWT_TMARK_STMT_END:
			return PGWT_MARKER_CMD_END;
		case PGWT_TMARK_EXEC_START:
			return PGWT_MARKER_EXEC_START;
		case PGWT_TMARK_EXEC_END:
			return PGWT_MARKER_EXEC_END;
		case PGWT_TMARK_UTILITY_START:
			return PGWT_MARKER_UTILITY_START;
		case PGWT_TMARK_UTILITY_END:
			return PGWT_MARKER_UTILITY_END;
		case PGWT_TMARK_XACT_COMMIT:
			return PGWT_MARKER_XACT_COMMIT;
		case PGWT_TMARK_XACT_ABORT:
			return PGWT_MARKER_XACT_ABORT;
		case PGWT_TMARK_IDLE:
			return PGWT_MARKER_IDLE;
		default:
			break;
	}
	return 0;
}

static pgwt_record *
trec_transition(pgwt_record *o, uint32_t pid, uint64_t ts, uint32_t old_ev,
				uint32_t new_ev, uint64_t dur, uint64_t qid)
{
	memset(o, 0, sizeof(*o));
	o->kind = PGWT_REC_TRANSITION;
	o->pid = pid;
	o->ts_ns = ts;
	o->old_event = old_ev;
	o->new_event = new_ev;
	o->duration_ns = dur;
	o->query_id = qid;
	o->cpu_ns = PGWT_CPU_UNKNOWN;
	return o + 1;
}

/* A transition (not a marker) of the stream: what the next marker's
 * duration and query id are measured from. */
static pgwt_record *
trec_state(pgwt_trace_stream *s, pgwt_record *o, uint64_t ts, uint32_t old_ev,
		   uint32_t new_ev, uint64_t dur, uint64_t qid)
{
	s->have_trans = true;
	s->last_trans_ns = ts;
	s->last_qid = qid;
	s->have_out = true;
	s->last_out_ns = ts;
	return trec_transition(o, s->pid, ts, old_ev, new_ev, dur, qid);
}

/*
 * A thinned marker's instant: a whole number of grains after the stream's
 * previous record, so it stays after that record and before the next
 * (rounded down), and costs the format a few bits, not a noisy delta.
 */
static uint64_t
trec_marker_ts(const pgwt_trace_stream *s, uint64_t ts)
{
	if (!s->have_out || ts < s->last_out_ns || s->marker_grain_ns < 2)
		return ts;
	return ts - (ts - s->last_out_ns) % s->marker_grain_ns;
}

/*
 * Is this marker left out of the files (trace_records.h)? next is the
 * following ring record, or NULL at the end of the batch. Also keeps the
 * statement nesting the decision needs.
 */
static bool
trec_thin_marker(pgwt_trace_stream *s, const pgwt_tring_rec *r,
				 const pgwt_tring_rec *next)
{
	bool		top;

	switch ((pgwt_tring_marker) r->event)
	{
		case PGWT_TMARK_STMT_START:
			s->in_stmt = true;
			s->depth_known = true;
			s->depth = 0;
			return false;
		case PGWT_TMARK_STMT_END:
			s->in_stmt = false;
			return false;
		case PGWT_TMARK_XACT_ABORT:
			/* the server's nesting starts again from the top */
			s->in_stmt = false;
			s->depth_known = true;
			s->depth = 0;
			return false;
		case PGWT_TMARK_EXEC_START:
		case PGWT_TMARK_UTILITY_START:
			top = s->in_stmt && s->depth_known && s->depth == 0;
			s->depth++;
			return !s->full && top;
		case PGWT_TMARK_EXEC_END:
		case PGWT_TMARK_UTILITY_END:
			if (s->depth > 0)
				s->depth--;
			else
				s->depth_known = false;
			return !s->full && s->in_stmt && s->depth_known && s->depth == 0;
		case PGWT_TMARK_IDLE:
			/* the transition into its wait is written at the same instant */
			return !s->full && next != NULL && next->pos == r->pos + 1 &&
				next->kind == PGWT_TRING_WAIT && next->event == PGWT_EVENT_CLIENT_READ &&
				next->start_ns == r->start_ns;
		default:
			return false;
	}
}

size_t
pgwt_trace_convert(pgwt_trace_stream *s, const pgwt_tring_rec *in, size_t n,
				   pgwt_record *out)
{
	pgwt_record *o = out;

	for (size_t i = 0; i < n; i++)
	{
		const pgwt_tring_rec *r = &in[i];

		if (r->pos != s->next_pos)
		{
			/* records were lost in between */
			s->have_last = false;
			s->depth_known = false;
		}
		s->next_pos = r->pos + 1;

		if (r->kind == PGWT_TRING_WAIT)
		{
			uint64_t	end = r->start_ns + r->duration_ns;

			if (s->have_last && r->start_ns >= s->last_end_ns)
				o = trec_state(s, o, r->start_ns, PGWT_EVENT_NONE,
							   r->event, r->start_ns - s->last_end_ns,
							   r->query_id);
			o = trec_state(s, o, end, r->event, PGWT_EVENT_NONE,
						   r->duration_ns, r->query_id);
			s->have_last = true;
			s->last_end_ns = end;
		}
		else if (r->kind == PGWT_TRING_START)
		{
			/* the first wait's CPU* reaches back to the process's start */
			s->have_last = true;
			s->last_end_ns = r->start_ns;
		}
		else if (r->kind == PGWT_TRING_EXIT)
		{
			/*
			 * The last CPU* span ends at the exit (the live views close it at
			 * the same instant); a later process with this pid starts anew.
			 */
			uint64_t	cpu = s->have_last && r->start_ns >= s->last_end_ns ?
				r->start_ns - s->last_end_ns : 0;

			o = trec_state(s, o, r->start_ns, PGWT_EVENT_NONE,
						   PGWT_EVENT_EXIT, cpu, 0);
			s->have_last = false;
			s->have_trans = false;
			s->in_stmt = false;
			s->depth_known = false;
		}
		else if (r->kind == PGWT_TRING_MARKER)
		{
			uint32_t	ev = pgwt_trace_marker_event(r->event);
			bool		thin = trec_thin_marker(s, r, i + 1 < n ? &in[i + 1] : NULL);

			if (ev == 0)
				s->dropped_markers++;
			else if (thin)
				s->thinned_markers++;
			else if (s->full)
				o = trec_transition(o, s->pid, r->start_ns, PGWT_EVENT_NONE,
									ev, 0, r->query_id);
			else
			{
				/*
				 * The time since the last transition (the time in 'old' so
				 * far) and, for a transaction's end, the query id before it:
				 * what the format predicts, so nothing is stored for them.
				 */
				uint64_t	ts = trec_marker_ts(s, r->start_ns);
				uint64_t	dur = s->have_trans && ts >= s->last_trans_ns ?
					ts - s->last_trans_ns : 0;
				uint64_t	qid = r->query_id;

				if (r->event == PGWT_TMARK_XACT_COMMIT || r->event == PGWT_TMARK_XACT_ABORT)
					qid = s->last_qid;
				o = trec_transition(o, s->pid, ts, PGWT_EVENT_NONE,
									ev, dur, qid);
				s->last_qid = qid;
				s->have_out = true;
				s->last_out_ns = ts;
			}
			/*
			 * A marker happens on CPU: the CPU span since the last wait goes
			 * on; with no wait seen yet it starts here.
			 */
			if (!s->have_last)
			{
				s->have_last = true;
				s->last_end_ns = r->start_ns;
			}
		}
	}
	return (size_t) (o - out);
}

/* ---- escalation markers --------------------------------------------------- */

uint32_t
pgwt_esc_reason_code(pgwt_esc_reason r)
{
	switch (r)
	{
		case PGWT_ESC_MANUAL:
			return PGWT_ESC_CODE_MANUAL;
		case PGWT_ESC_ANOMALY_AAS:
			return PGWT_ESC_CODE_ANOMALY;
		case PGWT_ESC_ANOMALY_LOCK:
			return PGWT_ESC_CODE_ANOMALY_LOCK;
		case PGWT_ESC_ANOMALY_CPU:
			return PGWT_ESC_CODE_ANOMALY_CPU;
		default:
			break;
	}
	return PGWT_ESC_CODE_UNSPECIFIED;
}

void
pgwt_esc_tracker_init(pgwt_esc_tracker *t, const pgwt_escalation *esc)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < esc->nspans; i++)
		if (esc->spans[i].start_ns > t->start_ns)
			t->start_ns = esc->spans[i].start_ns;
}

static pgwt_record *
esc_marker(pgwt_record *o, bool start, uint64_t ts, uint32_t code, uint64_t len)
{
	o = trec_transition(o, 0, ts, code,
						start ? PGWT_MARKER_ESC_START : PGWT_MARKER_ESC_END, len, 0);
	return o;
}

size_t
pgwt_trace_esc_markers(pgwt_esc_tracker *t, const pgwt_escalation *esc,
					   uint64_t now_ns, pgwt_record *out)
{
	pgwt_record *o = out;

	/* closed windows, oldest first */
	for (int i = 0; i < esc->nspans; i++)
	{
		const pgwt_esc_span *sp = &esc->spans[i];

		if (t->open && sp->start_ns <= t->start_ns && t->start_ns < sp->end_ns)
		{
			/* the announced window (or a merge of it with older ones) */
			o = esc_marker(o, false, sp->end_ns, t->code, sp->end_ns - t->start_ns);
			t->open = false;
		}
		else if (sp->start_ns > t->start_ns)
		{
			/* opened and closed between two calls */
			if (t->open)
			{
				o = esc_marker(o, false, sp->start_ns, t->code, sp->start_ns - t->start_ns);
				t->open = false;
			}
			o = esc_marker(o, true, sp->start_ns, PGWT_ESC_CODE_UNSPECIFIED,
						   sp->end_ns - sp->start_ns);
			o = esc_marker(o, false, sp->end_ns, PGWT_ESC_CODE_UNSPECIFIED,
						   sp->end_ns - sp->start_ns);
			t->start_ns = sp->start_ns;
		}
	}
	if (esc->active && !(t->open && t->start_ns == esc->win_start_ns))
	{
		if (t->open)
		{
			/* announced, then lost from the spans: it ended before this one */
			o = esc_marker(o, false, esc->win_start_ns, t->code,
						   esc->win_start_ns - t->start_ns);
		}
		t->open = true;
		t->start_ns = esc->win_start_ns;
		t->code = pgwt_esc_reason_code(esc->reason);
		o = esc_marker(o, true, esc->win_start_ns, t->code,
					   esc->win_end_ns > esc->win_start_ns ?
					   esc->win_end_ns - esc->win_start_ns : 0);
	}
	else if (!esc->active && t->open)
	{
		uint64_t	end = now_ns > t->start_ns ? now_ns : t->start_ns;

		o = esc_marker(o, false, end, t->code, end - t->start_ns);
		t->open = false;
	}
	return (size_t) (o - out);
}
