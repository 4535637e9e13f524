/*
 * trace_capture.c
 *		Exact per-wait trace: settings, shared memory, this process's ring
 *		(taken from the pool, given back) and the hot-path appends. The
 *		statement markers that frame the waits are trace_markers.c's. The
 *		locking protocol is in trace_capture.h.
 *
 * What is traced: every wait of a session whose pg_wait_tracer.capture is
 * "trace", and during an escalation window the waits of the window's
 * classes in every process that collects.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "extension/pgwt_clock.h"
#include "extension/trace_capture.h"

PgwtTraceShared *pgwt_trace_shared = NULL;


static bool pgwt_trace_with_rings = false;
static shmem_request_hook_type pgwt_trace_prev_request = NULL;
static shmem_startup_hook_type pgwt_trace_prev_startup = NULL;

#ifdef PGWT_COOP_BUILD
/*
 * This process's ring, taken from the pool at its first traced record. The
 * pids say which process each word is about: a forked child inherits the
 * statics. pgwt_trace_held_ring is the same pointer, for the inline test
 * of the safe points.
 */
static pgwt_trace_ring *pgwt_trace_my_ring = NULL;
static int	pgwt_trace_my_ring_idx = -1;
static int	pgwt_trace_my_ring_pid = 0;
static bool pgwt_trace_my_role_known = false;	/* the ring carries our role */
static int	pgwt_trace_released_pid = 0;	/* exiting: no more rings */
/* where this process's CPU* begins, for a start record (0: none) */
static uint64 pgwt_trace_start_from_ns = 0;
/*
 * A refusal (pool empty) holds until the next window or the next SET of
 * capture = trace: counted once, and no pass over the pool per wait.
 */
static int	pgwt_trace_refused_pid = 0;
static uint64 pgwt_trace_refused_epoch = 0;
static uint32 pgwt_trace_capture_epoch = 0;
#endif
void	   *pgwt_trace_held_ring = NULL;

#ifndef PGWT_COOP_BUILD
/* Without the coop tier no process holds a ring. */
void
pgwt_trace_settle_ring_slow(void)
{
}

void
pgwt_trace_capture_set(void)
{
}
#endif


static int
pgwt_trace_nrings(void)
{
	/* a pool: what can be traced at once, not one ring per process */
	return pgwt_trace_with_rings ? pgwt_trace_rings : 0;
}

static Size
pgwt_trace_stride(void)
{
	return MAXALIGN(pgwt_tring_size((uint32) pgwt_trace_ring_size));
}

Size
pgwt_trace_header_bytes(void)
{
	/* the pool's words sit on their own cache lines, apart from the header */
	return add_size(MAXALIGN(offsetof(PgwtTraceShared, pool)),
					TYPEALIGN(PG_CACHE_LINE_SIZE,
							  mul_size(sizeof(uint64), Max(pgwt_trace_nrings(), 1))));
}

Size
pgwt_trace_rings_bytes(void)
{
	return mul_size(pgwt_trace_stride(), pgwt_trace_nrings());
}

static Size
pgwt_trace_shmem_size(void)
{
	return add_size(pgwt_trace_header_bytes(), pgwt_trace_rings_bytes());
}

static void
pgwt_trace_shmem_request(void)
{
	if (pgwt_trace_prev_request)
		pgwt_trace_prev_request();
	RequestAddinShmemSpace(pgwt_trace_shmem_size());
}

