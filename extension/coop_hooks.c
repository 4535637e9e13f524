/*
 * coop_hooks.c
 *		The coop tier's hot path: the timed-pair wait-event hooks.
 *
 * Hook contract (from the server): the hooks run in the middle of a wait,
 * possibly holding an LWLock, in a critical section or outside any
 * transaction. So they touch only backend-local state and this backend's
 * own shared slot: no allocation, no lock, no wait, no error.
 *
 * Work split, to keep the end hook short (it can run while the LWLock just
 * waited for is held, lengthening its hold time):
 *   begin hook: flush the pending buffer when no LWLock is held and we are
 *               not in a critical section (interrupts not held off) and it
 *               holds 16 waits or this wait is idle (ClientRead...), then
 *               read the clock and remember (event, start, query id).
 *   end hook:   read the clock and append (event, query id, start, end) to
 *               a 64-entry backend-local pending buffer. Only when that
 *               buffer is full does it flush in place.
 *   flush:      fold pending waits into this backend's slot (single writer,
 *               seqlock for readers: lock-free and bounded) and into a
 *               backend-local (query_id, event) table.
 *   safe point: transaction end and backend exit (ordinary code, locks
 *               allowed): attach a slot if we have none, flush, and merge
 *               the local query table into the shared one (query_table.c).
 *
 * Query attribution: each wait carries the query id the backend reports at
 * the wait's start (pg_stat_activity.query_id). The server clears it only
 * when the next statement starts, so waits after a statement's end that
 * belong to it (commit: WALWrite, WALSync, SyncRep...) keep its id.
 * Idle waits (Activity class, Client:ClientRead) are not charged to queries.
 *
 * Clock: pgwt_clock.h (the TSC, calibrated, where the kernel trusts it;
 * else CLOCK_MONOTONIC through the vDSO).
 *
 * The postmaster runs the timed pair too (ServerLoop); it never has a slot
 * (slots are claimed only at transaction end under a postmaster), so the
 * hooks return at once there and its children inherit nothing.
 */
#include "postgres.h"

#include "extension/pgwt_shared.h"

#ifdef PGWT_COOP_BUILD

#include "access/xact.h"
#include "miscadmin.h"
#include "utils/backend_status.h"
#include "utils/wait_event.h"

#include "extension/pgwt_clock.h"

/*
 * The hook variables of a patched server. Declared weak so that one build
 * loads on a stock server too (the addresses are then NULL): run-time
 * detection, on top of the build-time header probe.
 */
#ifndef PGWT_HAVE_WAIT_EVENT_HOOKS
typedef void (*wait_event_hook_type) (uint32 wait_event_info);
extern PGDLLIMPORT wait_event_hook_type wait_event_begin_hook;
extern PGDLLIMPORT wait_event_hook_type wait_event_end_hook;
#endif
#pragma weak wait_event_begin_hook
#pragma weak wait_event_end_hook

#define PGWT_PENDING_MAX 64
#define PGWT_FLUSH_BATCH 16
#define PGWT_LOCAL_QUERIES 128	/* power of two */
#define PGWT_LOCAL_QUERIES_FILL (PGWT_LOCAL_QUERIES * 3 / 4)

typedef struct PgwtPending
{
	uint32		event;
	int64		query_id;
	uint64		start_ns;
	uint64		end_ns;
} PgwtPending;

static wait_event_hook_type pgwt_prev_begin_hook = NULL;
static wait_event_hook_type pgwt_prev_end_hook = NULL;

/* the wait in progress */
static bool pgwt_in_wait = false;
static uint32 pgwt_wait_event;
static int64 pgwt_wait_query_id;
static uint64 pgwt_wait_start_ns;

/* finished waits not yet folded into the slot */
static PgwtPending pgwt_pending[PGWT_PENDING_MAX];
static int	pgwt_npending = 0;

