/*
 * trace_markers.c
 *		The statement markers that frame a trace's waits (executor, utility
 *		and transaction hooks), and this process's trace at its transaction
 *		ends and its exit. Backend-local state only; the ring's protocol is
 *		in trace_capture.h.
 *
 * Markers are written whenever something is traced, so a trace always
 * shows its statements. A statement starts at its parse analysis (so
 * planning's waits are its own) or, for a prepared statement, when the
 * executor or a utility command is entered at the top level, and ends when
 * that is left (the counters below keep nesting, so a function's inner
 * queries do not split it); executor start/end and utility start/end are
 * written at every level; commit and abort come from the transaction
 * callback, which also closes a statement an error interrupted; an "idle"
 * marker precedes each Client:ClientRead wait (trace_capture.c writes it
 * with the wait). An error caught inside the statement (a PL/pgSQL
 * exception block) skips the executor's end hook of the statements it
 * interrupted: the subtransaction callback puts the nesting back to where
 * it was when the subtransaction began.
 */
#include "postgres.h"

#include "access/xact.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "parser/analyze.h"
#include "storage/ipc.h"
#include "storage/proc.h"
#include "tcop/utility.h"

#include "extension/pgwt_clock.h"
#include "extension/pgwt_shared.h"
#include "extension/trace_capture.h"
#include "extension/trace_markers.h"

static ExecutorStart_hook_type pgwt_trace_prev_exec_start = NULL;
static ExecutorEnd_hook_type pgwt_trace_prev_exec_end = NULL;
static ProcessUtility_hook_type pgwt_trace_prev_utility = NULL;
static post_parse_analyze_hook_type pgwt_trace_prev_analyze = NULL;

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

#ifdef PGWT_COOP_BUILD
static int	pgwt_trace_exit_cb_pid = 0;	/* the exit callback is registered */

/*
 * Exit callback: the process's last waits and its exit (which ends its
 * last CPU* span) go into the ring first, then the ring is no longer any
 * live process's. This runs before the slot's own exit callback.
 */
static void
pgwt_trace_release_mine(int code, Datum arg)
{
	pgwt_settle_exit();
	pgwt_trace_release_at_exit();
}

/*
 * At a transaction end (not in a hook): the ring takes our role, and the
 * exit callback is registered once we hold one. on_shmem_exit callbacks
 * run in reverse order, so one registered after InitProcess releases the
 * ring before ProcKill hands the PGPROC on.
 */
static void
pgwt_trace_settle_mine(void)
{
	if (!pgwt_trace_settle_identity())
		return;
	if (pgwt_trace_exit_cb_pid != MyProcPid)
	{
		on_shmem_exit(pgwt_trace_release_mine, (Datum) 0);
		pgwt_trace_exit_cb_pid = MyProcPid;
	}
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
	if ((r = pgwt_trace_take_ring()) == NULL)
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
void
pgwt_trace_markers_install(void)
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
