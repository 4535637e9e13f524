/*
 * backend_slots.c
 *		Sparse per-backend statistics slots: claim, identity, exit,
 *		recycling into the retired totals, and the reset protocol.
 *
 * Two regions of slots live in shared memory, fixed at start:
 *  - the pool (pg_wait_tracer.max_sessions, default MaxBackends + 64):
 *    a process that runs InitPostgres (backend, walsender, autovacuum,
 *    background worker) claims one at its first transaction end with
 *    capture on (a safe point, never in a hook), so backends with capture
 *    off own none. A slot outlives its backend (state EXITED) until the
 *    pool needs it again: then the oldest exited slot is folded into the
 *    retired totals (system views stay cumulative) and handed over.
 *  - the auxiliary region (NUM_AUXILIARY_PROCS + max_worker_processes +
 *    PGWT_AUX_SPARE_SLOTS): processes that run no transaction (auxiliary
 *    processes, and background workers registered without
 *    BGWORKER_BACKEND_DATABASE_CONNECTION, which can never run one) claim
 *    one from a hook at their first wait, lock-free: a compare-and-swap of
 *    the slot's owner word (aux_owners, one dense array) from 0 to their
 *    pid and PGPROC number, then an owner-only seqlock write of identity
 *    and zeroed numbers. They register no exit callback (there is no safe
 *    point to do it), so a slot whose owner is gone (its PGPROC now has
 *    another pid) is shown as exited by readers, and folded into the
 *    retired totals, then freed (owner word 0), under slots_lock by
 *    reset_all, or by a pool claim at most once a second (a pass reads
 *    every owner word and the PGPROC of each; a new process pays a page
 *    fault per page it reads) and at once after an auxiliary process found
 *    the region full. A dying owner stops writing once AuxiliaryProcKill
 *    clears MyProc, which happens before its PGPROC's pid is cleared
 *    (ProcKill does the same for a background worker).
 * Claims cost: a connection's claim reads the pool's free stack or exited
 * ring (slot_pool.h), never scans the pool, and clears (or folds) only
 * the event rows its predecessor used (PgwtSlot.used_rows).
 * Foreground and background: pgwt_kind_is_session (common/process_rule.h)
 * decides (slot->foreground); only foreground time is DB time. The
 * retired totals keep the background processes' share apart
 * (retired_background*) so the views can leave it out of DB time.
 * Memory trade-off: all slots are preallocated (shared memory cannot grow
 * at a safe point without DSM); "sparse" means a slot belongs to no
 * backend until claimed, and capture-off backends claim none. The
 * auxiliary region costs (38 + max_worker_processes + 8) slots of
 * sizeof(PgwtSlot) each (pgwt_memory() shows every part's bytes).
 *
 * Locking protocol:
 *  - slots_lock (exclusive) serialises pool claims, recycling, the exit
 *    mark, folding dead auxiliary slots,
 *    reset requests and pgwt_reset_all; it also guards the retired totals
 *    (readers of system-wide numbers take it shared so a fold is never
 *    seen twice or not at all).
 *  - Each slot has one writer at a time: its owner while LIVE (in hooks,
 *    without any lock), otherwise the holder of slots_lock. Every writer
 *    brackets its writes with the slot's changecount (seqlock); readers copy
 *    the slot and retry until the count was even and unchanged. Identity
 *    and numbers change inside the same write, so a copy always describes
 *    one owner: a successor never shows its predecessor's numbers.
 *  - Reset of another backend: under slots_lock the requester checks the
 *    target slot is LIVE with the target's identity, stores that identity
 *    in the request and bumps reset_requests, then sets the target's latch.
 *    The owner applies the request at its next flush only if the identity
 *    is its own; a claim marks all earlier requests as applied. A reset
 *    racing with slot reuse therefore never reaches the successor. Readers
 *    show a slot with a pending request for its owner as already zeroed.
 */
#include "postgres.h"

