/*
 * srv_aas.c
 *		/api/aas: average active sessions over time by wait class. The range
 *		is cut into N buckets; each bucket is an engine window, and a
 *		class's AAS in a bucket is the time the time model bills to it there
 *		divided by the bucket's width, so the buckets of a range add up to
 *		the time model of that range. The engine keeps at most
 *		PGWT_MAX_WINDOWS windows, so the range is read in chunks of that many
 *		buckets, each chunk through the range loader (waits cut at its
 *		ends). Each bucket says its fidelity (exact, sampled, mixed).
 */
#include <stdio.h>
#include <string.h>

#include "analysis/range_load.h"
#include "analysis/views.h"
#include "srv_api.h"
#include "srv_load.h"

#define SRV_NCLS (PGWT_NCLASSES + 1)	/* class bytes + "unknown" */

typedef struct srv_bucket
{
	uint64_t	from,
				to;
	pgwt_fidelity fid;
	uint64_t	ns[SRV_NCLS];
} srv_bucket;

static const char *
srv_aas_label(unsigned i)
{
	const char *n = i < PGWT_NCLASSES ? pgwt_class_name(i) : NULL;

	return n ? n : "(unknown class)";
}

/* One chunk of up to PGWT_MAX_WINDOWS buckets. 0 or -1. */
static int
srv_aas_chunk(const srv_config *cfg, srv_bucket *b, int n)
{
	pgwt_window_spec win[PGWT_MAX_WINDOWS];
	srv_loaded	l;
	char		err[200];

	memset(win, 0, sizeof(win));
	for (int i = 0; i < n; i++)
	{
		win[i].from_ns = b[i].from;
		win[i].to_ns = b[i].to;
		snprintf(win[i].label, sizeof(win[i].label), "bucket %d", i);
	}
	win[n - 1].to_ns = pgwt_range_window_end(b[n - 1].to);
	if (srv_load_range(cfg->trace_dir, b[0].from, b[n - 1].to, win, n, false, &l, err, sizeof(err)) != 0)
		return -1;
	for (int i = 0; i < n; i++)
	{
		pgwt_time_model tm;

		memset(b[i].ns, 0, sizeof(b[i].ns));
		b[i].fid = PGWT_FIDELITY_NONE;
		if (pgwt_view_time_model(l.eng, i, &tm) != PGWT_VIEW_OK)
			continue;
		b[i].fid = tm.sum.fidelity;
		for (unsigned c = 0; c < tm.nclasses; c++)
			if (tm.classes[c].class_index < SRV_NCLS)
				b[i].ns[tm.classes[c].class_index] += tm.classes[c].total_ns;
	}
	srv_loaded_free(&l);
	return 0;
}

static void
srv_aas_render(pgwt_buf *o, const srv_bucket *b, unsigned points, uint64_t from, uint64_t to,
			   uint64_t width)
{
	bool		used[SRV_NCLS] = {false};
	bool		first = true;

	for (unsigned i = 0; i < points; i++)
		for (unsigned c = 0; c < SRV_NCLS; c++)
			used[c] |= b[i].ns[c] > 0;
	pgwt_buf_printf(o, "{\"from_ns\":%llu,\"to_ns\":%llu,\"points\":%u,\"width_ns\":%llu,\"classes\":[",
					(unsigned long long) from, (unsigned long long) to, points,
					(unsigned long long) width);
	for (unsigned c = 0; c < SRV_NCLS; c++)
		if (used[c])
		{
			pgwt_buf_printf(o, "%s\"%s\"", first ? "" : ",", srv_aas_label(c));
			first = false;
		}
	pgwt_buf_printf(o, "],\"buckets\":[");
	for (unsigned i = 0; i < points; i++)
	{
		double		w = (double) (b[i].to - b[i].from);

		pgwt_buf_printf(o, "%s{\"from_ns\":%llu,\"to_ns\":%llu,\"fidelity\":\"%s\",\"ns\":[",
						i ? "," : "", (unsigned long long) b[i].from, (unsigned long long) b[i].to,
						pgwt_fidelity_name(b[i].fid));
		first = true;
		for (unsigned c = 0; c < SRV_NCLS; c++)
			if (used[c])
			{
				pgwt_buf_printf(o, "%s%llu", first ? "" : ",", (unsigned long long) b[i].ns[c]);
				first = false;
			}
		pgwt_buf_printf(o, "],\"aas\":[");
		first = true;
		for (unsigned c = 0; c < SRV_NCLS; c++)
			if (used[c])
			{
				pgwt_buf_printf(o, "%s%.6f", first ? "" : ",", (double) b[i].ns[c] / w);
				first = false;
			}
		pgwt_buf_printf(o, "]}");
	}
	pgwt_buf_printf(o, "]}");
}

void
srv_api_aas(const srv_config *cfg, srv_arg_fn arg, void *conn, srv_reply *r)
{
	static srv_bucket b[SRV_MAX_POINTS];	/* one request at a time (srv_http.c) */
	uint64_t	from,
				to,
				points = 300,
				width;
	const char *p = arg(conn, "points");

	if (!srv_param_range(arg, conn, &from, &to, r))
		return;
	if (p && (!srv_param_u64(p, &points) || points == 0 || points > SRV_MAX_POINTS))
		{ srv_reply_error(r, 400, "points: expected 1..2000"); return; }
	if (from == 0 || to == UINT64_MAX)
	{
		/* an open end: the trace's own */
		srv_loaded	l;
		char		err[200];

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
	width = (to - from + points - 1) / points;
	points = (to - from + width - 1) / width;
	for (unsigned i = 0; i < points; i++)
	{
		b[i].from = from + i * width;
		b[i].to = i + 1 == points ? to : from + (i + 1) * width;
	}
	for (unsigned i = 0; i < points; i += PGWT_MAX_WINDOWS)
	{
		int			n = points - i < PGWT_MAX_WINDOWS ? (int) (points - i) : PGWT_MAX_WINDOWS;

		if (srv_aas_chunk(cfg, b + i, n) != 0)
			{ srv_reply_error(r, 500, "the trace directory could not be read"); return; }
	}
	srv_aas_render(&r->body, b, (unsigned) points, from, to, width);
}
