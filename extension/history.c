/*
 * history.c
 *		History in SQL: the analysis engine's views (time model, events,
 *		sessions, queries, histogram) over recorded trace files for a time
 *		range, read from the extension's own trace directory or, for
 *		superusers and pg_read_server_files members, any directory (e.g. one
 *		the external tracer writes). Each pgwt_history_X has the result
 *		columns of its live twin pgwt_X (sql/history_columns.sql checks
 *		it); pgwt_history_session_time, the per-session summary, has none.
 *
 * Each call loads the range through analysis/range_load.h (the one range
 * loader: wall-clock time, the open escalation window first, waits cut to
 * the range, so only the part of a wait inside [from, to) counts, in every
 * view and the histogram), feeds one engine window and copies the rows
 * out. The range arguments: NULL or -infinity / infinity are open ends;
 * finite times before 1970 count as 1970, times past the trace clock's
 * reach (year 2554) as the open end; from after to is an error (22023),
 * from = to an empty range. The engine and the loader are the userspace
 * libraries and allocate with malloc; what they hand out (the loader with
 * its open file, the engine, the result rows) is held in a HistHold that
 * lives in a memory context of the call's own, whose reset callback frees
 * it. So an error or a cancel anywhere in the call (the context goes with
 * the query) leaks neither memory nor a file descriptor. The read loop
 * checks for interrupts at every block (at most PGWT_TF_BLOCK_MAX_RECORDS
 * records), so pg_cancel_backend() and statement_timeout end a long read
 * promptly.
 * Files whose footer the reader refused (more entries than the file can
 * hold, or out of place) are read by scanning their blocks, and said in a
 * WARNING; so are side-file lines not used (backends, names: one WARNING
 * with the counts). Events are named by the directory's events.tsv first (the
 * names its writer's server registered at run time), then by this
 * server. No shared state.
 */
#include "postgres.h"

#include <sys/stat.h>

#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#include "analysis/backends_load.h"
#include "analysis/engine.h"
#include "analysis/names_load.h"
#include "analysis/range_load.h"
#include "analysis/views.h"
#include "common/event_ids.h"
#include "common/units.h"
#include "extension/hist_sql.h"
#include "extension/session_sql.h"
#include "extension/trace_worker.h"
#include "tracefmt/tracefmt.h"

PG_FUNCTION_INFO_V1(pgwt_history_time_model);
PG_FUNCTION_INFO_V1(pgwt_history_system_event);
PG_FUNCTION_INFO_V1(pgwt_history_session_event);
PG_FUNCTION_INFO_V1(pgwt_history_session_time);
PG_FUNCTION_INFO_V1(pgwt_history_query_event);
PG_FUNCTION_INFO_V1(pgwt_history_histogram);

typedef enum HistView
{
	HIST_TIME_MODEL,
	HIST_SYSTEM_EVENT,
	HIST_SESSION_EVENT,
	HIST_SESSION_TIME,
	HIST_QUERY_EVENT
} HistView;

/* What one call computed (the row arrays are malloc'd by the engine). */
typedef struct HistResult
{
	pgwt_time_model tm;
	pgwt_event_rows events;
	pgwt_session_rows sessions;
	pgwt_view_status status;
	uint64		records;
} HistResult;

/*
 * The libraries' objects of one call, in a memory context of its own: the
 * context's reset callback (run when it is deleted, by us at the end or
 * with its parent on an error) frees them.
 */
typedef struct HistHold
{
	MemoryContext cxt;
	MemoryContextCallback cb;
	pgwt_range_loader *rl;
	pgwt_engine *eng;
	pgwt_names names;			/* the directory's own (events.tsv) */
	HistResult res;
} HistHold;

static void
hist_hold_release(void *arg)
{
	HistHold   *h = (HistHold *) arg;

	pgwt_range_close(h->rl);
	h->rl = NULL;
	if (h->eng != NULL)
		pgwt_engine_free(h->eng);
	h->eng = NULL;
	pgwt_event_rows_free(&h->res.events);
	pgwt_session_rows_free(&h->res.sessions);
	pgwt_names_free(&h->names);
}