#include "extension/pgwt_shared.h"
#include "extension/pgwt_clock.h"

#ifdef PGWT_COOP_BUILD

#include "access/parallel.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

PgwtSharedState *pgwt_shared = NULL;
PgwtSlot   *pgwt_slots = NULL;
PgwtSlot   *pgwt_my_slot = NULL;

/* After a failed claim, retry only once some slot has exited. */
static bool pgwt_attach_failed = false;
/* Auxiliary claim attempts left to skip after finding no free slot. */
static int	pgwt_aux_claim_backoff = 0;

#define PGWT_AUX_SLOTS (NUM_AUXILIARY_PROCS + max_worker_processes + PGWT_AUX_SPARE_SLOTS)

/* Pool slots (the auxiliary region comes on top). */
int
pgwt_resolve_nslots(void)
{
	return pgwt_max_sessions > 0 ? pgwt_max_sessions : MaxBackends + 64;
}

/*
 * Beside the slots, small and dense: the owner words of the auxiliary
 * region, then the pool's free stack and exited ring (npool slot numbers
 * each).
 */
static Size
pgwt_slot_lists_size(int npool)
{
	return add_size(mul_size(PGWT_AUX_SLOTS, sizeof(pg_atomic_uint64)),
					mul_size(2 * (Size) npool, sizeof(int32)));
}

/* An auxiliary slot's owner word: never 0 for a process (pid > 0). */
static inline uint64
pgwt_aux_owner(int pid, ProcNumber procno)
{
	return ((uint64) (uint32) pid << 32) | (uint32) procno;
}

Size
pgwt_slots_shmem_size(void)
{
	Size		size = add_size(MAXALIGN(sizeof(PgwtSharedState)),
								MAXALIGN(pgwt_slot_lists_size(pgwt_resolve_nslots())));

	return add_size(size, mul_size(pgwt_resolve_nslots() + PGWT_AUX_SLOTS, sizeof(PgwtSlot)));
}

/* Bytes of the slots, of the lists beside them and of the state header. */
void
pgwt_slots_memory(Size *slots, Size *lists, Size *state)
{
	int			npool = pgwt_resolve_nslots();

	*slots = mul_size(npool + PGWT_AUX_SLOTS, sizeof(PgwtSlot));
	*lists = pgwt_slot_lists_size(npool);
	*state = sizeof(PgwtSharedState);
}

/* Is this an auxiliary process (a PGPROC of the auxiliary range)? */
bool
pgwt_is_aux_process(void)
{
	return MyProcNumber != INVALID_PROC_NUMBER && MyProcNumber >= MaxBackends &&
		MyProcNumber < MaxBackends + NUM_AUXILIARY_PROCS;
}

/*
 * Does this process claim its slot lock-free from a hook (auxiliary region)?
 * Auxiliary processes, and background workers that cannot connect to a
 * database: neither ever reaches a transaction end, our claim point.
 */
bool
pgwt_claims_slot_lock_free(void)
{
	if (pgwt_is_aux_process())
		return true;
	return MyBackendType == B_BG_WORKER && MyBgworkerEntry != NULL &&
		(MyBgworkerEntry->bgw_flags & BGWORKER_BACKEND_DATABASE_CONNECTION) == 0;
}

/*
 * This process's kind (common/process_rule.h), from the text
 * pg_stat_activity shows for it: a parallel worker by name, another
 * background worker by its bgw_type.
 */
PgwtProcKind
pgwt_my_process_kind(void)
{
	if (MyBackendType == B_BG_WORKER && IsParallelWorker())
		return PGWT_PROC_PARALLEL_WORKER;
	if (MyBackendType == B_BG_WORKER && MyBgworkerEntry != NULL)
		return pgwt_proc_kind_of_type(MyBgworkerEntry->bgw_type);
	return pgwt_proc_kind_of_type(GetBackendTypeDesc(MyBackendType));
}

