/*
 * history.c
 *		History in SQL: the analysis engine's views (time model, events,
 *		sessions, queries, histogram) over recorded trace files for a time
 *		range, read from the extension's own trace directory or, for
 *		superusers and pg_read_server_files members, any directory (e.g. one
 *		the external tracer writes).
 *
 * Each call reads the files, feeds one engine window and copies the rows
 * out. The engine and the reader allocate with malloc (they are the
 * userspace libraries); they are freed before any error is raised and
 * before any tuple is built, so an error never leaks them. No shared state.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#include "analysis/engine.h"
#include "analysis/views.h"
#include "common/units.h"
#include "extension/trace_worker.h"
#include "tracefmt/tracefmt.h"

PG_FUNCTION_INFO_V1(pgwt_history_time_model);
PG_FUNCTION_INFO_V1(pgwt_history_system_event);
PG_FUNCTION_INFO_V1(pgwt_history_session_event);
PG_FUNCTION_INFO_V1(pgwt_history_query_event);
PG_FUNCTION_INFO_V1(pgwt_history_histogram);

typedef enum HistView
{
	HIST_TIME_MODEL,
	HIST_SYSTEM_EVENT,
	HIST_SESSION_EVENT,
	HIST_QUERY_EVENT
} HistView;

/* What one call computed, in plain memory the caller frees. */
typedef struct HistResult
{
	pgwt_time_model tm;
	pgwt_event_rows events;
	pgwt_session_rows sessions;
	pgwt_view_status status;
	uint64		records;
} HistResult;

/* timestamptz (NULL = open end) to CLOCK_REALTIME nanoseconds */
static uint64
hist_realtime_ns(FunctionCallInfo fcinfo, int arg, uint64 if_null)
{
	TimestampTz ts;
	int64		unix_us;

	if (PG_ARGISNULL(arg))
		return if_null;
	ts = PG_GETARG_TIMESTAMPTZ(arg);
	unix_us = ts + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	return unix_us <= 0 ? 0 : (uint64) unix_us * 1000;
}

/* The directory to read: ours, or (privileged) the one given. */
static char *
hist_dir(FunctionCallInfo fcinfo, int arg)
{
	if (PG_ARGISNULL(arg))
		return pgwt_trace_dir_path();
	if (!superuser() && !has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read trace files outside the extension's directory"),
				 errdetail("Only superusers and members of pg_read_server_files may name a directory.")));
	return text_to_cstring(PG_GETARG_TEXT_PP(arg));
}

/*
 * Read dir's records in [from, to] (realtime) into one engine window and
 * run the view. Returns 0, or a tracefmt error (nothing allocated then).
 */
