/*
 * replay.c
 *		--replay: read the trace directory (archives and the committed part
 *		of current.trace) over [--from, --to], feed the analysis engine,
 *		render the selected view once.
 *
 * --from/--to select by wall-clock time (the reader maps each file's
 * monotonic timestamps through its header). --window windows end at the
 * last record read, so "last 5m" means the last five minutes of the range.
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
#include "analysis/timeparse.h"
#include "analysis/views.h"
#include "tracefmt/tracefmt.h"
#include "tracer/output.h"

typedef struct replay_ctx
{
	pgwt_engine *eng;
	pgwt_names *names;
	int			names_ready;
} replay_ctx;

static int
replay_event_cb(const pgwt_tf_event_name *e, void *arg)
{
	replay_ctx *c = arg;

	pgwt_names_set(c->names, e->id, e->name);
	return 0;
}

static int
replay_open(const pgwt_options *o, const pgwt_tf_read_opts *ro, pgwt_tf_reader **r)
{
	int			rc = pgwt_tf_reader_open(o->trace_dir, ro, r);

	if (rc < 0)
	{
		fprintf(stderr, "pg_wait_tracer: %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
		return -1;
	}
	return 0;
}

int
pgwt_run_replay(const pgwt_options *o)
{
	struct timespec ts;
	int64_t		now_rt,
				from = 0,
				to = 0;
	char		err[256];
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *r = NULL;
	pgwt_window_spec ws[PGWT_CLI_MAX_WINDOWS];
	int			nw;
	pgwt_names names;
	replay_ctx	c;
	uint32_t	pg_version = 0;
	pgwt_record rec;
	pgwt_output out;
	int			rc,
				status = 0;
	const char *eerr = NULL;
	const pgwt_tf_read_stats *rs;

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

	memset(&ro, 0, sizeof(ro));
	ro.t_start = o->from && from > 0 ? (uint64_t) from : 0;
	ro.t_end = o->to && to > 0 ? (uint64_t) to : UINT64_MAX;
	ro.range_realtime = true;

	memset(ws, 0, sizeof(ws));
	if (o->nwindows == 0)
	{
		nw = 1;
		ws[0].from_ns = 0;
		ws[0].to_ns = UINT64_MAX;
		snprintf(ws[0].label, sizeof(ws[0].label), "Replay");
	}
	else
	{
		uint64_t	last = 0;

		/* first pass: where the data ends */
		if (replay_open(o, &ro, &r) != 0)
			return 1;
		while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
			if (rec.ts_ns > last)
				last = rec.ts_ns;
		pgwt_tf_reader_close(r);
		r = NULL;
		nw = o->nwindows;
		for (int i = 0; i < nw; i++)
		{
			uint64_t	w = o->windows_ns[i];

			ws[i].from_ns = last + 1 > w ? last + 1 - w : 0;
			ws[i].to_ns = last + 1;
			snprintf(ws[i].label, sizeof(ws[i].label), "Last %gs", (double) w / 1e9);
		}
	}
	c.eng = pgwt_engine_create(NULL, ws, nw, &eerr);
	if (!c.eng)
	{
		fprintf(stderr, "pg_wait_tracer: %s\n", eerr ? eerr : "cannot create the analysis engine");
		return 1;
	}

	/* names: built-in table of the recorded server version + side file */
	memset(&names, 0, sizeof(names));
	c.names = &names;
	pgwt_names_init(&names, 0);
	rc = pgwt_tf_events_read(o->trace_dir, replay_event_cb, &c, &pg_version, NULL);
	if (pg_version)
	{
		pgwt_names_free(&names);
		pgwt_names_init(&names, (int) (pg_version / 10000));
		pgwt_tf_events_read(o->trace_dir, replay_event_cb, &c, &pg_version, NULL);
	}
	/* who each pid was, before its records: background is never DB time */
	pgwt_backends_load(c.eng, o->trace_dir, NULL);

	if (replay_open(o, &ro, &r) != 0)
	{
		status = 1;
		goto done;
	}
	/* no events side file: name by the server version in the file header */
	if (!pg_version && pgwt_tf_reader_nfiles(r) > 0)
	{
		pg_version = pgwt_tf_reader_file_header(r, 0)->pg_version;
		pgwt_names_free(&names);
		pgwt_names_init(&names, (int) (pg_version / 10000));
	}
	/* A window open at --from: its ESC_START first, so the samples it
	 * supersedes are not billed twice (tracefmt: esc_lookup.c). */
	if (ro.t_start > 0)
	{
		pgwt_tf_esc_lookup el;
		uint64_t	start_rt;

		rc = pgwt_tf_escalation_open_at(o->trace_dir, ro.t_start, &rec, &start_rt, &el);
		if (rc < 0)
		{
			fprintf(stderr, "pg_wait_tracer: reading %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
			status = 1;
			goto done;
		}
		if (rc == 1)
			pgwt_engine_add(c.eng, &rec);
	}
	while ((rc = pgwt_tf_reader_next(r, &rec)) == 1)
		pgwt_engine_add(c.eng, &rec);
	if (rc < 0)
	{
		fprintf(stderr, "pg_wait_tracer: reading %s: %s\n", o->trace_dir, pgwt_tf_strerror(rc));
		status = 1;
		goto done;
	}
	pgwt_engine_flush(c.eng);
	rs = pgwt_tf_reader_stats(r);
	if (rs->blocks_bad || rs->files_bad)
		fprintf(stderr, "pg_wait_tracer: skipped %llu bad blocks and %llu unreadable files\n",
				(unsigned long long) rs->blocks_bad, (unsigned long long) rs->files_bad);
	if (rs->records == 0)
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
	out.format = o->format == PGWT_FORMAT_JSON ? PGWT_FORMAT_JSON : PGWT_FORMAT_TEXT;
	{
		char		note[128];

		snprintf(note, sizeof(note), "Files: %u    Records: %llu", pgwt_tf_reader_nfiles(r),
				 (unsigned long long) rs->records);
		if (pgwt_output_view(&out, c.eng, note) != 0)
			status = 1;
	}

done:
	pgwt_tf_reader_close(r);
	pgwt_engine_free(c.eng);
	pgwt_names_free(&names);
	return status;
}
