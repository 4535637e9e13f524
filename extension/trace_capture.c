/*
 * trace_capture.c
 *		Exact per-wait trace: settings, shared memory, the hot-path appends
 *		and the statement markers (executor, utility and transaction hooks).
 *		The locking protocol is in trace_capture.h.
 *
 * What is traced: every wait of a session whose pg_wait_tracer.capture is
 * "trace", and during an escalation window the waits of the window's
 * classes in every process that collects. Markers are written whenever
 * something is traced, so a trace always shows its statements.
 *
 * Markers: a statement starts at its parse analysis (so planning's waits
 * are its own) or, for a prepared statement, when the executor or a
 * utility command is entered at the top level, and ends when that is left
 * (the counters below keep nesting, so a function's inner queries do not
 * split it); executor
 * start/end and utility start/end are written at every level; commit and
 * abort come from the transaction callback, which also closes a statement
 * an error interrupted; an "idle" marker precedes each Client:ClientRead
 * wait, the backend waiting for its client. An error caught inside the
 * statement (a PL/pgSQL exception block) skips the executor's end hook of
 * the statements it interrupted: the subtransaction callback puts the
 * nesting back to where it was when the subtransaction began.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/analyze.h"
#include "postmaster/bgworker.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/guc.h"

#include "extension/pgwt_clock.h"
#include "extension/trace_capture.h"
#include "extension/trace_worker.h"

PgwtTraceShared *pgwt_trace_shared = NULL;


static bool pgwt_trace_with_rings = false;
static shmem_request_hook_type pgwt_trace_prev_request = NULL;
static shmem_startup_hook_type pgwt_trace_prev_startup = NULL;
static ExecutorStart_hook_type pgwt_trace_prev_exec_start = NULL;
static ExecutorEnd_hook_type pgwt_trace_prev_exec_end = NULL;
static ProcessUtility_hook_type pgwt_trace_prev_utility = NULL;
static post_parse_analyze_hook_type pgwt_trace_prev_analyze = NULL;

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
static int	pgwt_trace_exit_cb_pid = 0;	/* the exit callback is registered */
static int	pgwt_trace_released_pid = 0;	/* exiting: no more rings */
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

/* statement nesting (backend-local) */
static int	pgwt_trace_exec_depth = 0;
static int	pgwt_trace_utility_depth = 0;
static bool pgwt_trace_stmt_open = false;	/* start marker written, no end yet */

/* the nesting at each open subtransaction's start (deeper ones untracked) */
#define PGWT_TRACE_SUBXACT_MAX 64
typedef struct PgwtTraceSubxact
{
	SubTransactionId subid;
	int			exec_depth;
	int			utility_depth;
} PgwtTraceSubxact;
static PgwtTraceSubxact pgwt_trace_subxacts[PGWT_TRACE_SUBXACT_MAX];
static int	pgwt_trace_nsubxacts = 0;
static uint64 pgwt_trace_marker_seen_ns = 0;	/* a clock reading of ours */

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
		uint64		start = pgwt_trace_start_ns();

		if (start != 0)
			pgwt_tring_append(r, PGWT_TRING_START, 0, start, 0, 0);
	}
	return r;
}

/*
 * Give our ring back: ownership marked released (its records stay for the
 * drain), then the pool word (release order: the writer that sees it sees
 * every record), then the writer is woken to read the rest and free it.
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
 * Exit callback: the ring is no longer any live process's. The process's
 * last waits and its exit (which ends its last CPU* span) go in first:
 * this runs before the slot's own exit callback.
 */
static void
pgwt_trace_release_mine(int code, Datum arg)
{
	pgwt_settle_exit();
	pgwt_trace_released_pid = MyProcPid;
	pgwt_trace_give_back_mine();
}

/*
 * At a transaction end (not in a hook): our role once InitPostgres has set
 * it, and the exit callback. on_shmem_exit callbacks run in reverse order,
 * so one registered after InitProcess releases the ring before ProcKill
 * hands the PGPROC on.
 */
