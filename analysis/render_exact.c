/*
 * render_exact.c
 *		Text / JSON / CSV of the exact-only views and cross_validate
 *		(render.h). Same conventions as render.c: JSON one object per view
 *		and window, rows null when the status is not ok; CSV a header line
 *		then rows, window label first and status last.
 */
#include "analysis/render.h"
#include "analysis/render_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static void
rx_event_name(const pgwt_render_opts *o, uint32_t ev, char *buf, size_t len)
{
	if (ev == PGWT_EVENT_EXIT)
		snprintf(buf, len, "(exit)");
	else
		pgwt_event_format(o->names, ev, buf, len);
}

/* Wall-clock time of an instant, to the millisecond, for text output. */
static void
rx_clock(uint64_t ns, char *buf, size_t len)
{
	time_t		s = (time_t) (ns / 1000000000ull);
	struct tm	tm;
	char		hms[16];

	if (!localtime_r(&s, &tm) || strftime(hms, sizeof(hms), "%H:%M:%S", &tm) == 0)
	{
		snprintf(buf, len, "%llu", (unsigned long long) ns);
		return;
	}
	snprintf(buf, len, "%s.%03u", hms, (unsigned) (ns / 1000000ull % 1000));
}

/* The closing of a JSON object whose rows were not computed. */
static bool
rx_json_not_ok(pgwt_buf *b, pgwt_view_status st, const char *rows_key)
{
	if (st == PGWT_VIEW_OK)
		return false;
	pgwt_buf_printf(b, ",\"%s\":null}\n", rows_key);
	return true;
}

static void
rx_csv_status_row(pgwt_buf *b, const pgwt_window_summary *sum, unsigned empty_fields, pgwt_view_status st)
{
	pgwt_rd_csv_str(b, sum->spec.label);
	for (unsigned i = 0; i < empty_fields; i++)
		pgwt_buf_printf(b, ",");
	pgwt_buf_printf(b, ",%s\n", pgwt_rd_status_token(st));
}

/* ---- transitions ------------------------------------------------------------- */

void
pgwt_render_transitions(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						const pgwt_transition_rows *rows, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? rows->n : 0;
	char		from[PGWT_EVENT_NAME_MAX],
				to[PGWT_EVENT_NAME_MAX];

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "transitions", sum, st);
		if (rx_json_not_ok(b, st, "rows"))
			return;
		pgwt_buf_printf(b, ",\"transitions\":%llu,\"rows\":[", (unsigned long long) rows->transitions);
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_transition_row *r = &rows->rows[i];

			rx_event_name(o, r->old_event, from, sizeof(from));
			rx_event_name(o, r->new_event, to, sizeof(to));
			pgwt_buf_printf(b, "%s{\"from\":", i ? "," : "");
			if (r->other)
				pgwt_buf_printf(b, "null,\"from_id\":null,\"to\":null,\"to_id\":null");
			else
			{
				pgwt_rd_json_str(b, from);
				pgwt_buf_printf(b, ",\"from_id\":%u,\"to\":", r->old_event);
				pgwt_rd_json_str(b, to);
				pgwt_buf_printf(b, ",\"to_id\":%u", r->new_event);
			}
			pgwt_buf_printf(b, ",\"other\":%s,\"count\":%llu,\"total_ns\":%llu,",
							r->other ? "true" : "false", (unsigned long long) r->count,
							(unsigned long long) r->total_ns);
			if (r->other)
				pgwt_buf_printf(b, "\"pct_of_from\":null}");
			else
				pgwt_buf_printf(b, "\"pct_of_from\":%.4f}", r->pct_of_old);
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,from,to,count,total_ns,pct_of_from,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 5, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_transition_row *r = &rows->rows[i];

			rx_event_name(o, r->old_event, from, sizeof(from));
			rx_event_name(o, r->new_event, to, sizeof(to));
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",");
			pgwt_rd_csv_str(b, r->other ? "(other)" : from);
			pgwt_buf_printf(b, ",");
			pgwt_rd_csv_str(b, r->other ? "(other)" : to);
			pgwt_buf_printf(b, ",%llu,%llu,", (unsigned long long) r->count, (unsigned long long) r->total_ns);
			if (!r->other)
				pgwt_buf_printf(b, "%.4f", r->pct_of_old);
			pgwt_buf_printf(b, ",ok\n");
		}
		return;
	}
	pgwt_rd_text_title(b, "Transitions", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-32s %-32s %10s %12s %8s\n", "from", "to", "count", "time_ms", "%from");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_transition_row *r = &rows->rows[i];

		rx_event_name(o, r->old_event, from, sizeof(from));
		rx_event_name(o, r->new_event, to, sizeof(to));
		if (r->other)
			pgwt_buf_printf(b, "  %-32s %-32s %10llu %12.3f %8s\n", "(other)", "(other)",
							(unsigned long long) r->count, (double) r->total_ns / 1e6, "-");
		else
			pgwt_buf_printf(b, "  %-32s %-32s %10llu %12.3f %7.1f%%\n", from, to,
							(unsigned long long) r->count, (double) r->total_ns / 1e6, r->pct_of_old);
	}
	pgwt_buf_printf(b, "  %llu transitions\n\n", (unsigned long long) rows->transitions);
}

