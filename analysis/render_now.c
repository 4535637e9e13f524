/*
 * render_now.c
 *		JSON / CSV / text of "active sessions now" (session_now.h): each
 *		backend's event at the range's end, since when, and its query. Same
 *		conventions as render.c; a query text is data (escaped in JSON,
 *		inert in a spreadsheet's CSV).
 */
#include "analysis/render.h"
#include "analysis/render_internal.h"
#include "analysis/session_now.h"

static const char *
rn_query(const pgwt_render_opts *o, uint64_t query_id)
{
	return query_id && o->query_text ? o->query_text(query_id, o->query_text_arg) : NULL;
}

/* The instant "for how long" counts to: the range's end, or, open, the
 * latest record. */
static uint64_t
rn_ref(const pgwt_now *n, const pgwt_now_row *rows, size_t nrows)
{
	uint64_t	ref = 0;

	if (n->end_ns != UINT64_MAX)
		return n->end_ns;
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].last_ns > ref)
			ref = rows[i].last_ns;
	return ref;
}

void
pgwt_render_sessions_now(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						 const pgwt_now *n, const pgwt_now_row *rows, size_t nrows)
{
	char		name[PGWT_EVENT_NAME_MAX];
	uint64_t	ref = rn_ref(n, rows, nrows);

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "sessions_now", sum, PGWT_VIEW_OK);
		pgwt_buf_printf(b, ",\"at_ns\":%llu,\"exited\":%llu,\"dropped\":%llu,\"rows\":[",
						(unsigned long long) ref, (unsigned long long) n->exited,
						(unsigned long long) n->dropped);
		for (size_t i = 0; i < nrows; i++)
		{
			const pgwt_now_row *r = &rows[i];
			const char *text = rn_query(o, r->query_id);

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_buf_printf(b, "%s{\"pid\":%u,\"event\":", i ? "," : "", r->pid);
			pgwt_rd_json_str(b, name);
			pgwt_buf_printf(b, ",\"event_id\":%u,\"idle\":%s,\"since_ns\":%llu,\"for_ns\":%llu,"
							"\"fidelity\":\"%s\",\"query_id\":%lld,\"query\":",
							r->event, pgwt_event_is_idle(r->event) ? "true" : "false",
							(unsigned long long) r->since_ns,
							(unsigned long long) (ref > r->since_ns ? ref - r->since_ns : 0),
							r->exact ? "exact" : "sampled", (long long) r->query_id);
			if (text)
				pgwt_rd_json_str(b, text);
			else
				pgwt_buf_printf(b, "null");
			pgwt_buf_printf(b, "}");
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,pid,event,idle,since_ns,for_ns,fidelity,query_id,query\n");
		for (size_t i = 0; i < nrows; i++)
		{
			const pgwt_now_row *r = &rows[i];

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",%u,", r->pid);
			pgwt_rd_csv_str(b, name);
			pgwt_buf_printf(b, ",%s,%llu,%llu,%s,%lld,", pgwt_event_is_idle(r->event) ? "true" : "false",
							(unsigned long long) r->since_ns,
							(unsigned long long) (ref > r->since_ns ? ref - r->since_ns : 0),
							r->exact ? "exact" : "sampled", (long long) r->query_id);
			pgwt_rd_csv_field(b, rn_query(o, r->query_id), o->csv_inert);
			pgwt_buf_printf(b, "\n");
		}
		return;
	}
	pgwt_rd_text_title(b, "Sessions now", sum);
	pgwt_buf_printf(b, "  %-10s %-32s %14s %-8s %-20s\n", "pid", "event", "for_ms", "since", "query_id");
	for (size_t i = 0; i < nrows; i++)
	{
		const pgwt_now_row *r = &rows[i];

		pgwt_event_format(o->names, r->event, name, sizeof(name));
		pgwt_buf_printf(b, "  %-10u %-32s %14.3f %-8s %-20lld\n", r->pid, name,
						(double) (ref > r->since_ns ? ref - r->since_ns : 0) / 1e6,
						r->exact ? "exact" : "sampled", (long long) r->query_id);
	}
	pgwt_buf_printf(b, "\n");
}