static void
pgwt_trace_settle_mine(void)
{
	if (pgwt_trace_my_ring == NULL || pgwt_trace_my_ring_pid != MyProcPid || MyProc == NULL)
		return;
	if (!pgwt_trace_my_role_known && OidIsValid(MyProc->roleId))
	{
		pgwt_tring_set_role(pgwt_trace_my_ring, (uint32) MyProc->roleId);
		pgwt_trace_my_role_known = true;
	}
	if (pgwt_trace_exit_cb_pid != MyProcPid)
	{
		on_shmem_exit(pgwt_trace_release_mine, (Datum) 0);
		pgwt_trace_exit_cb_pid = MyProcPid;
	}
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

void
pgwt_trace_marker(pgwt_tring_marker marker, uint64 query_id)
{
	uint64		now;
	pgwt_trace_ring *r;

	/*
	 * Markers frame the waits of a trace: a session whose capture is off
	 * traces no wait, so it writes none. Outside trace mode, a window that
	 * ended before a time this backend already read (or none at all) needs
	 * no clock read: statements run many markers and few windows.
	 */
	if (pgwt_capture == PGWT_CAPTURE_OFF)
		return;
	if (pgwt_capture != PGWT_CAPTURE_TRACE &&
		(pgwt_trace_shared == NULL ||
		 __atomic_load_n(&pgwt_trace_shared->escwin.published.end_ns, __ATOMIC_ACQUIRE) <=
		 pgwt_trace_marker_seen_ns))
		return;
	now = pgwt_clock_ns();
	pgwt_trace_marker_seen_ns = now;
	if (!pgwt_trace_active(now))
		return;
#ifdef PGWT_COOP_BUILD
	/* waits still in the hooks' buffer come first in the ring */
	pgwt_flush_pending();
#endif
	if ((r = pgwt_trace_ring_mine(false)) == NULL)
		return;
	pgwt_tring_append(r, PGWT_TRING_MARKER, (uint32) marker, now, 0, query_id);
	pgwt_trace_wake_worker();
	if (unlikely(pgwt_tring_half_waiting(r, 1)))
		pgwt_trace_nudge_worker();
}

/* ---- markers ------------------------------------------------------------- */

static bool
pgwt_trace_at_top(void)
{
	return pgwt_trace_exec_depth == 0 && pgwt_trace_utility_depth == 0;
}

/* A top-level statement begins: at its parse analysis, or (a prepared
 * statement, which is not analysed again) when it is executed. */
static void
pgwt_trace_stmt_begin(uint64 qid)
{
	if (!pgwt_trace_at_top() || pgwt_trace_stmt_open)
		return;
	pgwt_trace_stmt_open = true;
	pgwt_trace_marker(PGWT_TMARK_STMT_START, qid);
}

static void
pgwt_trace_stmt_finish(uint64 qid)
{
	if (!pgwt_trace_at_top() || !pgwt_trace_stmt_open)
		return;
	pgwt_trace_stmt_open = false;
	pgwt_trace_marker(PGWT_TMARK_STMT_END, qid);
}

static void
pgwt_trace_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (pgwt_trace_prev_analyze)
		pgwt_trace_prev_analyze(pstate, query, jstate);
	/* planning's waits (catalog reads, locks) belong to the statement */
	pgwt_trace_stmt_begin((uint64) query->queryId);
}

static void
pgwt_trace_exec_start(QueryDesc *queryDesc, int eflags)
{
	uint64		qid = (uint64) queryDesc->plannedstmt->queryId;

	pgwt_trace_stmt_begin(qid);
	pgwt_trace_marker(PGWT_TMARK_EXEC_START, qid);
	pgwt_trace_exec_depth++;
	if (pgwt_trace_prev_exec_start)
		pgwt_trace_prev_exec_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
pgwt_trace_exec_end(QueryDesc *queryDesc)
{
	uint64		qid = (uint64) queryDesc->plannedstmt->queryId;

	if (pgwt_trace_prev_exec_end)
		pgwt_trace_prev_exec_end(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);
	if (pgwt_trace_exec_depth > 0)
		pgwt_trace_exec_depth--;
	pgwt_trace_marker(PGWT_TMARK_EXEC_END, qid);
	pgwt_trace_stmt_finish(qid);
}

static void
pgwt_trace_utility(PlannedStmt *pstmt, const char *queryString,
				   bool readOnlyTree, ProcessUtilityContext context,
				   ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	uint64		qid = (uint64) pstmt->queryId;

	pgwt_trace_stmt_begin(qid);
	pgwt_trace_marker(PGWT_TMARK_UTILITY_START, qid);
	pgwt_trace_utility_depth++;
	PG_TRY();
	{
		if (pgwt_trace_prev_utility)
			pgwt_trace_prev_utility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
									params, queryEnv, dest, qc);
	}
	PG_FINALLY();
	{
		pgwt_trace_utility_depth--;
	}
	PG_END_TRY();
	pgwt_trace_marker(PGWT_TMARK_UTILITY_END, qid);
	pgwt_trace_stmt_finish(qid);
}