/* ---- fingerprints ------------------------------------------------------------- */

void
pgwt_render_fingerprints(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						 const pgwt_fingerprint_rows *rows, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? rows->n : 0;

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "fingerprints", sum, st);
		if (rx_json_not_ok(b, st, "rows"))
			return;
		pgwt_buf_printf(b, ",\"rows\":[");
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_fingerprint_row *r = &rows->rows[i];
			const char *text = o->query_text ? o->query_text(r->query_id, o->query_text_arg) : NULL;

			pgwt_buf_printf(b, "%s{\"query_id\":%lld,\"query\":", i ? "," : "", (long long) r->query_id);
			if (text)
				pgwt_rd_json_str(b, text);
			else
				pgwt_buf_printf(b, "null");
			pgwt_buf_printf(b, ",\"exact_ns\":%llu,\"fingerprint\":", (unsigned long long) r->exact_ns);
			pgwt_rd_json_str(b, r->text);
			pgwt_buf_printf(b, "}");
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		/* its own table after the transitions': a header of its own */
		pgwt_buf_printf(b, "window,query_id,exact_ns,fingerprint,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 3, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",%lld,%llu,", (long long) rows->rows[i].query_id,
							(unsigned long long) rows->rows[i].exact_ns);
			pgwt_rd_csv_str(b, rows->rows[i].text);
			pgwt_buf_printf(b, ",ok\n");
		}
		return;
	}
	pgwt_rd_text_title(b, "Query fingerprints", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-20s %12s  %s\n", "query_id", "exact_ms", "fingerprint");
	for (size_t i = 0; i < n; i++)
		pgwt_buf_printf(b, "  %-20lld %12.3f  %s\n", (long long) rows->rows[i].query_id,
						(double) rows->rows[i].exact_ns / 1e6, rows->rows[i].text);
	pgwt_buf_printf(b, "\n");
}

/* ---- concurrency ---------------------------------------------------------------- */

