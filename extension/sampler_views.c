/*
 * sampler_views.c
 *		Rows of the pgwt_* views from the in-server sampler (fidelity
 *		"sampled"), the sampler's status and its recent-history ring.
 *
 * Every reader copies what it shows while holding pgwt_sampler->lock
 * shared (a memcpy of a bounded table), then builds rows with no lock
 * held. Sampled time is samples x the real tick length; what only exact
 * capture knows (wait counts, averages, maxima, histograms) is NULL, and
 * pgwt_event_histogram says so in a notice instead of showing zeros.
 *
 * Visibility follows views.c: other roles' sessions appear in per-session
 * rows and in the sample history only to members of pg_read_all_stats (or
 * of the session's role). Query ids follow pg_stat_statements: the query
 * profile is kept per (query id, role, event) (sampler.c), and a caller
 * outside pg_read_all_stats sees other roles' rows under query_id NULL.
 * pgwt_reset(pid) is views.c's function (its permission rules, the exact
 * tier's reset) followed by the sampler's.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#include "common/units.h"
#include "extension/hist_sql.h"
#include "extension/sampler.h"
#include "extension/session_sql.h"

#define PGWT_SAMPLED "sampled"

PG_FUNCTION_INFO_V1(pgwt_sampler_status);
PG_FUNCTION_INFO_V1(pgwt_sample_history);

/* views.c: pgwt_reset(pid), the permission rules and the exact tier's reset */
extern PGDLLEXPORT Datum pgwt_reset(PG_FUNCTION_ARGS);

static bool
pgwt_sampler_can_see_role(Oid userid)
{
	if (has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS))
		return true;
	return OidIsValid(userid) && has_privs_of_role(GetUserId(), userid);
}

static Datum
pgwt_sampler_text(const char *s, bool *isnull)
{
	*isnull = (s == NULL);
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/* A private copy of a table with the open runs, taken under the lock. */
static PgwtSampleTable *
pgwt_sampler_copy_table(PgwtSampleTable *t)
{
	PgwtSampleTable *copy;
	Size		bytes;

	LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
	bytes = sizeof(PgwtSampleTable) + sizeof(PgwtSampleEntry) * (Size) t->size;
	copy = palloc(bytes);
	memcpy(copy, t, bytes);
	pgwt_sampler_add_runs(copy, t);
	LWLockRelease(pgwt_sampler->lock);
	return copy;
}

/*
 * DB time of a table: every non-idle row of a session, CPU included; a
 * background process's rows are never DB time (common/process_rule.h).
 */
static uint64
pgwt_sampler_db_ns(PgwtSampleTable *t, int64 id, int64 id2, bool match)
{
	uint64		ns = 0;
	uint32		i;

	for (i = 0; i < t->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];

		if (!e->used || e->background ||
			(e->key.event != PGWT_SAMPLE_CPU_EVENT && pgwt_event_is_idle(e->key.event)))
			continue;
		if (match && (e->key.id != id || e->key.id2 != id2))
			continue;
		ns += e->time_ns;
	}
	return ns;
}

/*
 * The event columns shared with the exact views: wait_event_type,
 * wait_event, waits (NULL), total_ms, avg_us (NULL), max_us (NULL),
 * pct_db_time (NULL for idle events), fidelity. Returns the next column.
 */
static int
pgwt_sampler_event_columns(Datum *values, bool *nulls, int col, uint32 event,
						   uint64 time_ns, uint64 db_ns)
{
	values[col] = pgwt_sampler_text(pgstat_get_wait_event_type(event), &nulls[col]);
	col++;
	values[col] = pgwt_sampler_text(pgstat_get_wait_event(event), &nulls[col]);
	col++;
	nulls[col++] = true;		/* waits: a sampler does not count waits */
	values[col++] = Float8GetDatum(pgwt_ms_of_ns(time_ns));
	nulls[col++] = true;		/* avg_us */
	nulls[col++] = true;		/* max_us */
	if (pgwt_event_is_idle(event) || db_ns == 0)
		nulls[col++] = true;
	else
		values[col++] = Float8GetDatum(pgwt_pct(time_ns, db_ns));
	values[col++] = CStringGetTextDatum(PGWT_SAMPLED);
	return col;
}

