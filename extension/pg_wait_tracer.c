/*
 * pg_wait_tracer.c
 *		Module entry point of the pg_wait_tracer extension: settings (gucs.c), shared
 *		memory reservation, hook installation and pgwt_status().
 *
 * The library must be loaded through shared_preload_libraries: it reserves
 * shared memory and installs hooks at postmaster start. Loaded any other way
 * it stays inert, and CREATE EXTENSION fails with a message saying how to
 * fix the configuration.
 *
 * Tiers: on PostgreSQL 18+ the coop tier is compiled in and switches on at
 * run time when the server exports the timed-pair wait-event hooks (see
 * coop_hooks.c); otherwise pgwt_status() says why nothing is collected.
 * Modules: coop_hooks.c (hot path), backend_slots.c (per-backend slots,
 * identity, reset protocol), query_table.c (bounded query table), views.c
 * (SQL functions), wait_stats.h (pure logic).
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "extension/escalation.h"
#include "extension/pgwt_gucs.h"
#include "extension/pgwt_clock.h"
#include "extension/pgwt_memory.h"
#include "extension/pgwt_shared.h"
#include "extension/sampler.h"
#include "extension/trace_capture.h"
#include "extension/trace_markers.h"
#include "extension/trace_worker.h"

PG_MODULE_MAGIC;

#define PGWT_LIBRARY_VERSION "0.9"

bool		pgwt_loaded_at_startup = false;

void		_PG_init(void);

PG_FUNCTION_INFO_V1(pgwt_require_preload);
PG_FUNCTION_INFO_V1(pgwt_status);
PG_FUNCTION_INFO_V1(pgwt_status_0_2);
PG_FUNCTION_INFO_V1(pgwt_status_0_4);
PG_FUNCTION_INFO_V1(pgwt_status_0_7);

#ifdef PGWT_COOP_BUILD
static shmem_request_hook_type pgwt_prev_shmem_request_hook = NULL;
static shmem_startup_hook_type pgwt_prev_shmem_startup_hook = NULL;

static void
pgwt_shmem_request(void)
{
	if (pgwt_prev_shmem_request_hook)
		pgwt_prev_shmem_request_hook();
	RequestAddinShmemSpace(add_size(pgwt_slots_shmem_size(), pgwt_query_shmem_size()));
	RequestNamedLWLockTranche("pg_wait_tracer", 2);
}

static void
pgwt_shmem_startup(void)
{
	if (pgwt_prev_shmem_startup_hook)
		pgwt_prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pgwt_slots_shmem_init();
	pgwt_query_shmem_init();
	LWLockRelease(AddinShmemInitLock);
}
#else
bool
pgwt_hooks_present(void)
{
	return false;
}
#endif


void
_PG_init(void)
{
	if (!process_shared_preload_libraries_in_progress)
		return;
	pgwt_loaded_at_startup = true;

	/* every setting of the extension, in one place (gucs.c) */
	pgwt_gucs_define(pgwt_hooks_present());
	/* the sampler runs where the server has no hooks (or when asked to) */
	pgwt_sampler_init(pgwt_hooks_present());
	/* the trace rings, escalation windows and the trace writer */
	pgwt_trace_init(pgwt_hooks_present());
	if (pgwt_hooks_present())
		pgwt_trace_markers_install();
	/* with hooks it drains the rings; without, the sampler's samples */
	pgwt_trace_worker_register();
	MarkGUCPrefixReserved("pg_wait_tracer");

#ifdef PGWT_COOP_BUILD
	/* Without hooks nothing is collected: no shared memory either. */
	if (!pgwt_hooks_present())
		return;
	pgwt_clock_init();
	pgwt_prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = pgwt_shmem_request;
	pgwt_prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = pgwt_shmem_startup;
	pgwt_hooks_install();
#endif
}

Datum
pgwt_require_preload(PG_FUNCTION_ARGS)
{
	if (!pgwt_loaded_at_startup)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("pg_wait_tracer must be loaded via \"shared_preload_libraries\""),
				 errhint("Add pg_wait_tracer to shared_preload_libraries in postgresql.conf and restart the server.")));
	PG_RETURN_VOID();
}

