/*
 * esc_windows.c
 *		The escalation windows of a record stream (esc_windows.h): pure.
 */
#include <string.h>

#include "esc_windows.h"

void
pgwt_esc_windows_init(pgwt_esc_windows *s, pgwt_esc_window *arr, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->w = arr;
	s->cap = cap;
}

static void
esc_windows_keep(pgwt_esc_windows *s)
{
	if (s->n < s->cap)
		s->w[s->n++] = s->cur;
	else
		s->dropped++;
	s->open = false;
}

void
pgwt_esc_windows_add(pgwt_esc_windows *s, const pgwt_record *r)
{
	if (r->kind != PGWT_REC_TRANSITION)
		return;
	if (r->new_event == PGWT_MARKER_ESC_START)
	{
		/* the copy at a rotated file's head repeats an open window */
		if (r->query_id == PGWT_ESC_CONTINUED && s->open)
			return;
		if (!s->open)
		{
			memset(&s->cur, 0, sizeof(s->cur));
			s->cur.start_ns = r->ts_ns;
			s->cur.reason = r->old_event;
			s->open = true;
		}
		else if (r->query_id != PGWT_ESC_CONTINUED)
			s->cur.extensions++;
		if (r->ts_ns + r->duration_ns > s->cur.planned_end_ns)
			s->cur.planned_end_ns = r->ts_ns + r->duration_ns;
	}
	else if (r->new_event == PGWT_MARKER_ESC_END)
	{
		if (!s->open)
		{
			/* its start lies before the stream: it began its length earlier */
			memset(&s->cur, 0, sizeof(s->cur));
			s->cur.start_ns = r->ts_ns > r->duration_ns ? r->ts_ns - r->duration_ns : 0;
			s->cur.reason = r->old_event;
			s->cur.planned_end_ns = r->ts_ns;
		}
		s->cur.end_ns = r->ts_ns;
		esc_windows_keep(s);
	}
}

void
pgwt_esc_windows_finish(pgwt_esc_windows *s)
{
	if (s->open)
	{
		s->cur.end_ns = 0;
		esc_windows_keep(s);
	}
}

const char *
pgwt_esc_code_name(unsigned code)
{
	switch (code)
	{
		case PGWT_ESC_CODE_UNSPECIFIED:
			return "unspecified";
		case PGWT_ESC_CODE_MANUAL:
			return "manual";
		case PGWT_ESC_CODE_ANOMALY:
			return "anomaly_aas";
		case PGWT_ESC_CODE_SCHEDULE:
			return "schedule";
		case PGWT_ESC_CODE_ANOMALY_LOCK:
			return "anomaly_lock";
		case PGWT_ESC_CODE_ANOMALY_CPU:
			return "cpu_saturation";
		default:
			return "other";
	}
}