/*
 * Is this one of the extension's own workers (trace writer, sampler)?
 * They run no user work: the coop tier keeps no slot and no trace of them,
 * so their latch sleeps are billed nowhere (the tracer leaves them out the
 * same way, pgwt_kind_is_captured). Cached: a process never changes kind.
 */
bool
pgwt_is_own_worker(void)
{
	static int	own = -1;

	if (own < 0 && MyBackendType != B_INVALID)
		own = pgwt_my_process_kind() == PGWT_PROC_OWN_WORKER;
	return own > 0;
}

/* Is this process's time DB time? The one rule, pgwt_kind_is_session. */
bool
pgwt_is_foreground_process(void)
{
	return pgwt_kind_is_session(pgwt_my_process_kind());
}

/* The owner's bgw_type, shown instead of "background worker" (as pg_stat_activity does). */
static void
pgwt_slot_set_bgw_type(PgwtSlot *slot)
{
	if (MyBackendType == B_BG_WORKER && MyBgworkerEntry != NULL)
		strlcpy(slot->bgw_type, MyBgworkerEntry->bgw_type, sizeof(slot->bgw_type));
	else
		slot->bgw_type[0] = '\0';
}

/* Does the owner (state, pid, procno of one consistent read) no longer run? */
static bool
pgwt_owner_gone(uint32 state, int pid, ProcNumber procno)
{
	return state == PGWT_SLOT_LIVE && procno >= 0 &&
		procno < (int) ProcGlobal->allProcCount &&
		ProcGlobal->allProcs[procno].pid != pid;
}

static bool
pgwt_slot_owner_gone(const PgwtSlot *copy)
{
	return pgwt_owner_gone(copy->state, copy->pid, copy->procno);
}

/* Called under AddinShmemInitLock from the shmem startup hook. */
void
pgwt_slots_shmem_init(void)
{
	bool		found_state,
				found_slots;
	int			npool = pgwt_resolve_nslots();
	int			nslots = npool + PGWT_AUX_SLOTS;
	int			i;
	char	   *lists;
	bool		found_lists;

	/*
	 * The lists first: the state's header follows them, so a claim, which
	 * reads both, mostly finds them on one page.
	 */
	lists = ShmemInitStruct("pg_wait_tracer slot lists", pgwt_slot_lists_size(npool), &found_lists);
	pgwt_shared = ShmemInitStruct("pg_wait_tracer state", sizeof(PgwtSharedState), &found_state);
	pgwt_slots = ShmemInitStruct("pg_wait_tracer slots", mul_size(nslots, sizeof(PgwtSlot)), &found_slots);
	if (found_state && found_lists && found_slots)
		return;

	memset(pgwt_shared, 0, sizeof(PgwtSharedState));
	{
		LWLockPadded *locks = GetNamedLWLockTranche("pg_wait_tracer");

		pgwt_shared->slots_lock = &locks[0].lock;
		pgwt_shared->query_lock = &locks[1].lock;
	}
	pgwt_shared->nslots = nslots;
	pgwt_shared->npool = npool;
	pgwt_shared->naux = PGWT_AUX_SLOTS;
	pgwt_shared->stats_reset = GetCurrentTimestamp();
	pg_atomic_init_u64(&pgwt_shared->attach_failures, 0);
	pg_atomic_init_u64(&pgwt_shared->recycled, 0);
	pg_atomic_init_u32(&pgwt_shared->exited_slots, 0);
	pg_atomic_init_u32(&pgwt_shared->aux_full, 0);
	pgwt_shared->aux_folded_ns = pgwt_clock_ns();
	pgwt_shared->aux_owners = (pg_atomic_uint64 *) lists;
	for (i = 0; i < PGWT_AUX_SLOTS; i++)
		pg_atomic_init_u64(&pgwt_shared->aux_owners[i], 0);
	pgwt_pool_init(&pgwt_shared->pool,
				   (int32 *) (lists + PGWT_AUX_SLOTS * sizeof(pg_atomic_uint64)), npool);

	memset(pgwt_slots, 0, mul_size(nslots, sizeof(PgwtSlot)));
	for (i = 0; i < nslots; i++)
		pg_atomic_init_u32(&pgwt_slots[i].reset_requests, 0);
}