static HistHold *
hist_hold_new(void)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext,
											  "pg_wait_tracer history",
											  ALLOCSET_SMALL_SIZES);
	HistHold   *h = MemoryContextAllocZero(cxt, sizeof(HistHold));

	h->cxt = cxt;
	h->cb.func = hist_hold_release;
	h->cb.arg = h;
	MemoryContextRegisterResetCallback(cxt, &h->cb);
	return h;
}

/* Free everything the call held (the callback runs once). */
static void
hist_hold_done(HistHold *h)
{
	MemoryContextDelete(h->cxt);
}

/*
 * timestamptz to CLOCK_REALTIME ns without overflow: -infinity and times
 * before 1970 are 0, infinity and times past UINT64_MAX ns (2554) the
 * open end. (Finite timestamps end in 294276, so the microseconds since
 * 1970 fit in int64; only the step to ns can overflow.)
 */
static uint64
hist_ts_ns(TimestampTz ts)
{
	int64		unix_us;

	if (TIMESTAMP_IS_NOBEGIN(ts))
		return 0;
	if (TIMESTAMP_IS_NOEND(ts))
		return UINT64_MAX;
	unix_us = ts + (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	if (unix_us <= 0)
		return 0;
	if ((uint64) unix_us >= UINT64_MAX / 1000)
		return UINT64_MAX;
	return (uint64) unix_us * 1000;
}

/*
 * The range [*from, *to) of arguments fa and ta (NULL = open end); from
 * after to is one clear error.
 */
static void
hist_range(FunctionCallInfo fcinfo, int fa, int ta, uint64 *from, uint64 *to)
{
	*from = PG_ARGISNULL(fa) ? 0 : hist_ts_ns(PG_GETARG_TIMESTAMPTZ(fa));
	*to = PG_ARGISNULL(ta) ? UINT64_MAX : hist_ts_ns(PG_GETARG_TIMESTAMPTZ(ta));
	if (!PG_ARGISNULL(fa) && !PG_ARGISNULL(ta) &&
		PG_GETARG_TIMESTAMPTZ(fa) > PG_GETARG_TIMESTAMPTZ(ta))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the range starts after it ends: from %s, to %s",
						pstrdup(timestamptz_to_str(PG_GETARG_TIMESTAMPTZ(fa))),
						pstrdup(timestamptz_to_str(PG_GETARG_TIMESTAMPTZ(ta))))));
	/* clamped ends may meet: an empty range */
	if (*from > *to)
		*from = *to;
}

/*
 * The directory to read: ours, or (privileged) the one given, which must
 * name a directory: an empty string (22023) or one that cannot be opened
 * (by errno) is said as such, not as a failed read.
 */
static char *
hist_dir(FunctionCallInfo fcinfo, int arg)
{
	char	   *dir;
	struct stat st;
	DIR		   *d = NULL;

	if (PG_ARGISNULL(arg))
		return pgwt_trace_dir_path();
	if (!superuser() && !has_privs_of_role(GetUserId(), ROLE_PG_READ_SERVER_FILES))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read trace files outside the extension's directory"),
				 errdetail("Only superusers and members of pg_read_server_files may name a directory.")));
	dir = text_to_cstring(PG_GETARG_TEXT_PP(arg));
	if (dir[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the trace directory must not be an empty string")));
	/* a trace file alone is read too; a directory must be listable */
	if (stat(dir, &st) != 0 || (S_ISDIR(st.st_mode) && (d = AllocateDir(dir)) == NULL))
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not open trace directory \"%s\": %m", dir)));
	if (d != NULL)
		FreeDir(d);
	return dir;
}

/* A read that failed: one error, its SQLSTATE by what tracefmt said. */
static void
hist_read_error(const char *dir, int rc, const char *why)
{
	int			code;

	switch (-rc)
	{
		case PGWT_TF_NOT_FOUND:
			code = ERRCODE_UNDEFINED_FILE;
			break;
		case PGWT_TF_IO:
			code = ERRCODE_IO_ERROR;
			break;
		case PGWT_TF_NOMEM:
			code = ERRCODE_OUT_OF_MEMORY;
			break;
		case PGWT_TF_INVAL:
			code = ERRCODE_INVALID_PARAMETER_VALUE;
			break;
		default:
			code = ERRCODE_DATA_CORRUPTED;
			break;
	}
	ereport(ERROR,
			(errcode(code),
			 errmsg("could not read trace files in \"%s\": %s", dir,
					why ? why : pgwt_tf_strerror(rc))));
}

