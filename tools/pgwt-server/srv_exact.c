/*
 * srv_exact.c
 *		/api/exact: the views that need exact transitions (transitions,
 *		concurrency peaks and bursts, lock chains) and "active sessions
 *		now" (each backend's state at the range's end), computed by
 *		analysis/ (exact_views.c, session_now.c) over one read of the range
 *		and rendered by analysis/render_exact.c and render_now.c as JSON
 *		({"views":[...]}) or CSV. Lock chains read the tracer's blocker
 *		observations (blockers.tsv, through analysis/blockers_load, fed between
 *		the records as pgwt-dump feeds them). Several views of one range
 *		(view=a,b: JSON only) share one read. Over a range with samples only
 *		the exact views answer status "requires_exact", never empty rows.
 *		Each request reads afresh; no shared state.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/exact.h"
#include "analysis/range_load.h"
#include "analysis/session_now.h"
#include "analysis/views.h"
#include "analysis/blockers_load.h"
#include "srv_api.h"
#include "srv_load.h"

typedef enum srv_xview
{
	SRV_X_TRANSITIONS,
	SRV_X_CONCURRENCY,
	SRV_X_LOCK_CHAINS,
	SRV_X_SESSIONS_NOW
} srv_xview;

static const char *const srv_xview_names[] = {"transitions", "concurrency", "lock_chains", "sessions_now"};

#define SRV_X_NVIEWS 4

typedef struct srv_xreq
{
	unsigned	views;			/* bit (1 << srv_xview) per view asked for */
	srv_xview	view;			/* the first of them (CSV: the only one) */
	pgwt_out_format format;
	size_t		limit;
} srv_xreq;

static bool
srv_exact_parse(srv_arg_fn arg, void *conn, srv_xreq *q, srv_reply *r)
{
	const char *v = arg(conn, "view"),
			   *f = arg(conn, "format");
	bool		found = false;

	memset(q, 0, sizeof(*q));
	/* one view, or several comma-separated (JSON: one read for them all) */
	while (v && *v)
	{
		size_t		len = strcspn(v, ",");

		found = false;
		for (size_t i = 0; i < SRV_X_NVIEWS; i++)
			if (strlen(srv_xview_names[i]) == len && strncmp(v, srv_xview_names[i], len) == 0)
			{
				if (!q->views)
					q->view = (srv_xview) i;
				q->views |= 1u << i;
				found = true;
			}
		if (!found)
			break;
		v += len + (v[len] == ',');
	}
	if (!found || !q->views)
		return srv_reply_error(r, 400, "view: expected transitions, concurrency, lock_chains or sessions_now (or several, comma-separated)"), false;
	if (!srv_param_format(f, &q->format))
		return srv_reply_error(r, 400, "format: expected json or csv"), false;
	if (q->format == PGWT_OUT_CSV && (q->views & (q->views - 1)))
		return srv_reply_error(r, 400, "format csv: one view at a time"), false;
	if (!srv_param_limit(arg(conn, "limit"), &q->limit))
		return srv_reply_error(r, 400, "limit: expected 1..5000"), false;
	return true;
}

/*
 * The range's records into l->eng (and now, when given), with the blocker
 * observations between them. 0, or -1 with err set.
 */
static int
srv_exact_load(const char *dir, uint64_t from, uint64_t to, const pgwt_window_spec *win,
			   srv_loaded *l, pgwt_now *now, char *err, size_t errlen)
{
	pgwt_engine_config cfg = {0};
	pgwt_range_loader *rl = NULL;
	pgwt_range_batch blk;
	pgwt_blkobs bl = {0};
	const char *eerr = NULL;
	int			rc;

	memset(l, 0, sizeof(*l));
	if ((rc = pgwt_range_open(dir, from, to, &rl)) < 0)
	{
		snprintf(err, errlen, "cannot read the trace: %s", pgwt_tf_strerror(rc));
		return -1;
	}
	cfg.exact_analysis = true;
	if (!(l->eng = pgwt_engine_create(&cfg, win, 1, &eerr)) ||
		srv_load_side(dir, pgwt_range_reader(rl), l) != 0 ||
		!pgwt_blkobs_read(dir, pgwt_tf_reader_nfiles(pgwt_range_reader(rl)) > 0 ?
							pgwt_tf_reader_file_header(pgwt_range_reader(rl), 0) : NULL, &bl))
	{
		snprintf(err, errlen, "%s", eerr ? eerr : "out of memory");
		pgwt_range_close(rl);
		srv_loaded_free(l);
		free(bl.obs);
		return -1;
	}
	while ((rc = pgwt_range_next(rl, &blk)) > 0)
	{
		if (!srv_load_count(l, blk.n, err, errlen))
		{
			pgwt_range_close(rl);
			free(bl.obs);
			srv_loaded_free(l);
			return -1;
		}
		pgwt_blkobs_add_records(l->eng, &bl, blk.recs, blk.n, blk.transitions);
		if (now)
			pgwt_now_add_many(now, blk.recs, blk.n);
	}
	pgwt_blkobs_feed(l->eng, &bl, UINT64_MAX);
	pgwt_range_close(rl);
	free(bl.obs);
	if (rc < 0)
	{
		snprintf(err, errlen, "reading the trace failed: %s", pgwt_tf_strerror(rc));
		srv_loaded_free(l);
		return -1;
	}
	pgwt_engine_flush(l->eng);
	return 0;
}