static void
pgwt_trace_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
#ifdef PGWT_COOP_BUILD
		case XACT_EVENT_PRE_COMMIT:
		case XACT_EVENT_PARALLEL_PRE_COMMIT:
			pgwt_trace_settle_mine();
			break;
#endif
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
			pgwt_trace_marker(PGWT_TMARK_XACT_COMMIT, 0);
			pgwt_trace_settle_ring();
			break;
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
			pgwt_trace_marker(PGWT_TMARK_XACT_ABORT, 0);
			/* an error left the statement without its end */
			pgwt_trace_exec_depth = 0;
			pgwt_trace_utility_depth = 0;
			pgwt_trace_nsubxacts = 0;
			pgwt_trace_stmt_finish(0);
			pgwt_trace_settle_ring();
			break;
		default:
			break;
	}
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_PARALLEL_COMMIT ||
		event == XACT_EVENT_PREPARE)
		pgwt_trace_nsubxacts = 0;
}

/*
 * Subtransactions: remember the nesting at the start; an abort (an error
 * caught below the top level) restores it, since the executor end hooks
 * of what the error interrupted never run.
 */
static void
pgwt_trace_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
							SubTransactionId parentSubid, void *arg)
{
	switch (event)
	{
		case SUBXACT_EVENT_START_SUB:
			if (pgwt_trace_nsubxacts < PGWT_TRACE_SUBXACT_MAX)
			{
				PgwtTraceSubxact *s = &pgwt_trace_subxacts[pgwt_trace_nsubxacts++];

				s->subid = mySubid;
				s->exec_depth = pgwt_trace_exec_depth;
				s->utility_depth = pgwt_trace_utility_depth;
			}
			break;
		case SUBXACT_EVENT_ABORT_SUB:
			while (pgwt_trace_nsubxacts > 0 &&
				   pgwt_trace_subxacts[pgwt_trace_nsubxacts - 1].subid >= mySubid)
			{
				const PgwtTraceSubxact *s = &pgwt_trace_subxacts[--pgwt_trace_nsubxacts];

				if (s->subid == mySubid)
				{
					pgwt_trace_exec_depth = s->exec_depth;
					pgwt_trace_utility_depth = s->utility_depth;
				}
			}
			break;
		case SUBXACT_EVENT_COMMIT_SUB:
			while (pgwt_trace_nsubxacts > 0 &&
				   pgwt_trace_subxacts[pgwt_trace_nsubxacts - 1].subid >= mySubid)
				pgwt_trace_nsubxacts--;
			break;
		default:
			break;
	}
}

/* Per process: the hooks of the executor and utility, the xact callback. */
static void
pgwt_trace_install_markers(void)
{
	pgwt_trace_prev_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = pgwt_trace_analyze;
	pgwt_trace_prev_exec_start = ExecutorStart_hook;
	ExecutorStart_hook = pgwt_trace_exec_start;
	pgwt_trace_prev_exec_end = ExecutorEnd_hook;
	ExecutorEnd_hook = pgwt_trace_exec_end;
	pgwt_trace_prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = pgwt_trace_utility;
	RegisterXactCallback(pgwt_trace_xact_callback, NULL);
	RegisterSubXactCallback(pgwt_trace_subxact_callback, NULL);
}

/* ---- settings ------------------------------------------------------------ */

void
pgwt_trace_init(bool server_has_hooks)
{
	pgwt_trace_with_rings = server_has_hooks;
	pgwt_trace_prev_request = shmem_request_hook;
	shmem_request_hook = pgwt_trace_shmem_request;
	pgwt_trace_prev_startup = shmem_startup_hook;
	shmem_startup_hook = pgwt_trace_shmem_startup;
	if (server_has_hooks)
		pgwt_trace_install_markers();
	/* with hooks it drains the rings; without, the sampler's samples */
	pgwt_trace_worker_register();
}