/* The other half (sessions' or background) of an event row, or NULL. */
static PgwtSampleEntry *
pgwt_sampler_event_twin(PgwtSampleTable *t, const PgwtSampleEntry *e)
{
	PgwtSampleKey key = e->key;
	PgwtSampleEntry *twin;

	key.id2 = e->key.id2 ? 0 : 1;
	twin = pgwt_table_find(t, &key);
	return twin != NULL && twin->samples > 0 ? twin : NULL;
}

/*
 * One row per event: the sessions' and the background processes' time
 * together, pct_db_time the sessions' share only (NULL when only
 * background processes waited for it), as the exact tier shows it.
 */
void
pgwt_sampler_system_event(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_event);
	uint64		db_ns = pgwt_sampler_db_ns(t, 0, 0, false);
	uint32		i;

	for (i = 0; i < t->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];
		PgwtSampleEntry *twin;
		Datum		values[8 + PGWT_PCT_SQL_COLS];
		bool		nulls[8 + PGWT_PCT_SQL_COLS] = {false};
		uint64		fg_ns,
					bg_ns;

		if (!e->used || e->key.event == PGWT_SAMPLE_CPU_EVENT || e->samples == 0)
			continue;
		twin = pgwt_sampler_event_twin(t, e);
		if (e->key.id2 != 0 && twin != NULL)
			continue;			/* shown with its sessions' row */
		fg_ns = e->key.id2 == 0 ? e->time_ns : 0;
		bg_ns = e->key.id2 != 0 ? e->time_ns : (twin ? twin->time_ns : 0);
		pgwt_sampler_event_columns(values, nulls, 0, e->key.event, fg_ns + bg_ns, db_ns);
		if (fg_ns == 0)
			nulls[6] = true;
		else if (!nulls[6])
			values[6] = Float8GetDatum(pgwt_pct(fg_ns, db_ns));
		pgwt_hist_pct_columns(values, nulls, 8, NULL, 0, 0);	/* no durations */
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(t);
}

void
pgwt_sampler_event_histogram(ReturnSetInfo *rsinfo)
{
	ereport(NOTICE,
			(errmsg("pgwt_event_histogram needs exact wait durations; the sampler (fidelity \"sampled\") does not measure them"),
			 errhint("Wait-event hooks (a patched server) give exact histograms.")));
}

/*
 * The sessions' DB Time, CPU*, non-idle classes and Idle; then the
 * background processes' time apart, without pct_db_time, in the rows the
 * exact tier shows: 'Background time', 'Background CPU*', one
 * 'Background wait' per class, 'Background idle'.
 */
void
pgwt_sampler_time_model(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_event);
	uint64		class_ns[2][256] = {{0}};
	uint32		class_event[2][256] = {{0}};
	uint64		cpu_ns[2] = {0},
				idle_ns[2] = {0},
				bg_wait_ns = 0,
				db_ns = pgwt_sampler_db_ns(t, 0, 0, false);
	uint32		i;
	Datum		values[5];
	bool		nulls[5];

	for (i = 0; i < t->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];
		uint32		ev = e->key.event;
		int			bg = e->background ? 1 : 0;

		if (!e->used)
			continue;
		if (ev == PGWT_SAMPLE_CPU_EVENT)
			cpu_ns[bg] += e->time_ns;
		else if (pgwt_event_is_idle(ev))
			idle_ns[bg] += e->time_ns;
		else
		{
			class_ns[bg][ev >> 24] += e->time_ns;
			class_event[bg][ev >> 24] = ev;
			if (bg)
				bg_wait_ns += e->time_ns;
		}
	}

#define PGWT_SAMPLER_TM_ROW(name, cls, ns, show_pct) \
	do { \
		memset(nulls, 0, sizeof(nulls)); \
		values[0] = CStringGetTextDatum(name); \
		values[1] = pgwt_sampler_text(cls, &nulls[1]); \
		values[2] = Float8GetDatum(pgwt_ms_of_ns(ns)); \
		if ((show_pct) && db_ns > 0) \
			values[3] = Float8GetDatum(pgwt_pct(ns, db_ns)); \
		else \
			nulls[3] = true; \
		values[4] = CStringGetTextDatum(PGWT_SAMPLED); \
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls); \
	} while (0)

	PGWT_SAMPLER_TM_ROW("DB Time", NULL, db_ns, true);
	PGWT_SAMPLER_TM_ROW("CPU*", NULL, cpu_ns[0], true);
	for (i = 0; i < 256; i++)
	{
		const char *cls;

		if (class_event[0][i] == 0)
			continue;
		cls = pgstat_get_wait_event_type(class_event[0][i]);
		PGWT_SAMPLER_TM_ROW(cls ? cls : "?", cls, class_ns[0][i], true);
	}
	PGWT_SAMPLER_TM_ROW("Idle", NULL, idle_ns[0], false);
	PGWT_SAMPLER_TM_ROW("Background time", NULL, cpu_ns[1] + bg_wait_ns, false);
	PGWT_SAMPLER_TM_ROW("Background CPU*", NULL, cpu_ns[1], false);
	for (i = 0; i < 256; i++)
	{
		const char *cls;

		if (class_event[1][i] == 0)
			continue;
		cls = pgstat_get_wait_event_type(class_event[1][i]);
		PGWT_SAMPLER_TM_ROW("Background wait", cls, class_ns[1][i], false);
	}
	PGWT_SAMPLER_TM_ROW("Background idle", NULL, idle_ns[1], false);