static int
hist_compute(const char *dir, uint64 from, uint64 to, HistView view,
			 HistResult *res, const char **engine_err)
{
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *rd;
	pgwt_engine_config cfg;
	pgwt_window_spec spec;
	pgwt_engine *eng;
	pgwt_view_opts vo;
	pgwt_record rec;
	int			rc;

	memset(res, 0, sizeof(*res));
	memset(&ro, 0, sizeof(ro));
	ro.t_start = from;
	ro.t_end = to;
	ro.range_realtime = true;
	rc = pgwt_tf_reader_open(dir, &ro, &rd);
	if (rc < 0)
		return rc;
	memset(&cfg, 0, sizeof(cfg));
	memset(&spec, 0, sizeof(spec));
	spec.from_ns = 0;
	spec.to_ns = UINT64_MAX;
	strlcpy(spec.label, "range", sizeof(spec.label));
	eng = pgwt_engine_create(&cfg, &spec, 1, engine_err);
	if (eng == NULL)
	{
		pgwt_tf_reader_close(rd);
		return -PGWT_TF_NOMEM;
	}
	/* A window open at "from": its ESC_START first, so the samples it
	 * supersedes are not billed twice (tracefmt's esc_lookup.c). */
	if (from > 0)
	{
		pgwt_tf_esc_lookup el;
		uint64		start_rt;

		rc = pgwt_tf_escalation_open_at(dir, from, &rec, &start_rt, &el);
		if (rc < 0)
		{
			pgwt_tf_reader_close(rd);
			pgwt_engine_free(eng);
			return rc;
		}
		if (rc == 1)
			pgwt_engine_add(eng, &rec);
	}
	while ((rc = pgwt_tf_reader_next(rd, &rec)) == 1)
	{
		pgwt_engine_add(eng, &rec);
		res->records++;
	}
	pgwt_tf_reader_close(rd);
	if (rc < 0)
	{
		pgwt_engine_free(eng);
		return rc;
	}
	pgwt_engine_flush(eng);
	memset(&vo, 0, sizeof(vo));
	vo.sort = PGWT_SORT_TOTAL;
	switch (view)
	{
		case HIST_TIME_MODEL:
			res->status = pgwt_view_time_model(eng, 0, &res->tm);
			break;
		case HIST_SYSTEM_EVENT:
			res->status = pgwt_view_system_event(eng, 0, &vo, &res->events);
			break;
		case HIST_SESSION_EVENT:
			res->status = pgwt_view_session_event(eng, 0, &vo, &res->sessions);
			break;
		case HIST_QUERY_EVENT:
			res->status = pgwt_view_query_event(eng, 0, &vo, &res->events);
			break;
	}
	pgwt_engine_free(eng);
	return 0;
}

static void
hist_run(FunctionCallInfo fcinfo, HistView view, HistResult *res)
{
	uint64		from = hist_realtime_ns(fcinfo, 0, 0);
	uint64		to = hist_realtime_ns(fcinfo, 1, UINT64_MAX);
	char	   *dir = hist_dir(fcinfo, 2);
	const char *engine_err = NULL;
	int			rc;

	if (from > to)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the range starts after it ends")));
	rc = hist_compute(dir, from, to, view, res, &engine_err);
	if (rc < 0)
		ereport(ERROR,
				(errmsg("could not read trace files in \"%s\": %s", dir,
						engine_err ? engine_err : pgwt_tf_strerror(rc))));
	if (res->status == PGWT_VIEW_NO_MEMORY || res->status == PGWT_VIEW_BAD_ARG)
	{
		pgwt_event_rows_free(&res->events);
		pgwt_session_rows_free(&res->sessions);
		ereport(ERROR, (errmsg("history view failed: %s", pgwt_view_status_text(res->status))));
	}
	InitMaterializedSRF(fcinfo, 0);
}

static void
hist_event_names(uint32 event, Datum *values, bool *nulls)
{
	const char *t = event == 0 ? "CPU*" : pgstat_get_wait_event_type(event);
	const char *e = event == 0 ? NULL : pgstat_get_wait_event(event);

	nulls[0] = (t == NULL);
	nulls[1] = (e == NULL);
	if (t)
		values[0] = CStringGetTextDatum(t);
	if (e)
		values[1] = CStringGetTextDatum(e);
}

static double
hist_ms(uint64 ns)
{
	return pgwt_ms_of_ns(ns);
}

