/*
 * trace_views.c
 *		SQL functions over the trace rings: pgwt_trace(pid) lists a process's
 *		recorded waits and markers, pgwt_trace_by_statement(pid) groups them
 *		by statement (trace_statements.c).
 *
 * Whose ring: the pool's ring (trace_pool.h) that the process with the pid
 * holds, or last gave back while its records are still there, where the
 * process is the one pg_stat_activity lists now (this transaction's
 * snapshot of the backend status array: pid, backend_start, role). A ring
 * carries its owner's identity (trace_ring.h); it is shown only when that
 * identity is the process's, same pid and same start time. An exited
 * session's ring, or one of an earlier process that had the same pid, is
 * never shown under the pid. A process that holds no ring (it traces
 * nothing, or the pool was empty) has an empty trace.
 *
 * Visibility as pg_stat_activity: a role sees the processes of roles it
 * has the privileges of, members of pg_read_all_stats see all. It is
 * checked against the holder (permission error) and again against the
 * role the ring itself carries, so records are shown only under the role
 * that recorded them. A pid that is no server process is an error.
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
#include "utils/acl.h"
#include "utils/backend_status.h"
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

/* The process whose ring is asked for, as pg_stat_activity knows it. */
typedef struct PgwtTraceTarget
{
	int			pid;
	TimestampTz start_time;
	Oid			role;			/* InvalidOid: none (auxiliary processes) */
	bool		self;
} PgwtTraceTarget;

/* pg_stat_activity's rule: pg_read_all_stats, or the privileges of role. */
static bool
pgwt_trace_can_see_role(Oid role)
{
	if (has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS))
		return true;
	return OidIsValid(role) && has_privs_of_role(GetUserId(), role);
}

static void
pgwt_trace_needs_rings(void)
{
	if (pgwt_trace_shared == NULL || pgwt_trace_shared->nrings == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the trace needs a server with wait-event hooks"),
				 errhint("On this server pgwt_escalate() asks an attached external tracer instead.")));
}

/*
 * The holder of pid (NULL argument: this session), checked: a pid that is
 * no server process is an error, and so is one the caller may not see.
 */
static void
pgwt_trace_target(FunctionCallInfo fcinfo, PgwtTraceTarget *t)
{
	int			pid = PG_ARGISNULL(0) ? MyProcPid : PG_GETARG_INT32(0);

	if (pid <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid process ID %d", pid),
				 errhint("Give the pid of a server process (pg_stat_activity.pid), or NULL for this session.")));
	pgwt_trace_needs_rings();
	memset(t, 0, sizeof(*t));
	t->pid = pid;
#ifdef PGWT_COOP_BUILD
	if (pid == MyProcPid)
	{
		t->start_time = MyStartTimestamp;
		t->role = MyProc->roleId;
		t->self = true;
		return;
	}
	{
		int			n = pgstat_fetch_stat_numbackends();
		bool		found = false;

		for (int i = 1; i <= n && !found; i++)
		{
			LocalPgBackendStatus *l = pgstat_get_local_beentry_by_index(i);

			if (l == NULL || l->backendStatus.st_procpid != pid)
				continue;
			t->start_time = l->backendStatus.st_proc_start_timestamp;
			t->role = l->backendStatus.st_userid;
			found = true;
		}
		if (!found)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("PID %d is not a PostgreSQL server process", pid),
					 errdetail("Only a live process listed in pg_stat_activity has a trace.")));
	}
#endif
	if (!t->self && !pgwt_trace_can_see_role(t->role))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to read the trace of process %d", pid),
				 errdetail("Only roles with privileges of the process's role or of pg_read_all_stats may read it.")));
}

/*
 * Copy the target's ring into a palloc'd array; *n records. Nothing when
 * it holds none, when the ring's owner is not the target (another process
 * that had the pid), or carries a role the caller may not see.
 */
static bool
pgwt_trace_copy(const PgwtTraceTarget *t, pgwt_tring_rec **out, size_t *n)
{
	pgwt_trace_ring *r = pgwt_trace_ring_at(pgwt_tpool_find(pgwt_trace_pool_words(),
															pgwt_trace_shared->nrings,
															(uint32) t->pid));
	pgwt_tring_owner who;
	pgwt_tring_read_stats st = {0};
	uint64		base,
				head,
				next;

	*out = NULL;
	*n = 0;
	if (r == NULL || !pgwt_tring_owner_of(r, &who, &base, &head))
		return false;
	if (who.pid != (uint32) t->pid || who.start_time != (int64_t) t->start_time)
		return false;
	if (!t->self && !pgwt_trace_can_see_role((Oid) who.role))
		return false;
	*out = palloc(sizeof(pgwt_tring_rec) * r->capacity);
	*n = pgwt_tring_read_owner(r, &who, 0, *out, r->capacity, &next, &st);
	return true;
}

static TimestampTz
pgwt_trace_wall(uint64 mono_ns, uint64 now_ns, TimestampTz now_wall)
{
	return now_wall - ((int64) now_ns - (int64) mono_ns) / 1000;
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
	PgwtTraceTarget target;
	pgwt_tring_rec *recs;
	size_t		n;
	uint64		now = pgwt_trace_now_ns();
	TimestampTz now_wall = GetCurrentTimestamp();

	pgwt_trace_target(fcinfo, &target);
	InitMaterializedSRF(fcinfo, 0);
	if (!pgwt_trace_copy(&target, &recs, &n))
		return (Datum) 0;
	for (size_t i = 0; i < n; i++)
	{
		const pgwt_tring_rec *r = &recs[i];
		Datum		values[9];
		bool		nulls[9] = {false};

		values[0] = Int32GetDatum(target.pid);
		values[1] = Int64GetDatum((int64) r->pos);
		if (r->kind == PGWT_TRING_WAIT)
		{
			values[2] = CStringGetTextDatum("wait");
			pgwt_trace_event_names(r->event, &values[3], &values[4], &nulls[3]);
			nulls[5] = true;
			values[7] = Float8GetDatum(pgwt_us_of_ns(r->duration_ns));
		}
		else if (r->kind == PGWT_TRING_EXIT || r->kind == PGWT_TRING_START)
		{
			values[2] = CStringGetTextDatum(r->kind == PGWT_TRING_EXIT ? "exit" : "start");
			nulls[3] = nulls[4] = nulls[5] = nulls[7] = true;
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
	PgwtTraceTarget target;
	pgwt_tring_rec *recs;
	pgwt_tstmt *groups;
	size_t		n,
				ng;
	uint64		now = pgwt_trace_now_ns();
	TimestampTz now_wall = GetCurrentTimestamp();

	pgwt_trace_target(fcinfo, &target);
	InitMaterializedSRF(fcinfo, 0);
	if (!pgwt_trace_copy(&target, &recs, &n) || n == 0)
		return (Datum) 0;
	groups = palloc(sizeof(pgwt_tstmt) * Min(n, PGWT_TRACE_MAX_STATEMENTS));
	ng = pgwt_trace_group_statements(recs, n, groups, Min(n, PGWT_TRACE_MAX_STATEMENTS));
	for (size_t i = 0; i < ng; i++)
	{
		const pgwt_tstmt *g = &groups[i];
		int			top = pgwt_tstmt_top_event(g);
		Datum		values[13];
		bool		nulls[13] = {false};

		values[0] = Int32GetDatum(target.pid);
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
