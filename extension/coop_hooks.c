/*
 * coop_hooks.c
 *		The coop tier's hot path: the timed-pair wait-event hooks.
 *
 * Hook contract (from the server): the hooks run in the middle of a wait,
 * possibly holding an LWLock, in a critical section or outside any
 * transaction. So they touch only backend-local state and this process's
 * own shared slot: no allocation, no lock, no wait, no error.
 *
 * Cost. Capture off costs nothing but the server's NULL test: the hooks
 * are installed only in processes that collect (in the postmaster at
 * start when capture is on, so every child inherits them; else by a
 * backend at a transaction end once capture is on for it, and removed
 * there when it is turned off). With capture on, the hot path is:
 *   begin hook: one test for "collecting", one for "flush due", a clock
 *               read, the query id, and four stores (two of them in our
 *               slot for pgwt_active);
 *   end hook:   a clock read and one append to a 64-entry backend-local
 *               buffer. The end of an LWLock wait can run with the lock
 *               held, so no accounting happens here.
 *   flush:      (begin hook, every 32 waits, before an idle wait, on a
 *               reset request; only with interrupts not held off and
 *               outside a critical section, hence with no LWLock held)
 *               folds the buffer into our slot in one seqlock write
 *               section. The row of the previous wait is tried
 *               before the hash lookup; the histogram bucket is one count
 *               of leading zeros; no division anywhere; the trace is asked
 *               per wait only when a window or capture = trace can want
 *               some wait of the batch.
 *   No test for a previous hook: with other modules' hooks before ours,
 *   chaining variants of the hooks are installed instead.
 * Two TSC reads per wait pair are most of its time (bench/programs/waitpair
 * measures the pair; its records are in docs/PERFORMANCE.md).
 *
 * Who collects (slots: backend_slots.c):
 *   - backends and every process that runs InitPostgres (walsenders,
 *     autovacuum, background workers) claim a pool slot at their first
 *     transaction end (InitPostgres commits one). Their waits before that
 *     (start-up, authentication) are kept in the buffer meanwhile and
 *     folded in at the claim; more than 64 of them are counted as lost.
 *   - auxiliary processes (checkpointer, background writer, WAL writer,
 *     startup, archiver, WAL summarizer, WAL receiver, I/O workers) and
 *     background workers registered without a database connection run no
 *     transaction: they claim a reserved slot from their first wait with a
 *     compare-and-swap (lock-free), and write only their own slot.
 *   - the postmaster runs the timed pair too (ServerLoop) and never
 *     collects (IsUnderPostmaster is false there), so its children inherit
 *     an empty buffer.
 *
 * Query attribution: each wait carries the query id the backend reports at
 * the wait's start (pg_stat_activity.query_id) and its transaction's start.
 * The server clears the id only when the next statement starts, so waits
 * after a statement's end that belong to it (commit: WALWrite, WALSync,
 * SyncRep...) keep its id; a wait seen with none inside a transaction (a
 * lock wait during the next statement's parse analysis) is billed to the
 * transaction's last statement by the one carry rule every tier follows
 * (common/query_carry.h), applied when the buffer is folded. Idle waits
 * (Activity class, Client:ClientRead) are not charged to queries.
 *
 * Clock: pgwt_clock.h (the TSC, calibrated, where the kernel trusts it;
 * else CLOCK_MONOTONIC through the vDSO).
 */
#include "postgres.h"

#include "extension/pgwt_shared.h"

#ifdef PGWT_COOP_BUILD

#include "access/xact.h"
#include "miscadmin.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "utils/backend_status.h"
#include "utils/wait_event.h"

#include "common/query_carry.h"
#include "extension/pgwt_clock.h"
#include "extension/trace_capture.h"

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
#define PGWT_FLUSH_BATCH 32
#define PGWT_LOCAL_QUERIES 128	/* power of two */
#define PGWT_LOCAL_QUERIES_FILL (PGWT_LOCAL_QUERIES * 3 / 4)

typedef struct PgwtPending
{
	uint32		event;
	uint32		pad;
	int64		query_id;
	int64		xact_start;		/* the carry's key: st_xact_start_timestamp */
	uint64		start_ns;
	uint64		end_ns;
} PgwtPending;