static void
pgwt_trace_shmem_startup(void)
{
	bool		found;

	if (pgwt_trace_prev_startup)
		pgwt_trace_prev_startup();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	pgwt_trace_shared = ShmemInitStruct("pg_wait_tracer trace",
										pgwt_trace_shmem_size(), &found);
	if (!found)
	{
		int			n = pgwt_trace_nrings();

		memset(pgwt_trace_shared, 0, pgwt_trace_header_bytes());
		SpinLockInit(&pgwt_trace_shared->esc_lock);
		pgwt_escwin_init(&pgwt_trace_shared->escwin, pgwt_escalation_budget,
						 pgwt_escalation_auto);
		pgwt_trace_shared->last_budget_s = pgwt_escalation_budget;
		pgwt_trace_shared->nrings = n;
		pgwt_trace_shared->ring_capacity = pgwt_tring_round_capacity((uint64) pgwt_trace_ring_size);
		pgwt_trace_shared->ring_stride = pgwt_trace_stride();
		pgwt_trace_shared->rings_offset = pgwt_trace_header_bytes() -
			offsetof(PgwtTraceShared, pool);
		for (int i = 0; i < n; i++)
			pgwt_tring_init(pgwt_trace_ring_at(i), pgwt_trace_shared->ring_capacity);
	}
	LWLockRelease(AddinShmemInitLock);
}

pgwt_trace_ring *
pgwt_trace_ring_at(int i)
{
	if (pgwt_trace_shared == NULL || i < 0 || i >= pgwt_trace_shared->nrings)
		return NULL;
	return (pgwt_trace_ring *) (pgwt_trace_shared->pool + pgwt_trace_shared->rings_offset +
								(Size) i * pgwt_trace_shared->ring_stride);
}

uint64
pgwt_trace_now_ns(void)
{
	return pgwt_clock_ns();
}

/* Caller holds esc_lock: a reloaded budget reaches the policy here. */
void
pgwt_trace_esc_sync_budget(void)
{
	PgwtTraceShared *ts = pgwt_trace_shared;

	if (ts->last_budget_s != pgwt_escalation_budget)
	{
		pgwt_esc_set_budget(&ts->escwin.esc, pgwt_escalation_budget);
		ts->last_budget_s = pgwt_escalation_budget;
	}
	ts->escwin.auto_enabled = pgwt_escalation_auto;
}

/* ---- hot path ------------------------------------------------------------ */

#ifdef PGWT_COOP_BUILD
/* Which window or SET of capture = trace a refusal belongs to. */
static inline uint64
pgwt_trace_epoch(void)
{
	return ((uint64) pgwt_trace_capture_epoch << 32) |
		__atomic_load_n(&pgwt_trace_shared->escwin.published.generation, __ATOMIC_RELAXED);
}

void
pgwt_trace_capture_set(void)
{
	pgwt_trace_capture_epoch++;
}

/*
 * Take a ring from the pool and claim it (hook-safe: a bounded pass over
 * the pool's words, a compare-and-swap, a few stores; no lock, no error):
 * our identity as pg_stat_activity shows it, the role when InitPostgres
 * has set it (else at the next transaction end). None once MyProc is gone
 * (ProcKill clears it before the PGPROC can go to another process), nor
 * when the pool is empty: that is counted, once per window or SET.
 */
