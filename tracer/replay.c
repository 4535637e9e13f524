/*
 * replay.c
 *		--replay: read the trace directory (archives and the committed part
 *		of current.trace) over [--from, --to], feed the analysis engine,
 *		render the selected view once.
 *
 * The range [--from, --to) is loaded by analysis/range_load.h (wall-clock
 * time, the open escalation window first, waits cut to the range), so
 * replay, pgwt-dump and pgwt_history_*() bill a range alike. --window
 * windows end at the last record loaded, so "last 5m" means the last five
 * minutes of the range.
 * Names of wait events come from the trace's events side file over the
 * built-in table of its server version; backend metadata from the
 * backends side file.
 */
#include "tracer/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/backends_load.h"
#include "analysis/engine.h"
#include "analysis/names_load.h"
#include "analysis/range_load.h"
#include "analysis/timeparse.h"
#include "analysis/views.h"
#include "tracefmt/tracefmt.h"
#include "tracer/output.h"

typedef struct replay_ctx
{
	pgwt_engine *eng;
} replay_ctx;

static int
replay_open(const pgwt_options *o, uint64_t from, uint64_t to, pgwt_range_loader **l)
{
	int			rc = pgwt_range_open(o->trace_dir, from, to, l);

	if (rc < 0)
	{
		fprintf(stderr, "pg_wait_tracer: %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
		return -1;
	}
	return 0;
}

/* Feed the whole range to eng; the loader is left open for its stats. */
static int
replay_feed(const pgwt_options *o, pgwt_range_loader *l, pgwt_engine *eng)
{
	pgwt_range_batch b;
	int			rc;

	while ((rc = pgwt_range_next(l, &b)) == 1)
		pgwt_engine_add_many(eng, b.recs, b.n);
	if (rc < 0)
	{
		fprintf(stderr, "pg_wait_tracer: reading %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
		return -1;
	}
	pgwt_engine_flush(eng);
	return 0;
}

/*
 * The engine's windows: the range itself, or --window windows ending at
 * the range's last record (found by a first pass). -1 on a read error.
 */
static int
replay_windows(const pgwt_options *o, uint64_t from, uint64_t to, pgwt_window_spec *ws)
{
	pgwt_range_loader *l;
	pgwt_range_batch b;
	uint64_t	last;
	int			rc;

	memset(ws, 0, sizeof(*ws) * PGWT_CLI_MAX_WINDOWS);
	if (o->nwindows == 0)
	{
		ws[0].from_ns = from;
		ws[0].to_ns = pgwt_range_window_end(to);
		snprintf(ws[0].label, sizeof(ws[0].label), "Replay");
		return 1;
	}
	if (replay_open(o, from, to, &l) != 0)
		return -1;
	while ((rc = pgwt_range_next(l, &b)) == 1)
		;
	last = pgwt_range_stats_get(l)->last_rt;
	pgwt_range_close(l);
	if (rc < 0)
	{
		fprintf(stderr, "pg_wait_tracer: reading %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
		return -1;
	}
	for (int i = 0; i < o->nwindows; i++)
	{
		uint64_t	w = o->windows_ns[i];

		ws[i].from_ns = last + 1 > w ? last + 1 - w : 0;
		ws[i].to_ns = last + 1;
		snprintf(ws[i].label, sizeof(ws[i].label), "Last %gs", (double) w / 1e9);
	}
	return o->nwindows;
}

/* Names: the built-in table of the recorded server version + side file
 * (who each pid was comes from pgwt_backends_load). One warning when the
 * side file has lines that were not used, or does not parse. */
static void
replay_names(const pgwt_options *o, pgwt_names *names, const pgwt_tf_reader *r,
			 pgwt_tf_side_damage *sd)
{
	uint32_t	pg_version = 0;
	uint64_t	ignored = 0;
	int			rc;

	/* the side file's version first: it names the table that fits */
	pgwt_names_init(names, 0);
	(void) pgwt_names_load_dir(names, o->trace_dir, &pg_version, NULL);
	pgwt_names_free(names);
	/* no events side file: name by the server version in the file header */
	if (!pg_version && pgwt_tf_reader_nfiles(r) > 0)
		pg_version = pgwt_tf_reader_file_header(r, 0)->pg_version;
	pgwt_names_init(names, (int) pgwt_tf_pg_major(pg_version));
	rc = pgwt_names_load_dir(names, o->trace_dir, NULL, &ignored);
	if (rc >= 0 && ignored > 0)
		fprintf(stderr, "pg_wait_tracer: warning: %s/%s: %llu line(s) ignored (malformed, over the bounds, or a class that is not the id's)\n",
				o->trace_dir, PGWT_TF_EVENTS_NAME, (unsigned long long) ignored);
	else if (rc < 0 && rc != -PGWT_TF_NOT_FOUND)
	{
		fprintf(stderr, "pg_wait_tracer: warning: %s: the wait-event names file cannot be used: %s\n",
				o->trace_dir, pgwt_tf_strerror(rc));
		sd->names_unreadable = true;
	}
	sd->names_bad = rc >= 0 ? ignored : 0;
}

/* The engine's configuration: p50/p95/p99 per (session, event) and
 * (query, event) need their buckets, kept only for the views that show
 * those rows. */
static void
replay_engine_cfg(const pgwt_options *o, pgwt_engine_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->key_histograms = o->view == PGWT_VIEW_SESSION_EVENT || o->view == PGWT_VIEW_QUERY_EVENT;
}

int
pgwt_run_replay(const pgwt_options *o)
{
	struct timespec ts;
	int64_t		now_rt,
				from = 0,
				to = 0;
	char		err[256];
	pgwt_range_loader *l = NULL;
	pgwt_window_spec ws[PGWT_CLI_MAX_WINDOWS];
	int			nw;
	pgwt_names	names;
	replay_ctx	c;
	pgwt_output out;
	int			status = 0;
	const char *eerr = NULL;
	const pgwt_tf_read_stats *rs;
	uint64_t	rfrom,
				rto;
	pgwt_engine_config ecfg;
	pgwt_tf_side_damage sd = {0};

	clock_gettime(CLOCK_REALTIME, &ts);
	now_rt = (int64_t) ts.tv_sec * 1000000000ll + ts.tv_nsec;
	if (o->from && !pgwt_parse_time(o->from, now_rt, &from, err, sizeof(err)))
	{
		fprintf(stderr, "pg_wait_tracer: --from: %s\n", err);
		return 1;
	}
	if (o->to && !pgwt_parse_time(o->to, now_rt, &to, err, sizeof(err)))
	{
		fprintf(stderr, "pg_wait_tracer: --to: %s\n", err);
		return 1;
	}
	if (o->from && o->to && from >= to)
	{
		fprintf(stderr, "pg_wait_tracer: --from must be before --to\n");
		return 1;
	}
	rfrom = o->from && from > 0 ? (uint64_t) from : 0;
	rto = o->to && to > 0 ? (uint64_t) to : UINT64_MAX;

	if ((nw = replay_windows(o, rfrom, rto, ws)) < 0)
		return 1;
	replay_engine_cfg(o, &ecfg);
	c.eng = pgwt_engine_create(&ecfg, ws, nw, &eerr);
	if (!c.eng)
	{
		fprintf(stderr, "pg_wait_tracer: %s\n", eerr ? eerr : "cannot create the analysis engine");
		return 1;
	}
	if (replay_open(o, rfrom, rto, &l) != 0)
	{
		pgwt_engine_free(c.eng);
		return 1;
	}
	/* who each pid was, before its records: background is never DB time */
	pgwt_backends_load(c.eng, o->trace_dir, &sd.backends_bad);
	if (sd.backends_bad)
		fprintf(stderr, "pg_wait_tracer: warning: %s: %llu backend line(s) bad, skipped\n",
				o->trace_dir, (unsigned long long) sd.backends_bad);
	replay_names(o, &names, pgwt_range_reader(l), &sd);
	if (replay_feed(o, l, c.eng) != 0)
	{
		status = 1;
		goto done;
	}
	rs = pgwt_tf_reader_stats(pgwt_range_reader(l));
	if (pgwt_tf_read_damaged(rs))
	{
		char		msg[256];

		pgwt_tf_read_damage_text(rs, msg, sizeof(msg));
		fprintf(stderr, "pg_wait_tracer: %s%s\n", msg,
				o->accept_damaged ? " (accepted)" : "; --accept-damaged to accept");
		if (!o->accept_damaged)
			status = 1;
	}
	if (pgwt_tf_side_damaged(&sd))
	{
		char		msg[256];

		pgwt_tf_side_damage_text(&sd, msg, sizeof(msg));
		fprintf(stderr, "pg_wait_tracer: %s%s\n", msg,
				o->accept_damaged ? " (accepted)" : "; --accept-damaged to accept");
		if (!o->accept_damaged)
			status = 1;
	}
	if (pgwt_range_stats_get(l)->delivered == 0)
		fprintf(stderr, "pg_wait_tracer: no records in the selected range\n");

	if (o->event)
	{
		uint32_t	id;

		if (!pgwt_event_parse(&names, o->event, &id))
		{
			fprintf(stderr, "pg_wait_tracer: --event: unknown wait event '%s'\n", o->event);
			status = 1;
			goto done;
		}
	}
	memset(&out, 0, sizeof(out));
	out.out = stdout;
	out.opts = o;
	out.names = &names;
	out.source = "replay";
	/* json and csv as asked; tui has no place in a replay, so text */
	out.format = o->format == PGWT_FORMAT_JSON || o->format == PGWT_FORMAT_CSV ? o->format : PGWT_FORMAT_TEXT;
	{
		char		note[320],
					xline[160];
		pgwt_tf_window_sources xs;

		/* which exact source the range's windows used (windows.tsv) */
		if (pgwt_tf_window_sources_load(o->trace_dir, rfrom, rto == UINT64_MAX ? 0 : rto, &xs) < 0)
			memset(&xs, 0, sizeof(xs));
		pgwt_tf_window_sources_text(&xs, xline, sizeof(xline));
		snprintf(note, sizeof(note), "Files: %u    Records: %llu%s%s",
				 pgwt_tf_reader_nfiles(pgwt_range_reader(l)),
				 (unsigned long long) pgwt_range_stats_get(l)->delivered,
				 xline[0] ? "    " : "", xline);
		if (pgwt_output_view(&out, c.eng, note) != 0)
			status = 1;
	}

done:
	pgwt_range_close(l);
	pgwt_engine_free(c.eng);
	pgwt_names_free(&names);
	return status;
}
