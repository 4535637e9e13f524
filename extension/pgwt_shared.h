/*
 * pgwt_shared.h
 *		Shared-memory layout of the coop tier and the interfaces between the
 *		extension's modules (init, hooks, slots, query table, views).
 *
 * The coop tier is compiled for PostgreSQL 18 and later (PGWT_COOP_BUILD).
 * Its hooks are looked up at run time, so the same library loads on a
 * server with or without the wait-event hook patch; older servers get the
 * SQL surface with empty views and a status that explains why.
 */
#ifndef PGWT_SHARED_H
#define PGWT_SHARED_H

#include "extension/wait_stats.h"
#include "extension/slot_pool.h"
#include "common/process_rule.h"

#if PG_VERSION_NUM >= 180000
#define PGWT_COOP_BUILD 1
#endif

#include "extension/pgwt_gucs.h"

extern bool pgwt_loaded_at_startup;

/* True when the running server exports the wait-event hooks. */
extern bool pgwt_hooks_present(void);

#ifdef PGWT_COOP_BUILD

#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/lwlock.h"
#include "storage/procnumber.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

/*
 * Distinct events one backend can record; more are counted as lost. A
 * process sees a few dozen events in its life at most (a busy OLTP
 * session: about 20), and a row is 288 bytes: 64 rows keep a slot at
 * 18.7 kB, the largest part of a connection's share of shared memory.
 */
#define PGWT_SLOT_EVENTS 64
/* Distinct events of the system-wide table of retired backends. */
#define PGWT_RETIRED_EVENTS 512
/*
 * Slots reserved for processes that run no transaction (auxiliary
 * processes: checkpointer, background writer, WAL writer, startup,
 * archiver, WAL summarizer, WAL receiver, I/O workers; and background
 * workers that cannot connect to a database), claimed lock-free from their
 * first wait: one per auxiliary PGPROC and per max_worker_processes, plus
 * spares so that a restarted process finds a free slot while its
 * predecessor's is not yet folded into the retired totals.
 */
#define PGWT_AUX_SPARE_SLOTS 8

typedef enum PgwtSlotState
{
	PGWT_SLOT_FREE = 0,			/* never used, or folded into the retired totals */
	PGWT_SLOT_LIVE,				/* its owner is running and the only writer */
	PGWT_SLOT_EXITED			/* owner gone; kept for readers until recycled */
} PgwtSlotState;

/*
 * One backend's statistics. Identity (pid, start_time) and numbers are
 * written together under the seqlock 'changecount' (odd while a write is
 * in progress), so a reader's consistent copy never mixes two owners.
 *
 * Writers: the owner while LIVE; while FREE or EXITED, whoever holds the
 * slots lock exclusively (claim, recycle, reset of an exited slot).
 * 'cur_event'/'cur_start_ns' are plain stores by the owner's hooks, read
 * racily by pgwt_active (a torn pair only shows a wrong current wait).
 * The reset request fields are written by other backends under the slots
 * lock and consumed by the owner (see backend_slots.c).
 */
typedef struct PgwtSlot
{
	uint32		changecount;
	uint32		state;			/* PgwtSlotState */
	uint64		generation;		/* bumped on every claim */

	/* identity of the owner */
	int			pid;
	ProcNumber	procno;
	TimestampTz start_time;		/* MyStartTimestamp of the owner */
	int			backend_type;	/* BackendType */
	bool		foreground;		/* a client backend or a parallel worker:
								 * its time is DB time (background processes'
								 * waits are shown, not counted in DB time) */
	Oid			userid;
	Oid			dbid;

	TimestampTz attach_time;
	TimestampTz exit_time;
	TimestampTz stats_reset;

	/* time with no wait event set, summed over gaps between waits */
	uint64		cpu_ns;
	uint64		last_end_ns;	/* end of the previous wait (monotonic ns) */
	uint64		lost_waits;		/* event table full */
	uint64		query_lost_waits;	/* backend-local query table full */

	volatile uint32 cur_event;
	volatile uint64 cur_start_ns;

	pg_atomic_uint32 reset_requests;
	uint32		reset_applied;
	int			reset_pid;		/* identity the last request targets */
	TimestampTz reset_start_time;
	uint64		reset_request_ns;	/* clock at the request: earlier waits are dropped */

	/* a background worker's bgw_type ("parallel worker"...), else empty */
	char		bgw_type[BGW_MAXLEN];

	/*
	 * Rows of 'events' in use (PgwtFoldState.used_rows): a claim clears and
	 * folds only those. Everything above shares the slot's first page, so
	 * a claim touches that page and the pages of the rows used.
	 */
	uint64		used_rows[PGWT_USED_ROWS_WORDS(PGWT_SLOT_EVENTS)];
	PgwtEventStat events[PGWT_SLOT_EVENTS];
} PgwtSlot;

