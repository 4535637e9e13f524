/*
 * render.c
 *		Text / JSON / CSV rendering of the views (see render.h).
 */
#include "analysis/render.h"
#include "analysis/render_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/histogram.h"

/*
 * p50, p95, p99 of a row's exact waits (its ns histogram, cut by its
 * smallest and largest wait): false when the row has no exact wait ended.
 */
static bool
rd_row_pcts(const pgwt_event_row *r, pgwt_hist_pct out[3])
{
	if (r->hist_ns == NULL || !r->max_known)
		return false;
	for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
		if (!pgwt_hist_quantile(r->hist_ns, pgwt_hist_pct_q(i), r->min_ns, r->max_ns, &out[i]))
			return false;
	return true;
}

/* ---- buffer -------------------------------------------------------------------- */

void
pgwt_buf_printf(pgwt_buf *b, const char *fmt, ...)
{
	va_list		ap;
	int			n;

	if (b->oom)
		return;
	for (;;)
	{
		size_t		room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->data ? b->data + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
		{
			b->oom = true;
			return;
		}
		if ((size_t) n < room)
		{
			b->len += (size_t) n;
			return;
		}
		{
			size_t		cap = b->cap ? b->cap * 2 : 4096;
			char	   *grown;

			while (cap - b->len <= (size_t) n)
				cap *= 2;
			grown = realloc(b->data, cap);
			if (!grown)
			{
				b->oom = true;
				return;
			}
			b->data = grown;
			b->cap = cap;
		}
	}
}