/* Open the range loader over dir for [from, to) into h->rl; errors raised. */
static void
hist_open(HistHold *h, const char *dir, uint64 from, uint64 to)
{
	int			rc = pgwt_range_open(dir, from, to, &h->rl);

	if (rc < 0)
	{
		h->rl = NULL;
		hist_read_error(dir, rc, NULL);
	}
}

/* After a read: files whose footer was refused, and damaged input (a
 * block skipped, a file unreadable, bytes cut off: read_damage.c), are
 * worth a word each. */
static void
hist_warn_footers(const char *dir, const pgwt_range_loader *rl)
{
	const pgwt_tf_read_stats *st = pgwt_tf_reader_stats(pgwt_range_reader(rl));

	if (st->footers_bad > 0)
		ereport(WARNING,
				(errmsg("%llu trace file(s) in \"%s\" have an invalid footer",
						(unsigned long long) st->footers_bad, dir),
				 errdetail("A footer that lists more blocks than its file can hold, or blocks out of place, is refused; those files were read by scanning their blocks.")));
	if (pgwt_tf_read_damaged(st))
	{
		char		msg[256];

		pgwt_tf_read_damage_text(st, msg, sizeof(msg));
		ereport(WARNING,
				(errmsg("trace files in \"%s\": %s", dir, msg),
				 errdetail("Blocks that fail validation and unreadable files are skipped; the result leaves their records out.")));
	}
}

/*
 * The names the directory gives its events (events.tsv): the tranches and
 * custom events registered at run time by the server that wrote it, which
 * this backend may not know. Lines not used and a file that does not
 * parse go to *sd.
 */
static void
hist_load_names(HistHold *h, const char *dir, pgwt_tf_side_damage *sd)
{
	uint64		ignored = 0;
	int			rc = pgwt_names_load_dir(&h->names, dir, NULL, &ignored);

	if (rc >= 0)
		sd->names_bad = ignored;
	else if (rc != -PGWT_TF_NOT_FOUND)
		sd->names_unreadable = true;
}

/*
 * Side files' lines skipped (names, backends): one WARNING with the
 * counts (tracefmt's sentence, as the CLIs print it); the rows are
 * computed without them.
 */
static void
hist_warn_side(const char *dir, const pgwt_tf_side_damage *sd)
{
	char		msg[256];

	if (!pgwt_tf_side_damaged(sd))
		return;
	pgwt_tf_side_damage_text(sd, msg, sizeof(msg));
	ereport(WARNING,
			(errmsg("trace files in \"%s\": %s", dir, msg),
			 errdetail("A line that is malformed, over the bounds, or whose class is not its id's is not used; unnamed events show by id, unknown pids as sessions.")));
}

/*
 * Load dir's records in [from, to) (realtime) into one engine window and
 * run the view into h->res. Errors (and cancels) are raised; h frees what
 * was allocated either way.
 */