/*
 * Backend-local hot state, together so the hooks touch few cache lines:
 * the slot we collect into (NULL: not collecting, take the slow path),
 * the wait in progress, and the buffer of finished waits.
 */
typedef struct PgwtHot
{
	PgwtSlot   *slot;
	volatile uint32 *cur_event;	/* &slot->cur_event, or a local dummy */
	const int64 *query_id;		/* &MyBEEntry->st_query_id, or a local 0 */
	const TimestampTz *xact_start;	/* &MyBEEntry->st_xact_start_timestamp, or a local 0 */
	int			npending;
	bool		in_wait;		/* pending[npending] is a begun wait */
	PgwtPending pending[PGWT_PENDING_MAX];
} PgwtHot;

static uint32 pgwt_no_cur_event;
static const int64 pgwt_no_query_id = 0;
static const TimestampTz pgwt_no_xact_start = 0;
static PgwtHot pgwt_hot = {NULL, &pgwt_no_cur_event, &pgwt_no_query_id, &pgwt_no_xact_start};

/* this process's query-id carry (common/query_carry.h): the folding writes it */
static PgwtQidCarry pgwt_carry;

static wait_event_hook_type pgwt_prev_begin_hook = NULL;
static wait_event_hook_type pgwt_prev_end_hook = NULL;
static bool pgwt_hooks_in_chain = false;	/* ours are in this process's chain */

/* row of the previous wait in our slot's table (pgwt_fold_wait) */
static uint32 pgwt_cached_row = 0;
/* waits dropped while no slot was known (buffer full before the claim) */
static uint64 pgwt_unattached_lost = 0;

/*
 * Per-(query, event) sums since the last merge into the shared table, and
 * the rows in use (in claim order): a merge, at every transaction end,
 * copies and clears only those rows (a statement has a few), not the
 * whole 40 kB table.
 */
static PgwtQueryEntry pgwt_local_queries[PGWT_LOCAL_QUERIES];
static uint8 pgwt_local_used[PGWT_LOCAL_QUERIES_FILL];
StaticAssertDecl(PGWT_LOCAL_QUERIES <= 256, "pgwt_local_used holds row numbers as uint8");
static int	pgwt_local_nqueries = 0;
/* what a merge hands to the shared table (never re-entered: see below) */
static PgwtQueryEntry pgwt_merge_batch[PGWT_LOCAL_QUERIES_FILL];

/*
 * Our hooks. The plain ones run when no other module had hooks before us
 * (the common case: no test for a previous hook on the hot path); the
 * chained ones call the previous hooks around the same work.
 */
static void pgwt_wait_begin(uint32 wait_event_info);
static void pgwt_wait_end(uint32 wait_event_info);
static void pgwt_wait_end_eager(uint32 wait_event_info);
static void pgwt_wait_begin_chained(uint32 wait_event_info);
static void pgwt_wait_end_chained(uint32 wait_event_info);

/*
 * Processes with a lock-free slot (auxiliary processes, unconnected
 * background workers) have no exit callback to flush their buffer, and
 * mostly wait long: their end hook (pgwt_wait_end_eager) flushes after
 * every wait of at least this long, where it is safe, so a last long
 * wait is not lost at exit and readers see such waits at once.
 */
#define PGWT_EAGER_FLUSH_NS (1000 * 1000)
static bool pgwt_eager_flush = false;	/* this process owns a lock-free slot */
static bool pgwt_exiting = false;	/* pgwt_settle_exit ran: collect no more */

/*
 * A process collecting from its start bills its CPU* from its start (the
 * fork: authentication and the first catalog loads are the session's
 * work, as a sampler sees them), not from its first wait or slot claim.
 * 'decided': the first chance to collect has come (with capture on or
 * not); 'from_ns': the start on our clock when counting began there;
 * 'folded': some wait has been folded since (the trace's start record is
 * written only before that).
 */
static bool pgwt_start_decided = false;
static bool pgwt_start_folded = false;

bool
pgwt_hooks_present(void)
{
	return &wait_event_begin_hook != NULL && &wait_event_end_hook != NULL;
}