/* Which tier runs for this session, and why. */
static void
pgwt_tier(const char **tier, const char **reason)
{
	if (!pgwt_loaded_at_startup)
	{
		*tier = "off";
		*reason = "the library is not in shared_preload_libraries";
	}
	else if (pgwt_sampler_answers())
	{
		*tier = "sampled";
		*reason = psprintf("%s; the sampler reads every backend's wait state at %d Hz",
						   pgwt_hooks_present() ? "pg_wait_tracer.capture is off" :
						   "this server has no wait-event hooks", pgwt_sample_rate);
	}
	else if (!pgwt_hooks_present())
	{
		*tier = "none";
		*reason = "this server has no wait-event hooks";
	}
	else if (pgwt_capture == PGWT_CAPTURE_OFF)
	{
		*tier = "off";
		*reason = "pg_wait_tracer.capture is off";
	}
	else if (pgwt_capture == PGWT_CAPTURE_TRACE)
	{
		*tier = "coop";
		*reason = "exact timing through the server's wait-event hooks; capture = trace also records each wait in the session's trace ring";
	}
	else
	{
		*tier = "coop";
		*reason = "exact timing through the server's wait-event hooks";
	}
}

/* Version 0.1 of the status row (kept for installs not yet updated). */
Datum
pgwt_status(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false};
	const char *tier;
	const char *reason;

	pgwt_tier(&tier, &reason);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	values[0] = CStringGetTextDatum(tier);
	values[1] = BoolGetDatum(pgwt_hooks_present());
	values[2] = CStringGetTextDatum(reason);
	values[3] = CStringGetTextDatum(PGWT_LIBRARY_VERSION);
	values[4] = Int32GetDatum(PG_VERSION_NUM);

	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

#define PGWT_STATUS_COLS 18
#define PGWT_STATUS_ESC_COLS 7	/* added by 0.4 */
#define PGWT_STATUS_MEM_COLS 5	/* added by 0.7 */

/* The 18 columns of version 0.2 (still those of 0.3). */
static void
pgwt_status_fill(Datum *values, bool *nulls)
{
	const char *tier;
	const char *reason;

	pgwt_tier(&tier, &reason);

	values[0] = CStringGetTextDatum(tier);
	values[1] = BoolGetDatum(pgwt_hooks_present());
	values[2] = CStringGetTextDatum(pgwt_capture_name());
	values[3] = CStringGetTextDatum(reason);
	values[4] = CStringGetTextDatum(PGWT_LIBRARY_VERSION);
	values[5] = Int32GetDatum(PG_VERSION_NUM);
	/* without the coop tier's shared memory: nothing allocated, nothing counted */
	values[6] = values[7] = values[8] = values[12] = Int32GetDatum(0);
	values[9] = values[10] = values[11] = values[13] = values[14] = Int64GetDatum(0);
	nulls[15] = true;
	values[16] = Int32GetDatum(pgwt_max_queries);
	values[17] = CStringGetTextDatum(pgwt_clock_name());

#ifdef PGWT_COOP_BUILD
	if (pgwt_shared != NULL)
	{
		int			live = 0,
					exited = 0,
					nq,
					i;
		uint64		lost,
					query_lost,
					evictions,
					dropped;
		PgwtQueryEntry *q;

		LWLockAcquire(pgwt_shared->slots_lock, LW_SHARED);
		lost = pgwt_shared->retired_lost_waits;
		query_lost = pgwt_shared->retired_query_lost_waits;
		for (i = 0; i < pgwt_shared->nslots; i++)
		{
			PgwtSlot   *s = &pgwt_slots[i];

			if (s->state == PGWT_SLOT_LIVE)
				live++;
			else if (s->state == PGWT_SLOT_EXITED)
				exited++;
			if (s->state != PGWT_SLOT_FREE)
			{
				/* racy reads of counters: a status, not an invariant */
				lost += s->lost_waits;
				query_lost += s->query_lost_waits;
			}
		}
		values[15] = TimestampTzGetDatum(pgwt_shared->stats_reset);
		LWLockRelease(pgwt_shared->slots_lock);
		q = pgwt_query_snapshot(&nq, &evictions, &dropped);
		if (q)
			pfree(q);

		values[6] = Int32GetDatum(pgwt_shared->nslots);
		values[7] = Int32GetDatum(live);
		values[8] = Int32GetDatum(exited);
		values[9] = Int64GetDatum((int64) pg_atomic_read_u64(&pgwt_shared->recycled));
		values[10] = Int64GetDatum((int64) pg_atomic_read_u64(&pgwt_shared->attach_failures));
		values[11] = Int64GetDatum((int64) lost);
		values[12] = Int32GetDatum(nq);
		values[13] = Int64GetDatum((int64) evictions);
		values[14] = Int64GetDatum((int64) (query_lost + dropped));
		nulls[15] = false;
	}
#endif
}