/* Fold an exited slot into the retired totals. Caller holds slots_lock. */
static void
pgwt_fold_into_retired(PgwtSlot *slot)
{
	int			i;

	/* only the rows in use: the others are zero, and on pages of their own */
	for (i = pgwt_used_rows_next(slot->used_rows, PGWT_SLOT_EVENTS, 0); i >= 0;
		 i = pgwt_used_rows_next(slot->used_rows, PGWT_SLOT_EVENTS, i + 1))
	{
		PgwtEventStat *src = &slot->events[i];
		PgwtEventStat *dst;

		if (src->event == 0 || src->agg.count == 0)
			continue;
		dst = pgwt_event_lookup(pgwt_shared->retired, PGWT_RETIRED_EVENTS, src->event, true);
		if (dst == NULL)
		{
			pgwt_shared->retired_lost_waits += src->agg.count;
			continue;
		}
		pgwt_agg_merge(&dst->agg, &src->agg);
		if (slot->foreground)
			continue;
		if (!pgwt_event_is_idle(src->event))
			pgwt_shared->retired_background_wait_ns += src->agg.total_ns;
		/* as large as 'retired': room there means room here */
		dst = pgwt_event_lookup(pgwt_shared->retired_background, PGWT_RETIRED_EVENTS,
								src->event, true);
		if (dst != NULL)
			pgwt_agg_merge(&dst->agg, &src->agg);
	}
	pgwt_shared->retired_cpu_ns += slot->cpu_ns;
	if (!slot->foreground)
		pgwt_shared->retired_background_cpu_ns += slot->cpu_ns;
	pgwt_shared->retired_lost_waits += slot->lost_waits;
	pgwt_shared->retired_query_lost_waits += slot->query_lost_waits;
}

/*
 * Fold the auxiliary slots whose owner is gone into the retired totals and
 * free them for the next auxiliary process. Caller holds slots_lock
 * exclusively (the only other writer, a live owner, is excluded by the
 * liveness test: see the header). The owner words say who claimed each
 * slot, so only the slots of dead owners are read.
 */
static void
pgwt_fold_dead_aux_slots(void)
{
	int			i;

	for (i = 0; i < pgwt_shared->naux; i++)
	{
		uint64		owner = pg_atomic_read_u64(&pgwt_shared->aux_owners[i]);
		PgwtSlot   *s = &pgwt_slots[pgwt_shared->npool + i];

		/* a claimer sets its word first, then its slot: both name it */
		if (owner == 0 || !pgwt_owner_gone(PGWT_SLOT_LIVE, (int) (owner >> 32),
										   (ProcNumber) (uint32) owner))
			continue;
		pg_read_barrier();
		if (s->state != PGWT_SLOT_LIVE)
			continue;
		pgwt_fold_into_retired(s);
		pgwt_slot_write_begin(s);
		s->state = PGWT_SLOT_FREE;
		pgwt_slot_clear_events(s);
		s->cpu_ns = 0;
		s->lost_waits = 0;
		s->query_lost_waits = 0;
		pgwt_slot_write_end(s);
		pg_write_barrier();
		pg_atomic_write_u64(&pgwt_shared->aux_owners[i], 0);
		pg_atomic_fetch_add_u64(&pgwt_shared->recycled, 1);
	}
}

/*
 * Claim a slot of the auxiliary region for this process, from a hook:
 * lock-free (compare-and-swap, then owner-only writes under the seqlock),
 * bounded (one pass). Returns NULL when none is free.
 */
