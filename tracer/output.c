/*
 * output.c
 *		Text / terminal / JSON rendering of view results.
 *
 * The analysis views are rendered by analysis/render.c (text, JSON, CSV);
 * this file adds the terminal header and refresh, the live-only `active`
 * view and the status line with the self-metrics.
 */
#include "tracer/output.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RULE "================================================================================"

pgwt_format
pgwt_output_resolve(pgwt_format f, FILE *out)
{
	if (f != PGWT_FORMAT_AUTO)
		return f;
	return isatty(fileno(out)) ? PGWT_FORMAT_TUI : PGWT_FORMAT_TEXT;
}

static double
ms(uint64_t ns)
{
	return (double) ns / 1e6;
}

static void
out_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
out_header(pgwt_output *o, const char *title, const char *note)
{
	char		when[64];
	time_t		t = time(NULL);
	struct tm	tm;

	if (o->format == PGWT_FORMAT_TUI)
		fputs("\033[H\033[2J", o->out);
	localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(o->out, "%s\npg_wait_tracer - %s    %s    %s\n%s\n", RULE, title,
			note ? note : "", when, RULE);
}

/* ---- the analysis views, rendered by analysis/render.c --------------- */

static int
out_view_opts(pgwt_output *o, pgwt_view_opts *vo)
{
	memset(vo, 0, sizeof(*vo));
	vo->names = o->names;
	vo->sort = PGWT_SORT_DEFAULT;
	if (o->opts->sort_name && !pgwt_sort_parse(o->opts->sort_name, &vo->sort))
		vo->sort = PGWT_SORT_DEFAULT;
	if (o->opts->event)
	{
		if (!pgwt_event_parse(o->names, o->opts->event, &vo->event))
		{
			fprintf(stderr, "pg_wait_tracer: --event: unknown wait event '%s'\n", o->opts->event);
			return -1;
		}
		vo->has_event = true;
	}
	if (o->opts->have_query_id)
	{
		vo->has_query = true;
		vo->query_id = o->opts->query_id;
	}
	vo->limit = o->format == PGWT_FORMAT_TEXT || o->format == PGWT_FORMAT_TUI ? 40 : 0;
	return 0;
}

/* One window of the selected view into b. */
static void
out_render_window(pgwt_output *o, const pgwt_engine *eng, int w,
				  const pgwt_view_opts *vo, const pgwt_render_opts *ro, pgwt_buf *b)
{
	pgwt_window_summary sum;
	pgwt_view_status st;

	pgwt_view_summary(eng, w, &sum);
	switch (o->opts->view)
	{
		case PGWT_VIEW_TIME_MODEL:
			{
				pgwt_time_model tm;

				st = pgwt_view_time_model(eng, w, &tm);
				pgwt_render_time_model(b, ro, &tm, st);
				break;
			}
		case PGWT_VIEW_SYSTEM_EVENT:
		case PGWT_VIEW_QUERY_EVENT:
			{
				pgwt_event_rows rows = {0};

				if (o->opts->view == PGWT_VIEW_SYSTEM_EVENT)
				{
					st = pgwt_view_system_event(eng, w, vo, &rows);
					pgwt_render_system_event(b, ro, &sum, &rows, st);
				}
				else
				{
					st = pgwt_view_query_event(eng, w, vo, &rows);
					pgwt_render_query_event(b, ro, &sum, &rows, st);
				}
				pgwt_event_rows_free(&rows);
				break;
			}
		case PGWT_VIEW_SESSION_EVENT:
			{
				pgwt_session_rows rows = {0};

				st = pgwt_view_session_event(eng, w, vo, &rows);
				pgwt_render_session_event(b, ro, &sum, &rows, st);
				pgwt_session_rows_free(&rows);
				if (o->opts->pid_filter)
				{
					pgwt_event_rows ev = {0};

					st = pgwt_view_session_detail(eng, w, (uint32_t) o->opts->pid_filter, vo, &ev);
					pgwt_render_session_detail(b, ro, &sum, (uint32_t) o->opts->pid_filter, &ev, st);
					pgwt_event_rows_free(&ev);
				}
				break;
			}
		case PGWT_VIEW_HISTOGRAM:
			{
				pgwt_histogram h;

				st = pgwt_view_histogram(eng, w, vo->event, &h);
				pgwt_render_histogram(b, ro, &sum, &h, st);
				break;
			}
		case PGWT_VIEW_ACTIVE:
			break;
	}
}

int
pgwt_output_view(pgwt_output *o, const pgwt_engine *eng, const char *note)
{
	pgwt_view_opts vo;
	pgwt_render_opts ro;
	pgwt_buf	b = {0};
	int			nw = pgwt_engine_nwindows(eng);
	static const char *const titles[] = {
		"Time Model", "System Events", "Session Summary", "Active Sessions",
		"Event Histogram", "Query Events"
	};

	if (o->opts->view == PGWT_VIEW_ACTIVE || out_view_opts(o, &vo) != 0)
		return -1;
	memset(&ro, 0, sizeof(ro));
	ro.names = o->names;
	ro.format = o->format == PGWT_FORMAT_JSON ? PGWT_OUT_JSON :
		o->format == PGWT_FORMAT_CSV ? PGWT_OUT_CSV : PGWT_OUT_TEXT;
	if (ro.format == PGWT_OUT_TEXT)
		out_header(o, titles[o->opts->view], note);
	for (int w = 0; w < nw; w++)
	{
		ro.csv_header = (w == 0 && !o->csv_header_done);
		out_render_window(o, eng, w, &vo, &ro, &b);
	}
	o->csv_header_done = 1;
	if (b.oom)
	{
		pgwt_buf_free(&b);
		fprintf(stderr, "pg_wait_tracer: out of memory rendering the view\n");
		return -1;
	}
	if (b.len)
		fwrite(b.data, 1, b.len, o->out);
	if (ro.format == PGWT_OUT_TEXT)
		fputc('\n', o->out);
	fflush(o->out);
	pgwt_buf_free(&b);
	return 0;
}

