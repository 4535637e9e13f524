/*
 * trace_views.c
 *		SQL functions over the trace rings: pgwt_trace(pid) lists a process's
 *		recorded waits and markers, pgwt_trace_by_statement(pid) groups them
 *		by statement (trace_statements.c).
 *
 * Visibility as for the other views: one's own processes, those of roles
 * one has the privileges of, and everything for members of
 * pg_read_all_stats. A ring whose process has exited (kept until its
 * ProcNumber is reused) is shown only to pg_read_all_stats members.
 *
 * The ring is copied with its seqlocks (trace_ring.h): the reader never
 * blocks the traced process, and a record that changes during the copy is
 * left out rather than shown half-written.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#include "common/units.h"
#include "extension/trace_capture.h"
#include "extension/trace_statements.h"

PG_FUNCTION_INFO_V1(pgwt_trace);
PG_FUNCTION_INFO_V1(pgwt_trace_by_statement);

#define PGWT_TRACE_MAX_STATEMENTS 100000

/* Visible to the caller? (Live: by its role; exited: stats readers only.) */
static bool
pgwt_trace_visible(int pid)
{
	PGPROC	   *proc;

	if (pid == MyProcPid ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS))
		return true;
	proc = BackendPidGetProc(pid);
	return proc != NULL && OidIsValid(proc->roleId) &&
		has_privs_of_role(GetUserId(), proc->roleId);
}

/*
 * Copy the ring of pid (0 = our own) into a palloc'd array; *n records.
 * Returns false when no ring belongs to pid.
 */
static bool
pgwt_trace_copy(int pid, pgwt_tring_rec **out, size_t *n)
{
	if (pgwt_trace_shared == NULL || pgwt_trace_shared->nrings == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the trace needs a server with wait-event hooks"),
				 errhint("On this server pgwt_escalate() asks an attached external tracer instead.")));
	for (int i = 0; i < pgwt_trace_shared->nrings; i++)
	{
		pgwt_trace_ring *r = pgwt_trace_ring_at(i);
		uint32		owner;
		uint64		base,
					head,
					next;
		pgwt_tring_read_stats st = {0};

		if (!pgwt_tring_snapshot(r, &owner, &base, &head) || owner != (uint32) pid)
			continue;
		*out = palloc(sizeof(pgwt_tring_rec) * r->capacity);
		*n = pgwt_tring_read(r, (uint32) pid, 0, *out, r->capacity, &next, &st);
		return true;
	}
	*out = NULL;
	*n = 0;
	return false;
}

static TimestampTz
pgwt_trace_wall(uint64 mono_ns, uint64 now_ns, TimestampTz now_wall)
{
	return now_wall - ((int64) now_ns - (int64) mono_ns) / 1000;
}

static int
pgwt_trace_target(FunctionCallInfo fcinfo)
{
	int			pid = PG_ARGISNULL(0) ? MyProcPid : PG_GETARG_INT32(0);

	if (!pgwt_trace_visible(pid))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the trace of process %d", pid),
				 errdetail("Only roles with privileges of the process's role or of pg_read_all_stats may read it.")));
	return pid;
}

static void
pgwt_trace_event_names(uint32 event, Datum *type, Datum *name, bool *nulls)
{
	const char *t = pgstat_get_wait_event_type(event);
	const char *e = pgstat_get_wait_event(event);

	nulls[0] = (t == NULL);
	nulls[1] = (e == NULL);
	if (t)
		*type = CStringGetTextDatum(t);
	if (e)
		*name = CStringGetTextDatum(e);
}

/*
 * pgwt_trace(pid int DEFAULT NULL) RETURNS SETOF (pid int, pos bigint,
 *   kind text, wait_event_type text, wait_event text, marker text,
 *   start_time timestamptz, duration_us float8, query_id bigint)
 */
