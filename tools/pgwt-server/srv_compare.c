/*
 * srv_compare.c
 *		/api/compare: two periods side by side. Each period is loaded as
 *		/api/view loads a range (the one range loader, side files too);
 *		its time per class (view=time_model), per event (system_event) or
 *		per (query, event) (query_event), idle time left out as the time
 *		model leaves it out, goes to analysis/compare.h, which merges the
 *		two and renders the rows as JSON or CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/range_load.h"
#include "analysis/views.h"
#include "srv_api.h"
#include "srv_load.h"

/* One period's items; *db its DB time. 0, or -1 (r set). */
static int
srv_cmp_period(const srv_config *cfg, uint64_t from, uint64_t to, pgwt_cmp_kind kind,
			   srv_loaded *l, pgwt_cmp_item **items, size_t *n, uint64_t *db, srv_reply *r)
{
	pgwt_window_spec win;
	pgwt_view_opts vo = {0};
	pgwt_event_rows rows = {0};
	pgwt_time_model tm;
	char		err[200];
	bool		used;

	memset(&win, 0, sizeof(win));
	win.from_ns = from;
	win.to_ns = pgwt_range_window_end(to);
	snprintf(win.label, sizeof(win.label), "%llu..%llu", (unsigned long long) from,
			 (unsigned long long) to);
	if (srv_load_range_fast(cfg->trace_dir, from, to, &win, true, NULL, l, &used, err, sizeof(err)) != 0)
		return srv_reply_load_error(r, err), -1;
	vo.names = &l->names;
	*n = 0;
	if (pgwt_view_time_model(l->eng, 0, &tm) == PGWT_VIEW_OK)
		*db = tm.sum.db_ns;
	else
		*db = 0;
	if (kind == PGWT_CMP_CLASS)
	{
		if (!(*items = calloc(PGWT_NCLASSES + 1, sizeof(**items))))
			return srv_reply_error(r, 500, "out of memory"), -1;
		for (unsigned c = 0; *db && c < tm.nclasses; c++)
			(*items)[(*n)++] = (pgwt_cmp_item) {tm.classes[c].class_index, 0, tm.classes[c].total_ns};
		return 0;
	}
	if (kind == PGWT_CMP_EVENT)
		pgwt_view_system_event(l->eng, 0, &vo, &rows);
	else
		pgwt_view_query_event(l->eng, 0, &vo, &rows);
	if (!(*items = calloc(rows.n ? rows.n : 1, sizeof(**items))))
	{
		pgwt_event_rows_free(&rows);
		return srv_reply_error(r, 500, "out of memory"), -1;
	}
	for (size_t i = 0; i < rows.n; i++)
	{
		const pgwt_event_row *e = &rows.rows[i];

		/* idle time is no share of DB time; the overflow row has no key */
		if (e->idle || e->other)
			continue;
		(*items)[(*n)++] = (pgwt_cmp_item) {kind == PGWT_CMP_EVENT ? e->event : e->query_id,
			kind == PGWT_CMP_EVENT ? 0 : e->event, e->total_ns};
	}
	pgwt_event_rows_free(&rows);
	return 0;
}

void
srv_api_compare(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	static const char *const views[] = {"time_model", "system_event", "query_event"};
	const char *v = arg(conn, "view"),
			   *f = arg(conn, "format");
	pgwt_cmp_kind kind = PGWT_CMP_CLASS;
	pgwt_out_format fmt = PGWT_OUT_JSON;
	uint64_t	af,
				at,
				bf,
				bt,
				adb = 0,
				bdb = 0;
	srv_loaded	la = {0},
				lb = {0};
	pgwt_cmp_item *ia = NULL,
			   *ib = NULL;
	size_t		na = 0,
				nb = 0,
				n = 0;
	pgwt_cmp_row *rows = NULL;
	bool		known = false;

	for (size_t i = 0; v && i < sizeof(views) / sizeof(views[0]); i++)
		if (strcmp(v, views[i]) == 0)
		{
			kind = (pgwt_cmp_kind) i;
			known = true;
		}
	if (v && !known)
		{ srv_reply_error(r, 400, "view: expected time_model, system_event or query_event"); return; }
	if (!srv_param_format(f, &fmt))
		{ srv_reply_error(r, 400, "format: expected json or csv"); return; }
	if (!arg(conn, "a_from") || !arg(conn, "a_to") || !arg(conn, "b_from") || !arg(conn, "b_to"))
		{ srv_reply_error(r, 400, "a_from, a_to, b_from and b_to are required"); return; }
	if (!srv_param_range_named(arg, conn, "a_from", "a_to", &af, &at, r) ||
		!srv_param_range_named(arg, conn, "b_from", "b_to", &bf, &bt, r))
		return;
	if (srv_cmp_period(cfg, af, at, kind, &la, &ia, &na, &adb, r) == 0 &&
		srv_cmp_period(cfg, bf, bt, kind, &lb, &ib, &nb, &bdb, r) == 0)
	{
		if (pgwt_compare(ia, na, adb, ib, nb, bdb, &rows, &n) != 0)
			srv_reply_error(r, 500, "out of memory");
		else
		{
			pgwt_render_opts ro = {fmt, &la.names, true, pgwt_query_texts_lookup, (void *) &la.qt, true};

			/* bounded as every table answer: the largest changes first */
			if (n > SRV_MAX_LIMIT)
				n = SRV_MAX_LIMIT;
			pgwt_render_compare(&r->body, &ro, kind, adb, bdb, rows, n);
			if (fmt == PGWT_OUT_CSV)
			{
				r->ctype = "text/csv; charset=utf-8";
				snprintf(r->filename, sizeof(r->filename), "compare_%s.csv", views[kind]);
			}
		}
	}
	free(rows);
	free(ia);
	free(ib);
	srv_loaded_free(&la);
	srv_loaded_free(&lb);
}
