/*
 * sampler.h
 *		The in-server sampler: a background worker that samples every
 *		backend's wait state at pg_wait_tracer.sample_rate Hz on servers
 *		without wait-event hooks (stock PG15, stock PG18), and the SQL-side
 *		readers of what it aggregates.
 *
 * sampler.c: settings, shared memory, the worker. sampler_views.c: rows for
 * the pgwt_* views with fidelity "sampled". sampler_logic.h: pure logic.
 */
#ifndef PGWT_SAMPLER_H
#define PGWT_SAMPLER_H

#include "fmgr.h"
#include "funcapi.h"
#include "storage/lwlock.h"
#include "utils/timestamp.h"

#include "extension/pgwt_gucs.h"
#include "extension/sampler_logic.h"


/* What a backend looked like at the latest tick (one row per PGPROC). */
typedef struct PgwtSamplerProc
{
	int32		pid;			/* 0: no process at the latest tick */
	uint32		state;			/* PgwtSampleState */
	uint32		event;
	uint32		backend_type;
	uint32		background;		/* no session: not DB time (process_rule.h) */
	Oid			userid;
	Oid			dbid;
	int64		query_id;
	TimestampTz backend_start;
	TimestampTz since;			/* first tick of the current state+event */
	TimestampTz stats_reset;	/* pgwt_reset(pid) of this process; 0: none */
	/*
	 * The open run (this state, event, query id and identity since some
	 * tick), not yet in the tables: its samples are ticks - run_tick0 and
	 * its time sampled_ns - run_ns0.
	 */
	uint64		run_tick0;
	uint64		run_ns0;
} PgwtSamplerProc;

/*
 * Fixed header of the sampler's shared memory; the tables and the ring
 * follow it. 'lock' guards everything below it except the worker's own
 * bookkeeping fields marked "worker".
 */
typedef struct PgwtSamplerShared
{
	LWLock	   *lock;
	int			nprocs;			/* rows of the per-PGPROC array */
	/* worker lifecycle (written by the worker under lock) */
	int			worker_pid;
	int			worker_starts;
	int			quick_restarts; /* consecutive starts less than 60 s apart */
	int			backoff_s;		/* delay before the latest start sampled */
	TimestampTz last_start;
	/* tick accounting (under lock) */
	uint64		ticks;
	uint64		late_ticks;		/* late by common/tick_rule.h */
	uint64		skipped_ticks;	/* deadlines passed before the sleep */
	uint64		sampled_ns;		/* sum of the periods billed */
	uint64		unbilled_ns;	/* stall time over the tick cap, not billed */
	uint64		reads_retried;	/* status entries being written, read again */
	TimestampTz stats_reset;
} PgwtSamplerShared;

/* Pointers into shared memory, set by the startup hook in every process. */
extern PgwtSamplerShared *pgwt_sampler;
extern PgwtSampleTable *pgwt_sampler_by_query;	/* (query_id, role, event) */
extern PgwtSampleTable *pgwt_sampler_by_backend;	/* (pid, start, event) */
extern PgwtSampleTable *pgwt_sampler_by_event;	/* (event) */
extern PgwtHistoryRing *pgwt_sampler_ring;
extern PgwtSamplerProc *pgwt_sampler_procs;

/* sampler.c */
extern void pgwt_sampler_init(bool server_has_hooks);
extern bool pgwt_sampler_active(void);
extern bool pgwt_sampler_answers(void);
extern Size pgwt_sampler_shmem_size(void);
extern void pgwt_sampler_reset(void);
extern bool pgwt_sampler_reset_backend(int pid);
extern void pgwt_sampler_add_runs(PgwtSampleTable *copy, const PgwtSampleTable *table);
extern PGDLLEXPORT void pgwt_sampler_main(Datum arg);

/* sampler_views.c: fill a materialized SRF with the sampler's rows */
extern void pgwt_sampler_system_event(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_event_histogram(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_time_model(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_session_event(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_session_time(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_active_rows(ReturnSetInfo *rsinfo);
extern void pgwt_sampler_query_event(ReturnSetInfo *rsinfo);

#endif							/* PGWT_SAMPLER_H */