static void
hist_compute(HistHold *h, const char *dir, uint64 from, uint64 to, HistView view)
{
	pgwt_engine_config cfg;
	pgwt_window_spec spec;
	pgwt_view_opts vo;
	pgwt_range_batch blk;
	const char *engine_err = NULL;
	pgwt_tf_side_damage sd;
	int			rc;

	/* an empty range: no rows (the engine takes no empty window) */
	if (from >= to)
	{
		h->res.status = PGWT_VIEW_NO_DATA;
		return;
	}
	hist_open(h, dir, from, to);
	memset(&cfg, 0, sizeof(cfg));
	/* session and query rows carry their histograms, as the live views */
	cfg.key_histograms = (view == HIST_SESSION_EVENT || view == HIST_QUERY_EVENT);
	memset(&spec, 0, sizeof(spec));
	spec.from_ns = from;
	spec.to_ns = pgwt_range_window_end(to);
	strlcpy(spec.label, "range", sizeof(spec.label));
	h->eng = pgwt_engine_create(&cfg, &spec, 1, &engine_err);
	if (h->eng == NULL)
		hist_read_error(dir, -PGWT_TF_NOMEM, engine_err);
	/* who each pid was, before its records: background is never DB time */
	memset(&sd, 0, sizeof(sd));
	rc = pgwt_backends_load(h->eng, dir, &sd.backends_bad);
	if (rc < 0)
		hist_read_error(dir, rc, NULL);
	hist_load_names(h, dir, &sd);
	hist_warn_side(dir, &sd);
	while ((rc = pgwt_range_next(h->rl, &blk)) == 1)
	{
		/* a long read stays cancellable: once a block */
		CHECK_FOR_INTERRUPTS();
		if (blk.transitions)
			pgwt_engine_add_transitions(h->eng, blk.recs, blk.n);
		else
			pgwt_engine_add_many(h->eng, blk.recs, blk.n);
		h->res.records += blk.n;
	}
	if (rc < 0)
		hist_read_error(dir, rc, NULL);
	hist_warn_footers(dir, h->rl);
	pgwt_range_close(h->rl);
	h->rl = NULL;
	CHECK_FOR_INTERRUPTS();
	pgwt_engine_flush(h->eng);
	memset(&vo, 0, sizeof(vo));
	vo.sort = PGWT_SORT_TOTAL;
	switch (view)
	{
		case HIST_TIME_MODEL:
			h->res.status = pgwt_view_time_model(h->eng, 0, &h->res.tm);
			break;
		case HIST_SYSTEM_EVENT:
			h->res.status = pgwt_view_system_event(h->eng, 0, &vo, &h->res.events);
			break;
		case HIST_SESSION_EVENT:
			h->res.status = pgwt_view_session_events(h->eng, 0, &vo, &h->res.events);
			break;
		case HIST_SESSION_TIME:
			h->res.status = pgwt_view_session_event(h->eng, 0, &vo, &h->res.sessions);
			break;
		case HIST_QUERY_EVENT:
			h->res.status = pgwt_view_query_event(h->eng, 0, &vo, &h->res.events);
			break;
	}
	/* the engine stays until hist_hold_done: rows point at its backends */
}

/* Compute the view; the caller reads h->res and calls hist_hold_done(). */
static HistHold *
hist_run(FunctionCallInfo fcinfo, HistView view)
{
	uint64		from,
				to;
	char	   *dir;
	HistHold   *h;

	hist_range(fcinfo, 0, 1, &from, &to);
	dir = hist_dir(fcinfo, 2);
	h = hist_hold_new();
	hist_compute(h, dir, from, to, view);
	if (h->res.status == PGWT_VIEW_NO_MEMORY || h->res.status == PGWT_VIEW_BAD_ARG)
		ereport(ERROR, (errmsg("history view failed: %s", pgwt_view_status_text(h->res.status))));
	InitMaterializedSRF(fcinfo, 0);
	return h;
}

/*
 * (wait_event_type, wait_event) of an id: the name the trace directory
 * recorded for it first (the server that wrote the files knew it), else
 * this server's.
 */
static void
hist_event_name_strs(const pgwt_names *dn, uint32 event, const char **type, const char **name)
{
	if (event == PGWT_EVENT_CPU_RUNQUEUE || event == PGWT_EVENT_CPU_ONCPU)
	{
		/* the scheduler tier's two parts of CPU* (common/event_ids.h) */
		*type = "CPU";
		*name = event == PGWT_EVENT_CPU_ONCPU ? "OnCPU" : "RunQueue";
		return;
	}
	*type = event == 0 ? "CPU*" : pgstat_get_wait_event_type(event);
	*name = event == 0 ? NULL : pgwt_names_lookup(dn, event);
	if (event != 0 && *name == NULL)
		*name = pgstat_get_wait_event(event);
}