PgwtSlot *
pgwt_aux_slot_claim(void)
{
	int			i;

	if (pgwt_shared == NULL || MyProc == NULL)
		return NULL;
	if (pgwt_aux_claim_backoff > 0)
	{
		pgwt_aux_claim_backoff--;
		return NULL;
	}
	for (i = 0; i < pgwt_shared->naux; i++)
	{
		PgwtSlot   *s = &pgwt_slots[pgwt_shared->npool + i];
		pg_atomic_uint64 *word = &pgwt_shared->aux_owners[i];
		uint64		expected = 0;

		if (pg_atomic_read_u64(word) != 0 ||
			!pg_atomic_compare_exchange_u64(word, &expected,
											pgwt_aux_owner(MyProcPid, MyProcNumber)))
			continue;
		pgwt_slot_write_begin(s);
		pgwt_slot_clear_events(s);
		s->state = PGWT_SLOT_LIVE;
		s->generation++;
		s->pid = MyProcPid;
		s->procno = MyProcNumber;
		s->start_time = MyStartTimestamp;
		s->backend_type = (int) MyBackendType;
		s->foreground = false;
		pgwt_slot_set_bgw_type(s);
		s->userid = InvalidOid;
		s->dbid = InvalidOid;
		s->attach_time = GetCurrentTimestamp();
		s->exit_time = 0;
		s->stats_reset = s->attach_time;
		s->cpu_ns = 0;
		s->last_end_ns = pgwt_clock_ns();
		s->lost_waits = 0;
		s->query_lost_waits = 0;
		s->cur_event = 0;
		s->cur_start_ns = 0;
		s->reset_applied = pg_atomic_read_u32(&s->reset_requests);
		s->reset_pid = 0;
		s->reset_start_time = 0;
		pgwt_slot_write_end(s);
		return s;
	}
	/* all taken (dead owners not folded yet): the next pool claim folds them */
	pg_atomic_fetch_add_u64(&pgwt_shared->attach_failures, 1);
	pg_atomic_write_u32(&pgwt_shared->aux_full, 1);
	pgwt_aux_claim_backoff = 1000;
	return NULL;
}

/*
 * At exit, after the process's last waits are folded (coop_hooks.c's exit
 * callback): the slot is marked exited, for the next claim to fold.
 */
void
pgwt_slot_release_mine(void)
{
	PgwtSlot   *slot = pgwt_my_slot;

	if (slot == NULL)
		return;
	pgwt_my_slot = NULL;

	LWLockAcquire(pgwt_shared->slots_lock, LW_EXCLUSIVE);
	pgwt_slot_write_begin(slot);
	slot->state = PGWT_SLOT_EXITED;
	slot->exit_time = GetCurrentTimestamp();
	slot->cur_event = 0;
	pgwt_slot_write_end(slot);
	pgwt_pool_add_exited(&pgwt_shared->pool, (int32) (slot - pgwt_slots));
	pg_atomic_fetch_add_u32(&pgwt_shared->exited_slots, 1);
	LWLockRelease(pgwt_shared->slots_lock);
}

/*
 * Fold the dead auxiliary slots now? Every pass reads each auxiliary slot
 * (a page each, a page fault each in a new process), so claims do it at
 * most once per interval, and at once when an auxiliary process found no
 * free slot. Caller holds slots_lock exclusively.
 */
#define PGWT_AUX_FOLD_INTERVAL_NS (UINT64CONST(1000) * 1000 * 1000)

static void
pgwt_maybe_fold_dead_aux_slots(void)
{
	uint64		now = pgwt_clock_ns();

	if (now - pgwt_shared->aux_folded_ns < PGWT_AUX_FOLD_INTERVAL_NS &&
		pg_atomic_read_u32(&pgwt_shared->aux_full) == 0)
		return;
	pg_atomic_write_u32(&pgwt_shared->aux_full, 0);
	pgwt_shared->aux_folded_ns = now;
	pgwt_fold_dead_aux_slots();
}

/*
 * Claim a slot for this backend: a free one, else the oldest exited one
 * (folded first). Runs at a safe point (transaction end), never in a hook.
 */
