/*
 * render_probe.c
 *		JSON / CSV rendering of one key's histogram (analysis/hist_probe.h:
 *		an event, or an event within one session or one query): the log2
 *		buckets of common/histogram.h with their waits and time, and
 *		p50/p95/p99 with the bucket bounds each lies in. Text is the
 *		histogram view's (render_hist.c); this one is for pgwt-server.
 */
#include "analysis/render.h"
#include "analysis/render_internal.h"

#include <stdio.h>

#include "analysis/hist_probe.h"
#include "common/histogram.h"

static void
rp_json(pgwt_buf *b, const pgwt_window_summary *sum, const pgwt_hist_probe *p,
		const pgwt_probe_meta *m, const char *name)
{
	pgwt_rd_json_summary(b, "event_histogram", sum, m->status);
	pgwt_buf_printf(b, ",\"event\":");
	pgwt_rd_json_str(b, name);
	if (p->has_pid)
		pgwt_buf_printf(b, ",\"pid\":%u", p->pid);
	else
		pgwt_buf_printf(b, ",\"pid\":null");
	if (p->has_query)
		pgwt_buf_printf(b, ",\"query_id\":%lld", (long long) p->query_id);
	else
		pgwt_buf_printf(b, ",\"query_id\":null");
	pgwt_buf_printf(b, ",\"buckets_unit\":\"log2_ns\",\"event_fidelity\":\"%s\",\"sampled_ns_excluded\":%llu",
					pgwt_fidelity_name(m->fidelity), (unsigned long long) m->sampled_ns);
	if (m->status != PGWT_VIEW_OK)
	{
		pgwt_buf_printf(b, ",\"waits\":0,\"buckets\":null}\n");
		return;
	}
	pgwt_buf_printf(b, ",\"waits\":%llu,\"total_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu",
					(unsigned long long) p->waits, (unsigned long long) p->completed_ns,
					(unsigned long long) p->min_ns, (unsigned long long) p->max_ns);
	/* bucketed: the true value lies in [lo, hi), the bucket cut at min and max */
	pgwt_buf_printf(b, ",\"percentiles\":\"bucketed\"");
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
	{
		pgwt_hist_pct q;

		if (pgwt_hist_quantile(p->count, pgwt_hist_pct_q(i), p->min_ns, p->max_ns, &q))
			pgwt_buf_printf(b, ",\"%s_ns\":%llu,\"%s_lo_ns\":%llu,\"%s_hi_ns\":%llu",
							pgwt_hist_pct_name(i), (unsigned long long) q.est_ns,
							pgwt_hist_pct_name(i), (unsigned long long) q.lo_ns,
							pgwt_hist_pct_name(i), (unsigned long long) q.hi_ns);
		else
			pgwt_buf_printf(b, ",\"%s_ns\":null", pgwt_hist_pct_name(i));
	}
	pgwt_rd_json_buckets(b, p->count, p->time_ns);
	pgwt_buf_printf(b, "}\n");
}

static void
rp_csv_key(pgwt_buf *b, const pgwt_window_summary *sum, const pgwt_hist_probe *p, const char *name)
{
	pgwt_rd_csv_str(b, sum->spec.label);
	pgwt_buf_printf(b, ",");
	pgwt_rd_csv_str(b, name);
	if (p->has_pid)
		pgwt_buf_printf(b, ",%u", p->pid);
	else
		pgwt_buf_printf(b, ",");
	if (p->has_query)
		pgwt_buf_printf(b, ",%lld", (long long) p->query_id);
	else
		pgwt_buf_printf(b, ",");
}

static void
rp_csv(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
	   const pgwt_hist_probe *p, const pgwt_probe_meta *m, const char *name)
{
	if (o->csv_header)
		pgwt_buf_printf(b, "window,event,pid,query_id,lo_ns,hi_ns,waits,time_ns,status\n");
	if (m->status != PGWT_VIEW_OK)
	{
		rp_csv_key(b, sum, p, name);
		pgwt_buf_printf(b, ",,,,,%s\n", pgwt_rd_status_token(m->status));
		return;
	}
	for (unsigned i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
	{
		uint64_t	lo,
					hi;

		pgwt_hist_ns_bounds(i, &lo, &hi);
		rp_csv_key(b, sum, p, name);
		pgwt_buf_printf(b, ",%llu,", (unsigned long long) lo);
		if (hi != PGWT_HIST_UNBOUNDED)
			pgwt_buf_printf(b, "%llu", (unsigned long long) hi);
		pgwt_buf_printf(b, ",%llu,%llu,ok\n", (unsigned long long) p->count[i],
						(unsigned long long) p->time_ns[i]);
	}
}

void
pgwt_render_hist_probe(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
					   const pgwt_hist_probe *p, const pgwt_probe_meta *m)
{
	char		name[PGWT_EVENT_NAME_MAX];

	pgwt_event_format(o->names, p->event, name, sizeof(name));
	if (o->format == PGWT_OUT_CSV)
		rp_csv(b, o, sum, p, m, name);
	else
		rp_json(b, sum, p, m, name);
}
