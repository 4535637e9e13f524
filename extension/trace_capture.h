/*
 * trace_capture.h
 *		The extension's exact per-wait trace: settings, shared memory (the
 *		pool of trace rings, the escalation window, the drain worker's and
 *		the external tracer's state), the hot-path entry points the
 *		wait-event hooks call, and the statement markers.
 *
 * Locking protocol (details in trace_pool.h, trace_ring.h and
 * escalation_logic.h):
 *  - the rings form a pool of pg_wait_tracer.trace_rings: a process takes
 *    one (compare-and-swap of its pool word, in a hook) when it first has
 *    something to trace, and only the holder appends to it (lock-free,
 *    bounded); readers (SQL functions, the drain worker) use the ring's
 *    seqlocks and never block the writer. When no ring is free the process
 *    is not traced: trace_ring_exhausted counts it, once per process and
 *    window (or SET of capture = trace).
 *  - the holder gives its ring back at the first safe point (flush before
 *    a wait, transaction end) where it traces nothing any more (capture is
 *    not trace and no window is open), and at exit; the drain worker reads
 *    what is left and frees the ring. A holder that dies without giving it
 *    back (auxiliary processes keep no exit callback) is found by its
 *    PGPROC's pid, and its ring freed the same way.
 *  - the ring's owner identity (pid, start time, role, claim count;
 *    trace_ring.h) is written by the holder only: claimed right after it
 *    took the ring, its role filled in at a transaction end once known,
 *    released when it gives the ring back.
 *  - the escalation window (PgwtTraceShared.escwin) is changed only under
 *    esc_lock (a spinlock held for a few hundred instructions, never across
 *    a call that can fail); the hooks read only escwin.published, with
 *    atomic loads.
 *  - the worker and tracer state words are written by one process each
 *    (the drain worker; the tracer's connection through
 *    pgwt_tracer_report) under esc_lock and read under it.
 *  - worker_idle / worker_latch: the drain worker sets worker_idle (atomic
 *    store) before a long sleep when it has nothing to drain; whoever next
 *    traces something swaps it back to 0 and, if it was 1, sets
 *    worker_latch (SetLatch takes no lock). worker_latch is written by the
 *    worker under esc_lock at start and exit. A wake-up lost to the race
 *    between the two (an append just as the worker goes idle) costs at most
 *    one idle timeout of delay, never records: they wait in the ring.
 */
#ifndef PGWT_TRACE_CAPTURE_H
#define PGWT_TRACE_CAPTURE_H

#include "storage/latch.h"
#include "storage/spin.h"
#include "utils/timestamp.h"

#include "common/esc_protocol.h"
#include "extension/escalation_logic.h"
#include "extension/pgwt_shared.h"
#include "extension/trace_pool.h"
#include "extension/trace_ring.h"

typedef struct PgwtTraceShared
{
	slock_t		esc_lock;
	pgwt_escwin escwin;
	int64		last_budget_s;	/* the GUC value escwin was last told */
	/* drain worker (written by it under esc_lock) */
	int			worker_pid;
	Latch	   *worker_latch;	/* its process latch; NULL when not running */
	uint32		worker_idle;	/* 1: in a long sleep, wake it (atomic) */
	uint64		drained_records;	/* ring records read */
	uint64		written_records;	/* trace-file records written */
	uint64		lost_records;	/* overwritten before the drain read them */
	uint64		write_errors;
	/* the external tracer, reported through pgwt_tracer_report() */
	int			tracer_pid;		/* backend pid of its libpq connection */
	TimestampTz tracer_reported_at;
	char		tracer_state[PGWT_ESC_REPORT_MAX];	/* common/esc_protocol.h */
	/* the pool: nrings words (trace_pool.h), then the rings */
	int			nrings;
	uint32		ring_capacity;
	Size		ring_stride;	/* bytes from one ring to the next (aligned) */
	Size		rings_offset;	/* from 'pool' to the first ring */
	uint64		ring_exhausted; /* processes refused a ring (atomic) */
	uint64		ring_recycled;	/* rings freed by the worker (atomic) */
	char		pool[FLEXIBLE_ARRAY_MEMBER];
} PgwtTraceShared;