/* Put our hooks in this process's chain, or take them out when on top. */
static void
pgwt_hooks_set(bool on)
{
	if (!pgwt_hooks_present())
		return;
	if (on && !pgwt_hooks_in_chain)
	{
		pgwt_prev_begin_hook = wait_event_begin_hook;
		wait_event_begin_hook = pgwt_prev_begin_hook != NULL ?
			pgwt_wait_begin_chained : pgwt_wait_begin;
		pgwt_prev_end_hook = wait_event_end_hook;
		wait_event_end_hook = pgwt_prev_end_hook != NULL ? pgwt_wait_end_chained :
			pgwt_eager_flush ? pgwt_wait_end_eager : pgwt_wait_end;
		pgwt_hooks_in_chain = true;
	}
	else if (!on && pgwt_hooks_in_chain &&
			 (wait_event_begin_hook == pgwt_wait_begin ||
			  wait_event_begin_hook == pgwt_wait_begin_chained) &&
			 (wait_event_end_hook == pgwt_wait_end ||
			  wait_event_end_hook == pgwt_wait_end_eager ||
			  wait_event_end_hook == pgwt_wait_end_chained))
	{
		/* a module chained after us keeps ours (they idle on the slow path) */
		wait_event_begin_hook = pgwt_prev_begin_hook;
		wait_event_end_hook = pgwt_prev_end_hook;
		pgwt_hooks_in_chain = false;
	}
}

/* Empty the local query table: only its used rows can be non-zero. */
static void
pgwt_local_queries_clear(void)
{
	int			i;

	for (i = 0; i < pgwt_local_nqueries; i++)
		memset(&pgwt_local_queries[pgwt_local_used[i]], 0, sizeof(PgwtQueryEntry));
	pgwt_local_nqueries = 0;
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
			/* the session's role: the views show query ids as pg_stat_statements */
			e->key.userid = (uint32) slot->userid;
			pgwt_local_used[pgwt_local_nqueries++] = (uint8) (e - pgwt_local_queries);
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
	pgwt_slot_clear_events(slot);
	slot->cpu_ns = 0;
	slot->lost_waits = 0;
	slot->query_lost_waits = 0;
	slot->last_end_ns = pgwt_clock_ns();
	slot->stats_reset = GetCurrentTimestamp();
}

/*
 * Apply a reset another backend requested, if it targets us (the request
 * carries the identity it was meant for; a predecessor's request is
 * dropped). Returns the clock time of the request: buffered waits that
 * ended before it belong to the numbers reset (0: no reset). Caller is
 * inside a write section of our slot.
 */
static uint64
pgwt_consume_reset_request(PgwtSlot *slot)
{
	uint32		req = pg_atomic_read_u32(&slot->reset_requests);
	uint64		cutoff = 0;

	if (req == slot->reset_applied)
		return 0;
	pg_read_barrier();
	if (slot->reset_pid == MyProcPid && slot->reset_start_time == MyStartTimestamp)
	{
		pgwt_zero_my_stats(slot);
		cutoff = slot->reset_request_ns;
		slot->last_end_ns = cutoff;
	}
	slot->reset_applied = req;
	return cutoff;
}

/* Stop collecting in this process (the slot, if any, stays ours). */
void
pgwt_collect_stop(void)
{
	pgwt_hot.slot = NULL;
	pgwt_hot.cur_event = &pgwt_no_cur_event;
	pgwt_hot.query_id = &pgwt_no_query_id;
	pgwt_hot.xact_start = &pgwt_no_xact_start;
	pgwt_hot.in_wait = false;
	pgwt_hot.npending = 0;
}

/* The process's start on our clock (0: unknown). Hook-safe. */
static uint64
pgwt_process_start_ns(void)
{
	TimestampTz now = GetCurrentTimestamp();
	uint64		mono = pgwt_clock_ns();
	uint64		age_ns;

	if (MyStartTimestamp == 0 || now < MyStartTimestamp)
		return 0;
	age_ns = (uint64) (now - MyStartTimestamp) * 1000;
	return age_ns < mono ? mono - age_ns : 0;
}

