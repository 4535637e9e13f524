/*
 * render_hist.c
 *		Text / JSON / CSV rendering of the histogram view (one log2 ns
 *		layout, common/histogram.h) with its bucketed percentiles.
 */
#include "analysis/render.h"
#include "analysis/render_internal.h"

#include <stdio.h>
#include <string.h>

#include "common/histogram.h"

/*
 * ,"buckets":[...] of common/histogram.h's log2 layout: each bucket's
 * bounds (the last one open: hi_ns null), its waits and, when time_ns is
 * given, its time.
 */
void
pgwt_rd_json_buckets(pgwt_buf *b, const uint64_t *waits, const uint64_t *time_ns)
{
	pgwt_buf_printf(b, ",\"buckets\":[");
	for (unsigned i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
	{
		uint64_t	lo,
					hi;

		pgwt_hist_ns_bounds(i, &lo, &hi);
		pgwt_buf_printf(b, "%s{\"lo_ns\":%llu,\"hi_ns\":", i ? "," : "", (unsigned long long) lo);
		if (hi == PGWT_HIST_UNBOUNDED)
			pgwt_buf_printf(b, "null");
		else
			pgwt_buf_printf(b, "%llu", (unsigned long long) hi);
		pgwt_buf_printf(b, ",\"waits\":%llu", (unsigned long long) waits[i]);
		if (time_ns)
			pgwt_buf_printf(b, ",\"time_ns\":%llu", (unsigned long long) time_ns[i]);
		pgwt_buf_printf(b, "}");
	}
	pgwt_buf_printf(b, "]");
}

/*
 * A bucket bound for people: three significant digits in ns, us, ms or s
 * (2^27 ns is "134 ms"). The exact bounds are the CSV's and JSON's lo_ns
 * and hi_ns.
 */
static void
rd_hist_bound(uint64_t ns, char *buf, size_t len)
{
	static const char *const unit[4] = {"ns", "us", "ms", "s"};
	double		v = (double) ns;
	int			u = 0;

	while (u < 3 && v >= 1000.0)
	{
		v /= 1000.0;
		u++;
	}
	if (v >= 100.0 || u == 0)
		snprintf(buf, len, "%.0f %s", v, unit[u]);
	else if (v >= 10.0)
		snprintf(buf, len, "%.1f %s", v, unit[u]);
	else
		snprintf(buf, len, "%.2f %s", v, unit[u]);
}

/* Label of bucket i: "< 1.02 us", "134 ms-268 ms", ">= 1100 s". */
static void
rd_hist_label(unsigned i, char *buf, size_t len)
{
	uint64_t	lo,
				hi;
	char		a[24],
				z[24];

	pgwt_hist_ns_bounds(i, &lo, &hi);
	rd_hist_bound(lo, a, sizeof(a));
	rd_hist_bound(hi, z, sizeof(z));
	if (i == 0)
		snprintf(buf, len, "< %s", z);
	else if (hi == PGWT_HIST_UNBOUNDED)
		snprintf(buf, len, ">= %s", a);
	else
		snprintf(buf, len, "%s-%s", a, z);
}

/* p50, p95, p99 of a histogram view (false: no wait in the buckets). */
static bool
rd_hist_pcts(const pgwt_histogram *h, pgwt_hist_pct out[3])
{
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
		if (!pgwt_hist_quantile(h->ns, pgwt_hist_pct_q(i), h->min_ns, h->max_ns, &out[i]))
			return false;
	return true;
}

static void
rd_histogram_json(pgwt_buf *b, const pgwt_window_summary *sum, const pgwt_histogram *h,
				  const char *name, pgwt_view_status st)
{
	pgwt_hist_pct p[3];

	pgwt_rd_json_summary(b, "histogram", sum, st);
	pgwt_buf_printf(b, ",\"event\":");
	pgwt_rd_json_str(b, name);
	pgwt_buf_printf(b, ",\"buckets_unit\":\"log2_ns\",\"event_fidelity\":\"%s\"",
					pgwt_fidelity_name(h->fidelity));
	if (st != PGWT_VIEW_OK)
	{
		pgwt_buf_printf(b, ",\"buckets\":null}\n");
		return;
	}
	pgwt_buf_printf(b, ",\"waits\":%llu,\"total_ns\":%llu,\"max_ns\":%llu,\"sampled_ns_excluded\":%llu",
					(unsigned long long) h->waits, (unsigned long long) h->completed_ns,
					(unsigned long long) h->max_ns, (unsigned long long) h->sampled_ns);
	if (rd_hist_pcts(h, p))
	{
		/* bucketed: the true value lies in [lo, hi), the bucket cut at the max */
		pgwt_buf_printf(b, ",\"percentiles\":\"bucketed\"");
		for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
			pgwt_buf_printf(b, ",\"%s_ns\":%llu,\"%s_lo_ns\":%llu,\"%s_hi_ns\":%llu",
							pgwt_hist_pct_name(i), (unsigned long long) p[i].est_ns,
							pgwt_hist_pct_name(i), (unsigned long long) p[i].lo_ns,
							pgwt_hist_pct_name(i), (unsigned long long) p[i].hi_ns);
	}
	pgwt_rd_json_buckets(b, h->ns, NULL);
	pgwt_buf_printf(b, "}\n");
}

static void
rd_histogram_csv(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
				 const pgwt_histogram *h, const char *name, pgwt_view_status st)
{
	if (o->csv_header)
		pgwt_buf_printf(b, "window,event,bucket,lo_ns,hi_ns,waits,status\n");
	if (st != PGWT_VIEW_OK)
	{
		pgwt_rd_csv_str(b, sum->spec.label);
		pgwt_buf_printf(b, ",");
		pgwt_rd_csv_str(b, name);
		pgwt_buf_printf(b, ",,,,,%s\n", pgwt_rd_status_token(st));
		return;
	}
	for (unsigned i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
	{
		uint64_t	lo,
					hi;
		char		label[48];

		pgwt_hist_ns_bounds(i, &lo, &hi);
		rd_hist_label(i, label, sizeof(label));
		pgwt_rd_csv_str(b, sum->spec.label);
		pgwt_buf_printf(b, ",");
		pgwt_rd_csv_str(b, name);
		pgwt_buf_printf(b, ",%s,%llu,", label, (unsigned long long) lo);
		if (hi != PGWT_HIST_UNBOUNDED)
			pgwt_buf_printf(b, "%llu", (unsigned long long) hi);
		pgwt_buf_printf(b, ",%llu,ok\n", (unsigned long long) h->ns[i]);
	}
}

void
pgwt_render_histogram(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
					  const pgwt_histogram *h, pgwt_view_status st)
{
	char		name[PGWT_EVENT_NAME_MAX];
	pgwt_hist_pct p[3];
	unsigned	first = PGWT_HIST_NS_BUCKETS,
				last = 0;
	uint64_t	cum = 0;

	pgwt_event_format(o->names, h->event, name, sizeof(name));
	if (o->format == PGWT_OUT_JSON)
	{
		rd_histogram_json(b, sum, h, name, st);
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		rd_histogram_csv(b, o, sum, h, name, st);
		return;
	}
	pgwt_rd_text_title(b, "Event histogram", sum);
	pgwt_buf_printf(b, "  Event: %s", name);
	if (st != PGWT_VIEW_OK)
	{
		pgwt_buf_printf(b, "\n");
		pgwt_rd_text_status(b, st);
		return;
	}
	pgwt_buf_printf(b, " | Waits: %llu | Total: %.3f ms | Max: %.1f us | fidelity: %s\n",
					(unsigned long long) h->waits, (double) h->completed_ns / 1e6, (double) h->max_ns / 1e3,
					pgwt_fidelity_name(h->fidelity));
	if (rd_hist_pcts(h, p))
		pgwt_buf_printf(b, "  p50: %.1f us | p95: %.1f us | p99: %.1f us (bucketed: each lies in the bucket"
						" of the true value, cut at the max)\n",
						(double) p[0].est_ns / 1e3, (double) p[1].est_ns / 1e3, (double) p[2].est_ns / 1e3);
	if (h->sampled_ns)
		pgwt_buf_printf(b, "  (%.3f ms of sampled time has no durations and is not in the buckets)\n",
						(double) h->sampled_ns / 1e6);
	/* the rows from the first to the last non-empty bucket: 32 rows of
	 * mostly zeros hide the shape; the CSV and JSON keep every bucket */
	for (unsigned i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
		if (h->ns[i])
		{
			if (first == PGWT_HIST_NS_BUCKETS)
				first = i;
			last = i;
		}
	pgwt_buf_printf(b, "  %-18s %10s %8s %10s\n", "Bucket", "Waits", "% Waits", "Cumulative");
	for (unsigned i = first; i <= last && first < PGWT_HIST_NS_BUCKETS; i++)
	{
		char		label[48],
					bar[52];
		double		pct = h->waits ? 100.0 * (double) h->ns[i] / (double) h->waits : 0.0;
		int			nbar = (int) (pct / 2.0);

		cum += h->ns[i];
		rd_hist_label(i, label, sizeof(label));
		memset(bar, '#', (size_t) nbar);
		bar[nbar] = '\0';
		pgwt_buf_printf(b, "  %-18s %10llu %7.1f%% %9.1f%%  %s\n", label, (unsigned long long) h->ns[i], pct,
						h->waits ? 100.0 * (double) cum / (double) h->waits : 0.0, bar);
	}
	pgwt_buf_printf(b, "  (buckets of 2^k ns from < 1.02 us to >= 1100 s; the empty ones at either end"
					" are not shown)\n");
	pgwt_buf_printf(b, "\n");
}