/* per-(query, event) sums since the last merge into the shared table */
static PgwtQueryEntry pgwt_local_queries[PGWT_LOCAL_QUERIES];
static int	pgwt_local_nqueries = 0;

bool
pgwt_hooks_present(void)
{
	return &wait_event_begin_hook != NULL && &wait_event_end_hook != NULL;
}

static void
pgwt_local_query_add(PgwtSlot *slot, int64 query_id, uint32 event, uint64 ns)
{
	uint32		h = (uint32) query_id ^ (uint32) (query_id >> 32) ^ (event * 2654435761U);
	int			i;

	for (i = 0; i < PGWT_LOCAL_QUERIES; i++)
	{
		PgwtQueryEntry *e = &pgwt_local_queries[(h + i) & (PGWT_LOCAL_QUERIES - 1)];

		if (e->key.event == event && e->key.query_id == query_id)
		{
			pgwt_agg_add(&e->agg, ns);
			return;
		}
		if (e->key.event == 0)
		{
			if (pgwt_local_nqueries >= PGWT_LOCAL_QUERIES_FILL)
				break;
			e->key.query_id = query_id;
			e->key.event = event;
			pgwt_local_nqueries++;
			pgwt_agg_add(&e->agg, ns);
			return;
		}
	}
	slot->query_lost_waits++;
}

/* Zero a slot's numbers; the caller is its writer, inside a write section. */
static void
pgwt_zero_my_stats(PgwtSlot *slot)
{
	memset(slot->events, 0, sizeof(slot->events));
	slot->cpu_ns = 0;
	slot->lost_waits = 0;
	slot->query_lost_waits = 0;
	slot->last_end_ns = pgwt_clock_ns();
	slot->stats_reset = GetCurrentTimestamp();
}

/*
 * Apply a reset another backend requested, if it targets us (the request
 * carries the identity it was meant for; a predecessor's request is
 * dropped). Caller is inside a write section of our slot.
 */
static void
pgwt_consume_reset_request(PgwtSlot *slot)
{
	uint32		req = pg_atomic_read_u32(&slot->reset_requests);

	if (req == slot->reset_applied)
		return;
	pg_read_barrier();
	if (slot->reset_pid == MyProcPid && slot->reset_start_time == MyStartTimestamp)
		pgwt_zero_my_stats(slot);
	slot->reset_applied = req;
}

/*
 * Fold the pending waits into our slot and the local query table.
 * Lock-free and bounded (at most PGWT_PENDING_MAX waits): callable from
 * the hooks.
 */
void
pgwt_flush_pending(void)
{
	PgwtSlot   *slot = pgwt_my_slot;
	int			i;

	if (slot == NULL)
	{
		pgwt_npending = 0;
		return;
	}
	pgwt_slot_write_begin(slot);
	pgwt_consume_reset_request(slot);
	for (i = 0; i < pgwt_npending; i++)
	{
		PgwtPending *p = &pgwt_pending[i];
		uint64		ns = p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0;
		PgwtEventStat *row;

		row = pgwt_event_lookup(slot->events, PGWT_SLOT_EVENTS, p->event, true);
		if (row != NULL)
			pgwt_agg_add(&row->agg, ns);
		else
			slot->lost_waits++;

		/* time between two waits is time with no wait event set: CPU* */
		if (p->start_ns > slot->last_end_ns)
			slot->cpu_ns += p->start_ns - slot->last_end_ns;
		if (p->end_ns > slot->last_end_ns)
			slot->last_end_ns = p->end_ns;

		if (p->query_id != 0 && !pgwt_event_is_idle(p->event))
			pgwt_local_query_add(slot, p->query_id, p->event, ns);
	}
	pgwt_slot_write_end(slot);
	pgwt_npending = 0;
}