Datum
pgwt_trace(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			pid = pgwt_trace_target(fcinfo);
	pgwt_tring_rec *recs;
	size_t		n;
	uint64		now = pgwt_trace_now_ns();
	TimestampTz now_wall = GetCurrentTimestamp();

	InitMaterializedSRF(fcinfo, 0);
	if (!pgwt_trace_copy(pid, &recs, &n))
		return (Datum) 0;
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_tring_rec *r = &recs[i];
		Datum		values[9];
		bool		nulls[9] = {false};

		values[0] = Int32GetDatum(pid);
		values[1] = Int64GetDatum((int64) r->pos);
		if (r->kind == PGWT_TRING_WAIT)
		{
			values[2] = CStringGetTextDatum("wait");
			pgwt_trace_event_names(r->event, &values[3], &values[4], &nulls[3]);
			nulls[5] = true;
			values[7] = Float8GetDatum(pgwt_us_of_ns(r->duration_ns));
		}
		else
		{
			const char *m = pgwt_tring_marker_name(r->event);

			values[2] = CStringGetTextDatum("marker");
			nulls[3] = nulls[4] = true;
			if (m)
				values[5] = CStringGetTextDatum(m);
			else
				nulls[5] = true;
			nulls[7] = true;
		}
		values[6] = TimestampTzGetDatum(pgwt_trace_wall(r->start_ns, now, now_wall));
		if (r->query_id != 0)
			values[8] = Int64GetDatum((int64) r->query_id);
		else
			nulls[8] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/*
 * pgwt_trace_by_statement(pid int DEFAULT NULL) RETURNS SETOF (pid int,
 *   statement int, in_statement bool, complete bool, query_id bigint,
 *   start_time timestamptz, end_time timestamptz, duration_ms float8,
 *   waits bigint, wait_ms float8, top_wait_event_type text,
 *   top_wait_event text, top_wait_ms float8)
 */
Datum
pgwt_trace_by_statement(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			pid = pgwt_trace_target(fcinfo);
	pgwt_tring_rec *recs;
	pgwt_tstmt *groups;
	size_t		n,
				ng;
	uint64		now = pgwt_trace_now_ns();
	TimestampTz now_wall = GetCurrentTimestamp();

	InitMaterializedSRF(fcinfo, 0);
	if (!pgwt_trace_copy(pid, &recs, &n) || n == 0)
		return (Datum) 0;
	groups = palloc(sizeof(pgwt_tstmt) * Min(n, PGWT_TRACE_MAX_STATEMENTS));
	ng = pgwt_trace_group_statements(recs, n, groups, Min(n, PGWT_TRACE_MAX_STATEMENTS));
	for (size_t i = 0; i < ng; i++)
	{
		const pgwt_tstmt *g = &groups[i];
		int			top = pgwt_tstmt_top_event(g);
		Datum		values[13];
		bool		nulls[13] = {false};

		values[0] = Int32GetDatum(pid);
		values[1] = Int32GetDatum((int32) i + 1);
		values[2] = BoolGetDatum(g->in_statement);
		values[3] = BoolGetDatum(g->started && g->ended);
		if (g->query_id != 0)
			values[4] = Int64GetDatum((int64) g->query_id);
		else
			nulls[4] = true;
		values[5] = TimestampTzGetDatum(pgwt_trace_wall(g->start_ns, now, now_wall));
		values[6] = TimestampTzGetDatum(pgwt_trace_wall(g->end_ns, now, now_wall));
		values[7] = Float8GetDatum(pgwt_ms_of_ns(g->end_ns - g->start_ns));
		values[8] = Int64GetDatum((int64) g->waits);
		values[9] = Float8GetDatum(pgwt_ms_of_ns(g->wait_ns));
		if (top >= 0)
		{
			pgwt_trace_event_names(g->events[top].event, &values[10], &values[11], &nulls[10]);
			values[12] = Float8GetDatum(pgwt_ms_of_ns(g->events[top].wait_ns));
		}
		else
			nulls[10] = nulls[11] = nulls[12] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
