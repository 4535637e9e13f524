/*
 * views.c
 *		SQL functions behind the pgwt_* views, and the reset functions.
 *
 * Readers never block the hooks: per-backend numbers are copied with the
 * slot seqlock (backend_slots.c). System-wide numbers (retired totals plus
 * every slot) are read under slots_lock shared, so a slot being folded into
 * the retired totals is counted exactly once. The query table is copied
 * under query_lock shared (query_table.c).
 *
 * Visibility follows pg_stat_activity: other roles' sessions appear in the
 * per-session views only to members of pg_read_all_stats (or of the
 * session's role). System, histogram and time-model views are aggregates
 * without user data and are visible to everyone. Query ids follow
 * pg_stat_statements: shown to superusers, members of pg_read_all_stats
 * and the role whose sessions ran the statement; the waits of other roles'
 * statements are still shown, under query_id NULL. So each row of the query
 * table carries the role of the sessions that waited (PgwtQueryKey.userid,
 * filled by coop_hooks.c), and the view adds up the rows that look the
 * same to the caller.
 *
 * Resets follow PostgreSQL 18's pg_signal_backend() exactly (with the same
 * error codes, and its messages with "reset wait statistics" for "cancel
 * query"): a target that is not a backend gets a warning and false;
 * targets owned by superusers or without a role need superuser, except
 * autovacuum workers, which members of pg_signal_autovacuum_worker may
 * reset; any other target needs the privileges of its role or of
 * pg_signal_backend. pgwt_reset_all() needs superuser.
 *
 * Time model (coop tier): DB time = CPU* + non-idle waits of foreground
 * processes (client backends and their parallel workers), where CPU* is
 * the time a backend spends with no wait event set, measured as the sum of
 * gaps between consecutive waits since its slot was claimed (or reset);
 * idle = the Activity class and Client:ClientRead. Background processes
 * (auxiliary processes, autovacuum, walsenders, other background workers)
 * have rows of their own in pgwt_time_model and no pct_db_time; their
 * waits still appear in pgwt_system_event, whose pct_db_time counts only
 * the foreground share of each event.
 */
#include "postgres.h"

#include "catalog/pg_authid.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "storage/procarray.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "common/units.h"
#include "extension/hist_sql.h"
#include "extension/session_sql.h"
#include "extension/pgwt_shared.h"
#include "extension/pgwt_clock.h"
#include "extension/sampler.h"

PG_FUNCTION_INFO_V1(pgwt_system_event);
PG_FUNCTION_INFO_V1(pgwt_event_histogram);
PG_FUNCTION_INFO_V1(pgwt_time_model);
PG_FUNCTION_INFO_V1(pgwt_session_event);
PG_FUNCTION_INFO_V1(pgwt_session_time);
PG_FUNCTION_INFO_V1(pgwt_active);
PG_FUNCTION_INFO_V1(pgwt_query_event);
PG_FUNCTION_INFO_V1(pgwt_reset);
PG_FUNCTION_INFO_V1(pgwt_reset_all);

#define PGWT_FIDELITY "exact"

#ifdef PGWT_COOP_BUILD

/* system-wide event table: a power of two above retired + one slot's events */
#define PGWT_SNAP_EVENTS 1024

static bool
pgwt_can_see_role(Oid userid)
{
	if (has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS))
		return true;
	return OidIsValid(userid) && has_privs_of_role(GetUserId(), userid);
}

static void
pgwt_snap_add(PgwtEventStat *tab, int size, const PgwtEventStat *src, uint64 *lost)
{
	PgwtEventStat *dst;

	if (src->event == 0 || src->agg.count == 0)
		return;
	dst = pgwt_event_lookup(tab, size, src->event, true);
	if (dst)
		pgwt_agg_merge(&dst->agg, &src->agg);
	else
		*lost += src->agg.count;
}

/*
 * System-wide numbers: every process ('all', PGWT_SNAP_EVENTS rows) and the
 * background processes' share of them ('background', same size; every
 * event there is also in 'all').
 */
typedef struct PgwtSystemSnap
{
	PgwtEventStat *all;
	PgwtEventStat *background;
	uint64		cpu_ns;
	uint64		background_cpu_ns;
} PgwtSystemSnap;