void
pgwt_buf_free(pgwt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

bool
pgwt_out_format_parse(const char *text, pgwt_out_format *out)
{
	if (!text)
		return false;
	if (strcmp(text, "text") == 0)
		*out = PGWT_OUT_TEXT;
	else if (strcmp(text, "json") == 0)
		*out = PGWT_OUT_JSON;
	else if (strcmp(text, "csv") == 0)
		*out = PGWT_OUT_CSV;
	else
		return false;
	return true;
}

/* ---- small helpers ------------------------------------------------------------- */

const char *
pgwt_rd_status_token(pgwt_view_status st)
{
	switch (st)
	{
		case PGWT_VIEW_OK:
			return "ok";
		case PGWT_VIEW_NO_DATA:
			return "no_data";
		case PGWT_VIEW_REQUIRES_EXACT:
			return "requires_exact";
		case PGWT_VIEW_TRUNCATED:
			return "truncated";
		case PGWT_VIEW_BAD_ARG:
			return "bad_arg";
		case PGWT_VIEW_NO_MEMORY:
			return "no_memory";
		case PGWT_VIEW_NOT_ENABLED:
			return "not_enabled";
		case PGWT_VIEW_REQUIRES_SAMPLES:
			return "requires_samples";
	}
	return "unknown";
}

void
pgwt_rd_json_str(pgwt_buf *b, const char *s)
{
	pgwt_buf_printf(b, "\"");
	for (; s && *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			pgwt_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			pgwt_buf_printf(b, "\\u%04x", c);
		else
			pgwt_buf_printf(b, "%c", c);
	}
	pgwt_buf_printf(b, "\"");
}

/*
 * CSV field: quoted when it holds a separator, quote or newline; with
 * inert, one that begins like a spreadsheet formula starts with a '
 * inside the field (pgwt_render_opts.csv_inert).
 */
void
pgwt_rd_csv_field(pgwt_buf *b, const char *s, bool inert)
{
	const char *lead = inert && s && s[0] && strchr("=+-@\t\r", s[0]) ? "'" : "";

	if (s && strpbrk(s, ",\"\n\r"))
	{
		pgwt_buf_printf(b, "\"%s", lead);
		for (; *s; s++)
			pgwt_buf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
		pgwt_buf_printf(b, "\"");
	}
	else
		pgwt_buf_printf(b, "%s%s", lead, s ? s : "");
}

/* CSV field: quoted when it holds a separator, quote or newline. */
void
pgwt_rd_csv_str(pgwt_buf *b, const char *s)
{
	pgwt_rd_csv_field(b, s, false);
}

static void
rd_event_name(const pgwt_render_opts *o, const pgwt_event_row *r, char *buf, size_t len)
{
	if (r->other)
		snprintf(buf, len, "(other)");
	else
		pgwt_event_format(o->names, r->event, buf, len);
}

static const char *
rd_query_text(const pgwt_render_opts *o, const pgwt_event_row *r)
{
	if (r->other || r->query_id == 0 || !o->query_text)
		return NULL;
	return o->query_text(r->query_id, o->query_text_arg);
}

/* Text column: the first max characters of a query on one line. */
static void
rd_text_query(pgwt_buf *b, const char *text, size_t max)
{
	size_t		n = 0;

	pgwt_buf_printf(b, "  ");
	for (; text && *text && n < max; text++, n++)
		pgwt_buf_printf(b, "%c", (*text == '\n' || *text == '\r' || *text == '\t') ? ' ' : *text);
	if (text && *text)
		pgwt_buf_printf(b, "...");
}

static void
rd_json_u64_or_null(pgwt_buf *b, const char *key, bool known, uint64_t v)
{
	if (known)
		pgwt_buf_printf(b, ",\"%s\":%llu", key, (unsigned long long) v);
	else
		pgwt_buf_printf(b, ",\"%s\":null", key);
}

void
pgwt_rd_json_summary(pgwt_buf *b, const char *view, const pgwt_window_summary *s, pgwt_view_status st)
{
	pgwt_buf_printf(b, "{\"view\":\"%s\",\"window\":", view);
	pgwt_rd_json_str(b, s->spec.label);
	pgwt_buf_printf(b, ",\"from_ns\":%llu,\"to_ns\":%llu,\"status\":\"%s\"",
					(unsigned long long) s->spec.from_ns, (unsigned long long) s->spec.to_ns,
					pgwt_rd_status_token(st));
	if (st != PGWT_VIEW_OK)
	{
		pgwt_buf_printf(b, ",\"message\":");
		pgwt_rd_json_str(b, pgwt_view_status_text(st));
	}
	pgwt_buf_printf(b, ",\"fidelity\":\"%s\",\"db_time_ns\":%llu,\"cpu_ns\":%llu,\"wait_ns\":%llu,"
					"\"idle_ns\":%llu,\"backends\":%u,\"aas\":%.4f,\"exact_records\":%llu,"
					"\"sample_records\":%llu,\"other_records\":%llu,"
					"\"background_ns\":%llu,\"background_idle_ns\":%llu",
					pgwt_fidelity_name(s->fidelity), (unsigned long long) s->db_ns,
					(unsigned long long) s->cpu_ns, (unsigned long long) s->wait_ns,
					(unsigned long long) s->idle_ns, s->backends, s->aas,
					(unsigned long long) s->exact_records, (unsigned long long) s->sample_records,
					(unsigned long long) (s->other_event_records + s->other_session_records +
										  s->other_session_event_records + s->other_query_event_records),
					(unsigned long long) s->background_ns,
					(unsigned long long) s->background_idle_ns);
}

static void
rd_json_event_row(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_event_row *r,
				  bool with_query, bool with_pid)
{
	char		name[PGWT_EVENT_NAME_MAX];

	rd_event_name(o, r, name, sizeof(name));
	pgwt_buf_printf(b, "{\"event\":");
	pgwt_rd_json_str(b, name);
	pgwt_buf_printf(b, ",\"event_id\":%u", r->event);
	if (with_query)
	{
		const char *text = rd_query_text(o, r);

		pgwt_buf_printf(b, ",\"query_id\":%lld,\"query\":", (long long) r->query_id);
		if (text)
			pgwt_rd_json_str(b, text);
		else
			pgwt_buf_printf(b, "null");
	}
	if (with_pid)
		pgwt_buf_printf(b, ",\"pid\":%u", r->pid);
	pgwt_buf_printf(b, ",\"other\":%s,\"idle\":%s,\"fidelity\":\"%s\"",
					r->other ? "true" : "false", r->idle ? "true" : "false",
					pgwt_fidelity_name(r->fidelity));
	rd_json_u64_or_null(b, "waits", r->waits_known, r->waits);
	pgwt_buf_printf(b, ",\"exact_waits\":%llu,\"total_ns\":%llu,\"exact_ns\":%llu,\"sampled_ns\":%llu",
					(unsigned long long) r->waits, (unsigned long long) r->total_ns,
					(unsigned long long) r->exact_ns, (unsigned long long) r->sampled_ns);
	rd_json_u64_or_null(b, "avg_ns", r->avg_known, r->avg_ns);
	rd_json_u64_or_null(b, "max_ns", r->max_known, r->max_ns);
	{
		pgwt_hist_pct p[3];
		bool		have = rd_row_pcts(r, p);

		/* each percentile: an estimate and the bucket bounds it lies in */
		for (unsigned i = 0; i < PGWT_HIST_NPCTS; i++)
			if (have)
				pgwt_buf_printf(b, ",\"%s_ns\":%llu,\"%s_lo_ns\":%llu,\"%s_hi_ns\":%llu",
								pgwt_hist_pct_name(i), (unsigned long long) p[i].est_ns,
								pgwt_hist_pct_name(i), (unsigned long long) p[i].lo_ns,
								pgwt_hist_pct_name(i), (unsigned long long) p[i].hi_ns);
			else
				pgwt_buf_printf(b, ",\"%s_ns\":null", pgwt_hist_pct_name(i));
	}
	if (r->pct_db >= 0)
		pgwt_buf_printf(b, ",\"pct_db\":%.4f}", r->pct_db);
	else
		pgwt_buf_printf(b, ",\"pct_db\":null}");
}

void
pgwt_rd_text_title(pgwt_buf *b, const char *title, const pgwt_window_summary *s)
{
	pgwt_buf_printf(b, "== %s", title);
	if (s->spec.label[0])
		pgwt_buf_printf(b, " [%s]", s->spec.label);
	pgwt_buf_printf(b, "  fidelity: %s  DB time: %.1f ms  backends: %u  AAS: %.2f\n",
					pgwt_fidelity_name(s->fidelity), (double) s->db_ns / 1e6, s->backends, s->aas);
}

bool
pgwt_rd_text_status(pgwt_buf *b, pgwt_view_status st)
{
	if (st == PGWT_VIEW_OK)
		return false;
	pgwt_buf_printf(b, "  (%s)\n\n", pgwt_view_status_text(st));
	return true;
}

static void
rd_text_caps_note(pgwt_buf *b, const pgwt_window_summary *s)
{
	uint64_t	other = s->other_event_records + s->other_session_records +
		s->other_session_event_records + s->other_query_event_records;

	if (other)
		pgwt_buf_printf(b, "  note: %llu records past the table caps were folded into (other)\n",
						(unsigned long long) other);
}

static void
rd_csv_u64_or_empty(pgwt_buf *b, bool known, uint64_t v)
{
	if (known)
		pgwt_buf_printf(b, ",%llu", (unsigned long long) v);
	else
		pgwt_buf_printf(b, ",");
}

/* ---- event tables (system_event, session detail, query_event) --------------- */

typedef enum rd_event_kind
{
	RD_SYSTEM,
	RD_DETAIL,
	RD_QUERY
} rd_event_kind;

/*
 * The CSV form of an event table: one line per row, a status line when
 * none. Each percentile's bucket bounds follow the three estimates, as the
 * JSON form has them (lower inclusive, upper exclusive, in ns).
 */
static void
rd_event_csv(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
			 const pgwt_event_rows *rows, pgwt_view_status st, size_t n, bool with_query,
			 bool with_pid)
{
	if (o->csv_header)
		pgwt_buf_printf(b, "window,fidelity,%s%sevent,waits,total_ns,avg_ns,max_ns,pct_db,status,p50_ns,p95_ns,p99_ns,"
						"p50_lo_ns,p50_hi_ns,p95_lo_ns,p95_hi_ns,p99_lo_ns,p99_hi_ns%s\n",
						with_query ? "query_id," : "", with_pid ? "pid," : "", with_query ? ",query" : "");
	if (n == 0)
	{
		pgwt_rd_csv_str(b, sum->spec.label);
		pgwt_buf_printf(b, ",%s,%s%s,,,,,,%s,,,,,,,,,%s\n", pgwt_fidelity_name(sum->fidelity),
						with_query ? "," : "", with_pid ? "," : "", pgwt_rd_status_token(st),
						with_query ? "," : "");
	}
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_event_row *r = &rows->rows[i];
		char		name[PGWT_EVENT_NAME_MAX];

		rd_event_name(o, r, name, sizeof(name));
		pgwt_rd_csv_str(b, sum->spec.label);
		pgwt_buf_printf(b, ",%s,", pgwt_fidelity_name(r->fidelity));
		if (with_query)
			pgwt_buf_printf(b, "%lld,", (long long) r->query_id);
		if (with_pid)
			pgwt_buf_printf(b, "%u,", r->pid);
		pgwt_rd_csv_str(b, name);
		rd_csv_u64_or_empty(b, r->waits_known, r->waits);
		pgwt_buf_printf(b, ",%llu", (unsigned long long) r->total_ns);
		rd_csv_u64_or_empty(b, r->avg_known, r->avg_ns);
		rd_csv_u64_or_empty(b, r->max_known, r->max_ns);
		if (r->pct_db >= 0)
			pgwt_buf_printf(b, ",%.4f,ok", r->pct_db);
		else
			pgwt_buf_printf(b, ",,ok");
		{
			pgwt_hist_pct p[3];
			bool		have = rd_row_pcts(r, p);

			for (int k = 0; k < 3; k++)
				rd_csv_u64_or_empty(b, have, have ? p[k].est_ns : 0);
			for (int k = 0; k < 3; k++)
			{
				rd_csv_u64_or_empty(b, have, have ? p[k].lo_ns : 0);
				rd_csv_u64_or_empty(b, have && p[k].hi_ns != PGWT_HIST_UNBOUNDED, have ? p[k].hi_ns : 0);
			}
		}
		if (with_query)
		{
			pgwt_buf_printf(b, ",");
			pgwt_rd_csv_field(b, rd_query_text(o, r), o->csv_inert);
		}
		pgwt_buf_printf(b, "\n");
	}
}