/* ---- active (live only) ---------------------------------------------- */

static const pgwt_output *active_sort_ctx;

static int
out_active_cmp(const void *pa, const void *pb)
{
	const pgwt_live_backend *a = pa,
			   *b = pb;

	switch (active_sort_ctx->opts->sort)
	{
		case PGWT_CLI_SORT_DB_TIME:
			if (a->db_time_ns != b->db_time_ns)
				return a->db_time_ns > b->db_time_ns ? -1 : 1;
			break;
		case PGWT_CLI_SORT_EVENT:
			{
				char		x[PGWT_EVENT_NAME_MAX],
							y[PGWT_EVENT_NAME_MAX];
				int			c;

				pgwt_event_format(active_sort_ctx->names, a->event, x, sizeof(x));
				pgwt_event_format(active_sort_ctx->names, b->event, y, sizeof(y));
				if ((c = strcmp(x, y)) != 0)
					return c;
				break;
			}
		case PGWT_CLI_SORT_WAIT_TIME:
			{
				/* waiting first, the longest current wait first */
				int			aw = a->state == PGWT_STATE_WAITING,
							bw = b->state == PGWT_STATE_WAITING;

				if (aw != bw)
					return bw - aw;
				if (aw && a->state_since_ns != b->state_since_ns)
					return a->state_since_ns < b->state_since_ns ? -1 : 1;
				if (a->state != b->state)
					return (int) a->state - (int) b->state;
				break;
			}
		case PGWT_CLI_SORT_PID:
			break;
	}
	return (a->pid > b->pid) - (a->pid < b->pid);
}

void
pgwt_output_active(pgwt_output *o, pgwt_live_backend *rows, size_t n,
				   const pgwt_engine *eng, uint64_t now_ns, uint64_t uptime_ns)
{
	char		note[96];

	active_sort_ctx = o;
	qsort(rows, n, sizeof(*rows), out_active_cmp);
	if (o->format == PGWT_FORMAT_JSON)
		fprintf(o->out, "{\"type\":\"view\",\"view\":\"active\",\"source\":\"live\",\"rows\":[");
	else
	{
		snprintf(note, sizeof(note), "Backends: %zu    Uptime: %.0fs", n, (double) uptime_ns / 1e9);
		out_header(o, "Active Sessions", note);
		fprintf(o->out, "  %-8s %-8s %-28s %11s %13s  %s\n", "PID", "State", "Wait Event",
				"Wait (ms)", "DB Time (ms)", "Backend Type");
	}
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_live_backend *b = &rows[i];
		const pgwt_backend_info *bi = eng ? pgwt_engine_backend(eng, b->pid) : NULL;
		char		name[PGWT_EVENT_NAME_MAX] = "-";
		/* a watched wait starts past its trap's stall: maybe just after now */
		double		wait_ms = b->state != PGWT_STATE_WAITING ? -1 :
			now_ns > b->state_since_ns ? ms(now_ns - b->state_since_ns) : 0;

		if (b->event)
			pgwt_event_format(o->names, b->event, name, sizeof(name));
		if (o->format == PGWT_FORMAT_JSON)
		{
			fprintf(o->out, "%s{\"pid\":%u,\"state\":\"%s\",\"event\":", i ? "," : "", b->pid,
					pgwt_state_name(b->state));
			if (b->event)
				out_json_str(o->out, name);
			else
				fputs("null", o->out);
			if (wait_ms >= 0)
				fprintf(o->out, ",\"wait_ms\":%.1f", wait_ms);
			else
				fputs(",\"wait_ms\":null", o->out);
			fprintf(o->out, ",\"db_time_ms\":%.1f,\"query_id\":%" PRId64 ",\"backend_type\":",
					ms(b->db_time_ns), (int64_t) b->query_id);
			out_json_str(o->out, bi ? bi->type : "");
			fputs("}", o->out);
		}
		else
		{
			char		w[24];

			if (wait_ms >= 0)
				snprintf(w, sizeof(w), "%.1f", wait_ms);
			else
				snprintf(w, sizeof(w), "-");
			fprintf(o->out, "  %-8u %-8s %-28s %11s %13.1f  %s\n", b->pid, pgwt_state_name(b->state),
					name, w, ms(b->db_time_ns), bi && bi->type[0] ? bi->type : "-");
		}
	}
	fputs(o->format == PGWT_FORMAT_JSON ? "]}\n" : "\n", o->out);
	fflush(o->out);
}

void
pgwt_output_status(pgwt_output *o, const pgwt_self_metrics *m, uint64_t now_ns,
				   const char *mode, const char *tier, int pg_pid)
{
	if (o->format != PGWT_FORMAT_JSON)
		return;
	fprintf(o->out, "{\"type\":\"status\",\"mode\":\"%s\",\"tier\":\"%s\",\"pg_pid\":%d,\"metrics\":",
			mode, tier, pg_pid);
	pgwt_self_metrics_json(o->out, m, now_ns);
	fputs("}\n", o->out);
	fflush(o->out);
}
