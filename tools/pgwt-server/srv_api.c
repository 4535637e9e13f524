/*
 * srv_api.c
 *		/api/range and /api/view: the trace's extent, and one view of a
 *		range (time model, events, sessions, queries) narrowed along the
 *		drill path class -> event -> session / query, rendered by
 *		analysis/render.c as JSON ({"views":[...]}) or CSV.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/range_load.h"
#include "analysis/views.h"
#include "srv_api.h"
#include "srv_cache.h"
#include "srv_load.h"

typedef struct srv_view_req
{
	const char *view;
	pgwt_out_format format;
	bool		has_class;
	unsigned	class_index;
	const char *event_text;
	bool		has_pid;
	uint32_t	pid;
	bool		has_query;
	uint64_t	query_id;
	pgwt_sort	sort;
	size_t		limit;
} srv_view_req;

void
srv_api_range(const srv_config *cfg, srv_reply *r)
{
	srv_loaded	l;
	char		err[200];

	if (srv_load_extent(cfg->trace_dir, &l, err, sizeof(err)) != 0)
	{
		srv_reply_error(r, 500, "the trace directory could not be read");
		return;
	}
	if (l.records == 0)
		pgwt_buf_printf(&r->body, "{\"records\":0,\"first_ns\":null,\"last_ns\":null}");
	else
		pgwt_buf_printf(&r->body, "{\"records\":%llu,\"first_ns\":%llu,\"last_ns\":%llu}",
						(unsigned long long) l.records, (unsigned long long) l.first_rt,
						(unsigned long long) l.last_rt);
	srv_loaded_free(&l);
}

/* "CPU*", "IO", "LWLock"...: the labels pgwt_class_name gives. */
static bool
srv_class_parse(const char *s, unsigned *out)
{
	for (unsigned i = 0; i < PGWT_NCLASSES; i++)
	{
		const char *n = pgwt_class_name(i);

		if (n && strcmp(n, s) == 0)
		{
			*out = i;
			return true;
		}
	}
	return false;
}

static bool
srv_view_parse(srv_arg_fn arg, void *conn, srv_view_req *q, srv_reply *r)
{
	static const char *const views[] = {"time_model", "system_event", "session_event", "query_event"};
	const char *v = arg(conn, "view"),
			   *f = arg(conn, "format"),
			   *s;
	uint64_t	u;

	memset(q, 0, sizeof(*q));
	for (size_t i = 0; v && i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(v, views[i]) == 0)
			q->view = views[i];
	if (!q->view)
		return srv_reply_error(r, 400, "view: expected time_model, system_event, session_event or query_event"), false;
	if (!srv_param_format(f, &q->format))
		return srv_reply_error(r, 400, "format: expected json or csv"), false;
	if ((s = arg(conn, "class")) && !(q->has_class = srv_class_parse(s, &q->class_index)))
		return srv_reply_error(r, 400, "class: not a wait class name"), false;
	q->event_text = arg(conn, "event");
	if ((s = arg(conn, "pid")))
	{
		if (!srv_param_u64(s, &u) || u == 0 || u > UINT32_MAX)
			return srv_reply_error(r, 400, "pid: expected a process id"), false;
		q->has_pid = true;
		q->pid = (uint32_t) u;
	}
	if ((s = arg(conn, "query")))
	{
		if (!srv_param_query_id(s, &q->query_id))
			return srv_reply_error(r, 400, "query: expected a query id"), false;
		q->has_query = true;
	}
	if ((s = arg(conn, "sort")) && !pgwt_sort_parse(s, &q->sort))
		return srv_reply_error(r, 400, "sort: not a sort key"), false;
	if (!srv_param_limit(arg(conn, "limit"), &q->limit))
		return srv_reply_error(r, 400, "limit: expected 1..5000"), false;
	return true;
}

/* Keep the rows of one class (or one event), then the first limit. */
static void
srv_rows_narrow(pgwt_event_rows *rows, const srv_view_req *q, bool by_event, uint32_t event)
{
	size_t		n = 0;

	for (size_t i = 0; i < rows->n; i++)
	{
		const pgwt_event_row *e = &rows->rows[i];

		if (q->has_class && (e->other || pgwt_event_class(e->event) != q->class_index))
			continue;
		if (by_event && (e->other || e->event != event))
			continue;
		rows->rows[n++] = *e;
	}
	rows->n = n < q->limit ? n : q->limit;
}