/* The same as two columns (NULL where unknown). */
static void
hist_event_names(const pgwt_names *dn, uint32 event, Datum *values, bool *nulls)
{
	const char *t,
			   *e;

	hist_event_name_strs(dn, event, &t, &e);
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

/* One time-model row; pct < 0 is NULL (idle and background rows). */
static void
hist_put_tm_row(ReturnSetInfo *rsinfo, const char *stat_name, const char *wait_event_type,
				uint64 ns, double pct, const char *fidelity)
{
	Datum		v[5];
	bool		n[5] = {false};

	v[0] = CStringGetTextDatum(stat_name);
	n[1] = wait_event_type == NULL;
	if (!n[1])
		v[1] = CStringGetTextDatum(wait_event_type);
	v[2] = Float8GetDatum(hist_ms(ns));
	n[3] = pct < 0;
	v[3] = Float8GetDatum(pct);
	v[4] = CStringGetTextDatum(fidelity);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
}

/*
 * pgwt_history_time_model(from, to, dir) -> the columns of pgwt_time_model:
 * (stat_name, wait_event_type, time_ms, pct_db_time, fidelity);
 * wait_event_type names the class of a class row, else NULL.
 */
Datum
pgwt_history_time_model(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistHold   *h = hist_run(fcinfo, HIST_TIME_MODEL);
	const pgwt_time_model *tm = &h->res.tm;
	const char *fid = pgwt_fidelity_name(tm->sum.fidelity);

	if (h->res.status != PGWT_VIEW_OK)
	{
		hist_hold_done(h);
		return (Datum) 0;
	}
	hist_put_tm_row(rsinfo, "DB Time", NULL, tm->sum.db_ns, 100.0, fid);
	for (unsigned i = 0; i < tm->nclasses; i++)
	{
		const pgwt_tm_class *c = &tm->classes[i];
		const char *name = c->class_index == 0 ? "CPU*" : pgwt_class_name(c->class_index);

		hist_put_tm_row(rsinfo, name ? name : "other", c->class_index == 0 ? NULL : name,
						c->total_ns, pgwt_pct(c->pct_db, 100.0),
						pgwt_fidelity_name(c->fidelity));
	}
	hist_put_tm_row(rsinfo, "Idle", NULL, tm->sum.idle_ns, -1.0, fid);
	/*
	 * background processes apart, never a share of DB time, in the rows of
	 * pgwt_time_model: their time, CPU*, one wait row per class, idle
	 */
	hist_put_tm_row(rsinfo, "Background time", NULL, tm->sum.background_ns, -1.0, fid);
	hist_put_tm_row(rsinfo, "Background CPU*", NULL, tm->background_class_ns[0], -1.0, fid);
	for (unsigned c = 1; c <= PGWT_CLASS_UNKNOWN; c++)
	{
		const char *name = pgwt_class_name(c);

		if (tm->background_class_ns[c] == 0)
			continue;
		hist_put_tm_row(rsinfo, "Background wait", name ? name : "other",
						tm->background_class_ns[c], -1.0, fid);
	}
	hist_put_tm_row(rsinfo, "Background idle", NULL, tm->sum.background_idle_ns, -1.0, fid);
	hist_hold_done(h);
	return (Datum) 0;
}

/*
 * The event columns every event function shares, from column o on:
 * wait_event_type, wait_event, waits, total_ms, avg_us, max_us,
 * pct_db_time, fidelity; then, with_hist, histogram bigint[32] (NULL when
 * no exact wait of the key ended in the range); then p50_us, p95_us,
 * p99_us from the same buckets (hist_sql.h). Returns the next column.
 */
static int
hist_event_columns(const pgwt_names *dn, const pgwt_event_row *r, Datum *v, bool *n, int o,
				   bool with_hist)
{
	if (r->other)
	{
		v[o] = CStringGetTextDatum("other");
		n[o + 1] = true;
	}
	else
		hist_event_names(dn, r->event, &v[o], &n[o]);
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
	o += 8;
	if (with_hist)
	{
		if (r->hist_ns != NULL)
			v[o] = pgwt_hist_array(r->hist_ns);
		else
			n[o] = true;
		o++;
	}
	return pgwt_hist_pct_columns(v, n, o, r->max_known ? r->hist_ns : NULL, r->min_ns, r->max_ns);
}

/*
 * The identity columns of a session as pgwt_session_event has them: pid,
 * backend_type, usesysid, datid, backend_start, session_state, from what
 * backends.tsv says of the pid. The files hold role and database names:
 * usesysid and datid are the oids this server has under those names (NULL
 * when the line has none, as the extension's own writer records none, or
 * no such role or database exists here); backend_type and backend_start
 * are NULL for a pid without a line. session_state is 'exited' when the
 * files show the process ending within the range, else 'live'. Returns
 * the next column.
 */
static int
hist_session_columns(const pgwt_engine *eng, uint32 pid, bool other, bool exited,
					 Datum *v, bool *n)
{
	const pgwt_backend_info *bi = other ? NULL : pgwt_engine_backend(eng, pid);
	Oid			role = InvalidOid,
				db = InvalidOid;

	v[0] = Int32GetDatum((int32) pid);
	n[0] = other;
	n[1] = bi == NULL || bi->type[0] == '\0';
	if (!n[1])
		v[1] = CStringGetTextDatum(bi->type);
	if (bi != NULL && bi->user[0] != '\0')
		role = get_role_oid(bi->user, true);
	if (bi != NULL && bi->database[0] != '\0')
		db = get_database_oid(bi->database, true);
	v[2] = ObjectIdGetDatum(role);
	n[2] = !OidIsValid(role);
	v[3] = ObjectIdGetDatum(db);
	n[3] = !OidIsValid(db);
	n[4] = bi == NULL || bi->start_realtime_ns == 0;
	if (!n[4])
		v[4] = TimestampTzGetDatum(time_t_to_timestamptz(0) +
								   (TimestampTz) (bi->start_realtime_ns / 1000));
	v[5] = CStringGetTextDatum(exited ? "exited" : "live");
	n[5] = other;
	return 6;
}

/* The event-row views: system_event, and query_event with its query id. */
static Datum
hist_event_rows(FunctionCallInfo fcinfo, HistView kind, bool with_query)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistHold   *h = hist_run(fcinfo, kind);

	for (size_t i = 0; i < h->res.events.n; i++)
	{
		const pgwt_event_row *r = &h->res.events.rows[i];
		Datum		v[10 + PGWT_PCT_SQL_COLS];
		bool		n[10 + PGWT_PCT_SQL_COLS] = {false};
		int			o = 0;

		/* event rows are waits; a query's CPU* is kept (only a trace knows it) */
		if (!with_query && !r->other && !pgwt_event_is_wait(r->event))
			continue;
		if (with_query)
		{
			v[0] = Int64GetDatum((int64) r->query_id);
			n[0] = r->other;
			o = 1;
		}
		/* the live query view has the histogram, system_event not */
		hist_event_columns(&h->names, r, v, n, o, with_query);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	hist_hold_done(h);
	return (Datum) 0;
}

/* (wait_event_type, wait_event, waits, total_ms, avg_us, max_us, pct_db_time, fidelity,
 * p50_us, p95_us, p99_us) */
Datum
pgwt_history_system_event(PG_FUNCTION_ARGS)
{
	return hist_event_rows(fcinfo, HIST_SYSTEM_EVENT, false);
}

/* (query_id, the event columns, histogram) as pgwt_query_event */
Datum
pgwt_history_query_event(PG_FUNCTION_ARGS)
{
	return hist_event_rows(fcinfo, HIST_QUERY_EVENT, true);
}

/*
 * pgwt_history_session_event: the columns of pgwt_session_event, one row
 * per session and event (hist_session_columns, then the event columns and
 * the histogram); pct_db_time is of that session's DB time, NULL for idle
 * events and background processes. Rows are waits, idle ones included
 * (pgwt_event_is_wait, as the live view); a session's CPU* is in
 * pgwt_history_session_time.
 */
Datum
pgwt_history_session_event(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistHold   *h = hist_run(fcinfo, HIST_SESSION_EVENT);

	for (size_t i = 0; i < h->res.events.n; i++)
	{
		const pgwt_event_row *r = &h->res.events.rows[i];
		Datum		v[15 + PGWT_PCT_SQL_COLS];
		bool		n[15 + PGWT_PCT_SQL_COLS] = {false};
		int			col;

		if (!r->other && !pgwt_event_is_wait(r->event))
			continue;
		col = hist_session_columns(h->eng, r->pid, r->other, r->exited, v, n);
		col = hist_event_columns(&h->names, r, v, n, col, true);
		Assert(col == 15 + PGWT_PCT_SQL_COLS);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	hist_hold_done(h);
	return (Datum) 0;
}

/*
 * pgwt_history_session_time: one row per session, its time split (the
 * identity columns of pgwt_session_event, then db_time_ms, cpu_ms,
 * wait_ms, idle_ms, top_wait_event_type, top_wait_event, top_wait_ms,
 * fidelity). db_time_ms is NULL for a background process (its time is
 * never DB time); cpu_ms and wait_ms are still its own.
 */
Datum
pgwt_history_session_time(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	HistHold   *h = hist_run(fcinfo, HIST_SESSION_TIME);

	for (size_t i = 0; i < h->res.sessions.n; i++)
	{
		const pgwt_session_row *r = &h->res.sessions.rows[i];
		Datum		v[14];
		bool		n[14] = {false};
		int			o = hist_session_columns(h->eng, r->pid, r->other, r->exited, v, n);

		const char *top_type = NULL,
				   *top_name = NULL;

		if (r->has_top_wait)
			hist_event_name_strs(&h->names, r->top_wait, &top_type, &top_name);
		o = pgwt_session_time_columns(v, n, o, r->db_ns, r->info != NULL && r->info->background,
									  r->cpu_ns, r->wait_ns, r->idle_ns, r->has_top_wait,
									  top_type, top_name, r->top_wait_ns,
									  pgwt_fidelity_name(r->fidelity));
		Assert(o == 14);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	hist_hold_done(h);
	return (Datum) 0;
}

/*
 * The class byte of wait event type 'type' if 'name' is one of its events
 * on this server; the server's spellings go to *type_out and *name_out.
 * An unknown type or event is one clear error, so a typo does not read as
 * "no waits". Custom events (Extension, InjectionPoint classes) are matched
 * by the names the server registered; the other classes by walking their
 * 16-bit event ids, which only happens once per call.
 */
static uint32
hist_resolve_event(const char *type, const char *name,
				   const char **type_out, const char **name_out)
{
	uint32		cls;
	const char *t = NULL;

	for (cls = 1; cls < PGWT_NCLASSES; cls++)
	{
		t = pgstat_get_wait_event_type(cls << 24);
		if (t != NULL && strcmp(t, "???") != 0 && pg_strcasecmp(t, type) == 0)
			break;
	}
	if (cls >= PGWT_NCLASSES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown wait event type \"%s\"", type),
				 errhint("Wait event types are those of pg_stat_activity.wait_event_type, such as IO, Lock or LWLock.")));
	*type_out = t;
	if (cls == PGWT_CLASS_EXTENSION || cls == PGWT_CLASS_INJECTIONPOINT)
	{
		if (cls == PGWT_CLASS_EXTENSION && pg_strcasecmp(name, "Extension") == 0)
		{
			*name_out = "Extension";
			return cls;
		}
#if PG_VERSION_NUM >= 170000
		{
			int			n;
			char	  **names = GetWaitEventCustomNames(cls << 24, &n);

			for (int i = 0; i < n; i++)
				if (pg_strcasecmp(names[i], name) == 0)
				{
					*name_out = names[i];
					return cls;
				}
		}
#endif
	}
	else
	{
		for (uint32 ev = 0; ev <= 0xFFFF; ev++)
		{
			const char *e = pgstat_get_wait_event((cls << 24) | ev);

			if (e != NULL && pg_strcasecmp(e, name) == 0)
			{
				*name_out = e;
				return cls;
			}
		}
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown wait event \"%s\" of type \"%s\"", name, t),
			 errhint("Wait events are those of pg_stat_activity.wait_event.")));
	return 0;					/* not reached */
}