static void
pgwt_wait_begin(uint32 wait_event_info)
{
	PgwtSlot   *slot;
	uint64		now;

	if (pgwt_prev_begin_hook)
		pgwt_prev_begin_hook(wait_event_info);

	slot = pgwt_my_slot;
	if (slot == NULL || pgwt_capture == PGWT_CAPTURE_OFF || wait_event_info == 0)
		return;

	/*
	 * Deferred accounting, only where no LWLock can be held: in batches
	 * (the fixed cost of a flush is shared), before every idle wait so that
	 * a backend going idle leaves its numbers up to date for readers, and
	 * when another backend asked for a reset (it set our latch to get here).
	 */
	if (pgwt_npending > 0 &&
		(pgwt_npending >= PGWT_FLUSH_BATCH || pgwt_event_is_idle(wait_event_info) ||
		 pg_atomic_read_u32(&slot->reset_requests) != slot->reset_applied) &&
		InterruptHoldoffCount == 0 && CritSectionCount == 0)
		pgwt_flush_pending();

	now = pgwt_clock_ns();
	pgwt_wait_event = wait_event_info;
	pgwt_wait_query_id = pgstat_get_my_query_id();
	pgwt_wait_start_ns = now;
	pgwt_in_wait = true;
	slot->cur_start_ns = now;
	slot->cur_event = wait_event_info;
}

static void
pgwt_wait_end(uint32 wait_event_info)
{
	PgwtSlot   *slot = pgwt_my_slot;

	/* An end without a begin (abort paths, or begun before attach) is skipped. */
	if (pgwt_in_wait && slot != NULL)
	{
		uint64		now = pgwt_clock_ns();
		PgwtPending *p = &pgwt_pending[pgwt_npending++];

		p->event = pgwt_wait_event;
		p->query_id = pgwt_wait_query_id;
		p->start_ns = pgwt_wait_start_ns;
		p->end_ns = now;
		pgwt_in_wait = false;
		slot->cur_event = 0;
		if (pgwt_npending == PGWT_PENDING_MAX)
			pgwt_flush_pending();
	}

	if (pgwt_prev_end_hook)
		pgwt_prev_end_hook(wait_event_info);
}

/*
 * Ordinary code path (transaction end, backend exit): attach when we have
 * no slot, else flush and, when asked, merge the query sums.
 */
void
pgwt_safe_point(bool merge_queries)
{
	if (pgwt_my_slot == NULL)
	{
		if (pgwt_capture != PGWT_CAPTURE_OFF && pgwt_hooks_present())
		{
			pgwt_in_wait = false;
			pgwt_npending = 0;
			memset(pgwt_local_queries, 0, sizeof(pgwt_local_queries));
			pgwt_local_nqueries = 0;
			pgwt_slot_attach();
		}
		return;
	}
	pgwt_flush_pending();
	if (merge_queries && pgwt_local_nqueries > 0)
	{
		/*
		 * Merge a copy: a hook running during the merge (a wait for the
		 * query table's lock or a spinlock delay) may flush into the local
		 * table again, and those waits belong to the next merge.
		 */
		PgwtQueryEntry *batch = palloc(sizeof(pgwt_local_queries));

		memcpy(batch, pgwt_local_queries, sizeof(pgwt_local_queries));
		memset(pgwt_local_queries, 0, sizeof(pgwt_local_queries));
		pgwt_local_nqueries = 0;
		pgwt_query_merge(batch, PGWT_LOCAL_QUERIES);
		pfree(batch);
	}
}

static void
pgwt_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			pgwt_safe_point(true);
			break;
		default:
			break;
	}
}

/* Called once, from _PG_init in the postmaster, when the hooks exist. */
void
pgwt_hooks_install(void)
{
	if (!pgwt_hooks_present())
		return;
	pgwt_prev_begin_hook = wait_event_begin_hook;
	wait_event_begin_hook = pgwt_wait_begin;
	pgwt_prev_end_hook = wait_event_end_hook;
	wait_event_end_hook = pgwt_wait_end;
	RegisterXactCallback(pgwt_xact_callback, NULL);
}

#endif							/* PGWT_COOP_BUILD */