void
pgwt_render_concurrency(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						const pgwt_concurrency *c, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? c->n : 0;
	char		name[PGWT_EVENT_NAME_MAX],
				when[32];

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "concurrency", sum, st);
		if (rx_json_not_ok(b, st, "rows"))
			return;
		pgwt_buf_printf(b, ",\"burst_sessions\":%u,\"burst_window_ns\":%llu,\"bursts_total\":%llu,"
						"\"late_intervals\":%llu,\"forced_intervals\":%llu,\"concurrent_overflow\":%llu,"
						"\"events_overflow\":%llu,\"rows\":[",
						c->burst_sessions, (unsigned long long) c->burst_window_ns,
						(unsigned long long) c->bursts_total, (unsigned long long) c->late_intervals,
						(unsigned long long) c->forced_intervals, (unsigned long long) c->concurrent_overflow,
						(unsigned long long) c->events_overflow);
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_concurrency_row *r = &c->rows[i];

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_buf_printf(b, "%s{\"event\":", i ? "," : "");
			pgwt_rd_json_str(b, name);
			pgwt_buf_printf(b, ",\"event_id\":%u,\"peak\":%u,\"peak_ns\":%llu,\"intervals\":%llu,"
							"\"bursts\":%llu,\"max_burst_sessions\":%u}",
							r->event, r->peak, (unsigned long long) r->peak_ns,
							(unsigned long long) r->intervals, (unsigned long long) r->bursts,
							r->max_burst_sessions);
		}
		pgwt_buf_printf(b, "],\"bursts\":[");
		for (size_t i = 0; i < c->nbursts; i++)
		{
			pgwt_event_format(o->names, c->bursts[i].event, name, sizeof(name));
			pgwt_buf_printf(b, "%s{\"event\":", i ? "," : "");
			pgwt_rd_json_str(b, name);
			pgwt_buf_printf(b, ",\"sessions\":%u,\"first_ns\":%llu}", c->bursts[i].sessions,
							(unsigned long long) c->bursts[i].first_ns);
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,event,peak,peak_ns,intervals,bursts,max_burst_sessions,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 6, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_concurrency_row *r = &c->rows[i];

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",");
			pgwt_rd_csv_str(b, name);
			pgwt_buf_printf(b, ",%u,%llu,%llu,%llu,%u,ok\n", r->peak, (unsigned long long) r->peak_ns,
							(unsigned long long) r->intervals, (unsigned long long) r->bursts,
							r->max_burst_sessions);
		}
		return;
	}
	pgwt_rd_text_title(b, "Concurrency", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-36s %6s  %-12s %10s %7s %9s\n", "event", "peak", "at", "waits", "bursts",
					"max_burst");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_concurrency_row *r = &c->rows[i];

		pgwt_event_format(o->names, r->event, name, sizeof(name));
		rx_clock(r->peak_ns, when, sizeof(when));
		pgwt_buf_printf(b, "  %-36s %6u  %-12s %10llu %7llu %9u\n", name, r->peak, when,
						(unsigned long long) r->intervals, (unsigned long long) r->bursts, r->max_burst_sessions);
	}
	pgwt_buf_printf(b, "  bursts (%u+ sessions entering one event within %.1f ms): %llu",
					c->burst_sessions, (double) c->burst_window_ns / 1e6, (unsigned long long) c->bursts_total);
	if (c->nbursts < c->bursts_total)
		pgwt_buf_printf(b, ", %zu listed", c->nbursts);
	pgwt_buf_printf(b, "\n");
	for (size_t i = 0; i < c->nbursts; i++)
	{
		pgwt_event_format(o->names, c->bursts[i].event, name, sizeof(name));
		rx_clock(c->bursts[i].first_ns, when, sizeof(when));
		pgwt_buf_printf(b, "    %-12s %-36s %u sessions\n", when, name, c->bursts[i].sessions);
	}
	if (c->late_intervals || c->forced_intervals || c->concurrent_overflow || c->events_overflow)
		pgwt_buf_printf(b, "  note: peaks are lower bounds: %llu waits longer than the reorder delay, "
						"%llu swept early, %llu past the concurrency cap, %llu in events past the cap\n",
						(unsigned long long) c->late_intervals, (unsigned long long) c->forced_intervals,
						(unsigned long long) c->concurrent_overflow, (unsigned long long) c->events_overflow);
	pgwt_buf_printf(b, "\n");
}

/* ---- interference ----------------------------------------------------------------- */