static void
srv_view_render(pgwt_buf *b, const srv_view_req *q, const srv_loaded *l, uint32_t event, bool has_event)
{
	pgwt_render_opts ro = {q->format, &l->names, true, pgwt_query_texts_lookup, (void *) &l->qt, true};
	pgwt_view_opts vo = {0};
	pgwt_window_summary sum;
	pgwt_view_status st;

	vo.sort = q->sort;
	vo.names = &l->names;
	pgwt_view_summary(l->eng, 0, &sum);
	if (strcmp(q->view, "time_model") == 0)
	{
		pgwt_time_model tm;

		st = pgwt_view_time_model(l->eng, 0, &tm);
		pgwt_render_time_model(b, &ro, &tm, st);
	}
	else if (strcmp(q->view, "system_event") == 0)
	{
		pgwt_event_rows rows;

		st = pgwt_view_system_event(l->eng, 0, &vo, &rows);
		srv_rows_narrow(&rows, q, false, 0);
		pgwt_render_system_event(b, &ro, &sum, &rows, st);
		pgwt_event_rows_free(&rows);
	}
	else if (strcmp(q->view, "session_event") == 0 && (has_event || q->has_pid))
	{
		/* the sessions in one event, or one session's events */
		pgwt_event_rows rows;

		if (has_event)
			st = pgwt_view_session_events(l->eng, 0, &vo, &rows);
		else
			st = pgwt_view_session_detail(l->eng, 0, q->pid, &vo, &rows);
		srv_rows_narrow(&rows, q, has_event, event);
		pgwt_render_session_detail(b, &ro, &sum, has_event ? 0 : q->pid, &rows, st);
		pgwt_event_rows_free(&rows);
	}
	else if (strcmp(q->view, "session_event") == 0)
	{
		pgwt_session_rows rows;

		vo.limit = q->limit;
		st = pgwt_view_session_event(l->eng, 0, &vo, &rows);
		pgwt_render_session_event(b, &ro, &sum, &rows, st);
		pgwt_session_rows_free(&rows);
	}
	else
	{
		pgwt_event_rows rows;

		vo.has_event = has_event;
		vo.event = event;
		vo.has_query = q->has_query;
		vo.query_id = q->query_id;
		st = pgwt_view_query_event(l->eng, 0, &vo, &rows);
		srv_rows_narrow(&rows, q, false, 0);
		pgwt_render_query_event(b, &ro, &sum, &rows, st);
		pgwt_event_rows_free(&rows);
	}
}

/* The renderer's JSON lines as one object: {"views":[line, line]}. */
void
srv_json_lines(pgwt_buf *out, const pgwt_buf *lines)
{
	size_t		start = 0;
	bool		first = true;

	pgwt_buf_printf(out, "{\"views\":[");
	for (size_t i = 0; i < lines->len; i++)
		if (lines->data[i] == '\n')
		{
			if (i > start)
				pgwt_buf_printf(out, "%s%.*s", first ? "" : ",", (int) (i - start), lines->data + start);
			first = false;
			start = i + 1;
		}
	pgwt_buf_printf(out, "]}");
}

void
srv_api_view(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	srv_view_req q;
	uint64_t	from,
				to;
	const srv_loaded *l;
	bool		per_key,
				bad_event;
	char		err[200];
	uint32_t	event = 0;
	pgwt_buf	lines = {0};

	if (!srv_view_parse(arg, conn, &q, r) || !srv_param_range(arg, conn, &from, &to, r))
		return;

	/*
	 * p50/p95/p99 of (session, event) and (query, event) rows need their
	 * buckets, which the summaries do not keep: those two views share a
	 * read of the records with per-key histograms, as in pgwt-dump. The
	 * others share one read of the range, from the summaries where they
	 * answer (srv_cache.c).
	 */
	per_key = strcmp(q.view, "session_event") == 0 || strcmp(q.view, "query_event") == 0;
	l = per_key ? srv_cache_range_keyed(cfg->trace_dir, from, to, err, sizeof(err))
		: srv_cache_range(cfg->trace_dir, from, to, NULL, NULL, err, sizeof(err));
	if (l == NULL)
	{
		srv_cache_release();
		srv_reply_load_error(r, err);
		return;
	}
	bad_event = q.event_text && !pgwt_event_parse(&l->names, q.event_text, &event);
	if (!bad_event)
		srv_view_render(&lines, &q, l, event, q.event_text != NULL);
	srv_cache_release();
	if (bad_event)
	{
		pgwt_buf_free(&lines);
		srv_reply_error(r, 400, "event: not a wait event (Class:Name, Class:0xNN or CPU*)");
		return;
	}
	if (q.format == PGWT_OUT_CSV)
	{
		r->body = lines;
		r->ctype = "text/csv; charset=utf-8";
		snprintf(r->filename, sizeof(r->filename), "%s.csv", q.view);
		return;
	}
	srv_json_lines(&r->body, &lines);
	pgwt_buf_free(&lines);
}