/* pgwt_history_time_model(from, to, dir) -> (class, total_ms, pct_db_time, fidelity) */
Datum
pgwt_history_time_model(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistResult	res;
	Datum		v[4];
	bool		n[4] = {false};

	hist_run(fcinfo, HIST_TIME_MODEL, &res);
	if (res.status != PGWT_VIEW_OK)
		return (Datum) 0;
	v[0] = CStringGetTextDatum("DB Time");
	v[1] = Float8GetDatum(hist_ms(res.tm.sum.db_ns));
	v[2] = Float8GetDatum(100.0);
	v[3] = CStringGetTextDatum(pgwt_fidelity_name(res.tm.sum.fidelity));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	for (unsigned i = 0; i < res.tm.nclasses; i++)
	{
		const pgwt_tm_class *c = &res.tm.classes[i];
		const char *name = c->class_index == 0 ? "CPU*" : pgwt_class_name(c->class_index);

		v[0] = CStringGetTextDatum(name ? name : "other");
		v[1] = Float8GetDatum(hist_ms(c->total_ns));
		v[2] = Float8GetDatum(pgwt_pct(c->pct_db, 100.0));
		v[3] = CStringGetTextDatum(pgwt_fidelity_name(c->fidelity));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	v[0] = CStringGetTextDatum("Idle");
	v[1] = Float8GetDatum(hist_ms(res.tm.sum.idle_ns));
	n[2] = true;
	v[3] = CStringGetTextDatum(pgwt_fidelity_name(res.tm.sum.fidelity));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	return (Datum) 0;
}

/* One event row: (wait_event_type, wait_event, waits, total_ms, avg_us, max_us, pct_db_time, fidelity) */
static void
hist_put_event_row(ReturnSetInfo *rsinfo, const pgwt_event_row *r, bool with_query)
{
	Datum		v[9];
	bool		n[9] = {false};
	int			o = 0;

	if (with_query)
	{
		v[0] = Int64GetDatum((int64) r->query_id);
		n[0] = r->other;
		o = 1;
	}
	if (r->other)
	{
		v[o] = CStringGetTextDatum("other");
		n[o + 1] = true;
	}
	else
		hist_event_names(r->event, &v[o], &n[o]);
	if (r->waits_known)
		v[o + 2] = Int64GetDatum((int64) r->waits);
	else
		n[o + 2] = true;
	v[o + 3] = Float8GetDatum(hist_ms(r->total_ns));
	if (r->avg_known)
		v[o + 4] = Float8GetDatum(pgwt_us_of_ns(r->avg_ns));
	else
		n[o + 4] = true;
	if (r->max_known)
		v[o + 5] = Float8GetDatum(pgwt_us_of_ns(r->max_ns));
	else
		n[o + 5] = true;
	if (r->pct_db >= 0)
		v[o + 6] = Float8GetDatum(pgwt_pct(r->pct_db, 100.0));
	else
		n[o + 6] = true;
	v[o + 7] = CStringGetTextDatum(pgwt_fidelity_name(r->fidelity));
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

/* The event-row views: system_event, and query_event with its query id. */
static Datum
hist_event_rows(FunctionCallInfo fcinfo, HistView kind, bool with_query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistResult	res;
	pgwt_event_row *rows;
	size_t		nrows;

	hist_run(fcinfo, kind, &res);
	/* copy out of malloc'd memory first, so nothing below leaks it */
	nrows = res.events.n;
	rows = palloc(sizeof(pgwt_event_row) * Max(nrows, 1));
	if (nrows > 0)
		memcpy(rows, res.events.rows, sizeof(pgwt_event_row) * nrows);
	pgwt_event_rows_free(&res.events);
	for (size_t i = 0; i < nrows; i++)
		hist_put_event_row(rsinfo, &rows[i], with_query);
	return (Datum) 0;
}

Datum
pgwt_history_system_event(PG_FUNCTION_ARGS)
{
	return hist_event_rows(fcinfo, HIST_SYSTEM_EVENT, false);
}

Datum
pgwt_history_query_event(PG_FUNCTION_ARGS)
{
	return hist_event_rows(fcinfo, HIST_QUERY_EVENT, true);
}

/* (pid, db_ms, cpu_ms, wait_ms, idle_ms, top_wait_event_type, top_wait_event, top_wait_ms, fidelity) */
Datum
pgwt_history_session_event(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistResult	res;
	pgwt_session_row *rows;
	size_t		nrows;

	hist_run(fcinfo, HIST_SESSION_EVENT, &res);
	nrows = res.sessions.n;
	rows = palloc(sizeof(pgwt_session_row) * Max(nrows, 1));
	if (nrows > 0)
		memcpy(rows, res.sessions.rows, sizeof(pgwt_session_row) * nrows);
	pgwt_session_rows_free(&res.sessions);
	for (size_t i = 0; i < nrows; i++)
	{
		const pgwt_session_row *r = &rows[i];
		Datum		v[9];
		bool		n[9] = {false};

		v[0] = Int32GetDatum((int32) r->pid);
		n[0] = r->other;
		v[1] = Float8GetDatum(hist_ms(r->db_ns));
		v[2] = Float8GetDatum(hist_ms(r->cpu_ns));
		v[3] = Float8GetDatum(hist_ms(r->wait_ns));
		v[4] = Float8GetDatum(hist_ms(r->idle_ns));
		if (r->has_top_wait)
		{
			hist_event_names(r->top_wait, &v[5], &n[5]);
			v[7] = Float8GetDatum(hist_ms(r->top_wait_ns));
		}
		else
			n[5] = n[6] = n[7] = true;
		v[8] = CStringGetTextDatum(pgwt_fidelity_name(r->fidelity));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}

/*
 * pgwt_history_histogram(wait_event_type, wait_event, from, to, dir) ->
 * (bucket, lo_us, hi_us, waits): the exact waits of one event in 16 us-scale
 * buckets (<1 us, [1,2) us ... >= 16 ms).
 */
Datum
pgwt_history_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *want_type;
	char	   *want_name;
	uint64		from,
				to;
	char	   *dir;
	pgwt_tf_read_opts ro;
	pgwt_tf_reader *rd;
	pgwt_record rec;
	uint64		buckets[PGWT_HIST_US_BUCKETS] = {0};
	uint32		matched = 0;
	bool		have_match = false;
	int			rc;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("wait_event_type and wait_event are required")));
	want_type = text_to_cstring(PG_GETARG_TEXT_PP(0));
	want_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	from = PG_ARGISNULL(2) ? 0 : hist_realtime_ns(fcinfo, 2, 0);
	to = PG_ARGISNULL(3) ? UINT64_MAX : hist_realtime_ns(fcinfo, 3, UINT64_MAX);
	dir = hist_dir(fcinfo, 4);

	memset(&ro, 0, sizeof(ro));
	ro.t_start = from;
	ro.t_end = to;
	ro.range_realtime = true;
	rc = pgwt_tf_reader_open(dir, &ro, &rd);
	if (rc < 0)
		ereport(ERROR,
				(errmsg("could not read trace files in \"%s\": %s", dir, pgwt_tf_strerror(rc))));
	/* exact waits end with a transition out of the event */
	while ((rc = pgwt_tf_reader_next(rd, &rec)) == 1)
	{
		const char *t,
				   *e;

		if (rec.kind != PGWT_REC_TRANSITION || rec.old_event == 0 ||
			rec.old_event == PGWT_EVENT_EXIT || PGWT_IS_MARKER(rec.old_event))
			continue;
		if (!have_match || rec.old_event != matched)
		{
			t = pgstat_get_wait_event_type(rec.old_event);
			e = pgstat_get_wait_event(rec.old_event);
			if (t == NULL || e == NULL || pg_strcasecmp(t, want_type) != 0 ||
				pg_strcasecmp(e, want_name) != 0)
				continue;
			matched = rec.old_event;
			have_match = true;
		}
		buckets[pgwt_hist_us_bucket(rec.duration_ns)]++;
	}
	pgwt_tf_reader_close(rd);
	if (rc < 0)
		ereport(ERROR,
				(errmsg("could not read trace files in \"%s\": %s", dir, pgwt_tf_strerror(rc))));
	InitMaterializedSRF(fcinfo, 0);
	for (unsigned b = 0; b < PGWT_HIST_US_BUCKETS; b++)
	{
		uint64_t	lo,
					hi;
		Datum		v[4];
		bool		n[4] = {false};

		pgwt_hist_us_bounds(b, &lo, &hi);
		v[0] = Int32GetDatum((int32) b);
		v[1] = Float8GetDatum((double) lo / 1000.0);
		if (b == PGWT_HIST_US_BUCKETS - 1)
			n[2] = true;
		else
			v[2] = Float8GetDatum((double) hi / 1000.0);
		v[3] = Int64GetDatum((int64) buckets[b]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}