void
pgwt_slot_attach(void)
{
	PgwtSlot   *chosen = NULL;
	int			i;

	if (pgwt_my_slot != NULL || pgwt_shared == NULL || !IsUnderPostmaster || MyProc == NULL ||
		pgwt_is_own_worker())
		return;
	if (pgwt_attach_failed && pg_atomic_read_u32(&pgwt_shared->exited_slots) == 0)
		return;

	LWLockAcquire(pgwt_shared->slots_lock, LW_EXCLUSIVE);
	pgwt_maybe_fold_dead_aux_slots();
	/* a free slot, else the one that exited first (folded before reuse) */
	i = pgwt_pool_take_free(&pgwt_shared->pool);
	if (i >= 0)
		chosen = &pgwt_slots[i];
	else if ((i = pgwt_pool_take_oldest_exited(&pgwt_shared->pool)) >= 0)
	{
		chosen = &pgwt_slots[i];
		pgwt_fold_into_retired(chosen);
		pg_atomic_fetch_sub_u32(&pgwt_shared->exited_slots, 1);
		pg_atomic_fetch_add_u64(&pgwt_shared->recycled, 1);
	}
	if (chosen == NULL)
	{
		LWLockRelease(pgwt_shared->slots_lock);
		pg_atomic_fetch_add_u64(&pgwt_shared->attach_failures, 1);
		pgwt_attach_failed = true;
		return;
	}

	pgwt_slot_write_begin(chosen);
	pgwt_slot_clear_events(chosen);
	chosen->state = PGWT_SLOT_LIVE;
	chosen->generation++;
	chosen->pid = MyProcPid;
	chosen->procno = MyProcNumber;
	chosen->start_time = MyStartTimestamp;
	chosen->backend_type = (int) MyBackendType;
	chosen->foreground = pgwt_is_foreground_process();
	pgwt_slot_set_bgw_type(chosen);
	chosen->userid = MyProc->roleId;
	chosen->dbid = MyDatabaseId;
	chosen->attach_time = GetCurrentTimestamp();
	chosen->exit_time = 0;
	chosen->stats_reset = chosen->attach_time;
	chosen->cpu_ns = 0;
	chosen->last_end_ns = pgwt_clock_ns();
	chosen->lost_waits = 0;
	chosen->query_lost_waits = 0;
	chosen->cur_event = 0;
	chosen->cur_start_ns = 0;
	/* requests aimed at a predecessor are void */
	chosen->reset_applied = pg_atomic_read_u32(&chosen->reset_requests);
	chosen->reset_pid = 0;
	chosen->reset_start_time = 0;
	pgwt_slot_write_end(chosen);
	LWLockRelease(pgwt_shared->slots_lock);

	pgwt_attach_failed = false;
	pgwt_my_slot = chosen;
}

