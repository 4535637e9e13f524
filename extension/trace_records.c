/*
 * trace_records.c
 *		Ring records to record-stream transitions (see trace_records.h).
 *		No shared state: each stream is owned by its caller (the drain
 *		worker keeps one per backend ring).
 */
#include "extension/trace_records.h"

#include <string.h>

void
pgwt_trace_stream_init(pgwt_trace_stream *s, uint32_t pid, uint64_t first_pos)
{
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->next_pos = first_pos;
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
#ifdef PGWT_MARKER_UTILITY_START
		case PGWT_TMARK_UTILITY_START:
			return PGWT_MARKER_UTILITY_START;
		case PGWT_TMARK_UTILITY_END:
			return PGWT_MARKER_UTILITY_END;
#endif
#ifdef PGWT_MARKER_XACT_COMMIT
		case PGWT_TMARK_XACT_COMMIT:
			return PGWT_MARKER_XACT_COMMIT;
		case PGWT_TMARK_XACT_ABORT:
			return PGWT_MARKER_XACT_ABORT;
#endif
#ifdef PGWT_MARKER_IDLE
		case PGWT_TMARK_IDLE:
			return PGWT_MARKER_IDLE;
#endif
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

size_t
pgwt_trace_convert(pgwt_trace_stream *s, const pgwt_tring_rec *in, size_t n,
				   pgwt_record *out)
{
	pgwt_record *o = out;

	for (size_t i = 0; i < n; i++)
	{
		const pgwt_tring_rec *r = &in[i];

		if (r->pos != s->next_pos)
			s->have_last = false;	/* records were lost in between */
		s->next_pos = r->pos + 1;

		if (r->kind == PGWT_TRING_WAIT)
		{
			uint64_t	end = r->start_ns + r->duration_ns;

			if (s->have_last && r->start_ns >= s->last_end_ns)
				o = trec_transition(o, s->pid, r->start_ns, PGWT_EVENT_NONE,
									r->event, r->start_ns - s->last_end_ns,
									r->query_id);
			o = trec_transition(o, s->pid, end, r->event, PGWT_EVENT_NONE,
								r->duration_ns, r->query_id);
			s->have_last = true;
			s->last_end_ns = end;
		}
		else if (r->kind == PGWT_TRING_MARKER)
		{
			uint32_t	ev = pgwt_trace_marker_event(r->event);

			if (ev == 0)
				s->dropped_markers++;
			else
				o = trec_transition(o, s->pid, r->start_ns, PGWT_EVENT_NONE,
									ev, 0, r->query_id);
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