/*
 * Event ids of the wanted class found to name another event: each is
 * looked up by name once while it holds a slot, not at every record (a
 * class of many events, e.g. LWLock, would otherwise compare strings per
 * record). The slots are replaced in turn; a slot lost costs only the
 * lookup again. Ids are never 0 (an empty slot).
 */
#define HIST_REJECT_SLOTS 16

typedef struct HistReject
{
	uint32		id[HIST_REJECT_SLOTS];
	unsigned	next;
} HistReject;

static inline bool
hist_rejected(const HistReject *rj, uint32 event)
{
	for (int i = 0; i < HIST_REJECT_SLOTS; i++)
		if (rj->id[i] == event)
			return true;
	return false;
}

static void
hist_reject(HistReject *rj, uint32 event)
{
	rj->id[rj->next] = event;
	rj->next = (rj->next + 1) % HIST_REJECT_SLOTS;
}

/*
 * pgwt_history_histogram(wait_event_type, wait_event, from, to, dir) ->
 * the row shape of every SQL histogram (hist_sql.h): the exact waits of one
 * event that ended in the range, in the 32-bucket ns layout of
 * common/histogram.h, non-empty buckets only. Raw records are read (an
 * exact wait is the transition that ends it), so no coarser summary layout
 * is involved; sampled time has no durations and is not in any bucket.
 * The event is named as every history row names one: by the directory's
 * events.tsv first (an event the writing server registered at run time,
 * which this server may lack or number otherwise), then by this server.
 */