/* Fixed-size header of the coop tier's shared memory. */
typedef struct PgwtSharedState
{
	LWLock	   *slots_lock;		/* claims, recycling, retired totals */
	LWLock	   *query_lock;		/* the query table */
	int			nslots;			/* npool + naux: readers scan them all */
	int			npool;			/* [0, npool): claimed at transaction end */
	int			naux;			/* [npool, nslots): auxiliary processes */
	TimestampTz stats_reset;
	pg_atomic_uint64 attach_failures;	/* no slot free or exited */
	pg_atomic_uint64 recycled;	/* exited slots folded and reused */
	pg_atomic_uint32 exited_slots;	/* hint for unattached backends */
	/* the pool's free and exited slots (slot_pool.h), under slots_lock */
	PgwtSlotPool pool;
	/*
	 * Owners of the auxiliary region's slots, one word each (slot npool + i
	 * is aux_owners[i]), beside each other so that a pass over them reads a
	 * page, not a page per slot: pgwt_aux_owner(pid, procno) of the process
	 * that claimed the slot with a compare-and-swap from 0 (free); set back
	 * to 0 under slots_lock once a dead owner's numbers are folded into the
	 * retired totals.
	 */
	pg_atomic_uint64 *aux_owners;
	/*
	 * Folding dead auxiliary slots reads every auxiliary slot: a claim does
	 * it at most once per PGWT_AUX_FOLD_INTERVAL_NS (clock of the last
	 * pass, under slots_lock), or at once after an auxiliary claim found
	 * the region full (aux_full).
	 */
	uint64		aux_folded_ns;
	pg_atomic_uint32 aux_full;
	uint64		query_evictions;	/* under query_lock */
	uint64		query_dropped;	/* waits whose entry found no room, under query_lock */
	/* totals of recycled slots, under slots_lock */
	uint64		retired_cpu_ns;
	uint64		retired_lost_waits;
	uint64		retired_query_lost_waits;
	/*
	 * The part of the retired totals that came from background processes
	 * (slots with foreground = false): CPU* and non-idle wait time, so DB
	 * time can leave them out.
	 */
	uint64		retired_background_cpu_ns;
	uint64		retired_background_wait_ns;
	PgwtEventStat retired[PGWT_RETIRED_EVENTS];
	/* the background processes' share of 'retired', per event */
	PgwtEventStat retired_background[PGWT_RETIRED_EVENTS];
} PgwtSharedState;

/*
 * One (query_id, event, role) entry of the bounded query table. The role of
 * the sessions that waited decides who may see the query id (the rule of
 * pg_stat_statements). The key is hashed as bytes: no padding.
 */
typedef struct PgwtQueryKey
{
	int64		query_id;
	uint32		event;
	uint32		userid;			/* session role of the waits (an Oid) */
} PgwtQueryKey;

typedef struct PgwtQueryEntry
{
	PgwtQueryKey key;
	slock_t		mutex;			/* shared entries: guards usage and agg */
	double		usage;			/* eviction score, decays on eviction passes */
	PgwtAgg		agg;
} PgwtQueryEntry;

extern PgwtSharedState *pgwt_shared;
extern PgwtSlot *pgwt_slots;

/* backend_slots.c */
extern Size pgwt_slots_shmem_size(void);
extern void pgwt_slots_memory(Size *slots, Size *lists, Size *state);
extern void pgwt_slots_shmem_init(void);
extern PgwtSlot *pgwt_my_slot;
extern void pgwt_slot_attach(void);
extern void pgwt_slot_release_mine(void);
extern PgwtSlot *pgwt_aux_slot_claim(void);
extern bool pgwt_is_aux_process(void);
extern bool pgwt_claims_slot_lock_free(void);
extern bool pgwt_is_foreground_process(void);
extern bool pgwt_is_own_worker(void);
extern PgwtProcKind pgwt_my_process_kind(void);
extern void pgwt_slot_copy(const PgwtSlot *slot, PgwtSlot *copy);
extern bool pgwt_slot_reset_pending(const PgwtSlot *copy);
extern bool pgwt_reset_backend(int pid);
extern void pgwt_reset_everything(void);
extern int	pgwt_resolve_nslots(void);

static inline void
pgwt_slot_write_begin(PgwtSlot *slot)
{
	slot->changecount++;
	pg_write_barrier();
}

static inline void
pgwt_slot_write_end(PgwtSlot *slot)
{
	pg_write_barrier();
	slot->changecount++;
}

/*
 * Empty a slot's event table: only the rows in use can hold anything, and
 * touching only those keeps a claim off the table's other pages. The
 * caller is the slot's writer, inside a write section.
 */
static inline void
pgwt_slot_clear_events(PgwtSlot *slot)
{
	pgwt_used_rows_clear(slot->events, slot->used_rows, PGWT_SLOT_EVENTS);
}

/* query_table.c */
extern Size pgwt_query_shmem_size(void);
extern void pgwt_query_shmem_init(void);
extern void pgwt_query_merge(const PgwtQueryEntry *entries, int n);
extern void pgwt_query_reset(void);
extern PgwtQueryEntry *pgwt_query_snapshot(int *n, uint64 *evictions, uint64 *dropped);

/* coop_hooks.c */
extern void pgwt_hooks_install(void);
extern void pgwt_flush_pending(void);
extern void pgwt_safe_point(bool merge_queries);
extern void pgwt_settle_own(void);
extern void pgwt_settle_exit(void);
extern void pgwt_collect_stop(void);
extern void pgwt_capture_assign(int newval, void *extra);

#endif							/* PGWT_COOP_BUILD */

#endif							/* PGWT_SHARED_H */