/* Start (or resume) collecting into the slot we own. */
static void
pgwt_collect_start(PgwtSlot *slot)
{
	uint64		first = pgwt_hot.npending > 0 ? pgwt_hot.pending[0].start_ns : pgwt_clock_ns();

	/*
	 * Time while not collecting is not CPU*: count gaps from now, or from
	 * the process's start when it has collected from its first chance on.
	 */
	if (!pgwt_start_decided)
	{
		uint64		start = pgwt_process_start_ns();

		pgwt_start_decided = true;
		if (start != 0 && start < first)
		{
			first = start;
			pgwt_trace_set_start_ns(start);
		}
	}
	pgwt_slot_write_begin(slot);
	slot->last_end_ns = first;
	slot->lost_waits += pgwt_unattached_lost;
	pgwt_slot_write_end(slot);
	pgwt_unattached_lost = 0;
	pgwt_cached_row = 0;
	pgwt_hot.cur_event = &slot->cur_event;
	pgwt_hot.query_id = MyBEEntry ? &MyBEEntry->st_query_id : &pgwt_no_query_id;
	pgwt_hot.xact_start = MyBEEntry ? &MyBEEntry->st_xact_start_timestamp : &pgwt_no_xact_start;
	pgwt_hot.slot = slot;
}

/*
 * Fold the pending waits into our slot and the local query table.
 * Lock-free and bounded (at most PGWT_PENDING_MAX waits): callable from
 * the hooks. Without a slot yet, the waits stay buffered for the claim
 * (pgwt_safe_point) unless the buffer is full.
 */
void
pgwt_flush_pending(void)
{
	PgwtSlot   *slot = pgwt_my_slot;
	PgwtFoldState st;
	uint64		cutoff;
	int			n = pgwt_hot.npending;
	int			i,
				first;
	bool		maybe_trace;

	if (slot == NULL || pgwt_hot.slot == NULL)
	{
		if (n >= PGWT_PENDING_MAX)
		{
			pgwt_unattached_lost += n;
			pgwt_hot.npending = 0;
		}
		return;
	}
	/*
	 * An auxiliary process past AuxiliaryProcKill (MyProc gone) may have
	 * lost its slot to a successor: it writes nothing any more.
	 */
	if (unlikely(MyProc == NULL || pgwt_capture == PGWT_CAPTURE_OFF))
	{
		pgwt_collect_stop();
		return;
	}
	/*
	 * Nothing to fold and no reset to apply: skip the write section. Empty
	 * flushes are common: every statement marker flushes while a trace
	 * window is open, and most markers follow no wait.
	 */
	if (n == 0 && pg_atomic_read_u32(&slot->reset_requests) == slot->reset_applied)
		return;

	/* the carry first: the fold and the trace bill the same query */
	for (i = 0; i < n; i++)
	{
		PgwtPending *p = &pgwt_hot.pending[i];

		p->query_id = (int64) pgwt_qid_carry(&pgwt_carry, MyProcPid, p->xact_start,
											 (uint64) p->query_id);
	}

	pgwt_slot_write_begin(slot);
	cutoff = pgwt_consume_reset_request(slot);
	st.cpu_ns = slot->cpu_ns;
	st.last_end_ns = slot->last_end_ns;
	st.lost_waits = slot->lost_waits;
	st.cached_row = pgwt_cached_row;
	st.used_rows = slot->used_rows;
	/* waits that ended before a reset of our numbers belong to it */
	i = 0;
	if (unlikely(cutoff != 0))
		while (i < n && pgwt_hot.pending[i].end_ns <= cutoff)
			i++;
	/*
	 * Ask about the trace per wait only when some wait of the batch can go
	 * there: capture = trace, or a window that ends after the batch's first
	 * start (starts only grow). Most batches skip the per-wait test.
	 */
	maybe_trace = i < n && pgwt_trace_active(pgwt_hot.pending[i].start_ns);
	first = i;
	for (; i < n; i++)
	{
		const PgwtPending *p = &pgwt_hot.pending[i];

		pgwt_fold_wait(slot->events, PGWT_SLOT_EVENTS, &st, p->event, p->start_ns, p->end_ns);
		if (p->query_id != 0 && !pgwt_event_is_idle(p->event))
			pgwt_local_query_add(slot, p->query_id, p->event,
								 p->end_ns > p->start_ns ? p->end_ns - p->start_ns : 0);
	}
	slot->cpu_ns = st.cpu_ns;
	slot->last_end_ns = st.last_end_ns;
	slot->lost_waits = st.lost_waits;
	pgwt_slot_write_end(slot);
	pgwt_cached_row = st.cached_row;

	/* the trace (capture = trace, escalation windows): bounded, lock-free */
	if (unlikely(maybe_trace))
		for (i = first; i < n; i++)
		{
			const PgwtPending *p = &pgwt_hot.pending[i];
			uint64		from;

			if (pgwt_trace_wanted(p->event, p->start_ns, p->end_ns, &from))
				pgwt_trace_wait(p->event, from, p->end_ns > from ? p->end_ns - from : 0,
								(uint64) p->query_id);
		}
	if (unlikely(!pgwt_start_folded) && n > 0)
	{
		/* a ring taken from now on begins at its first record */
		pgwt_start_folded = true;
		pgwt_trace_set_start_ns(0);
	}
	pgwt_hot.npending = 0;
}