static void
rd_event_table(pgwt_buf *b, const pgwt_render_opts *o, const char *view, const char *title,
			   const pgwt_window_summary *sum, const pgwt_event_rows *rows,
			   pgwt_view_status st, rd_event_kind kind)
{
	bool		with_query = kind == RD_QUERY,
				with_pid = kind == RD_DETAIL,
				any_pcts = false,
				pcts_unkept = false;
	size_t		n = (st == PGWT_VIEW_OK && rows) ? rows->n : 0;

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, view, sum, st);
		pgwt_buf_printf(b, ",\"rows\":[");
		for (size_t i = 0; i < n; i++)
		{
			if (i)
				pgwt_buf_printf(b, ",");
			rd_json_event_row(b, o, &rows->rows[i], with_query, with_pid);
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		rd_event_csv(b, o, sum, rows, st, n, with_query, with_pid);
		return;
	}
	pgwt_rd_text_title(b, title, sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %s%-32s %10s %12s %12s %12s %10s %10s %10s %7s  %-8s%s\n",
					with_query ? "query_id             " : "", "Wait Event", "Waits", "Total (ms)",
					"Avg (us)", "Max (us)", "p50 (us)", "p95 (us)", "p99 (us)", "% DB", "Fidelity",
					with_query && o->query_text ? "  Query" : "");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_event_row *r = &rows->rows[i];
		char		name[PGWT_EVENT_NAME_MAX],
					waits[24],
					avg[24],
					max[24],
					pcts[3][24],
					pct[16];
		pgwt_hist_pct p[3];
		bool		have_pcts = rd_row_pcts(r, p);

		any_pcts |= have_pcts;
		/* exact waits, no buckets: the engine kept none for this key */
		pcts_unkept |= !have_pcts && r->max_known && r->hist_ns == NULL;
		rd_event_name(o, r, name, sizeof(name));
		if (r->waits_known)
			snprintf(waits, sizeof(waits), "%llu", (unsigned long long) r->waits);
		else
			snprintf(waits, sizeof(waits), "?");
		if (r->avg_known)
			snprintf(avg, sizeof(avg), "%.1f", (double) r->avg_ns / 1e3);
		else
			snprintf(avg, sizeof(avg), "?");
		if (r->max_known)
			snprintf(max, sizeof(max), "%.1f", (double) r->max_ns / 1e3);
		else
			snprintf(max, sizeof(max), "?");
		if (r->pct_db >= 0)
			snprintf(pct, sizeof(pct), "%.1f%%", r->pct_db);
		else
			snprintf(pct, sizeof(pct), "-");
		for (int k = 0; k < 3; k++)
			if (have_pcts)
				snprintf(pcts[k], sizeof(pcts[k]), "%.1f", (double) p[k].est_ns / 1e3);
			else
				snprintf(pcts[k], sizeof(pcts[k]), "?");
		if (with_query)
			pgwt_buf_printf(b, "  %-20lld %-32s", (long long) r->query_id, name);
		else
			pgwt_buf_printf(b, "  %-32s", name);
		pgwt_buf_printf(b, " %10s %12.3f %12s %12s %10s %10s %10s %7s  ", waits, (double) r->total_ns / 1e6,
						avg, max, pcts[0], pcts[1], pcts[2], pct);
		if (with_query && rd_query_text(o, r))
		{
			pgwt_buf_printf(b, "%-8s", pgwt_fidelity_name(r->fidelity));
			rd_text_query(b, rd_query_text(o, r), 60);
		}
		else
			pgwt_buf_printf(b, "%s", pgwt_fidelity_name(r->fidelity));
		pgwt_buf_printf(b, "\n");
	}
	if (any_pcts)
		pgwt_buf_printf(b, "  p50/p95/p99: bucketed, not exact: each lies in the log2 bucket (a factor of 2)"
						" of the true value, cut at the row's min and max\n");
	if (pcts_unkept)
		pgwt_buf_printf(b, "  p50/p95/p99 ? on exact rows: this view keeps no per-%s histogram"
						" (so it can use summaries); --view %s has them\n",
						with_query ? "query" : "session", with_query ? "query_event" : "session_event");
	if (sum->sample_records)
		pgwt_buf_printf(b, "  ? = not known from samples (sampled time is the sum of the ticks' measured length)\n");
	rd_text_caps_note(b, sum);
	pgwt_buf_printf(b, "\n");
}