/* A consistent copy of a slot (seqlock read). */
void
pgwt_slot_copy(const PgwtSlot *slot, PgwtSlot *copy)
{
	int			attempts = 0;

	for (;;)
	{
		uint32		before = *(volatile const uint32 *) &slot->changecount;
		uint32		after;

		pg_read_barrier();
		memcpy(copy, (const void *) slot, sizeof(PgwtSlot));
		pg_read_barrier();
		after = *(volatile const uint32 *) &slot->changecount;
		if (before == after && (before & 1) == 0)
		{
			/* an auxiliary owner leaves no exit mark: tell from its PGPROC */
			if (pgwt_slot_owner_gone(copy))
				copy->state = PGWT_SLOT_EXITED;
			return;
		}
		/* a writer's section is short; if it was descheduled, let it run */
		if (++attempts % 16 == 0)
			pg_usleep(100);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Does this copy carry a reset its owner has not applied yet? */
bool
pgwt_slot_reset_pending(const PgwtSlot *copy)
{
	return copy->state == PGWT_SLOT_LIVE &&
		pg_atomic_read_u32(unconstify(pg_atomic_uint32 *, &copy->reset_requests)) != copy->reset_applied &&
		copy->reset_pid == copy->pid &&
		copy->reset_start_time == copy->start_time;
}

static void
pgwt_zero_slot(PgwtSlot *slot)
{
	pgwt_slot_write_begin(slot);
	pgwt_slot_clear_events(slot);
	slot->cpu_ns = 0;
	slot->lost_waits = 0;
	slot->query_lost_waits = 0;
	slot->stats_reset = GetCurrentTimestamp();
	if (slot == pgwt_my_slot)
		slot->last_end_ns = pgwt_clock_ns();
	pgwt_slot_write_end(slot);
}

/* Post a reset request to a LIVE slot. Caller holds slots_lock. */
static void
pgwt_request_reset(PgwtSlot *slot)
{
	slot->reset_pid = slot->pid;
	slot->reset_start_time = slot->start_time;
	slot->reset_request_ns = pgwt_clock_ns();
	pg_write_barrier();
	pg_atomic_fetch_add_u32(&slot->reset_requests, 1);
}

/*
 * Reset one backend's statistics (permissions are checked by the caller).
 * Returns whether the backend had a slot.
 */
bool
pgwt_reset_backend(int pid)
{
	ProcNumber	target = INVALID_PROC_NUMBER;
	int			i;

	if (pgwt_shared == NULL)
		return false;
	if (pid == MyProcPid)
	{
		if (pgwt_my_slot == NULL)
			return false;
		pgwt_zero_slot(pgwt_my_slot);
		return true;
	}

	LWLockAcquire(pgwt_shared->slots_lock, LW_EXCLUSIVE);
	for (i = 0; i < pgwt_shared->nslots; i++)
	{
		PgwtSlot   *s = &pgwt_slots[i];

		if (s->state == PGWT_SLOT_LIVE && s->pid == pid)
		{
			pgwt_request_reset(s);
			target = s->procno;
			break;
		}
	}
	LWLockRelease(pgwt_shared->slots_lock);

	/* wake it so it applies the request at its next wait */
	if (target != INVALID_PROC_NUMBER)
		SetLatch(&GetPGProcByNumber(target)->procLatch);
	return target != INVALID_PROC_NUMBER;
}

/* pgwt_reset_all(): every slot, the retired totals and the query table. */
void
pgwt_reset_everything(void)
{
	ProcNumber *wake;
	int			nwake = 0;
	int			i;

	if (pgwt_shared == NULL)
		return;
	wake = palloc(sizeof(ProcNumber) * pgwt_shared->nslots);

	LWLockAcquire(pgwt_shared->slots_lock, LW_EXCLUSIVE);
	pgwt_fold_dead_aux_slots();
	memset(pgwt_shared->retired, 0, sizeof(pgwt_shared->retired));
	memset(pgwt_shared->retired_background, 0, sizeof(pgwt_shared->retired_background));
	pgwt_shared->retired_cpu_ns = 0;
	pgwt_shared->retired_lost_waits = 0;
	pgwt_shared->retired_query_lost_waits = 0;
	pgwt_shared->retired_background_cpu_ns = 0;
	pgwt_shared->retired_background_wait_ns = 0;
	pgwt_shared->stats_reset = GetCurrentTimestamp();
	for (i = 0; i < pgwt_shared->nslots; i++)
	{
		PgwtSlot   *s = &pgwt_slots[i];

		if (s == pgwt_my_slot || s->state == PGWT_SLOT_EXITED)
			pgwt_zero_slot(s);	/* we are its writer */
		else if (s->state == PGWT_SLOT_LIVE)
		{
			pgwt_request_reset(s);
			wake[nwake++] = s->procno;
		}
	}
	LWLockRelease(pgwt_shared->slots_lock);

	for (i = 0; i < nwake; i++)
		SetLatch(&GetPGProcByNumber(wake[i])->procLatch);
	pfree(wake);
	pgwt_query_reset();
}

#endif							/* PGWT_COOP_BUILD */