/*
 * Bill the CPU* since our last wait up to 'now', as the next wait would,
 * so that a reader sees it at once. False when not collecting, or inside a
 * wait (nothing to bill).
 */
static bool
pgwt_close_cpu_span(uint64 now)
{
	PgwtSlot   *slot = pgwt_hot.slot;

	if (slot == NULL || slot != pgwt_my_slot || pgwt_hot.in_wait)
		return false;
	pgwt_slot_write_begin(slot);
	if (now > slot->last_end_ns)
	{
		slot->cpu_ns += now - slot->last_end_ns;
		slot->last_end_ns = now;
	}
	pgwt_slot_write_end(slot);
	return true;
}

/*
 * Begin hook, not collecting yet (or any more): the postmaster, capture
 * off, a backend before its slot claim, an auxiliary process before its
 * first wait, or one whose capture was switched off and on again.
 */
static pg_noinline void
pgwt_wait_begin_slow(uint32 wait_event_info)
{
	PgwtPending *p;

	if (!IsUnderPostmaster || pgwt_capture == PGWT_CAPTURE_OFF || wait_event_info == 0 ||
		pgwt_exiting || pgwt_is_own_worker())
	{
		if (IsUnderPostmaster && pgwt_capture == PGWT_CAPTURE_OFF)
			pgwt_start_decided = true;
		return;
	}
	if (pgwt_my_slot == NULL && MyProc != NULL && pgwt_claims_slot_lock_free())
	{
		pgwt_my_slot = pgwt_aux_slot_claim();
		pgwt_eager_flush = pgwt_my_slot != NULL;
		/* our plain end hook on top of the chain: switch to the eager one */
		if (pgwt_eager_flush && wait_event_end_hook == pgwt_wait_end)
			wait_event_end_hook = pgwt_wait_end_eager;
	}
	if (pgwt_my_slot != NULL && MyProc != NULL)
	{
		pgwt_collect_start(pgwt_my_slot);
		pgwt_my_slot->cur_start_ns = pgwt_clock_ns();
		pgwt_my_slot->cur_event = wait_event_info;
	}
	/* else: buffer the wait until the claim at the first transaction end */
	p = &pgwt_hot.pending[pgwt_hot.npending];
	p->event = wait_event_info;
	p->query_id = MyBEEntry ? MyBEEntry->st_query_id : 0;
	p->xact_start = MyBEEntry ? MyBEEntry->st_xact_start_timestamp : 0;
	p->start_ns = pgwt_clock_ns();
	pgwt_hot.in_wait = true;
}