void
pgwt_render_system_event(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						 const pgwt_event_rows *rows, pgwt_view_status st)
{
	rd_event_table(b, o, "system_event", "System events", sum, rows, st, RD_SYSTEM);
}

void
pgwt_render_session_detail(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						   uint32_t pid, const pgwt_event_rows *rows, pgwt_view_status st)
{
	char		title[64];

	snprintf(title, sizeof(title), "Session %u events", pid);
	rd_event_table(b, o, "session_detail", title, sum, rows, st, RD_DETAIL);
}

void
pgwt_render_query_event(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						const pgwt_event_rows *rows, pgwt_view_status st)
{
	rd_event_table(b, o, "query_event", "Query events", sum, rows, st, RD_QUERY);
}

/* ---- time model ------------------------------------------------------------------ */

static const char *
rd_class_label(unsigned c)
{
	const char *n = pgwt_class_name(c);

	return n ? n : "(unknown class)";
}

void
pgwt_render_time_model(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_time_model *tm,
					   pgwt_view_status st)
{
	const pgwt_window_summary *s = &tm->sum;

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "time_model", s, st);
		pgwt_buf_printf(b, ",\"classes\":[");
		for (unsigned i = 0; st == PGWT_VIEW_OK && i < tm->nclasses; i++)
		{
			const pgwt_tm_class *c = &tm->classes[i];

			pgwt_buf_printf(b, "%s{\"class\":", i ? "," : "");
			pgwt_rd_json_str(b, rd_class_label(c->class_index));
			pgwt_buf_printf(b, ",\"total_ns\":%llu,\"pct_db\":%.4f,\"fidelity\":\"%s\",\"top\":[",
							(unsigned long long) c->total_ns, c->pct_db, pgwt_fidelity_name(c->fidelity));
			for (unsigned j = 0; j < c->ntop; j++)
			{
				if (j)
					pgwt_buf_printf(b, ",");
				rd_json_event_row(b, o, &c->top[j], false, false);
			}
			pgwt_buf_printf(b, "]}");
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,fidelity,stat,total_ns,pct_db,status\n");
		pgwt_rd_csv_str(b, s->spec.label);
		pgwt_buf_printf(b, ",%s,DB Time,%llu,%s,%s\n", pgwt_fidelity_name(s->fidelity),
						(unsigned long long) s->db_ns, s->db_ns ? "100.0000" : "", pgwt_rd_status_token(st));
		for (unsigned i = 0; st == PGWT_VIEW_OK && i < tm->nclasses; i++)
		{
			const pgwt_tm_class *c = &tm->classes[i];

			pgwt_rd_csv_str(b, s->spec.label);
			pgwt_buf_printf(b, ",%s,%s,%llu,%.4f,ok\n", pgwt_fidelity_name(c->fidelity),
							rd_class_label(c->class_index), (unsigned long long) c->total_ns, c->pct_db);
			for (unsigned j = 0; j < c->ntop; j++)
			{
				char		name[PGWT_EVENT_NAME_MAX];

				rd_event_name(o, &c->top[j], name, sizeof(name));
				pgwt_rd_csv_str(b, s->spec.label);
				pgwt_buf_printf(b, ",%s,", pgwt_fidelity_name(c->top[j].fidelity));
				pgwt_rd_csv_str(b, name);
				pgwt_buf_printf(b, ",%llu,%.4f,ok\n", (unsigned long long) c->top[j].total_ns,
								c->top[j].pct_db);
			}
		}
		pgwt_rd_csv_str(b, s->spec.label);
		pgwt_buf_printf(b, ",%s,Idle (excluded),%llu,,%s\n", pgwt_fidelity_name(s->fidelity),
						(unsigned long long) s->idle_ns, pgwt_rd_status_token(st));
		return;
	}
	pgwt_rd_text_title(b, "Time model", s);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-36s %14s %9s  %s\n", "Stat Name", "Time (ms)", "% DB Time", "Fidelity");
	pgwt_buf_printf(b, "  %-36s %14.3f %8.1f%%  %s\n", "DB Time", (double) s->db_ns / 1e6,
					s->db_ns ? 100.0 : 0.0, pgwt_fidelity_name(s->fidelity));
	for (unsigned i = 0; i < tm->nclasses; i++)
	{
		const pgwt_tm_class *c = &tm->classes[i];

		pgwt_buf_printf(b, "    %-34s %14.3f %8.1f%%  %s\n", rd_class_label(c->class_index),
						(double) c->total_ns / 1e6, c->pct_db, pgwt_fidelity_name(c->fidelity));
		for (unsigned j = 0; j < c->ntop; j++)
		{
			char		name[PGWT_EVENT_NAME_MAX];

			rd_event_name(o, &c->top[j], name, sizeof(name));
			pgwt_buf_printf(b, "      %-32s %14.3f %8.1f%%  %s\n", name,
							(double) c->top[j].total_ns / 1e6, c->top[j].pct_db,
							pgwt_fidelity_name(c->top[j].fidelity));
		}
	}
	pgwt_buf_printf(b, "  %-36s %14.3f %9s\n", "(Idle: Activity, ClientRead)", (double) s->idle_ns / 1e6, "-");
	rd_text_caps_note(b, s);
	pgwt_buf_printf(b, "\n");
}