void
pgwt_render_interference(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						 const pgwt_interference_rows *rows, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? rows->n : 0;
	char		name[PGWT_EVENT_NAME_MAX];

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "interference", sum, st);
		if (rx_json_not_ok(b, st, "rows"))
			return;
		pgwt_buf_printf(b, ",\"rows\":[");
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_interference_row *r = &rows->rows[i];

			if (r->other)
				pgwt_buf_printf(b, "%s{\"pid_a\":null,\"pid_b\":null,\"other\":true,\"overlap_ns\":%llu,"
								"\"overlaps\":%llu,\"top_event\":null}", i ? "," : "",
								(unsigned long long) r->overlap_ns, (unsigned long long) r->overlaps);
			else
			{
				pgwt_event_format(o->names, r->top_event, name, sizeof(name));
				pgwt_buf_printf(b, "%s{\"pid_a\":%u,\"pid_b\":%u,\"other\":false,\"overlap_ns\":%llu,"
								"\"overlaps\":%llu,\"top_event\":", i ? "," : "", r->pid_a, r->pid_b,
								(unsigned long long) r->overlap_ns, (unsigned long long) r->overlaps);
				pgwt_rd_json_str(b, name);
				pgwt_buf_printf(b, ",\"top_event_ns\":%llu}", (unsigned long long) r->top_event_ns);
			}
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,pid_a,pid_b,overlap_ns,overlaps,top_event,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 5, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_interference_row *r = &rows->rows[i];

			pgwt_rd_csv_str(b, sum->spec.label);
			if (r->other)
				pgwt_buf_printf(b, ",(other),,%llu,%llu,,ok\n", (unsigned long long) r->overlap_ns,
								(unsigned long long) r->overlaps);
			else
			{
				pgwt_event_format(o->names, r->top_event, name, sizeof(name));
				pgwt_buf_printf(b, ",%u,%u,%llu,%llu,", r->pid_a, r->pid_b, (unsigned long long) r->overlap_ns,
								(unsigned long long) r->overlaps);
				pgwt_rd_csv_str(b, name);
				pgwt_buf_printf(b, ",ok\n");
			}
		}
		return;
	}
	pgwt_rd_text_title(b, "Interference", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-10s %-10s %14s %9s  %s\n", "pid_a", "pid_b", "overlap_ms", "overlaps", "mostly on");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_interference_row *r = &rows->rows[i];

		if (r->other)
		{
			pgwt_buf_printf(b, "  %-21s %14.3f %9llu\n", "(other)", (double) r->overlap_ns / 1e6,
							(unsigned long long) r->overlaps);
			continue;
		}
		pgwt_event_format(o->names, r->top_event, name, sizeof(name));
		pgwt_buf_printf(b, "  %-10u %-10u %14.3f %9llu  %s\n", r->pid_a, r->pid_b, (double) r->overlap_ns / 1e6,
						(unsigned long long) r->overlaps, name);
	}
	pgwt_buf_printf(b, "\n");
}

/* ---- lock chains ---------------------------------------------------------------- */

static void
rx_path(pgwt_buf *b, const pgwt_lock_chain_row *r, const char *sep)
{
	for (unsigned k = 0; k < r->npath; k++)
		pgwt_buf_printf(b, "%s%u", k ? sep : "", r->path[k]);
}

void
pgwt_render_lock_chains(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						const pgwt_lock_chains *lc, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? lc->n : 0;

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "lock_chains", sum, st);
		if (st != PGWT_VIEW_OK)
		{
			pgwt_buf_printf(b, ",\"rows\":null,\"edges\":null}\n");
			return;
		}
		pgwt_buf_printf(b, ",\"other_edge_records\":%llu,\"rows\":[", (unsigned long long) lc->other_edge_records);
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_lock_chain_row *r = &lc->chains[i];

			pgwt_buf_printf(b, "%s{\"head\":%u,\"cycle\":%s,\"total_wait_ns\":%llu,\"waiters\":%u,"
							"\"depth\":%u,\"path\":[", i ? "," : "", r->head, r->cycle ? "true" : "false",
							(unsigned long long) r->total_wait_ns, r->waiters, r->depth);
			rx_path(b, r, ",");
			pgwt_buf_printf(b, "]}");
		}
		pgwt_buf_printf(b, "],\"edges\":[");
		for (size_t i = 0; i < lc->nedges; i++)
		{
			const pgwt_lock_edge_row *e = &lc->edges[i];

			pgwt_buf_printf(b, "%s{\"waiter\":%u,\"blocker\":%u,\"wait_ns\":%llu,\"waits\":%llu,"
							"\"observations\":%llu}", i ? "," : "", e->waiter, e->blocker,
							(unsigned long long) e->wait_ns, (unsigned long long) e->waits,
							(unsigned long long) e->observations);
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,head,cycle,total_wait_ns,waiters,depth,path,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 6, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_lock_chain_row *r = &lc->chains[i];

			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",%u,%s,%llu,%u,%u,", r->head, r->cycle ? "true" : "false",
							(unsigned long long) r->total_wait_ns, r->waiters, r->depth);
			rx_path(b, r, " -> ");
			pgwt_buf_printf(b, ",ok\n");
		}
		return;
	}
	pgwt_rd_text_title(b, "Lock chains (blockers from pg_blocking_pids)", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-10s %14s %8s %6s  %s\n", "head", "wait_ms", "waiters", "depth", "longest chain");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_lock_chain_row *r = &lc->chains[i];

		pgwt_buf_printf(b, "  %-10u %14.3f %8u %6u  ", r->head, (double) r->total_wait_ns / 1e6, r->waiters,
						r->depth);
		rx_path(b, r, " -> ");
		pgwt_buf_printf(b, "%s\n", r->cycle ? "  (cycle: deadlock)" : "");
	}
	pgwt_buf_printf(b, "  %-10s %-10s %14s %6s %6s\n", "waiter", "blocker", "wait_ms", "waits", "seen");
	for (size_t i = 0; i < lc->nedges; i++)
	{
		const pgwt_lock_edge_row *e = &lc->edges[i];

		pgwt_buf_printf(b, "  %-10u %-10u %14.3f %6llu %6llu\n", e->waiter, e->blocker, (double) e->wait_ns / 1e6,
						(unsigned long long) e->waits, (unsigned long long) e->observations);
	}
	if (lc->other_edge_records)
		pgwt_buf_printf(b, "  note: %llu observations past the edge cap were left out\n",
						(unsigned long long) lc->other_edge_records);
	pgwt_buf_printf(b, "\n");
}