static pgwt_trace_ring *
pgwt_trace_claim_mine(void)
{
	pgwt_trace_ring *r;
	uint64	   *words;
	int			idx;

	/*
	 * Not before our PGPROC carries our pid: the trace writer frees the ring
	 * of a holder whose PGPROC has another pid (trace_pool.h).
	 */
	if (MyProc == NULL || MyProcNumber == INVALID_PROC_NUMBER || MyProcPid == 0 ||
		MyProc->pid != MyProcPid ||
		pgwt_trace_released_pid == MyProcPid || pgwt_trace_shared == NULL ||
		pgwt_trace_shared->nrings == 0)
		return NULL;
	if (pgwt_trace_refused_pid == MyProcPid && pgwt_trace_refused_epoch == pgwt_trace_epoch())
		return NULL;
	words = pgwt_trace_pool_words();
	idx = pgwt_tpool_take(words, pgwt_trace_shared->nrings,
						  MyProcNumber % pgwt_trace_shared->nrings,
						  (uint32) MyProcPid, (uint32) MyProcNumber);
	if (idx < 0)
	{
		pgwt_trace_refused_pid = MyProcPid;
		pgwt_trace_refused_epoch = pgwt_trace_epoch();
		__atomic_fetch_add(&pgwt_trace_shared->ring_exhausted, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	r = pgwt_trace_ring_at(idx);
	pgwt_tring_claim(r, (uint32) MyProcPid, (int64_t) MyStartTimestamp,
					 (uint32) MyProc->roleId);
	pgwt_trace_my_role_known = OidIsValid(MyProc->roleId);
	pgwt_trace_my_ring = r;
	pgwt_trace_my_ring_idx = idx;
	pgwt_trace_my_ring_pid = MyProcPid;
	pgwt_trace_held_ring = r;
	/* traced from its start: its first CPU* span begins there too */
	if (pgwt_capture == PGWT_CAPTURE_TRACE)
	{
		if (pgwt_trace_start_from_ns != 0)
			pgwt_tring_append(r, PGWT_TRING_START, 0, pgwt_trace_start_from_ns, 0, 0);
	}
	return r;
}

/*
 * Give our ring back: ownership marked released (its records stay for the
 * drain), then the pool word (release order: the writer that sees it sees
 * every record). The writer reads the rest and frees it at its next pass,
 * or at once when the pool runs short (trace_pool.h).
 */
static void
pgwt_trace_give_back_mine(void)
{
	if (pgwt_trace_my_ring == NULL || pgwt_trace_my_ring_pid != MyProcPid)
		return;
	pgwt_tring_release(pgwt_trace_my_ring);
	(void) pgwt_tpool_give_back(pgwt_trace_pool_words(), pgwt_trace_my_ring_idx,
								(uint32) MyProcPid, (uint32) MyProcNumber);
	pgwt_trace_my_ring = NULL;
	pgwt_trace_my_ring_idx = -1;
	pgwt_trace_held_ring = NULL;
	if (pgwt_tpool_short(pgwt_trace_pool_words(), pgwt_trace_shared->nrings))
		pgwt_trace_nudge_worker();
}

/*
 * A safe point (no wait in progress): nothing to trace any more, neither
 * capture = trace nor an open window. A wait that starts later cannot
 * overlap a window that has ended; a new window takes a ring again.
 */
void
pgwt_trace_settle_ring_slow(void)
{
	if (pgwt_trace_my_ring == NULL || pgwt_trace_my_ring_pid != MyProcPid)
	{
		/* a forked child's copy of its parent's pointer */
		pgwt_trace_held_ring = NULL;
		return;
	}
	if (pgwt_capture == PGWT_CAPTURE_TRACE ||
		(pgwt_capture != PGWT_CAPTURE_OFF && pgwt_trace_active(pgwt_clock_ns())))
		return;
	pgwt_trace_give_back_mine();
}

/*
 * Where this process's CPU* begins when the slot counts from its start
 * (coop_hooks.c), or 0 once a wait has been folded: a ring taken later
 * opens with a start record only in the first case.
 */
void
pgwt_trace_set_start_ns(uint64 start_ns)
{
	pgwt_trace_start_from_ns = start_ns;
}

/*
 * At a transaction end (not in a hook): the ring we hold takes our role
 * once InitPostgres has set it. Returns whether we hold a ring, which the
 * caller then releases at exit (pgwt_trace_release_at_exit).
 */
bool
pgwt_trace_settle_identity(void)
{
	if (pgwt_trace_my_ring == NULL || pgwt_trace_my_ring_pid != MyProcPid || MyProc == NULL)
		return false;
	if (!pgwt_trace_my_role_known && OidIsValid(MyProc->roleId))
	{
		pgwt_tring_set_role(pgwt_trace_my_ring, (uint32) MyProc->roleId);
		pgwt_trace_my_role_known = true;
	}
	return true;
}

/* The process is leaving: the ring is no longer any live process's. */
void
pgwt_trace_release_at_exit(void)
{
	pgwt_trace_released_pid = MyProcPid;
	pgwt_trace_give_back_mine();
}

#endif

/*
 * Our ring (NULL: none): the one we hold, or take one (hook-safe). 'idle':
 * the record is an idle wait of a window, which alone takes no ring (the
 * pool is for processes that do something: a background process idling
 * through a window would hold a ring for nothing).
 */
static inline pgwt_trace_ring *
pgwt_trace_ring_mine(bool idle)
{
#ifdef PGWT_COOP_BUILD
	if (likely(pgwt_trace_my_ring != NULL && pgwt_trace_my_ring_pid == MyProcPid &&
			   MyProc != NULL))
		return pgwt_trace_my_ring;
	if (idle && pgwt_capture != PGWT_CAPTURE_TRACE)
		return NULL;
	return pgwt_trace_claim_mine();
#else
	return NULL;
#endif
}

/* Our ring for a marker (not an idle record): held, or taken now. */
pgwt_trace_ring *
pgwt_trace_take_ring(void)
{
	return pgwt_trace_ring_mine(false);
}

/*
 * The worker sleeps long: wake it. One process wins the swap; SetLatch
 * takes no lock and may run in a hook (it is async-signal-safe).
 */
void
pgwt_trace_wake_worker_slow(void)
{
	Latch	   *latch;

	if (__atomic_exchange_n(&pgwt_trace_shared->worker_idle, 0, __ATOMIC_ACQ_REL) == 0)
		return;
	latch = __atomic_load_n(&pgwt_trace_shared->worker_latch, __ATOMIC_ACQUIRE);
	if (latch != NULL)
		SetLatch(latch);
}

/*
 * Half of this process's ring waits for the writer: wake it now, even
 * between its regular drains (a busy session fills a ring in a fraction of
 * PGWT_DRAIN_MS). At most a few times per ring; SetLatch is lock-free.
 */
void
pgwt_trace_nudge_worker(void)
{
	Latch	   *latch = __atomic_load_n(&pgwt_trace_shared->worker_latch, __ATOMIC_ACQUIRE);

	if (latch != NULL)
		SetLatch(latch);
}

void
pgwt_trace_wait(uint32 event, uint64 start_ns, uint64 duration_ns, uint64 query_id)
{
	pgwt_trace_ring *r = pgwt_trace_ring_mine(pgwt_event_is_idle(event));

	if (r == NULL)
		return;
	if (event == PGWT_EVENT_CLIENT_READ)
		pgwt_tring_append(r, PGWT_TRING_MARKER, PGWT_TMARK_IDLE, start_ns, 0, query_id);
	pgwt_tring_append(r, PGWT_TRING_WAIT, event, start_ns, duration_ns, query_id);
	pgwt_trace_wake_worker();
	if (unlikely(pgwt_tring_half_waiting(r, event == PGWT_EVENT_CLIENT_READ ? 2 : 1)))
		pgwt_trace_nudge_worker();
}

#ifdef PGWT_COOP_BUILD
/*
 * The process leaves at now_ns (pgwt_settle_exit): the trace's last record,
 * in a ring it already holds (one never traced needs no exit).
 */
void
pgwt_trace_exit(uint64 now_ns)
{
	if (pgwt_capture == PGWT_CAPTURE_OFF || !pgwt_trace_active(now_ns) ||
		pgwt_trace_my_ring == NULL || pgwt_trace_my_ring_pid != MyProcPid)
		return;
	pgwt_tring_append(pgwt_trace_my_ring, PGWT_TRING_EXIT, 0, now_ns, 0, 0);
	pgwt_trace_wake_worker();
}
#endif

/* ---- settings ------------------------------------------------------------ */

void
pgwt_trace_init(bool server_has_hooks)
{
	pgwt_trace_with_rings = server_has_hooks;
	pgwt_trace_prev_request = shmem_request_hook;
	shmem_request_hook = pgwt_trace_shmem_request;
	pgwt_trace_prev_startup = shmem_startup_hook;
	shmem_startup_hook = pgwt_trace_shmem_startup;
}