Datum
pgwt_history_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	char	   *want_type;
	char	   *want_name;
	const char *type;
	const char *name;
	uint32		cls;
	uint64		from,
				to;
	char	   *dir;
	HistHold   *h;
	pgwt_range_batch blk;
	uint64		buckets[PGWT_HIST_NS_BUCKETS] = {0};
	uint64		total = 0;
	uint32		matched = 0;
	bool		have_match = false;
	uint32		file_id = 0;
	HistReject	rejected = {{0}, 0};
	char		spec[NAMEDATALEN * 2 + 2];
	int			rc = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("wait_event_type and wait_event are required")));
	want_type = text_to_cstring(PG_GETARG_TEXT_PP(0));
	want_name = text_to_cstring(PG_GETARG_TEXT_PP(1));
	hist_range(fcinfo, 2, 3, &from, &to);
	dir = hist_dir(fcinfo, 4);

	h = hist_hold_new();
	{
		pgwt_tf_side_damage sd;

		memset(&sd, 0, sizeof(sd));
		hist_load_names(h, dir, &sd);
		hist_warn_side(dir, &sd);
	}
	snprintf(spec, sizeof(spec), "%s:%s", want_type, want_name);
	if (strchr(want_name, ':') == NULL && h->names.noverride > 0 &&
		pgwt_event_parse(&h->names, spec, &file_id) && file_id != 0 &&
		pgwt_names_lookup(&h->names, file_id) != NULL &&
		pg_strcasecmp(pgwt_names_lookup(&h->names, file_id), want_name) == 0)
	{
		/* the files' own name: match its id, show their spelling */
		cls = file_id >> 24;
		type = pgwt_class_name(cls);
		name = pgwt_names_lookup(&h->names, file_id);
		matched = file_id;
		have_match = true;
	}
	else
		cls = hist_resolve_event(want_type, want_name, &type, &name);
	/* waits come cut to the range: each is bucketed by its time inside it
	 * (an empty range reads nothing) */
	if (from < to)
		hist_open(h, dir, from, to);
	while (h->rl != NULL && (rc = pgwt_range_next(h->rl, &blk)) == 1)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint32 i = 0; i < blk.n; i++)
		{
			const pgwt_record *rec = &blk.recs[i];
			const char *t,
					   *e;

			/* exact waits end with a transition out of the event */
			if (rec->kind != PGWT_REC_TRANSITION || rec->old_event == 0 ||
				rec->old_event == PGWT_EVENT_EXIT || PGWT_IS_MARKER(rec->old_event) ||
				(rec->old_event >> 24) != cls)
				continue;
			if (file_id != 0 && rec->old_event != file_id)
				continue;
			if (!have_match || rec->old_event != matched)
			{
				if (hist_rejected(&rejected, rec->old_event))
					continue;
				t = pgstat_get_wait_event_type(rec->old_event);
				e = pgstat_get_wait_event(rec->old_event);
				if (t == NULL || e == NULL || pg_strcasecmp(t, want_type) != 0 ||
					pg_strcasecmp(e, want_name) != 0)
				{
					hist_reject(&rejected, rec->old_event);
					continue;
				}
				matched = rec->old_event;
				have_match = true;
			}
			buckets[pgwt_hist_ns_bucket(rec->duration_ns)]++;
			total++;
		}
	}
	if (rc < 0)
		hist_read_error(dir, rc, NULL);
	if (h->rl != NULL)
		hist_warn_footers(dir, h->rl);
	hist_hold_done(h);
	InitMaterializedSRF(fcinfo, 0);
	for (unsigned b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
		if (buckets[b] != 0)
			pgwt_hist_put_row(rsinfo, type, name, b, buckets[b], total, "exact");
	return (Datum) 0;
}