#undef PGWT_SAMPLER_TM_ROW
	pfree(t);
}

/* Copy of the latest-sample array, taken under the lock. */
static PgwtSamplerProc *
pgwt_sampler_copy_procs(int *n)
{
	PgwtSamplerProc *copy;

	LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
	*n = pgwt_sampler->nprocs;
	copy = palloc(sizeof(PgwtSamplerProc) * (Size) *n);
	memcpy(copy, pgwt_sampler_procs, sizeof(PgwtSamplerProc) * (Size) *n);
	LWLockRelease(pgwt_sampler->lock);
	return copy;
}

static bool
pgwt_sampler_is_live(const PgwtSamplerProc *procs, int n, int32 pid, TimestampTz start)
{
	int			i;

	for (i = 0; i < n; i++)
		if (procs[i].pid == pid && procs[i].backend_start == start)
			return true;
	return false;
}

/*
 * The identity columns of the per-session views (pid, backend_type,
 * usesysid, datid, backend_start, session_state) of a per-backend row.
 * Returns the next column.
 */
static int
pgwt_sampler_identity_columns(Datum *values, bool *nulls, const PgwtSampleEntry *e,
							  PgwtSamplerProc *procs, int nprocs)
{
	values[0] = Int32GetDatum((int32) e->key.id);
	values[1] = pgwt_sampler_text(e->backend_type == B_INVALID ? NULL :
								  GetBackendTypeDesc((BackendType) e->backend_type), &nulls[1]);
	values[2] = ObjectIdGetDatum(e->userid);
	nulls[2] = !OidIsValid(e->userid);
	values[3] = ObjectIdGetDatum(e->dbid);
	nulls[3] = !OidIsValid(e->dbid);
	values[4] = TimestampTzGetDatum(e->key.id2);
	nulls[4] = (e->key.id2 == 0);
	values[5] = CStringGetTextDatum(pgwt_sampler_is_live(procs, nprocs, (int32) e->key.id, e->key.id2) ?
									"live" : "exited");
	return 6;
}

void
pgwt_sampler_session_event(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_backend);
	int			nprocs;
	PgwtSamplerProc *procs = pgwt_sampler_copy_procs(&nprocs);
	uint32		i;

	for (i = 0; i < t->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];
		Datum		values[15 + PGWT_PCT_SQL_COLS];
		bool		nulls[15 + PGWT_PCT_SQL_COLS] = {false};
		int			col;

		if (!e->used || e->key.event == PGWT_SAMPLE_CPU_EVENT || e->samples == 0 ||
			!pgwt_sampler_can_see_role(e->userid))
			continue;
		col = pgwt_sampler_identity_columns(values, nulls, e, procs, nprocs);
		col = pgwt_sampler_event_columns(values, nulls, col, e->key.event, e->time_ns,
										 pgwt_sampler_db_ns(t, e->key.id, e->key.id2, true));
		nulls[col] = true;		/* histogram: exact data only */
		Assert(col == 14);
		pgwt_hist_pct_columns(values, nulls, col + 1, NULL, 0, 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(procs);
	pfree(t);
}

/* order of per-backend rows: by session (pid, start), then event */
static int
pgwt_sampler_cmp_session(const void *a, const void *b)
{
	const PgwtSampleEntry *x = *(PgwtSampleEntry *const *) a;
	const PgwtSampleEntry *y = *(PgwtSampleEntry *const *) b;

	if (x->key.id != y->key.id)
		return x->key.id < y->key.id ? -1 : 1;
	if (x->key.id2 != y->key.id2)
		return x->key.id2 < y->key.id2 ? -1 : 1;
	return x->key.event < y->key.event ? -1 : x->key.event > y->key.event;
}