static void
pgwt_wait_begin(uint32 wait_event_info)
{
	PgwtSlot   *slot;
	PgwtPending *p;
	uint64		now = 0;
	bool		idle;

	slot = pgwt_hot.slot;
	if (unlikely(slot == NULL))
	{
		pgwt_wait_begin_slow(wait_event_info);
		return;
	}

	/*
	 * Deferred accounting, only where no LWLock can be held: in batches
	 * (the fixed cost of a flush is shared), before every idle wait so that
	 * a backend going idle leaves its numbers up to date for readers (its
	 * waits, and the CPU* since the last of them: a session idle for hours
	 * would otherwise bill its last statement's CPU* only when it wakes),
	 * and when another backend asked for a reset (it set our latch to get
	 * here).
	 */
	idle = pgwt_event_maybe_idle(wait_event_info) && pgwt_event_is_idle(wait_event_info);
	if (unlikely(pgwt_hot.npending >= PGWT_FLUSH_BATCH || idle ||
				 pg_atomic_read_u32(&slot->reset_requests) != slot->reset_applied) &&
		InterruptHoldoffCount == 0 && CritSectionCount == 0)
	{
		pgwt_flush_pending();
		/* no wait in progress: a ring we no longer trace into goes back */
		pgwt_trace_settle_ring();
		if (pgwt_hot.slot == NULL)
			return;				/* capture went off, or we are exiting */
		if (idle)
		{
			now = pgwt_clock_ns();
			pgwt_close_cpu_span(now);
		}
	}

	/* the end hook only has to add the end time to this entry */
	if (now == 0)
		now = pgwt_clock_ns();
	p = &pgwt_hot.pending[pgwt_hot.npending];
	p->event = wait_event_info;
	p->query_id = *pgwt_hot.query_id;
	p->xact_start = *pgwt_hot.xact_start;
	p->start_ns = now;
	pgwt_hot.in_wait = true;
	slot->cur_start_ns = now;
	slot->cur_event = wait_event_info;
}

static void
pgwt_wait_end(uint32 wait_event_info)
{
	/* An end without a begin (abort paths, or begun before we collected) is skipped. */
	if (likely(pgwt_hot.in_wait))
	{
		pgwt_hot.pending[pgwt_hot.npending].end_ns = pgwt_clock_ns();
		pgwt_hot.in_wait = false;
		*pgwt_hot.cur_event = 0;
		if (unlikely(++pgwt_hot.npending == PGWT_PENDING_MAX))
			pgwt_flush_pending();
	}
}

/* End hook of processes with a lock-free slot (see PGWT_EAGER_FLUSH_NS). */
static void
pgwt_wait_end_eager(uint32 wait_event_info)
{
	if (likely(pgwt_hot.in_wait))
	{
		PgwtPending *p = &pgwt_hot.pending[pgwt_hot.npending];
		uint64		now = pgwt_clock_ns();

		p->end_ns = now;
		pgwt_hot.in_wait = false;
		*pgwt_hot.cur_event = 0;
		++pgwt_hot.npending;
		/* with interrupts not held off no LWLock is held: flushing is safe */
		if (pgwt_hot.npending == PGWT_PENDING_MAX ||
			(now - p->start_ns >= PGWT_EAGER_FLUSH_NS &&
			 InterruptHoldoffCount == 0 && CritSectionCount == 0))
			pgwt_flush_pending();
	}
}

/* Chaining: the previous begin hook before ours, our end work before theirs. */
static void
pgwt_wait_begin_chained(uint32 wait_event_info)
{
	pgwt_prev_begin_hook(wait_event_info);
	pgwt_wait_begin(wait_event_info);
}

static void
pgwt_wait_end_chained(uint32 wait_event_info)
{
	if (pgwt_eager_flush)
		pgwt_wait_end_eager(wait_event_info);
	else
		pgwt_wait_end(wait_event_info);
	pgwt_prev_end_hook(wait_event_info);
}

static void pgwt_coop_exit(int code, Datum arg);

/*
 * Ordinary code path (transaction end, backend exit): follow the capture
 * setting (hooks in or out of the chain), claim a slot when collecting
 * without one, flush, and when asked merge the query sums.
 */