/* ---- cross_validate ------------------------------------------------------------- */

void
pgwt_render_cross_validate(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						   const pgwt_cross_validation *xv, pgwt_view_status st)
{
	size_t		n = st == PGWT_VIEW_OK ? xv->n : 0;
	char		name[PGWT_EVENT_NAME_MAX];

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "cross_validate", sum, st);
		if (rx_json_not_ok(b, st, "rows"))
			return;
		pgwt_event_format(o->names, xv->worst_event, name, sizeof(name));
		pgwt_buf_printf(b, ",\"basis\":\"%s\",\"exact_db_ns\":%llu,\"sampled_db_ns\":%llu,\"samples\":%llu,"
						"\"worst_diff_pp\":%.4f,\"worst_event\":",
						xv->superseded_basis ? "superseded_samples" : "window_samples",
						(unsigned long long) xv->exact_db_ns, (unsigned long long) xv->sampled_db_ns,
						(unsigned long long) xv->samples, xv->worst_diff_pp);
		pgwt_rd_json_str(b, name);
		pgwt_buf_printf(b, ",\"top_n\":%u,\"top_overlap\":%u,\"rows\":[", xv->top_n, xv->top_overlap);
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_xv_row *r = &xv->rows[i];

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_buf_printf(b, "%s{\"event\":", i ? "," : "");
			pgwt_rd_json_str(b, name);
			pgwt_buf_printf(b, ",\"event_id\":%u,\"exact_ns\":%llu,\"sampled_ns\":%llu,\"exact_pct\":%.4f,"
							"\"sampled_pct\":%.4f,\"diff_pp\":%.4f}", r->event,
							(unsigned long long) r->exact_ns, (unsigned long long) r->sampled_ns,
							r->exact_pct, r->sampled_pct, r->diff_pp);
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,event,exact_ns,sampled_ns,exact_pct,sampled_pct,diff_pp,status\n");
		if (st != PGWT_VIEW_OK)
		{
			rx_csv_status_row(b, sum, 6, st);
			return;
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_xv_row *r = &xv->rows[i];

			pgwt_event_format(o->names, r->event, name, sizeof(name));
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",");
			pgwt_rd_csv_str(b, name);
			pgwt_buf_printf(b, ",%llu,%llu,%.4f,%.4f,%.4f,ok\n", (unsigned long long) r->exact_ns,
							(unsigned long long) r->sampled_ns, r->exact_pct, r->sampled_pct, r->diff_pp);
		}
		return;
	}
	pgwt_rd_text_title(b, "Cross-validation: sampled vs exact", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_event_format(o->names, xv->worst_event, name, sizeof(name));
	pgwt_buf_printf(b, "  samples: %llu (%s); worst share difference %.2f pp (%s); top-%u overlap %u of %u\n",
					(unsigned long long) xv->samples,
					xv->superseded_basis ? "those inside exact spans" : "all of the window's",
					xv->worst_diff_pp, name, xv->top_n, xv->top_overlap, xv->top_n);
	pgwt_buf_printf(b, "  %-36s %9s %9s %8s\n", "event", "exact%", "sampled%", "diff_pp");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_xv_row *r = &xv->rows[i];

		pgwt_event_format(o->names, r->event, name, sizeof(name));
		pgwt_buf_printf(b, "  %-36s %8.2f%% %8.2f%% %+8.2f\n", name, r->exact_pct, r->sampled_pct, r->diff_pp);
	}
	pgwt_buf_printf(b, "\n");
}