/*
 * pgwt_session_time from samples: a session's rows sorted together, then
 * one row per session (the columns of the exact tier's; CPU* is the
 * session's no-event samples).
 */
void
pgwt_sampler_session_time(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_backend);
	int			nprocs;
	PgwtSamplerProc *procs = pgwt_sampler_copy_procs(&nprocs);
	PgwtSampleEntry **rows = palloc(sizeof(PgwtSampleEntry *) * Max(t->used, 1));
	uint32		n = 0;

	for (uint32 i = 0; i < t->size && n < t->used; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];

		if (e->used && e->samples > 0 && pgwt_sampler_can_see_role(e->userid))
			rows[n++] = e;
	}
	qsort(rows, n, sizeof(*rows), pgwt_sampler_cmp_session);
	for (uint32 i = 0; i < n;)
	{
		const PgwtSampleEntry *s = rows[i];
		Datum		values[14];
		bool		nulls[14] = {false};
		PgwtSessionTally tally = {0};
		bool		background = false;
		int			col;

		for (; i < n && rows[i]->key.id == s->key.id && rows[i]->key.id2 == s->key.id2; i++)
		{
			background = background || rows[i]->background;
			pgwt_session_tally_add(&tally, rows[i]->key.event == PGWT_SAMPLE_CPU_EVENT ? 0 : rows[i]->key.event,
								   rows[i]->time_ns);
		}
		col = pgwt_sampler_identity_columns(values, nulls, s, procs, nprocs);
		col = pgwt_session_tally_columns(values, nulls, col, &tally, background, PGWT_SAMPLED);
		Assert(col == 14);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
	pfree(procs);
	pfree(t);
}

void
pgwt_sampler_active_rows(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_backend);
	int			nprocs,
				i;
	PgwtSamplerProc *procs = pgwt_sampler_copy_procs(&nprocs);
	TimestampTz now = GetCurrentTimestamp();
	TimestampTz reset;

	LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
	reset = pgwt_sampler->stats_reset;
	LWLockRelease(pgwt_sampler->lock);

	for (i = 0; i < nprocs; i++)
	{
		PgwtSamplerProc *p = &procs[i];
		Datum		values[13];
		bool		nulls[13] = {false};
		PgwtSampleKey key;
		PgwtSampleEntry *cpu;

		if (p->pid == 0 || !pgwt_sampler_can_see_role(p->userid))
			continue;
		values[0] = Int32GetDatum(p->pid);
		values[1] = pgwt_sampler_text(p->backend_type == B_INVALID ? NULL :
									  GetBackendTypeDesc((BackendType) p->backend_type), &nulls[1]);
		values[2] = ObjectIdGetDatum(p->userid);
		nulls[2] = !OidIsValid(p->userid);
		values[3] = ObjectIdGetDatum(p->dbid);
		nulls[3] = !OidIsValid(p->dbid);
		values[4] = TimestampTzGetDatum(p->backend_start);
		nulls[4] = (p->backend_start == 0);
		/* our own session is running this query, whatever the last tick saw */
		if (p->pid == MyProcPid)
		{
			p->state = PGWT_SAMPLE_CPU;
			p->event = 0;
		}
		values[5] = CStringGetTextDatum(p->state == PGWT_SAMPLE_CPU ? "on cpu" :
										p->state == PGWT_SAMPLE_IDLE ? "idle" : "waiting");
		if (p->event == 0)
			nulls[6] = nulls[7] = nulls[8] = true;
		else
		{
			values[6] = pgwt_sampler_text(pgstat_get_wait_event_type(p->event), &nulls[6]);
			values[7] = pgwt_sampler_text(pgstat_get_wait_event(p->event), &nulls[7]);
			/* since the first tick that saw this wait: sampled, not exact */
			values[8] = Float8GetDatum(now > p->since ? pgwt_ms_of_ns((now - p->since) * 1e3) : 0.0);
		}
		memset(&key, 0, sizeof(key));
		key.id = p->pid;
		key.id2 = p->backend_start;
		key.event = PGWT_SAMPLE_CPU_EVENT;
		cpu = pgwt_table_find(t, &key);
		/* a background process's time is not DB time */
		if (p->background)
			nulls[9] = true;
		else
			values[9] = Float8GetDatum(pgwt_ms_of_ns(pgwt_sampler_db_ns(t, p->pid, p->backend_start, true)));
		values[10] = Float8GetDatum(cpu ? pgwt_ms_of_ns(cpu->time_ns) : 0.0);
		values[11] = TimestampTzGetDatum(Max(reset, p->stats_reset));
		values[12] = CStringGetTextDatum(PGWT_SAMPLED);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(procs);
	pfree(t);
}