/* Retired totals + every slot. */
static void
pgwt_system_snapshot(PgwtSystemSnap *snap)
{
	PgwtSlot   *copy = palloc(sizeof(PgwtSlot));
	uint64		lost = 0;
	int			i,
				j;

	snap->all = palloc0(sizeof(PgwtEventStat) * PGWT_SNAP_EVENTS);
	snap->background = palloc0(sizeof(PgwtEventStat) * PGWT_SNAP_EVENTS);
	snap->cpu_ns = 0;
	snap->background_cpu_ns = 0;
	if (pgwt_shared == NULL)
		return;
	LWLockAcquire(pgwt_shared->slots_lock, LW_SHARED);
	for (i = 0; i < PGWT_RETIRED_EVENTS; i++)
	{
		pgwt_snap_add(snap->all, PGWT_SNAP_EVENTS, &pgwt_shared->retired[i], &lost);
		pgwt_snap_add(snap->background, PGWT_SNAP_EVENTS,
					  &pgwt_shared->retired_background[i], &lost);
	}
	snap->cpu_ns = pgwt_shared->retired_cpu_ns;
	snap->background_cpu_ns = pgwt_shared->retired_background_cpu_ns;
	for (i = 0; i < pgwt_shared->nslots; i++)
	{
		if (pgwt_slots[i].state == PGWT_SLOT_FREE)
			continue;
		pgwt_slot_copy(&pgwt_slots[i], copy);
		if (copy->state == PGWT_SLOT_FREE || pgwt_slot_reset_pending(copy))
			continue;
		for (j = 0; j < PGWT_SLOT_EVENTS; j++)
		{
			pgwt_snap_add(snap->all, PGWT_SNAP_EVENTS, &copy->events[j], &lost);
			if (!copy->foreground)
				pgwt_snap_add(snap->background, PGWT_SNAP_EVENTS, &copy->events[j], &lost);
		}
		snap->cpu_ns += copy->cpu_ns;
		if (!copy->foreground)
			snap->background_cpu_ns += copy->cpu_ns;
	}
	LWLockRelease(pgwt_shared->slots_lock);
	pfree(copy);
}

static void
pgwt_system_snapshot_free(PgwtSystemSnap *snap)
{
	pfree(snap->all);
	pfree(snap->background);
}

/* The background processes' share of row 'row' of snap->all (NULL: none). */
static const PgwtAgg *
pgwt_snap_background_agg(const PgwtSystemSnap *snap, const PgwtEventStat *row)
{
	PgwtEventStat *bg = pgwt_event_lookup(snap->background, PGWT_SNAP_EVENTS,
										  row->event, false);

	return bg != NULL ? &bg->agg : NULL;
}

/* Foreground (client backends and parallel workers) time of one event. */
static uint64
pgwt_snap_foreground_ns(const PgwtSystemSnap *snap, const PgwtEventStat *row)
{
	const PgwtAgg *bg = pgwt_snap_background_agg(snap, row);
	uint64		bg_ns = bg != NULL ? bg->total_ns : 0;

	return row->agg.total_ns > bg_ns ? row->agg.total_ns - bg_ns : 0;
}

/* DB time: foreground CPU* + foreground non-idle waits. */
static uint64
pgwt_snap_db_time_ns(const PgwtSystemSnap *snap)
{
	uint64		db = snap->cpu_ns > snap->background_cpu_ns ?
		snap->cpu_ns - snap->background_cpu_ns : 0;
	int			i;

	for (i = 0; i < PGWT_SNAP_EVENTS; i++)
		if (snap->all[i].event != 0 && !pgwt_event_is_idle(snap->all[i].event))
			db += pgwt_snap_foreground_ns(snap, &snap->all[i]);
	return db;
}

/* One session's own time: CPU* + non-idle waits. */
static uint64
pgwt_session_time_ns(const PgwtEventStat *tab, int size, uint64 cpu_ns)
{
	uint64		db = cpu_ns;
	int			i;

	for (i = 0; i < size; i++)
		if (tab[i].event != 0 && !pgwt_event_is_idle(tab[i].event))
			db += tab[i].agg.total_ns;
	return db;
}