static bool
rd_tm_class_total(const pgwt_time_model *tm, unsigned c, uint64_t *ns, double *pct)
{
	for (unsigned i = 0; i < tm->nclasses; i++)
		if (tm->classes[i].class_index == c)
		{
			*ns = tm->classes[i].total_ns;
			*pct = tm->classes[i].pct_db;
			return true;
		}
	return false;
}

static bool
rd_rows_event(const pgwt_event_rows *ev, uint32_t id, uint64_t *ns, double *pct)
{
	for (size_t i = 0; ev && i < ev->n; i++)
		if (!ev->rows[i].other && ev->rows[i].event == id)
		{
			*ns = ev->rows[i].total_ns;
			*pct = ev->rows[i].pct_db;
			return true;
		}
	return false;
}

static void
rd_column_cell(pgwt_buf *b, bool known, uint64_t ns, double pct)
{
	if (known)
		pgwt_buf_printf(b, " %12.3f %6.1f%%", (double) ns / 1e6, pct);
	else
		pgwt_buf_printf(b, " %12s %7s", "-", "-");
}

void
pgwt_render_time_model_columns(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_time_model *tm,
							   const pgwt_event_rows *ev, int n)
{
	unsigned	classes[PGWT_NCLASSES + 1];
	unsigned	nclasses = 0;

	pgwt_buf_printf(b, "== Time model by window ");
	for (int w = 0; w < n; w++)
		pgwt_buf_printf(b, " [%s: %s]", tm[w].sum.spec.label, pgwt_fidelity_name(tm[w].sum.fidelity));
	pgwt_buf_printf(b, "\n  %-36s", "Stat Name");
	for (int w = 0; w < n; w++)
		pgwt_buf_printf(b, " %12.12s %7s", tm[w].sum.spec.label, "% DB");
	pgwt_buf_printf(b, "\n  %-36s", "DB Time");
	for (int w = 0; w < n; w++)
		rd_column_cell(b, true, tm[w].sum.db_ns, tm[w].sum.db_ns ? 100.0 : 0.0);
	pgwt_buf_printf(b, "\n");
	/* classes in the order of the widest window (the last), then any other */
	for (int w = n - 1; w >= 0; w--)
		for (unsigned i = 0; i < tm[w].nclasses; i++)
		{
			unsigned	c = tm[w].classes[i].class_index,
						k;

			for (k = 0; k < nclasses && classes[k] != c; k++)
				;
			if (k == nclasses)
				classes[nclasses++] = c;
		}
	for (unsigned k = 0; k < nclasses; k++)
	{
		uint32_t	tops[PGWT_TM_TOP_EVENTS * PGWT_MAX_WINDOWS];
		unsigned	ntops = 0;

		pgwt_buf_printf(b, "    %-34s", rd_class_label(classes[k]));
		for (int w = 0; w < n; w++)
		{
			uint64_t	ns = 0;
			double		pct = 0;
			bool		known = rd_tm_class_total(&tm[w], classes[k], &ns, &pct);

			rd_column_cell(b, known || tm[w].sum.db_ns > 0, ns, pct);
		}
		pgwt_buf_printf(b, "\n");
		/* the union of the class's top events over the windows */
		for (int w = n - 1; w >= 0; w--)
			for (unsigned i = 0; i < tm[w].nclasses; i++)
				if (tm[w].classes[i].class_index == classes[k])
					for (unsigned j = 0; j < tm[w].classes[i].ntop; j++)
					{
						uint32_t	id = tm[w].classes[i].top[j].event;
						unsigned	t;

						for (t = 0; t < ntops && tops[t] != id; t++)
							;
						if (t == ntops && ntops < sizeof(tops) / sizeof(tops[0]))
							tops[ntops++] = id;
					}
		for (unsigned t = 0; t < ntops; t++)
		{
			char		name[PGWT_EVENT_NAME_MAX];

			pgwt_event_format(o->names, tops[t], name, sizeof(name));
			pgwt_buf_printf(b, "      %-32s", name);
			for (int w = 0; w < n; w++)
			{
				uint64_t	ns = 0;
				double		pct = 0;
				bool		known = rd_rows_event(&ev[w], tops[t], &ns, &pct);

				rd_column_cell(b, known || tm[w].sum.db_ns > 0, ns, pct);
			}
			pgwt_buf_printf(b, "\n");
		}
	}
	pgwt_buf_printf(b, "  %-36s", "(Idle: Activity, ClientRead)");
	for (int w = 0; w < n; w++)
		pgwt_buf_printf(b, " %12.3f %7s", (double) tm[w].sum.idle_ns / 1e6, "-");
	pgwt_buf_printf(b, "\n\n");
}