/* A query row as the caller sees it. */
typedef struct PgwtSampledQueryRow
{
	bool		hidden;			/* another role's: query_id NULL */
	int64		query_id;
	uint32		event;
	uint64		time_ns;
} PgwtSampledQueryRow;

static int
pgwt_sampler_query_row_cmp(const void *a, const void *b)
{
	const PgwtSampledQueryRow *x = a,
			   *y = b;

	if (x->hidden != y->hidden)
		return x->hidden ? 1 : -1;
	if (x->query_id != y->query_id)
		return x->query_id < y->query_id ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return 0;
}

/*
 * Query rows: a caller outside pg_read_all_stats sees other roles' query
 * ids as NULL (pg_stat_statements' rule; the row's role is key.id2), and
 * rows that then look the same are one row.
 */
void
pgwt_sampler_query_event(ReturnSetInfo *rsinfo)
{
	PgwtSampleTable *t = pgwt_sampler_copy_table(pgwt_sampler_by_query);
	bool		all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	Oid			me = GetUserId();
	PgwtSampledQueryRow *rows = palloc(sizeof(PgwtSampledQueryRow) * Max(t->size, 1));
	uint32		n = 0,
				i;

	for (i = 0; i < t->size; i++)
	{
		const PgwtSampleEntry *e = &pgwt_table_rows(t)[i];
		PgwtSampledQueryRow *r = &rows[n];

		/* like the exact view: waits only (CPU is in the time model) */
		if (!e->used || e->key.event == PGWT_SAMPLE_CPU_EVENT || e->samples == 0)
			continue;
		r->hidden = !all && (Oid) e->key.id2 != me;
		r->query_id = r->hidden ? 0 : e->key.id;
		r->event = e->key.event;
		r->time_ns = e->time_ns;
		n++;
	}
	if (n > 1)
		qsort(rows, n, sizeof(PgwtSampledQueryRow), pgwt_sampler_query_row_cmp);
	for (i = 0; i < n; i++)
	{
		PgwtSampledQueryRow r = rows[i];
		Datum		values[10 + PGWT_PCT_SQL_COLS];
		bool		nulls[10 + PGWT_PCT_SQL_COLS] = {false};
		int			col;

		/* rows of several roles that look the same: one row */
		while (i + 1 < n && pgwt_sampler_query_row_cmp(&r, &rows[i + 1]) == 0)
			r.time_ns += rows[++i].time_ns;
		if (r.hidden)
			nulls[0] = true;
		else
			values[0] = Int64GetDatum(r.query_id);
		col = pgwt_sampler_event_columns(values, nulls, 1, r.event, r.time_ns, 0);
		nulls[col] = true;		/* histogram: exact data only */
		Assert(col == 9);
		pgwt_hist_pct_columns(values, nulls, col + 1, NULL, 0, 0);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(rows);
	pfree(t);
}

/*
 * Columns of pgwt_sampler_status: 22 since 0.9 (skipped_ticks last); the 21
 * of an older SQL definition are still served, so a new library under an
 * extension not yet updated keeps working.
 */
#define PGWT_SAMPLER_STATUS_COLS 22
#define PGWT_SAMPLER_STATUS_COLS_0_8 21

/* pgwt_sampler_status(): one row; NULL counters when the sampler is off. */
Datum
pgwt_sampler_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[PGWT_SAMPLER_STATUS_COLS];
	bool		nulls[PGWT_SAMPLER_STATUS_COLS] = {false};
	int			i;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != PGWT_SAMPLER_STATUS_COLS &&
		tupdesc->natts != PGWT_SAMPLER_STATUS_COLS_0_8)
		elog(ERROR, "pgwt_sampler_status: expected %d columns, got %d",
			 PGWT_SAMPLER_STATUS_COLS, tupdesc->natts);

	values[0] = CStringGetTextDatum(pgwt_sampler_mode_name());
	values[1] = BoolGetDatum(pgwt_sampler_active());
	values[2] = Int32GetDatum(pgwt_sample_rate);
	for (i = 3; i < PGWT_SAMPLER_STATUS_COLS; i++)
		nulls[i] = true;
	if (pgwt_sampler_active())
	{
		uint32		oldest;

		for (i = 3; i < PGWT_SAMPLER_STATUS_COLS; i++)
			nulls[i] = false;
		LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
		values[3] = Int32GetDatum(pgwt_sampler->worker_pid);
		nulls[3] = (pgwt_sampler->worker_pid == 0);
		values[4] = Int32GetDatum(pgwt_sampler->worker_starts);
		values[5] = Int32GetDatum(pgwt_sampler->quick_restarts);
		values[6] = Int32GetDatum(pgwt_sampler->backoff_s);
		values[7] = Int64GetDatum((int64) pgwt_sampler->ticks);
		values[8] = Int64GetDatum((int64) pgwt_sampler->late_ticks);
		values[9] = Float8GetDatum(pgwt_s_of_ns(pgwt_sampler->sampled_ns));
		values[10] = Int32GetDatum((int32) pgwt_sampler_by_query->used);
		values[11] = Int32GetDatum((int32) pgwt_sampler_by_query->max_used);
		values[12] = Int64GetDatum((int64) pgwt_sampler_by_query->evictions);
		values[13] = Int32GetDatum((int32) pgwt_sampler_by_backend->used);
		values[14] = Int64GetDatum((int64) pgwt_sampler_by_backend->evictions);
		values[15] = Int32GetDatum((int32) pgwt_sampler_ring->capacity);
		values[16] = Int32GetDatum((int32) pgwt_ring_held(pgwt_sampler_ring, &oldest));
		values[17] = Int64GetDatum((int64) pgwt_sampler_ring->written);
		values[18] = Int64GetDatum((int64) pgwt_sampler->reads_retried);
		values[19] = Int64GetDatum((int64) pgwt_sampler_shmem_size());
		values[20] = TimestampTzGetDatum(pgwt_sampler->stats_reset);
		values[21] = Int64GetDatum((int64) pgwt_sampler->skipped_ticks);
		LWLockRelease(pgwt_sampler->lock);
	}
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * pgwt_sample_history(): the ring's non-idle samples, oldest first, of the
 * sessions the caller may see.
 */