Datum
pgwt_status_0_2(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[PGWT_STATUS_COLS];
	bool		nulls[PGWT_STATUS_COLS] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != PGWT_STATUS_COLS)
		elog(ERROR, "pgwt_status: expected %d columns, got %d", PGWT_STATUS_COLS, tupdesc->natts);
	pgwt_status_fill(values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* The 0.4 columns after the 0.2 ones, from values[PGWT_STATUS_COLS] on. */
static void
pgwt_status_fill_esc(Datum *values, bool *nulls)
{
	pgwt_esc_answer a;
	int			i = PGWT_STATUS_COLS;

	pgwt_esc_answering(&a);
	values[i++] = CStringGetTextDatum(a.tier);
	values[i++] = BoolGetDatum(a.window_open);
	nulls[i] = a.window_id_null;
	values[i++] = Int64GetDatum(a.window_id);
	nulls[i] = a.seconds_left_null;
	values[i++] = Int32GetDatum(a.seconds_left);
	nulls[i] = a.budget_left_null;
	values[i++] = Int32GetDatum(a.budget_left_s);
	nulls[i] = a.tracer_pid == 0;
	values[i++] = Int32GetDatum(a.tracer_pid);
	values[i++] = CStringGetTextDatum(a.note);
}

/*
 * Version 0.4: the 0.2 columns, then which tier answers an escalation
 * request now, its window, seconds left and budget (escalation.c).
 */
Datum
pgwt_status_0_4(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS];
	bool		nulls[PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS] = {false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS)
		elog(ERROR, "pgwt_status: expected %d columns, got %d",
			 PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS, tupdesc->natts);
	pgwt_status_fill(values, nulls);
	pgwt_status_fill_esc(values, nulls);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * Version 0.7: the 0.4 columns, then the pool of trace rings (size, in
 * use, processes refused a ring, rings freed by the trace writer) and the
 * extension's shared memory in bytes (pgwt_memory() has it by part).
 */
Datum
pgwt_status_0_7(PG_FUNCTION_ARGS)
{
#define PGWT_STATUS_0_7_COLS (PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS + PGWT_STATUS_MEM_COLS)
	TupleDesc	tupdesc;
	Datum		values[PGWT_STATUS_0_7_COLS];
	bool		nulls[PGWT_STATUS_0_7_COLS] = {false};
	int			i = PGWT_STATUS_COLS + PGWT_STATUS_ESC_COLS;
	PgwtTraceShared *ts = pgwt_trace_shared;
	int			nrings = ts != NULL ? ts->nrings : 0;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != PGWT_STATUS_0_7_COLS)
		elog(ERROR, "pgwt_status: expected %d columns, got %d",
			 PGWT_STATUS_0_7_COLS, tupdesc->natts);
	pgwt_status_fill(values, nulls);
	pgwt_status_fill_esc(values, nulls);
	values[i++] = Int32GetDatum(nrings);
	values[i++] = Int32GetDatum(nrings > 0 ? pgwt_tpool_in_use(pgwt_trace_pool_words(), nrings) : 0);
	values[i++] = Int64GetDatum(ts != NULL ?
								(int64) __atomic_load_n(&ts->ring_exhausted, __ATOMIC_RELAXED) : 0);
	values[i++] = Int64GetDatum(ts != NULL ?
								(int64) __atomic_load_n(&ts->ring_recycled, __ATOMIC_RELAXED) : 0);
	values[i++] = Int64GetDatum(pgwt_memory_total());
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