/* One view of window 0 as the renderer's lines; false out of memory. */
static bool
srv_exact_render(pgwt_buf *b, const srv_xreq *q, srv_xview view, const srv_loaded *l, const pgwt_now *now)
{
	pgwt_render_opts ro = {q->format, &l->names, true, pgwt_query_texts_lookup, (void *) &l->qt, true};
	pgwt_view_opts vo = {0};
	pgwt_window_summary sum;
	pgwt_view_status st;

	vo.names = &l->names;
	vo.limit = q->limit;
	pgwt_view_summary(l->eng, 0, &sum);
	switch (view)
	{
		case SRV_X_TRANSITIONS:
			{
				pgwt_transition_rows t = {0};

				st = pgwt_view_transitions(l->eng, 0, &vo, &t);
				pgwt_render_transitions(b, &ro, &sum, &t, st);
				pgwt_transition_rows_free(&t);
			}
			break;
		case SRV_X_CONCURRENCY:
			{
				pgwt_concurrency c = {0};

				st = pgwt_view_concurrency(l->eng, 0, &vo, &c);
				pgwt_render_concurrency(b, &ro, &sum, &c, st);
				pgwt_concurrency_free(&c);
			}
			break;
		case SRV_X_LOCK_CHAINS:
			{
				pgwt_lock_chains c = {0};

				st = pgwt_view_lock_chains(l->eng, 0, &vo, &c);
				pgwt_render_lock_chains(b, &ro, &sum, &c, st);
				pgwt_lock_chains_free(&c);
			}
			break;
		case SRV_X_SESSIONS_NOW:
			{
				pgwt_now_row *rows;
				size_t		n;

				if (!pgwt_now_rows(now, &rows, &n))
					return false;
				if (n > q->limit)
					n = q->limit;	/* the longest in their state first */
				pgwt_render_sessions_now(b, &ro, &sum, now, rows, n);
				free(rows);
			}
			break;
	}
	return !b->oom;
}

void
srv_api_exact(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	srv_xreq	q;
	uint64_t	from,
				to;
	pgwt_window_spec win;
	srv_loaded	l;
	pgwt_now	now;
	char		err[200];
	pgwt_buf	lines = {0};
	bool		ok;

	if (!srv_exact_parse(arg, conn, &q, r) || !srv_param_range(arg, conn, &from, &to, r))
		return;
	memset(&win, 0, sizeof(win));
	win.from_ns = from;
	win.to_ns = to == UINT64_MAX ? UINT64_MAX : pgwt_range_window_end(to);
	snprintf(win.label, sizeof(win.label), "%llu..%llu", (unsigned long long) from,
			 (unsigned long long) to);
	/* the range's own end: the window's is one ns past it (range_load.h) */
	if (!pgwt_now_init(&now, to, 0))
	{
		srv_reply_error(r, 500, "out of memory");
		return;
	}
	if (srv_exact_load(cfg->trace_dir, from, to, &win, &l,
					   (q.views & (1u << SRV_X_SESSIONS_NOW)) ? &now : NULL, err, sizeof(err)) != 0)
	{
		pgwt_now_free(&now);
		srv_reply_load_error(r, err);
		return;
	}
	ok = true;
	for (int i = 0; i < SRV_X_NVIEWS && ok; i++)
		if (q.views & (1u << i))
			ok = srv_exact_render(&lines, &q, (srv_xview) i, &l, &now);
	srv_loaded_free(&l);
	pgwt_now_free(&now);
	if (!ok)
	{
		pgwt_buf_free(&lines);
		srv_reply_error(r, 500, "out of memory");
		return;
	}
	if (q.format == PGWT_OUT_CSV)
	{
		r->body = lines;
		r->ctype = "text/csv; charset=utf-8";
		snprintf(r->filename, sizeof(r->filename), "%s.csv", srv_xview_names[q.view]);
		return;
	}
	srv_json_lines(&r->body, &lines);
	pgwt_buf_free(&lines);
}
