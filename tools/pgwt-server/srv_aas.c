/*
 * srv_aas.c
 *		/api/aas: average active sessions over time by wait class. The range
 *		is cut into N buckets, and a class's AAS in a bucket is the time the
 *		time model bills to it there divided by the bucket's width, so the
 *		buckets of a range add up to the time model of that range. The
 *		range is read once, through the range loader (waits cut at its
 *		ends), into an engine carrying a time series of the N buckets
 *		(analysis/series.h), which cuts each wait at the bucket edges by
 *		the windows' own rule. Each bucket says its fidelity (exact,
 *		sampled, mixed).
 */
#include <stdio.h>
#include <string.h>

#include "analysis/range_load.h"
#include "analysis/series.h"
#include "analysis/views.h"
#include "srv_api.h"
#include "srv_cache.h"
#include "srv_load.h"
#include "srv_sum.h"

static const char *
srv_aas_label(unsigned i)
{
	const char *n = i < PGWT_NCLASSES ? pgwt_class_name(i) : NULL;

	return n ? n : "(unknown class)";
}

/* Fill the series from one read of its range. 0 or -1 with err set. */
static int
srv_aas_load(const srv_config *cfg, pgwt_series *s, uint64_t from, uint64_t to, bool aligned,
			 bool *used, char *err, size_t errlen)
{
	pgwt_window_spec win;
	srv_loaded	l;

	memset(&win, 0, sizeof(win));
	win.from_ns = from;
	win.to_ns = pgwt_range_window_end(to);
	snprintf(win.label, sizeof(win.label), "range");
	/* the summaries bill a frame whole: only into buckets aligned to them */
	*used = false;
	if (aligned ? srv_load_range_fast(cfg->trace_dir, from, to, &win, false, s, &l, used, err,
									  errlen) != 0
		: srv_load_range(cfg->trace_dir, from, to, &win, 1, false, s, &l, err, errlen) != 0)
		return -1;
	srv_loaded_free(&l);
	return 0;
}

static void
srv_aas_render(pgwt_buf *o, const pgwt_series *s, uint64_t from, uint64_t to, bool from_sum)
{
	bool		used[PGWT_SERIES_NCLASS] = {false};
	bool		first = true;
	unsigned	points = pgwt_series_len(s);

	for (unsigned i = 0; i < points; i++)
		for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
			used[c] |= pgwt_series_get(s, i)->class_ns[c] > 0;
	pgwt_buf_printf(o, "{\"from_ns\":%llu,\"to_ns\":%llu,\"points\":%u,\"width_ns\":%llu,"
					"\"source\":\"%s\",\"classes\":[",
					(unsigned long long) from, (unsigned long long) to, points,
					(unsigned long long) pgwt_series_width(s), from_sum ? "summaries" : "records");
	for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
		if (used[c])
		{
			pgwt_buf_printf(o, "%s\"%s\"", first ? "" : ",", srv_aas_label(c));
			first = false;
		}
	pgwt_buf_printf(o, "],\"buckets\":[");
	for (unsigned i = 0; i < points; i++)
	{
		const pgwt_series_bucket *b = pgwt_series_get(s, i);
		/* minute-aligned buckets may start before "from" and end after
		 * "to": nothing is billed there, so they show the range's part */
		uint64_t	bf = b->from_ns < from ? from : b->from_ns,
					bt = b->to_ns > to ? to : b->to_ns;
		double		w = (double) (bt - bf);

		pgwt_buf_printf(o, "%s{\"from_ns\":%llu,\"to_ns\":%llu,\"fidelity\":\"%s\",\"ns\":[",
						i ? "," : "", (unsigned long long) bf, (unsigned long long) bt,
						pgwt_fidelity_name(pgwt_series_fidelity(b)));
		first = true;
		for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
			if (used[c])
			{
				pgwt_buf_printf(o, "%s%llu", first ? "" : ",", (unsigned long long) b->class_ns[c]);
				first = false;
			}
		pgwt_buf_printf(o, "],\"aas\":[");
		first = true;
		for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
			if (used[c])
			{
				pgwt_buf_printf(o, "%s%.6f", first ? "" : ",", (double) b->class_ns[c] / w);
				first = false;
			}
		pgwt_buf_printf(o, "]}");
	}
	pgwt_buf_printf(o, "]}");
}

void
srv_api_aas(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	uint64_t	from,
				to,
				points = SRV_CACHE_POINTS;
	char		err[200];
	bool		used = false,
				aligned;
	const char *p = arg(conn, "points");
	pgwt_series *s;

	if (!srv_param_range(arg, conn, &from, &to, r))
		return;
	if (p && (!srv_param_u64(p, &points) || points == 0 || points > SRV_MAX_POINTS))
		{ srv_reply_error(r, 400, "points: expected 1..2000"); return; }
	if (from == 0 || to == UINT64_MAX)
	{
		/* an open end: the trace's own */
		srv_loaded	l;

		if (srv_load_extent(cfg->trace_dir, &l, err, sizeof(err)) != 0)
			{ srv_reply_error(r, 500, "the trace directory could not be read"); return; }
		srv_loaded_free(&l);
		if (l.records == 0)
			{ srv_reply_error(r, 404, "the trace holds no records"); return; }
		if (from == 0)
			from = l.first_rt;
		if (to == UINT64_MAX)
			to = l.last_rt + 1;
		if (from >= to)
			{ srv_reply_error(r, 400, "from must be before to"); return; }
	}
	if (points == SRV_CACHE_POINTS)
	{
		/* the page's chart: from the read its tables share (srv_cache.c) */
		const pgwt_series *cs;

		if (!srv_cache_range(cfg->trace_dir, from, to, &cs, &used, err, sizeof(err)) || !cs)
			srv_reply_load_error(r, err);
		else
			srv_aas_render(&r->body, cs, from, to, used);
		srv_cache_release();
		return;
	}
	if (!(s = srv_sum_series(cfg->trace_dir, from, to, (unsigned) points, &aligned)))
		{ srv_reply_error(r, 500, "out of memory"); return; }
	if (srv_aas_load(cfg, s, from, to, aligned, &used, err, sizeof(err)) != 0)
		srv_reply_load_error(r, err);
	else
		srv_aas_render(&r->body, s, from, to, used);
	pgwt_series_free(s);
}