extern PgwtTraceShared *pgwt_trace_shared;


/*
 * Called from _PG_init while shared_preload_libraries is processed: defines
 * the settings, reserves the shared memory (rings only where the server
 * has the hooks), installs the marker hooks and registers the drain worker.
 */
extern void pgwt_trace_init(bool server_has_hooks);

/* Ring i of the pool (NULL when there are no rings or it is out of range). */
extern pgwt_trace_ring *pgwt_trace_ring_at(int i);

/* The pool's words (trace_pool.h), nrings of them. */
static inline uint64 *
pgwt_trace_pool_words(void)
{
	return (uint64 *) pgwt_trace_shared->pool;
}

/* Bytes of the trace's shared memory: header and words, and the rings. */
extern Size pgwt_trace_header_bytes(void);
extern Size pgwt_trace_rings_bytes(void);

/*
 * Give our ring back if we trace nothing any more (capture is not trace
 * and no window is open). Called at safe points: before a wait, at a
 * transaction end; cheap when we hold none.
 */
extern void pgwt_trace_settle_ring_slow(void);
extern void *pgwt_trace_held_ring;

static inline void
pgwt_trace_settle_ring(void)
{
	if (unlikely(pgwt_trace_held_ring != NULL))
		pgwt_trace_settle_ring_slow();
}

/* capture = trace was set: a process refused a ring may try again. */
extern void pgwt_trace_capture_set(void);

/* The monotonic clock the rings use (pgwt_clock.h's time base). */
extern uint64 pgwt_trace_now_ns(void);

/* Is anything being traced right now (session mode or an open window)? */
static inline bool
pgwt_trace_active(uint64 now_ns)
{
	if (pgwt_capture == PGWT_CAPTURE_TRACE)
		return true;
	return pgwt_trace_shared != NULL &&
		now_ns < __atomic_load_n(&pgwt_trace_shared->escwin.published.end_ns,
								 __ATOMIC_ACQUIRE);
}

/*
 * Should this wait [start_ns, end_ns) go to the ring, and from when
 * (*from_ns)? capture = trace: whole; else the part inside an open window
 * (pgwt_escwin_traces says the rule).
 */
static inline bool
pgwt_trace_wanted(uint32 event, uint64 start_ns, uint64 end_ns, uint64 *from_ns)
{
	*from_ns = start_ns;
	if (pgwt_capture == PGWT_CAPTURE_TRACE)
		return true;
	return pgwt_trace_shared != NULL &&
		pgwt_escwin_traces(&pgwt_trace_shared->escwin.published, start_ns, end_ns,
						   event, from_ns);
}

/* Wake the drain worker if it sleeps long (slow part out of line). */
extern void pgwt_trace_wake_worker_slow(void);

extern void pgwt_trace_nudge_worker(void);

static inline void
pgwt_trace_wake_worker(void)
{
	if (unlikely(pgwt_trace_shared != NULL &&
				 __atomic_load_n(&pgwt_trace_shared->worker_idle, __ATOMIC_RELAXED) != 0))
		pgwt_trace_wake_worker_slow();
}

/*
 * Hot path (hook contract: bounded, lock-free, no allocation, no error):
 * append one finished wait, or one marker, to this process's ring.
 */
extern void pgwt_trace_wait(uint32 event, uint64 start_ns, uint64 duration_ns,
							uint64 query_id);
extern void pgwt_trace_marker(pgwt_tring_marker marker, uint64 query_id);
extern void pgwt_trace_exit(uint64 now_ns);

/* Our ring for a marker: the one held, or one taken now (NULL: none). */
extern pgwt_trace_ring *pgwt_trace_take_ring(void);
/* Where this process's CPU* begins for a start record (0: none). */
extern void pgwt_trace_set_start_ns(uint64 start_ns);
/* At a transaction end: the ring takes our role; do we hold one? */
extern bool pgwt_trace_settle_identity(void);
/* At exit, after the last records: give the ring back for good. */
extern void pgwt_trace_release_at_exit(void);

/* Escalation bookkeeping shared by the SQL functions and the worker. */
extern void pgwt_trace_esc_sync_budget(void);	/* caller holds esc_lock */

#endif							/* PGWT_TRACE_CAPTURE_H */
