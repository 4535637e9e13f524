/*
 * srv_hist.c
 *		/api/histogram: the log2 histogram of one event in a range, or of
 *		the event within one session (pid) or one query, with the waits
 *		and time of each bucket and p50/p95/p99 with their bucket bounds.
 *		The engine fills a probe (analysis/hist_probe.h) in its one pass
 *		over the range; where the key's time in the range is sampled only
 *		the answer's status is "requires_exact" and it has no buckets.
 *		Bounded: 32 buckets, one key. No shared state.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/hist_probe.h"
#include "analysis/range_load.h"
#include "analysis/views.h"
#include "srv_api.h"
#include "srv_load.h"

#define SRV_HIST_BAD_EVENT 2	/* before_feed's "no such event" */

typedef struct srv_hist_req
{
	const char *event_text;
	pgwt_out_format format;
	pgwt_hist_probe probe;
} srv_hist_req;

static bool
srv_hist_parse(srv_arg_fn arg, void *conn, srv_hist_req *q, srv_reply *r)
{
	const char *f = arg(conn, "format"),
			   *s;
	bool		has_pid = false,
				has_query = false;
	uint64_t	pid = 0,
				query = 0;

	memset(q, 0, sizeof(*q));
	if (!(q->event_text = arg(conn, "event")))
		return srv_reply_error(r, 400, "event: required (Class:Name)"), false;
	if (!srv_param_format(f, &q->format))
		return srv_reply_error(r, 400, "format: expected json or csv"), false;
	if ((s = arg(conn, "pid")))
	{
		if (!srv_param_u64(s, &pid) || pid == 0 || pid > UINT32_MAX)
			return srv_reply_error(r, 400, "pid: expected a process id"), false;
		has_pid = true;
	}
	if ((s = arg(conn, "query")))
	{
		if (!srv_param_query_id(s, &query))
			return srv_reply_error(r, 400, "query: expected a query id"), false;
		has_query = true;
	}
	/* the engine keeps (session, event) and (query, event), not both */
	if (has_pid && has_query)
		return srv_reply_error(r, 400, "pid and query: give one of them"), false;
	pgwt_hist_probe_init(&q->probe, 0, has_pid, (uint32_t) pid, has_query, query);
	return true;
}

/* The event's id by the trace's own names, once they are loaded. */
static int
srv_hist_name(void *arg, const srv_loaded *l)
{
	srv_hist_req *q = arg;

	return pgwt_event_parse(&l->names, q->event_text, &q->probe.event) ? 0 : SRV_HIST_BAD_EVENT;
}

/* The key's time in the window by the engine's own tables. */
static void
srv_hist_key_time(const pgwt_engine *eng, const pgwt_hist_probe *p, pgwt_probe_meta *m)
{
	pgwt_view_opts vo = {0};
	pgwt_event_rows rows = {0};

	vo.has_event = true;
	vo.event = p->event;
	vo.has_query = p->has_query;
	vo.query_id = p->query_id;
	if (p->has_pid)
		(void) pgwt_view_session_detail(eng, 0, p->pid, &vo, &rows);
	else if (p->has_query)
		(void) pgwt_view_query_event(eng, 0, &vo, &rows);
	else
		(void) pgwt_view_system_event(eng, 0, &vo, &rows);
	for (size_t i = 0; i < rows.n; i++)
		if (!rows.rows[i].other && rows.rows[i].event == p->event &&
			(!p->has_query || rows.rows[i].query_id == p->query_id))
		{
			m->fidelity = rows.rows[i].fidelity;
			m->sampled_ns = rows.rows[i].sampled_ns;
		}
	pgwt_event_rows_free(&rows);
}

void
srv_api_histogram(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	srv_hist_req q;
	uint64_t	from,
				to;
	pgwt_window_spec win;
	srv_loaded	l;
	char		err[200];
	srv_load_extra x = {NULL, NULL, NULL, srv_hist_name, NULL};
	pgwt_window_summary sum;
	pgwt_probe_meta m = {PGWT_VIEW_OK, PGWT_FIDELITY_NONE, 0};
	pgwt_render_opts ro = {0};
	int			rc;

	if (!srv_hist_parse(arg, conn, &q, r) || !srv_param_range(arg, conn, &from, &to, r))
		return;
	x.probe = &q.probe;
	x.arg = &q;
	memset(&win, 0, sizeof(win));
	win.from_ns = from;
	win.to_ns = to == UINT64_MAX ? UINT64_MAX : pgwt_range_window_end(to);
	snprintf(win.label, sizeof(win.label), "%llu..%llu", (unsigned long long) from,
			 (unsigned long long) to);
	if ((rc = srv_load_range_ex(cfg->trace_dir, from, to, &win, 1, true, &x, &l, err, sizeof(err))) != 0)
	{
		if (rc == SRV_HIST_BAD_EVENT)
			srv_reply_error(r, 400, "event: not a wait event (Class:Name, Class:0xNN or CPU*)");
		else
			srv_reply_load_error(r, err);
		return;
	}
	pgwt_view_summary(l.eng, 0, &sum);
	srv_hist_key_time(l.eng, &q.probe, &m);
	/* waits in the buckets; else sampled time only: an exact window is needed */
	if (q.probe.waits == 0)
		m.status = m.sampled_ns > 0 || (sum.exact_records == 0 && sum.sample_records > 0) ?
			PGWT_VIEW_REQUIRES_EXACT : PGWT_VIEW_NO_DATA;
	ro.format = q.format;
	ro.names = &l.names;
	ro.csv_header = true;
	pgwt_render_hist_probe(&r->body, &ro, &sum, &q.probe, &m);
	srv_loaded_free(&l);
	if (q.format == PGWT_OUT_CSV)
	{
		r->ctype = "text/csv; charset=utf-8";
		snprintf(r->filename, sizeof(r->filename), "histogram.csv");
	}
	else if (r->body.len && r->body.data[r->body.len - 1] == '\n')
		r->body.data[--r->body.len] = '\0';
}