/* ---- sessions -------------------------------------------------------------------- */

static const char *
rd_info(const pgwt_session_row *r, int field)
{
	const char *v = NULL;

	if (r->info)
		v = field == 0 ? r->info->type : field == 1 ? r->info->user :
			field == 2 ? r->info->database : field == 3 ? r->info->application : r->info->client_addr;
	return v && v[0] ? v : "-";
}

void
pgwt_render_session_event(pgwt_buf *b, const pgwt_render_opts *o, const pgwt_window_summary *sum,
						  const pgwt_session_rows *rows, pgwt_view_status st)
{
	size_t		n = (st == PGWT_VIEW_OK && rows) ? rows->n : 0;

	if (o->format == PGWT_OUT_JSON)
	{
		pgwt_rd_json_summary(b, "session_event", sum, st);
		pgwt_buf_printf(b, ",\"rows\":[");
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_session_row *r = &rows->rows[i];
			char		top[PGWT_EVENT_NAME_MAX];

			pgwt_buf_printf(b, "%s{\"pid\":%u,\"leader_pid\":%u,\"other\":%s,\"exited\":%s,"
							"\"background\":%s,\"type\":",
							i ? "," : "", r->pid, r->info ? r->info->leader_pid : 0,
							r->other ? "true" : "false", r->exited ? "true" : "false",
							r->info && r->info->background ? "true" : "false");
			pgwt_rd_json_str(b, rd_info(r, 0));
			pgwt_buf_printf(b, ",\"user\":");
			pgwt_rd_json_str(b, rd_info(r, 1));
			pgwt_buf_printf(b, ",\"database\":");
			pgwt_rd_json_str(b, rd_info(r, 2));
			pgwt_buf_printf(b, ",\"application\":");
			pgwt_rd_json_str(b, rd_info(r, 3));
			pgwt_buf_printf(b, ",\"client_addr\":");
			pgwt_rd_json_str(b, rd_info(r, 4));
			pgwt_buf_printf(b, ",\"fidelity\":\"%s\",\"db_time_ns\":%llu,\"cpu_ns\":%llu,\"wait_ns\":%llu,"
							"\"idle_ns\":%llu,\"cpu_pct\":%.4f,\"wait_pct\":%.4f,\"top_wait\":",
							pgwt_fidelity_name(r->fidelity), (unsigned long long) r->db_ns,
							(unsigned long long) r->cpu_ns, (unsigned long long) r->wait_ns,
							(unsigned long long) r->idle_ns, r->cpu_pct, r->wait_pct);
			if (r->has_top_wait)
			{
				pgwt_event_format(o->names, r->top_wait, top, sizeof(top));
				pgwt_rd_json_str(b, top);
				pgwt_buf_printf(b, ",\"top_wait_ns\":%llu}", (unsigned long long) r->top_wait_ns);
			}
			else
				pgwt_buf_printf(b, "null,\"top_wait_ns\":null}");
		}
		pgwt_buf_printf(b, "]}\n");
		return;
	}
	if (o->format == PGWT_OUT_CSV)
	{
		if (o->csv_header)
			pgwt_buf_printf(b, "window,fidelity,pid,type,user,database,db_time_ns,cpu_pct,wait_pct,top_wait,status\n");
		if (n == 0)
		{
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",%s,,,,,,,,,%s\n", pgwt_fidelity_name(sum->fidelity), pgwt_rd_status_token(st));
		}
		for (size_t i = 0; i < n; i++)
		{
			const pgwt_session_row *r = &rows->rows[i];
			char		top[PGWT_EVENT_NAME_MAX] = "";

			if (r->has_top_wait)
				pgwt_event_format(o->names, r->top_wait, top, sizeof(top));
			pgwt_rd_csv_str(b, sum->spec.label);
			pgwt_buf_printf(b, ",%s,", pgwt_fidelity_name(r->fidelity));
			if (r->other)
				pgwt_buf_printf(b, "(other)");
			else
				pgwt_buf_printf(b, "%u", r->pid);
			for (int f = 0; f < 3; f++)
			{
				pgwt_buf_printf(b, ",");
				pgwt_rd_csv_str(b, rd_info(r, f));
			}
			pgwt_buf_printf(b, ",%llu,%.4f,%.4f,", (unsigned long long) r->db_ns, r->cpu_pct, r->wait_pct);
			pgwt_rd_csv_str(b, top);
			pgwt_buf_printf(b, ",ok\n");
		}
		return;
	}
	pgwt_rd_text_title(b, "Sessions", sum);
	if (pgwt_rd_text_status(b, st))
		return;
	pgwt_buf_printf(b, "  %-8s %-18s %-12s %-12s %13s %6s %6s  %-28s %s\n", "PID", "Type", "User", "DB",
					"DB Time(ms)", "CPU%", "Wait%", "Top Wait", "Fidelity");
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_session_row *r = &rows->rows[i];
		char		pid[16],
					top[PGWT_EVENT_NAME_MAX];

		if (r->other)
			snprintf(pid, sizeof(pid), "(other)");
		else
			snprintf(pid, sizeof(pid), "%u%s", r->pid, r->exited ? "x" : "");
		if (r->has_top_wait)
			pgwt_event_format(o->names, r->top_wait, top, sizeof(top));
		else
			snprintf(top, sizeof(top), "-");
		pgwt_buf_printf(b, "  %-8s %-18.18s %-12.12s %-12.12s %13.3f %5.1f%% %5.1f%%  %-28s %s\n", pid,
						rd_info(r, 0), rd_info(r, 1), rd_info(r, 2), (double) r->db_ns / 1e6,
						r->cpu_pct, r->wait_pct, top, pgwt_fidelity_name(r->fidelity));
	}
	pgwt_buf_printf(b, "  (a pid marked x exited in the window)\n");
	rd_text_caps_note(b, sum);
	pgwt_buf_printf(b, "\n");
}