static Datum
pgwt_text_or_null(const char *s, bool *isnull)
{
	*isnull = (s == NULL);
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/*
 * The common event columns: wait_event_type, wait_event, waits, total_ms,
 * avg_us, max_us, pct_db_time, fidelity. pct_db_time is db_share_ns over
 * db_time_ns, NULL for idle events and when either is 0 (no DB time, or
 * only background processes waited for it). Returns the next free column.
 */
static int
pgwt_event_columns(Datum *values, bool *nulls, int col, uint32 event,
				   const PgwtAgg *agg, uint64 db_share_ns, uint64 db_time_ns)
{
	values[col] = pgwt_text_or_null(pgstat_get_wait_event_type(event), &nulls[col]);
	col++;
	values[col] = pgwt_text_or_null(pgstat_get_wait_event(event), &nulls[col]);
	col++;
	values[col++] = Int64GetDatum((int64) agg->count);
	values[col++] = Float8GetDatum(pgwt_ms_of_ns(agg->total_ns));
	values[col++] = Float8GetDatum(agg->count ? pgwt_us_of_ns((double) agg->total_ns / agg->count) : 0.0);
	values[col++] = Float8GetDatum(pgwt_us_of_ns(agg->max_ns));
	if (pgwt_event_is_idle(event) || db_time_ns == 0 || db_share_ns == 0)
		nulls[col++] = true;
	else
		values[col++] = Float8GetDatum(pgwt_pct(db_share_ns, db_time_ns));
	values[col++] = CStringGetTextDatum(PGWT_FIDELITY);
	return col;
}

/* As pg_stat_activity.backend_type: a background worker by its bgw_type. */
static const char *
pgwt_backend_type_name(const PgwtSlot *copy)
{
	if (copy->backend_type == B_BG_WORKER && copy->bgw_type[0] != '\0')
		return copy->bgw_type;
	return GetBackendTypeDesc((BackendType) copy->backend_type);
}

#endif							/* PGWT_COOP_BUILD */

/* pgwt_system_event: one row per event seen, all backends, since reset. */
Datum
pgwt_system_event(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_system_event(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	{
		PgwtSystemSnap snap;
		uint64		db_ns;
		int			i;

		pgwt_system_snapshot(&snap);
		db_ns = pgwt_snap_db_time_ns(&snap);
		for (i = 0; i < PGWT_SNAP_EVENTS; i++)
		{
			const PgwtEventStat *row = &snap.all[i];
			Datum		values[8 + PGWT_PCT_SQL_COLS];
			bool		nulls[8 + PGWT_PCT_SQL_COLS] = {false};
			int			col;

			if (row->event == 0 || row->agg.count == 0)
				continue;
			col = pgwt_event_columns(values, nulls, 0, row->event, &row->agg,
									 pgwt_snap_foreground_ns(&snap, row), db_ns);
			pgwt_hist_pct_columns(values, nulls, col, row->agg.hist, row->agg.min_ns, row->agg.max_ns);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		pgwt_system_snapshot_free(&snap);
	}
#endif
	return (Datum) 0;
}

/* pgwt_event_histogram: non-empty ns buckets of every event, system-wide
 * (row shape: hist_sql.h). */
Datum
pgwt_event_histogram(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_event_histogram(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	{
		PgwtSystemSnap snap;
		PgwtEventStat *tab;
		int			i;
		unsigned	b;

		pgwt_system_snapshot(&snap);
		tab = snap.all;
		for (i = 0; i < PGWT_SNAP_EVENTS; i++)
		{
			const char *type;
			const char *name;

			if (tab[i].event == 0 || tab[i].agg.count == 0)
				continue;
			type = pgstat_get_wait_event_type(tab[i].event);
			name = pgstat_get_wait_event(tab[i].event);
			for (b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
				if (tab[i].agg.hist[b] != 0)
					pgwt_hist_put_row(rsinfo, type, name, b, tab[i].agg.hist[b],
									  tab[i].agg.count, PGWT_FIDELITY);
		}
		pgwt_system_snapshot_free(&snap);
	}
#endif
	return (Datum) 0;
}

/*
 * pgwt_time_model: DB Time, CPU*, each non-idle class and Idle of the
 * foreground processes (client backends, parallel workers); then the
 * background processes' time apart: 'Background time' (their CPU* plus
 * non-idle waits), 'Background CPU*', one 'Background wait' row per class
 * and 'Background idle', all without pct_db_time.
 */
Datum
pgwt_time_model(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_time_model(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	if (pgwt_shared != NULL)
	{
		PgwtSystemSnap snap;
		uint64		fg_class_ns[256] = {0};
		uint64		bg_class_ns[256] = {0};
		uint32		fg_class_event[256] = {0};
		uint32		bg_class_event[256] = {0};
		uint64		fg_cpu_ns,
					db_ns,
					fg_idle_ns = 0,
					bg_idle_ns = 0,
					bg_wait_ns = 0;
		int			i;
		Datum		values[5];
		bool		nulls[5];

		pgwt_system_snapshot(&snap);
		db_ns = pgwt_snap_db_time_ns(&snap);
		fg_cpu_ns = snap.cpu_ns > snap.background_cpu_ns ?
			snap.cpu_ns - snap.background_cpu_ns : 0;
		for (i = 0; i < PGWT_SNAP_EVENTS; i++)
		{
			const PgwtEventStat *row = &snap.all[i];
			const PgwtAgg *bg = pgwt_snap_background_agg(&snap, row);
			uint32		ev = row->event;
			uint64		fg_ns,
						bg_ns;

			if (ev == 0 || row->agg.count == 0)
				continue;
			fg_ns = pgwt_snap_foreground_ns(&snap, row);
			bg_ns = row->agg.total_ns - fg_ns;
			if (pgwt_event_is_idle(ev))
			{
				fg_idle_ns += fg_ns;
				bg_idle_ns += bg_ns;
				continue;
			}
			/* a class row exists when any of its waits was foreground */
			if (bg == NULL || bg->count < row->agg.count)
			{
				fg_class_ns[ev >> 24] += fg_ns;
				fg_class_event[ev >> 24] = ev;
			}
			if (bg != NULL && bg->count > 0)
			{
				bg_class_ns[ev >> 24] += bg_ns;
				bg_class_event[ev >> 24] = ev;
				bg_wait_ns += bg_ns;
			}
		}

#define PGWT_TM_ROW(name, cls, ns, show_pct) \
		do { \
			memset(nulls, 0, sizeof(nulls)); \
			values[0] = CStringGetTextDatum(name); \
			values[1] = pgwt_text_or_null(cls, &nulls[1]); \
			values[2] = Float8GetDatum(pgwt_ms_of_ns(ns)); \
			if ((show_pct) && db_ns > 0) \
				values[3] = Float8GetDatum(pgwt_pct(ns, db_ns)); \
			else \
				nulls[3] = true; \
			values[4] = CStringGetTextDatum(PGWT_FIDELITY); \
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls); \
		} while (0)

		PGWT_TM_ROW("DB Time", NULL, db_ns, true);
		PGWT_TM_ROW("CPU*", NULL, fg_cpu_ns, true);
		for (i = 0; i < 256; i++)
		{
			const char *cls;

			if (fg_class_event[i] == 0)
				continue;
			cls = pgstat_get_wait_event_type(fg_class_event[i]);
			PGWT_TM_ROW(cls ? cls : "?", cls, fg_class_ns[i], true);
		}
		PGWT_TM_ROW("Idle", NULL, fg_idle_ns, false);
		PGWT_TM_ROW("Background time", NULL, snap.background_cpu_ns + bg_wait_ns, false);
		PGWT_TM_ROW("Background CPU*", NULL, snap.background_cpu_ns, false);
		for (i = 0; i < 256; i++)
		{
			const char *cls;

			if (bg_class_event[i] == 0)
				continue;
			cls = pgstat_get_wait_event_type(bg_class_event[i]);
			PGWT_TM_ROW("Background wait", cls, bg_class_ns[i], false);
		}
		PGWT_TM_ROW("Background idle", NULL, bg_idle_ns, false);
#undef PGWT_TM_ROW
		pgwt_system_snapshot_free(&snap);
	}
#endif
	return (Datum) 0;
}

#ifdef PGWT_COOP_BUILD
/*
 * The identity columns of every per-session view (pid, backend_type,
 * usesysid, datid, backend_start, session_state) of a slot copy. Returns
 * the next column.
 */
static int
pgwt_slot_identity_columns(const PgwtSlot *copy, Datum *values, bool *nulls)
{
	values[0] = Int32GetDatum(copy->pid);
	values[1] = CStringGetTextDatum(pgwt_backend_type_name(copy));
	values[2] = ObjectIdGetDatum(copy->userid);
	nulls[2] = !OidIsValid(copy->userid);
	values[3] = ObjectIdGetDatum(copy->dbid);
	nulls[3] = !OidIsValid(copy->dbid);
	values[4] = TimestampTzGetDatum(copy->start_time);
	values[5] = CStringGetTextDatum(copy->state == PGWT_SLOT_LIVE ? "live" : "exited");
	return 6;
}
#endif

#ifdef PGWT_COOP_BUILD
/*
 * The next session slot after *i that this role may see and that no reset
 * is clearing, copied into copy; false past the last. The per-session views
 * all walk the slots this way.
 */
static bool
pgwt_views_next_session(int *i, PgwtSlot *copy)
{
	while (++*i < pgwt_shared->nslots)
	{
		if (pgwt_slots[*i].state == PGWT_SLOT_FREE)
			continue;
		pgwt_slot_copy(&pgwt_slots[*i], copy);
		if (copy->state == PGWT_SLOT_FREE || !pgwt_can_see_role(copy->userid) ||
			pgwt_slot_reset_pending(copy))
			continue;
		return true;
	}
	return false;
}
#endif

/*
 * pgwt_session_event: per visible session (live or exited, under the
 * identity that recorded the numbers) and event.
 */
Datum
pgwt_session_event(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_session_event(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	if (pgwt_shared != NULL)
	{
		PgwtSlot   *copy = palloc(sizeof(PgwtSlot));
		int			i,
					j;

		i = -1;
		while (pgwt_views_next_session(&i, copy))
		{
			uint64		db_ns;

			/* a background process's time is not DB time: no pct_db_time */
			db_ns = copy->foreground ?
				pgwt_session_time_ns(copy->events, PGWT_SLOT_EVENTS, copy->cpu_ns) : 0;
			for (j = 0; j < PGWT_SLOT_EVENTS; j++)
			{
				Datum		values[15 + PGWT_PCT_SQL_COLS];
				bool		nulls[15 + PGWT_PCT_SQL_COLS] = {false};
				PgwtEventStat *e = &copy->events[j];
				int			col;

				if (e->event == 0 || e->agg.count == 0)
					continue;
				col = pgwt_slot_identity_columns(copy, values, nulls);
				col = pgwt_event_columns(values, nulls, col, e->event, &e->agg,
										 e->agg.total_ns, db_ns);
				values[col] = pgwt_hist_array(e->agg.hist);
				Assert(col == 14);
				pgwt_hist_pct_columns(values, nulls, col + 1, e->agg.hist, e->agg.min_ns,
								  e->agg.max_ns);
				tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			}
		}
		pfree(copy);
	}
#endif
	return (Datum) 0;
}

/*
 * pgwt_session_time: one row per visible session, its time split (the
 * identity columns of pgwt_session_event, then db_time_ms, cpu_ms,
 * wait_ms, idle_ms, top_wait_event_type, top_wait_event, top_wait_ms,
 * fidelity): the live twin of pgwt_history_session_time. db_time_ms is
 * NULL for a background process (its time is never DB time).
 */
Datum
pgwt_session_time(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_session_time(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	if (pgwt_shared != NULL)
	{
		PgwtSlot   *copy = palloc(sizeof(PgwtSlot));

		int			i = -1;

		while (pgwt_views_next_session(&i, copy))
		{
			Datum		values[14];
			bool		nulls[14] = {false};
			PgwtSessionTally t = {0};
			int			col;

			t.cpu_ns = copy->cpu_ns;
			for (int j = 0; j < PGWT_SLOT_EVENTS; j++)
				if (copy->events[j].event != 0 && copy->events[j].agg.count != 0)
					pgwt_session_tally_add(&t, copy->events[j].event, copy->events[j].agg.total_ns);
			col = pgwt_slot_identity_columns(copy, values, nulls);
			col = pgwt_session_tally_columns(values, nulls, col, &t, !copy->foreground, PGWT_FIDELITY);
			Assert(col == 14);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		pfree(copy);
	}
#endif
	return (Datum) 0;
}

/* pgwt_active: live sessions, their current state and DB time. */
Datum
pgwt_active(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_active_rows(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	if (pgwt_shared != NULL)
	{
		PgwtSlot   *copy = palloc(sizeof(PgwtSlot));
		int			i;

		for (i = 0; i < pgwt_shared->nslots; i++)
		{
			Datum		values[13];
			bool		nulls[13] = {false};
			uint64		now,
						waits_ns = 0;
			uint32		cur;
			bool		reset;
			int			j;

			if (pgwt_slots[i].state != PGWT_SLOT_LIVE)
				continue;
			pgwt_slot_copy(&pgwt_slots[i], copy);
			if (copy->state != PGWT_SLOT_LIVE || !pgwt_can_see_role(copy->userid))
				continue;
			/* the identity must still be the process at that ProcNumber */
			if (GetPGProcByNumber(copy->procno)->pid != copy->pid)
				continue;
			reset = pgwt_slot_reset_pending(copy);
			now = pgwt_clock_ns();
			cur = copy->cur_event;
			for (j = 0; j < PGWT_SLOT_EVENTS && !reset; j++)
				if (copy->events[j].event != 0 && !pgwt_event_is_idle(copy->events[j].event))
					waits_ns += copy->events[j].agg.total_ns;

			values[0] = Int32GetDatum(copy->pid);
			values[1] = CStringGetTextDatum(pgwt_backend_type_name(copy));
			values[2] = ObjectIdGetDatum(copy->userid);
			nulls[2] = !OidIsValid(copy->userid);
			values[3] = ObjectIdGetDatum(copy->dbid);
			nulls[3] = !OidIsValid(copy->dbid);
			values[4] = TimestampTzGetDatum(copy->start_time);
			if (cur == 0)
			{
				values[5] = CStringGetTextDatum("on cpu");
				nulls[6] = nulls[7] = nulls[8] = true;
			}
			else
			{
				values[5] = CStringGetTextDatum(pgwt_event_is_idle(cur) ? "idle" : "waiting");
				values[6] = pgwt_text_or_null(pgstat_get_wait_event_type(cur), &nulls[6]);
				values[7] = pgwt_text_or_null(pgstat_get_wait_event(cur), &nulls[7]);
				values[8] = Float8GetDatum(now > copy->cur_start_ns ? pgwt_ms_of_ns(now - copy->cur_start_ns) : 0.0);
			}
			/* a background process's time is not DB time */
			if (copy->foreground)
				values[9] = Float8GetDatum(reset ? 0.0 : pgwt_ms_of_ns(copy->cpu_ns + waits_ns));
			else
				nulls[9] = true;
			values[10] = Float8GetDatum(reset ? 0.0 : pgwt_ms_of_ns(copy->cpu_ns));
			values[11] = TimestampTzGetDatum(copy->stats_reset);
			values[12] = CStringGetTextDatum(PGWT_FIDELITY);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		pfree(copy);
	}
#endif
	return (Datum) 0;
}

#ifdef PGWT_COOP_BUILD
/*
 * The role of the sessions whose waits a query-table row holds: the key's
 * pad word (pgwt_shared.h), set by coop_hooks.c from the session's slot.
 */
static Oid
pgwt_query_row_role(const PgwtQueryEntry *e)
{
	return (Oid) e->key.userid;
}

/* Order of the rows as the caller sees them: query id (0: hidden), event. */
static int
pgwt_query_row_cmp(const void *a, const void *b)
{
	const PgwtQueryEntry *x = a,
			   *y = b;

	if (x->key.query_id != y->key.query_id)
		return x->key.query_id < y->key.query_id ? -1 : 1;
	if (x->key.event != y->key.event)
		return x->key.event < y->key.event ? -1 : 1;
	return 0;
}
#endif

/*
 * pgwt_query_event: the bounded (query_id, event, role) table, one row per
 * (query id, event) the caller may see; other roles' statements under
 * query_id NULL for callers outside pg_read_all_stats (pg_stat_statements'
 * rule), one row per event.
 */
Datum
pgwt_query_event(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo pg_attribute_unused() = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (pgwt_sampler_answers())
	{
		pgwt_sampler_query_event(rsinfo);
		return (Datum) 0;
	}
#ifdef PGWT_COOP_BUILD
	pgwt_settle_own();
	{
		int			n,
					i;
		uint64		evictions,
					dropped;
		PgwtQueryEntry *q = pgwt_query_snapshot(&n, &evictions, &dropped);
		bool		all = has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
		Oid			me = GetUserId();

		/* hide what the caller may not see (query id 0 is never stored) */
		for (i = 0; i < n; i++)
			if (!all && pgwt_query_row_role(&q[i]) != me)
				q[i].key.query_id = 0;
		if (n > 1)
			qsort(q, n, sizeof(PgwtQueryEntry), pgwt_query_row_cmp);
		for (i = 0; i < n; i++)
		{
			Datum		values[10 + PGWT_PCT_SQL_COLS];
			bool		nulls[10 + PGWT_PCT_SQL_COLS] = {false};
			PgwtAgg		agg = q[i].agg;
			int			col;

			/* rows of several roles that look the same: one row */
			while (i + 1 < n && pgwt_query_row_cmp(&q[i], &q[i + 1]) == 0)
				pgwt_agg_merge(&agg, &q[++i].agg);
			if (q[i].key.query_id != 0)
				values[0] = Int64GetDatum(q[i].key.query_id);
			else
				nulls[0] = true;
			col = pgwt_event_columns(values, nulls, 1, q[i].key.event, &agg, 0, 0);
			values[col] = pgwt_hist_array(agg.hist);
			Assert(col == 9);
			pgwt_hist_pct_columns(values, nulls, col + 1, agg.hist, agg.min_ns, agg.max_ns);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
		if (q)
			pfree(q);
	}
#endif
	return (Datum) 0;
}

/*
 * pgwt_reset(pid): PostgreSQL 18's pg_signal_backend() checks, in its order
 * and with its outcomes: not a backend (also an auxiliary process or the
 * postmaster): a warning and false; no role or a superuser's role:
 * autovacuum workers for pg_signal_autovacuum_worker, the rest for
 * superusers; else the privileges of the target's role or of
 * pg_signal_backend. The errors are pg_cancel_backend()'s.
 */
Datum
pgwt_reset(PG_FUNCTION_ARGS)
{
	int			pid = PG_GETARG_INT32(0);
	PGPROC	   *proc = BackendPidGetProc(pid);

	if (proc == NULL)
	{
		ereport(WARNING,
				(errmsg("PID %d is not a PostgreSQL backend process", pid)));
		PG_RETURN_BOOL(false);
	}
	if (!OidIsValid(proc->roleId) || superuser_arg(proc->roleId))
	{
#if PG_VERSION_NUM >= 180000
		if (pgstat_get_backend_type_by_proc_number(GetNumberFromPGProc(proc)) == B_AUTOVAC_WORKER)
		{
			if (!has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_AUTOVACUUM_WORKER))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied to reset wait statistics"),
						 errdetail("Only roles with privileges of the \"%s\" role may reset wait statistics of autovacuum workers.",
								   "pg_signal_autovacuum_worker")));
		}
		else
#endif
		if (!superuser())
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("permission denied to reset wait statistics"),
					 errdetail("Only roles with the %s attribute may reset wait statistics of roles with the %s attribute.",
							   "SUPERUSER", "SUPERUSER")));
	}
	else if (!has_privs_of_role(GetUserId(), proc->roleId) &&
			 !has_privs_of_role(GetUserId(), ROLE_PG_SIGNAL_BACKEND))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to reset wait statistics"),
				 errdetail("Only roles with privileges of the role whose wait statistics are being reset or with privileges of the \"%s\" role may reset them.",
						   "pg_signal_backend")));
#ifdef PGWT_COOP_BUILD
	/* our own waits so far are in the slot before it is zeroed */
	if (pid == MyProcPid && pgwt_my_slot != NULL)
		pgwt_flush_pending();
	pgwt_reset_backend(pid);
#endif
	/* the in-server sampler's rows of the backend too, where it runs */
	(void) pgwt_sampler_reset_backend(pid);
	PG_RETURN_BOOL(true);
}

Datum
pgwt_reset_all(PG_FUNCTION_ARGS)
{
	if (!superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to reset all wait statistics"),
				 errdetail("Only roles with the SUPERUSER attribute may reset all wait statistics.")));
	pgwt_sampler_reset();
#ifdef PGWT_COOP_BUILD
	if (pgwt_my_slot != NULL)
		pgwt_flush_pending();
	pgwt_reset_everything();
#endif
	PG_RETURN_VOID();
}