void
pgwt_safe_point(bool merge_queries)
{
	bool		collect = pgwt_capture != PGWT_CAPTURE_OFF && IsUnderPostmaster &&
		pgwt_hooks_present() && MyProc != NULL && !pgwt_exiting;

	if (!collect && IsUnderPostmaster && pgwt_capture == PGWT_CAPTURE_OFF)
		pgwt_start_decided = true;

	if (collect)
	{
		pgwt_hooks_set(true);
		if (pgwt_my_slot == NULL)
		{
			pgwt_local_queries_clear();
			pgwt_slot_attach();
			if (pgwt_my_slot != NULL)
				on_shmem_exit(pgwt_coop_exit, (Datum) 0);
		}
		if (pgwt_my_slot != NULL && pgwt_hot.slot == NULL)
			pgwt_collect_start(pgwt_my_slot);
	}
	if (pgwt_my_slot == NULL)
	{
		if (!collect)
		{
			pgwt_collect_stop();
			pgwt_hooks_set(false);
		}
		pgwt_trace_settle_ring();
		return;
	}
	pgwt_flush_pending();
	pgwt_trace_settle_ring();
	if (!collect)
	{
		pgwt_collect_stop();
		pgwt_hooks_set(false);
	}
	if (merge_queries && pgwt_local_nqueries > 0)
	{
		/*
		 * Merge a copy: a hook running during the merge (a wait for the
		 * query table's lock or a spinlock delay) may flush into the local
		 * table again, and those waits belong to the next merge. Hooks
		 * only flush, never merge, so the static batch is not re-entered.
		 */
		int			n = pgwt_local_nqueries;
		int			i;

		for (i = 0; i < n; i++)
			pgwt_merge_batch[i] = pgwt_local_queries[pgwt_local_used[i]];
		pgwt_local_queries_clear();
		pgwt_query_merge(pgwt_merge_batch, n);
	}
}

/*
 * Before a view reads the slots: bring the calling session's own numbers
 * up to this instant. Other sessions' figures stand as of their last flush
 * (a transaction end, an idle wait, a full batch); ours would otherwise
 * miss the waits of the statement reading them, and the CPU* since our last
 * wait (the reading statement's own parse, plan and catalog loads), which
 * the trace files place before this instant. The open gap is closed at
 * 'now' exactly as the next wait would close it, so nothing counts twice.
 */
void
pgwt_settle_own(void)
{
	pgwt_safe_point(true);
	(void) pgwt_close_cpu_span(pgwt_clock_ns());
}

/*
 * The process is leaving (the first of our exit callbacks): its waits so
 * far are folded (and traced), its last CPU* span ends now, in the slot and
 * in the trace alike, and nothing after this counts: what runs later in
 * the exit is no one's time, in every path.
 */
void
pgwt_settle_exit(void)
{
	uint64		now;

	if (pgwt_exiting)
		return;
	if (pgwt_hot.slot != NULL && MyProc != NULL)
	{
		pgwt_flush_pending();
		now = pgwt_clock_ns();
		if (pgwt_close_cpu_span(now))
			pgwt_trace_exit(now);
	}
	pgwt_exiting = true;
	pgwt_collect_stop();
}

/*
 * Exit callback, registered when the process claims its slot: its last
 * waits are folded (and traced) and its last CPU* span closed, then the
 * slot is marked exited. A ring it holds was released before this runs
 * (trace_markers.c registers that callback later, so it runs first).
 */
static void
pgwt_coop_exit(int code, Datum arg)
{
	if (pgwt_my_slot == NULL)
		return;
	pgwt_settle_exit();
	pgwt_safe_point(true);
	pgwt_collect_stop();
	pgwt_slot_release_mine();
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

/*
 * Assign hook for pg_wait_tracer.capture (runs in every process on a
 * reload, and on SET): puts the hooks in the chain when capture turns on,
 * so that auxiliary processes, which have no transaction end, follow a
 * reload. Turning off takes effect at the next flush or transaction end.
 */
void
pgwt_capture_assign(int newval, void *extra)
{
	if (newval != PGWT_CAPTURE_OFF && pgwt_loaded_at_startup)
		pgwt_hooks_set(true);
	/* a process refused a ring may try again from here */
	if (newval == PGWT_CAPTURE_TRACE)
		pgwt_trace_capture_set();
}

/*
 * Called once, from _PG_init in the postmaster, when the hooks exist.
 * With capture off at start the hooks stay out of the chain: such a
 * server pays only the NULL test until a backend turns capture on.
 */
void
pgwt_hooks_install(void)
{
	if (!pgwt_hooks_present())
		return;
	if (pgwt_capture != PGWT_CAPTURE_OFF)
		pgwt_hooks_set(true);
	RegisterXactCallback(pgwt_xact_callback, NULL);
}

#endif							/* PGWT_COOP_BUILD */