Datum
pgwt_sample_history(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	PgwtHistorySample *copy;
	uint32		held,
				oldest,
				cap,
				i;
	bool		all_stats,
				last_visible = false;
	Oid			last_role = InvalidOid;

	InitMaterializedSRF(fcinfo, 0);
	if (!pgwt_sampler_active())
		return (Datum) 0;

	LWLockAcquire(pgwt_sampler->lock, LW_SHARED);
	held = pgwt_ring_held(pgwt_sampler_ring, &oldest);
	cap = pgwt_sampler_ring->capacity;
	copy = palloc(sizeof(PgwtHistorySample) * (Size) Max(cap, 1));
	memcpy(copy, pgwt_ring_slots(pgwt_sampler_ring), sizeof(PgwtHistorySample) * (Size) cap);
	LWLockRelease(pgwt_sampler->lock);

	all_stats = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
	for (i = 0; i < held; i++)
	{
		PgwtHistorySample *h = &copy[(oldest + i) % cap];
		Datum		values[7];
		bool		nulls[7] = {false};

		/* as pg_stat_activity: other roles' sessions need pg_read_all_stats */
		if (!all_stats)
		{
			if (h->userid != last_role)
			{
				last_role = h->userid;
				last_visible = pgwt_sampler_can_see_role(h->userid);
			}
			if (!last_visible)
				continue;
		}

		values[0] = TimestampTzGetDatum(h->ts);
		values[1] = Int32GetDatum(h->pid);
		values[2] = pgwt_sampler_text(h->backend_type == B_INVALID ? NULL :
									  GetBackendTypeDesc((BackendType) h->backend_type), &nulls[2]);
		values[3] = CStringGetTextDatum(h->event == 0 ? "on cpu" : "waiting");
		if (h->event == 0)
			nulls[4] = nulls[5] = true;
		else
		{
			values[4] = pgwt_sampler_text(pgstat_get_wait_event_type(h->event), &nulls[4]);
			values[5] = pgwt_sampler_text(pgstat_get_wait_event(h->event), &nulls[5]);
		}
		values[6] = Int64GetDatum(h->query_id);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	pfree(copy);
	return (Datum) 0;
}

