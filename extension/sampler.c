/*
 * sampler.c
 *		The in-server sampler: settings, shared memory and the background
 *		worker that samples every backend's wait state at a fixed rate.
 *
 * It reads what the server already keeps in shared memory: each PGPROC's
 * wait_event_info (ProcGlobal->allProcs) and the backend status array
 * (query id, transaction start, user, database, backend type). Neither
 * needs a lock: wait_event_info is a 4-byte store, and a status entry is
 * copied with its changecount protocol (retried while its owner is writing
 * it).
 *
 * Locking protocol: one LWLock (pgwt_sampler->lock) guards the profile
 * tables, the history ring, the per-PGPROC rows (latest sample and open
 * run) and the counters. The worker is the only writer: it reads every
 * backend first, with no lock held, then takes the lock exclusively once
 * per tick to apply the samples (microseconds for a few hundred backends).
 * Readers take it shared just long enough to copy what they show, open
 * runs included. Resets take it exclusively and drop the open runs they
 * cover.
 *
 * Time: each tick bills every sample it takes with the real time elapsed
 * since the previous tick (a late tick covers more time), so totals stay
 * right when the worker is delayed; a stall longer than the cap of
 * common/tick_rule.h bills the cap and counts the rest as unbilled. Ticks
 * fall on one grid of timer deadlines: a deadline the previous tick's work
 * ran past is skipped (counted in skipped_ticks), not ticked at the moment
 * the worker gets a CPU back, when on a saturated host a backend has most
 * often just left it. A process's consecutive samples in the same state,
 * event and query are one run, billed to the tables when it ends (and at
 * least once a second): a tick that finds a process as it was writes
 * nothing.
 *
 * Restarts: the worker is restarted by the postmaster one second after
 * exiting with an error; a start less than a minute after the previous one
 * first sleeps 2^n seconds (n = consecutive quick restarts, at most 60 s),
 * and pgwt_sampler_status shows the starts and the backoff.
 */
#include "postgres.h"

#include <time.h>

#include "access/twophase.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
#include "utils/guc.h"
#include "utils/timestamp.h"
#include "utils/wait_event.h"

#include "common/query_carry.h"
#include "common/tick_rule.h"
#include "extension/pgwt_shared.h"
#include "extension/sampler.h"


PgwtSamplerShared *pgwt_sampler = NULL;
PgwtSampleTable *pgwt_sampler_by_query = NULL;
PgwtSampleTable *pgwt_sampler_by_backend = NULL;
PgwtSampleTable *pgwt_sampler_by_event = NULL;
PgwtHistoryRing *pgwt_sampler_ring = NULL;
PgwtSamplerProc *pgwt_sampler_procs = NULL;

/* Distinct events of the system-wide table: far more than any server has. */
#define PGWT_SAMPLER_EVENTS 2048

static bool pgwt_sampler_running = false;	/* decided once, at preload */
static int	pgwt_sampler_nprocs = 0;
static shmem_request_hook_type pgwt_sampler_prev_request = NULL;
static shmem_startup_hook_type pgwt_sampler_prev_startup = NULL;

/* True in every process of a server whose sampler was set up at start. */
bool
pgwt_sampler_active(void)
{
	return pgwt_sampler_running && pgwt_sampler != NULL;
}

/*
 * True when the views answer from the sampler: it runs, and exact capture
 * does not (no hooks, or pg_wait_tracer.capture = off in this session).
 */
bool
pgwt_sampler_answers(void)
{
	return pgwt_sampler_active() &&
		!(pgwt_hooks_present() && pgwt_capture != PGWT_CAPTURE_OFF);
}

static int
pgwt_sampler_procs_count(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

Size
pgwt_sampler_shmem_size(void)
{
	Size		size = MAXALIGN(sizeof(PgwtSamplerShared));

	size = add_size(size, MAXALIGN(pgwt_table_bytes((uint32) pgwt_sampler_max_entries)));
	size = add_size(size, MAXALIGN(pgwt_table_bytes((uint32) pgwt_sampler_max_entries)));
	size = add_size(size, MAXALIGN(pgwt_table_bytes(PGWT_SAMPLER_EVENTS)));
	size = add_size(size, MAXALIGN(add_size(sizeof(PgwtHistoryRing),
											mul_size(sizeof(PgwtHistorySample), pgwt_sampler_history))));
	size = add_size(size, mul_size(sizeof(PgwtSamplerProc), pgwt_sampler_procs_count()));
	return size;
}

static void
pgwt_sampler_shmem_request(void)
{
	if (pgwt_sampler_prev_request)
		pgwt_sampler_prev_request();
	RequestAddinShmemSpace(pgwt_sampler_shmem_size());
	RequestNamedLWLockTranche("pg_wait_tracer_sampler", 1);
}

/* Empty tables; the caller holds the lock exclusively (or is alone). */
static void
pgwt_sampler_clear(void)
{
	int			i;

	pgwt_table_init(pgwt_sampler_by_query, (uint32) pgwt_sampler_max_entries);
	pgwt_table_init(pgwt_sampler_by_backend, (uint32) pgwt_sampler_max_entries);
	pgwt_table_init(pgwt_sampler_by_event, PGWT_SAMPLER_EVENTS);
	pgwt_sampler_ring->written = 0;
	pgwt_sampler->ticks = pgwt_sampler->late_ticks = 0;
	pgwt_sampler->skipped_ticks = 0;
	pgwt_sampler->sampled_ns = pgwt_sampler->reads_retried = 0;
	pgwt_sampler->unbilled_ns = 0;
	pgwt_sampler->stats_reset = GetCurrentTimestamp();
	/* the runs still open started before the reset: drop them */
	for (i = 0; i < pgwt_sampler->nprocs; i++)
		pgwt_sampler_procs[i].run_tick0 = pgwt_sampler_procs[i].run_ns0 = 0;
}

static void
pgwt_sampler_shmem_startup(void)
{
	bool		found;
	char	   *p;

	if (pgwt_sampler_prev_startup)
		pgwt_sampler_prev_startup();

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	p = ShmemInitStruct("pg_wait_tracer sampler", pgwt_sampler_shmem_size(), &found);
	pgwt_sampler = (PgwtSamplerShared *) p;
	p += MAXALIGN(sizeof(PgwtSamplerShared));
	pgwt_sampler_by_query = (PgwtSampleTable *) p;
	p += MAXALIGN(pgwt_table_bytes((uint32) pgwt_sampler_max_entries));
	pgwt_sampler_by_backend = (PgwtSampleTable *) p;
	p += MAXALIGN(pgwt_table_bytes((uint32) pgwt_sampler_max_entries));
	pgwt_sampler_by_event = (PgwtSampleTable *) p;
	p += MAXALIGN(pgwt_table_bytes(PGWT_SAMPLER_EVENTS));
	pgwt_sampler_ring = (PgwtHistoryRing *) p;
	p += MAXALIGN(add_size(sizeof(PgwtHistoryRing),
						   mul_size(sizeof(PgwtHistorySample), pgwt_sampler_history)));
	pgwt_sampler_procs = (PgwtSamplerProc *) p;
	pgwt_sampler_nprocs = pgwt_sampler_procs_count();

	if (!found)
	{
		memset(pgwt_sampler, 0, sizeof(PgwtSamplerShared));
		pgwt_sampler->lock = &(GetNamedLWLockTranche("pg_wait_tracer_sampler"))->lock;
		pgwt_sampler->nprocs = pgwt_sampler_nprocs;
		pgwt_sampler_ring->capacity = (uint32) pgwt_sampler_history;
		memset(pgwt_sampler_procs, 0, sizeof(PgwtSamplerProc) * pgwt_sampler_nprocs);
		pgwt_sampler_clear();
	}
	LWLockRelease(AddinShmemInitLock);
}

/*
 * Called from _PG_init while shared_preload_libraries is processed: defines
 * the sampler's settings and, when it is to run, reserves its shared memory
 * and registers the worker.
 */
void
pgwt_sampler_init(bool server_has_hooks)
{
	BackgroundWorker worker;

	if (pgwt_sampler_mode == PGWT_SAMPLER_OFF ||
		(pgwt_sampler_mode == PGWT_SAMPLER_AUTO && server_has_hooks))
		return;
	pgwt_sampler_running = true;

	pgwt_sampler_prev_request = shmem_request_hook;
	shmem_request_hook = pgwt_sampler_shmem_request;
	pgwt_sampler_prev_startup = shmem_startup_hook;
	shmem_startup_hook = pgwt_sampler_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_ConsistentState;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "pg_wait_tracer", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "pgwt_sampler_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "pg_wait_tracer sampler", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "pg_wait_tracer sampler", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

void
pgwt_sampler_reset(void)
{
	if (!pgwt_sampler_active())
		return;
	LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
	pgwt_sampler_clear();
	LWLockRelease(pgwt_sampler->lock);
}

/*
 * pgwt_reset(pid) for the sampler (permissions are checked by the caller):
 * the live process's rows leave the per-backend profile and the system
 * totals, and its 'stats_reset' tells the worker to drop the idle time it
 * still holds for it. Returns whether the sampler saw that process at its
 * latest tick.
 */
bool
pgwt_sampler_reset_backend(int pid)
{
	bool		found = false;
	int			i;

	if (!pgwt_sampler_active() || pid == 0)
		return false;
	LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
	for (i = 0; i < pgwt_sampler->nprocs; i++)
	{
		PgwtSamplerProc *p = &pgwt_sampler_procs[i];

		if (p->pid != pid)
			continue;
		(void) pgwt_table_forget_backend(pgwt_sampler_by_backend, pgwt_sampler_by_event,
										 pid, p->backend_start);
		p->stats_reset = GetCurrentTimestamp();
		p->run_tick0 = pgwt_sampler->ticks;	/* its open run too */
		p->run_ns0 = pgwt_sampler->sampled_ns;
		found = true;
		break;
	}
	LWLockRelease(pgwt_sampler->lock);
	return found;
}

/*
 * Add the runs still open in the per-PGPROC rows (see pgwt_sampler_apply)
 * to 'copy', a private copy of 'table', one of the three profiles. The
 * caller holds the lock, shared at least.
 */
void
pgwt_sampler_add_runs(PgwtSampleTable *copy, const PgwtSampleTable *table)
{
	uint64		ticks = pgwt_sampler->ticks;
	uint64		total_ns = pgwt_sampler->sampled_ns;
	int			i;

	for (i = 0; i < pgwt_sampler->nprocs; i++)
	{
		const PgwtSamplerProc *p = &pgwt_sampler_procs[i];
		PgwtSampleKey key;
		PgwtSampleEntry *e;

		if (p->pid == 0 || ticks <= p->run_tick0)
			continue;
		memset(&key, 0, sizeof(key));
		key.event = p->event;
		if (table == pgwt_sampler_by_event)
			key.id2 = p->background;
		else if (table == pgwt_sampler_by_backend)
		{
			key.id = p->pid;
			key.id2 = p->backend_start;
		}
		else if (table == pgwt_sampler_by_query)
		{
			if (p->state == PGWT_SAMPLE_IDLE || p->background)
				continue;
			key.id = p->query_id;
			key.id2 = p->userid;
		}
		e = pgwt_table_upsert(copy, &key);
		if (e == NULL)
			continue;
		if (e->samples == 0)
		{
			e->background = (uint16) p->background;
			e->backend_type = p->backend_type;
			e->userid = p->userid;
			e->dbid = p->dbid;
		}
		e->samples += ticks - p->run_tick0;
		e->time_ns += total_ns - p->run_ns0;
	}
}

/* ---- the worker ---------------------------------------------------------- */

/* One backend as read at a tick, before it is applied under the lock. */
typedef struct PgwtRawSample
{
	int			procno;
	int32		pid;
	uint32		event;
	uint32		state;
	uint32		backend_type;
	uint32		background;		/* no session (common/process_rule.h) */
	Oid			userid;
	Oid			dbid;
	int64		query_id;
	TimestampTz backend_start;
} PgwtRawSample;

static PgBackendStatus *pgwt_status_array = NULL;	/* derived from MyBEEntry */
static PgwtQidCarry *pgwt_carry = NULL;	/* per PGPROC, worker-local */
static PgwtRawSample *pgwt_raw = NULL;
static PgwtRawSample *pgwt_ident = NULL;	/* per PGPROC: identity last read */

/*
 * Per PGPROC: the pid and event of the run its shared row holds, or, with
 * a negative pid, a process that is no session. 8 bytes a PGPROC, so a
 * tick's look at a process that did not change touches no other memory of
 * ours: an idle process still in the same idle wait, or a non-session
 * process still in the same wait, is skipped outright.
 */
typedef struct PgwtSeen
{
	int32		pid;
	uint32		event;
} PgwtSeen;
static PgwtSeen *pgwt_seen = NULL;
#define PGWT_SEEN_NEVER 0xFFFFFFFFU	/* no wait_event_info has class 0xFF */

/*
 * PGPROC numbers of the sessions present at this tick and at the previous
 * one, ascending. A process gone since then is found by merging the two,
 * so a tick costs nothing for the PGPROCs nobody uses.
 */
static int *pgwt_present = NULL;
static int	pgwt_npresent = 0;
static int *pgwt_prev_present = NULL;
static int	pgwt_prev_npresent = 0;

/* Per PGPROC and table: where its row was found last (see upsert_hint). */
typedef struct PgwtBillHints
{
	uint32		by_event;
	uint32		by_backend;
	uint32		by_query;
} PgwtBillHints;
static PgwtBillHints *pgwt_hints = NULL;
static TimestampTz pgwt_last_flush = 0;

#define PGWT_PREFETCH_AHEAD 8
#define PGWT_TICK_SLACK_NS UINT64CONST(1000000)
#ifdef __GNUC__
#define PGWT_PREFETCH(p) __builtin_prefetch(p)
#else
#define PGWT_PREFETCH(p) ((void) 0)
#endif

static uint64
pgwt_sampler_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64) ts.tv_sec * UINT64CONST(1000000000) + (uint64) ts.tv_nsec;
}

/*
 * The status entry of PGPROC number 'procno', or NULL. The array is not
 * exported; its base is derived from the worker's own entry, which the
 * server places at a known index (PG17+: the proc number; older: backend
 * id - 1, auxiliary processes after MaxBackends).
 */
static volatile PgBackendStatus *
pgwt_status_entry(int procno, PGPROC *proc, int pid)
{
#if PG_VERSION_NUM >= 170000
	if (procno >= MaxBackends + NUM_AUXILIARY_PROCS)
		return NULL;
	return &pgwt_status_array[procno];
#else
	int			i;

	if (proc->backendId != InvalidBackendId)
		return &pgwt_status_array[proc->backendId - 1];
	for (i = MaxBackends; i < MaxBackends + NUM_AUXPROCTYPES; i++)
		if (pgwt_status_array[i].st_procpid == pid)
			return &pgwt_status_array[i];
	return NULL;
#endif
}

/*
 * Decide what the process read into 's' is (common/process_rule.h):
 * whether it is sampled at all, and if so whether its time is DB time
 * (s->background). The kind is looked up once per process (a background
 * worker's bgw_type takes a lock) and remembered with its identity.
 * A process with no status entry is a background worker that never
 * connected to a database (or a backend not connected yet, read again at
 * the next tick): like any database-less worker (other extensions'
 * collectors, our own workers), it is not sampled, as the tracer does not
 * capture it.
 */
static bool
pgwt_sampler_identify(int i, PgwtRawSample *s)
{
	PgwtProcKind kind;

	if (s->backend_type != B_INVALID && s->backend_start != 0 &&
		pgwt_ident[i].pid == s->pid && pgwt_ident[i].backend_start == s->backend_start &&
		pgwt_ident[i].backend_type == s->backend_type)
	{
		s->background = pgwt_ident[i].background;
		return true;			/* only sampled processes are remembered */
	}
	if (s->backend_type == B_INVALID)
		kind = PGWT_PROC_BGWORKER;
	else if (s->backend_type == B_BG_WORKER)
		kind = pgwt_proc_kind_of_type(GetBackgroundWorkerTypeByPid(s->pid));
	else
		kind = pgwt_proc_kind_of_type(GetBackendTypeDesc((BackendType) s->backend_type));
	if (!pgwt_kind_is_captured(kind, OidIsValid(s->dbid)))
		return false;
	s->background = !pgwt_kind_is_session(kind);
	if (s->backend_type != B_INVALID && s->backend_start != 0)
		pgwt_ident[i] = *s;
	return true;
}

/*
 * Read one live process into 's' (no lock held). Returns false for a
 * process that is not sampled (pgwt_sampler_identify).
 */
static bool
pgwt_sampler_read_one(int i, PGPROC *proc, int pid, uint32 event, PgwtRawSample *s,
					  uint64 *retried)
{
	volatile PgBackendStatus *be;
	int64		xact_start = 0;
	uint64		qid = 0;
	int			attempt;

	s->procno = i;
	s->pid = pid;
	s->event = event;
	/*
	 * An idle wait is idle whatever the session state says, and a process
	 * keeps its identity: its status entry is read only when the sample
	 * needs state and query id, or for a process not seen yet.
	 */
	if (s->event != 0 && pgwt_event_is_idle(s->event) && pgwt_ident[i].pid == pid)
	{
		s->backend_type = pgwt_ident[i].backend_type;
		s->background = pgwt_ident[i].background;
		s->userid = pgwt_ident[i].userid;
		s->dbid = pgwt_ident[i].dbid;
		s->backend_start = pgwt_ident[i].backend_start;
		s->state = PGWT_SAMPLE_IDLE;
		s->query_id = 0;		/* idle time is never billed to a query */
		return true;
	}
	s->backend_type = B_INVALID;
	s->userid = s->dbid = InvalidOid;
	s->backend_start = 0;
	be = pgwt_status_entry(i, proc, pid);
	for (attempt = 0; be != NULL && attempt < 8; attempt++)
	{
		int			before,
					after;

		pgstat_begin_read_activity(be, before);
		if (be->st_procpid == pid)
		{
			s->backend_type = (uint32) be->st_backendType;
			s->userid = be->st_userid;
			s->dbid = be->st_databaseid;
			s->backend_start = be->st_proc_start_timestamp;
			xact_start = be->st_xact_start_timestamp;
			qid = (uint64) be->st_query_id;
		}
		pgstat_end_read_activity(be, after);
		if (pgstat_read_activity_complete(before, after))
			break;
		(*retried)++;
		qid = 0;
	}
	if (!pgwt_sampler_identify(i, s))
		return false;
	s->state = pgwt_sample_classify(s->event);
	s->query_id = (int64) pgwt_qid_carry(&pgwt_carry[i], pid, xact_start,
										 s->state == PGWT_SAMPLE_IDLE ? 0 : qid);
	return true;
}

/*
 * Scan PGPROCs [from, to), fetching the PGPROC 'ahead' places on while
 * looking at one (0: none; a constant once inlined). 'quick' lets a process
 * unchanged since it was applied be skipped (see PgwtSeen). Returns the
 * new number of samples; PGPROC numbers of sessions go to pgwt_present.
 */
static pg_attribute_always_inline int
pgwt_sampler_scan(PGPROC *procs, int from, int to, int ahead, bool quick, int n,
				  uint64 *retried)
{
	int			i;

	for (i = from; i < to; i++)
	{
		PGPROC	   *proc = &procs[i];
		PgwtSeen   *seen = &pgwt_seen[i];
		int			pid;
		uint32		event;

		if (ahead > 0)
			PGWT_PREFETCH(&proc[ahead].pid);
		pid = proc->pid;

		/*
		 * A PGPROC keeps its last pid after the process exits on some
		 * versions; the latch is disowned on exit on all of them.
		 */
		if (likely(pid == 0) || proc == MyProc || proc->procLatch.owner_pid != pid)
			continue;
		event = *(volatile uint32 *) &proc->wait_event_info;
		if (quick && seen->event == event)
		{
			if (seen->pid == pid && event != 0 && pgwt_event_is_idle(event))
			{
				pgwt_present[pgwt_npresent++] = i;
				continue;
			}
			if (seen->pid == -pid)
				continue;
		}
		if (pgwt_sampler_read_one(i, proc, pid, event, &pgwt_raw[n], retried))
		{
			pgwt_present[pgwt_npresent++] = i;
			n++;
		}
		else
		{
			/*
			 * Remembered only when sure: a background worker with no
			 * database, or a process with no status entry at two full
			 * reads (a new backend has none until it has connected, and
			 * its first ticks must not be skipped).
			 */
			bool		sure = pgwt_raw[n].backend_type == B_BG_WORKER ||
				(!quick && seen->pid == -pid);

			seen->pid = -pid;
			seen->event = sure ? event : PGWT_SEEN_NEVER;
		}
	}
	return n;
}

/*
 * Read every backend (no lock held); returns the number of samples.
 *
 * Every PGPROC is read at every tick. The scan is bound by cache misses on
 * PGPROCs (a line each, most of them free), so PGPROCs a few places ahead
 * are fetched while this one is looked at (their misses overlap); the last
 * few are scanned without. Skipping free PGPROCs on some ticks cost no less
 * and was biased: PG16+ hand PGPROCs out first-in first-out, so short
 * sessions keep landing in PGPROCs the worker skipped, and their first
 * ticks were lost (-14% of the sleep time of 100 ms sessions).
 */
static int
pgwt_sampler_read(bool quick, uint64 *retried)
{
	int			nprocs = Min((int) ProcGlobal->allProcCount, pgwt_sampler_nprocs);
	int			split = Max(nprocs - PGWT_PREFETCH_AHEAD, 0);
	int			n;

	pgwt_npresent = 0;
	if (quick)
	{
		n = pgwt_sampler_scan(ProcGlobal->allProcs, 0, split, PGWT_PREFETCH_AHEAD, true, 0, retried);
		return pgwt_sampler_scan(ProcGlobal->allProcs, split, nprocs, 0, true, n, retried);
	}
	n = pgwt_sampler_scan(ProcGlobal->allProcs, 0, split, PGWT_PREFETCH_AHEAD, false, 0, retried);
	return pgwt_sampler_scan(ProcGlobal->allProcs, split, nprocs, 0, false, n, retried);
}

/* Add a run to one table row (lock held). */
static void
pgwt_sampler_bill(PgwtSampleTable *t, int64 id, int64 id2, const PgwtSamplerProc *p,
				  uint64 samples, uint64 ns, uint64 tick, uint32 *hint)
{
	PgwtSampleKey key;
	PgwtSampleEntry *e;

	memset(&key, 0, sizeof(key));
	key.id = id;
	key.id2 = id2;
	key.event = p->event;
	e = pgwt_table_upsert_hint(t, &key, hint);
	if (e == NULL)
		return;
	if (e->samples == 0)
	{
		e->background = (uint16) p->background;
		e->backend_type = p->backend_type;
		e->userid = p->userid;
		e->dbid = p->dbid;
	}
	e->samples += samples;
	e->time_ns += ns;
	e->last_tick = tick;
}

/*
 * Write a process's run, up to tick 'upto' (whose sampled_ns total was
 * 'upto_ns'), to the shared tables, and start the rest of it there (lock
 * held). Idle time goes to the per-event and per-backend profiles only: it
 * is shown as idle, never billed to a query.
 */
static void
pgwt_run_flush(int procno, uint64 upto, uint64 upto_ns, uint64 tick)
{
	PgwtSamplerProc *p = &pgwt_sampler_procs[procno];
	PgwtBillHints *hints = &pgwt_hints[procno];
	uint64		samples = upto - p->run_tick0;
	uint64		ns = upto_ns - p->run_ns0;

	p->run_tick0 = upto;
	p->run_ns0 = upto_ns;
	if (p->pid == 0 || samples == 0 || samples > upto)
		return;
	/* background time apart (id2 1): it is never DB time */
	pgwt_sampler_bill(pgwt_sampler_by_event, 0, p->background, p, samples, ns, tick,
					  &hints->by_event);
	pgwt_sampler_bill(pgwt_sampler_by_backend, p->pid, p->backend_start, p, samples, ns, tick,
					  &hints->by_backend);
	/*
	 * per role too: the views show query ids as pg_stat_statements does.
	 * A background process runs no user query: none of its time is a
	 * query's (the walwriter's WALSync is no statement's under id 0).
	 */
	if (p->state != PGWT_SAMPLE_IDLE && !p->background)
		pgwt_sampler_bill(pgwt_sampler_by_query, p->query_id, p->userid, p, samples, ns, tick,
						  &hints->by_query);
}

/*
 * Apply one tick's samples; the caller holds the lock exclusively.
 *
 * Each process's shared row holds its current run: the ticks since its
 * state, event, query id or identity last changed, kept as the tick count
 * and billed total before the run began (run_tick0, run_ns0), so a tick
 * that sees a process unchanged writes nothing. A run reaches the tables
 * when it ends, when its process exits, and at least once a second;
 * readers add the runs still open (pgwt_sampler_add_runs), so they see
 * every tick at once.
 */
static void
pgwt_sampler_apply(const PgwtRawSample *raw, int n, uint64 bill_ns, uint64 lost_ns,
				   bool late, TimestampTz now)
{
	uint64		tick0 = pgwt_sampler->ticks;
	uint64		ns0 = pgwt_sampler->sampled_ns;
	uint64		tick = tick0 + 1;
	int			i,
				j;

	pgwt_sampler->ticks = tick;
	pgwt_sampler->sampled_ns += bill_ns;
	pgwt_sampler->unbilled_ns += lost_ns;
	if (late)
		pgwt_sampler->late_ticks++;

	for (i = 0; i < n; i++)
	{
		const PgwtRawSample *s = &raw[i];
		PgwtSamplerProc *cur = &pgwt_sampler_procs[s->procno];

		if (cur->pid != s->pid || cur->event != s->event || cur->query_id != s->query_id ||
			cur->backend_start != s->backend_start || cur->backend_type != s->backend_type ||
			cur->background != s->background ||
			cur->userid != s->userid || cur->dbid != s->dbid)
		{
			pgwt_run_flush(s->procno, tick0, ns0, tick);
			if (cur->pid != s->pid || cur->backend_start != s->backend_start)
				cur->stats_reset = 0;	/* another process */
			if (cur->pid != s->pid || cur->event != s->event || cur->since == 0)
				cur->since = now;
			cur->pid = s->pid;
			cur->state = s->state;
			cur->event = s->event;
			cur->backend_type = s->backend_type;
			cur->background = s->background;
			cur->userid = s->userid;
			cur->dbid = s->dbid;
			cur->query_id = s->query_id;
			cur->backend_start = s->backend_start;
			pgwt_seen[s->procno].pid = s->pid;
			pgwt_seen[s->procno].event = s->event;
		}
		if (s->state != PGWT_SAMPLE_IDLE)
		{
			PgwtHistorySample h;

			memset(&h, 0, sizeof(h));
			h.ts = now;
			h.query_id = s->query_id;
			h.pid = s->pid;
			h.event = s->event;
			h.backend_type = (uint16) s->backend_type;
			h.background = s->background ? 1 : 0;
			h.userid = s->userid;
			pgwt_ring_push(pgwt_sampler_ring, &h);
		}
	}

	/*
	 * Processes gone since the previous tick (most ticks see the same
	 * sessions as the one before): both lists are ascending, so one merge
	 * finds them. Their runs ended at the previous tick.
	 */
	if (pgwt_npresent != pgwt_prev_npresent ||
		memcmp(pgwt_present, pgwt_prev_present, sizeof(int) * (Size) pgwt_npresent) != 0)
	{
		for (i = 0, j = 0; j < pgwt_prev_npresent; j++)
		{
			int			procno = pgwt_prev_present[j];

			while (i < pgwt_npresent && pgwt_present[i] < procno)
				i++;
			if (i < pgwt_npresent && pgwt_present[i] == procno)
				continue;
			pgwt_run_flush(procno, tick0, ns0, tick);
			pgwt_sampler_procs[procno].pid = 0;
			pgwt_seen[procno].pid = 0;
		}
	}
	/* runs reach the shared tables at least once a second */
	if (now - pgwt_last_flush >= USECS_PER_SEC)
	{
		pgwt_last_flush = now;
		for (i = 0; i < pgwt_npresent; i++)
			pgwt_run_flush(pgwt_present[i], tick, pgwt_sampler->sampled_ns, tick);
	}
	{
		int		   *swap = pgwt_prev_present;

		pgwt_prev_present = pgwt_present;
		pgwt_prev_npresent = pgwt_npresent;
		pgwt_present = swap;
	}
}

/* Delay before sampling when the worker keeps being restarted. */
static int
pgwt_sampler_note_start(void)
{
	TimestampTz now = GetCurrentTimestamp();
	int			delay = 0;
	int			i;

	LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
	pgwt_sampler->worker_starts++;
	if (pgwt_sampler->last_start != 0 &&
		!TimestampDifferenceExceeds(pgwt_sampler->last_start, now, 60 * 1000))
		pgwt_sampler->quick_restarts++;
	else
		pgwt_sampler->quick_restarts = 0;
	if (pgwt_sampler->quick_restarts > 0)
		delay = 1 << Min(pgwt_sampler->quick_restarts, 6);
	delay = Min(delay, 60);
	pgwt_sampler->backoff_s = delay;
	pgwt_sampler->last_start = now;
	pgwt_sampler->worker_pid = MyProcPid;
	/*
	 * A predecessor's open runs go to the tables; then this worker starts
	 * from no process, and settles only what it sees.
	 */
	for (i = 0; i < pgwt_sampler->nprocs; i++)
	{
		pgwt_run_flush(i, pgwt_sampler->ticks, pgwt_sampler->sampled_ns, pgwt_sampler->ticks);
		pgwt_sampler_procs[i].pid = 0;
	}
	LWLockRelease(pgwt_sampler->lock);
	return delay;
}

static void
pgwt_sampler_on_exit(int code, Datum arg)
{
	if (pgwt_sampler == NULL)
		return;
	LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
	if (pgwt_sampler->worker_pid == MyProcPid)
		pgwt_sampler->worker_pid = 0;
	LWLockRelease(pgwt_sampler->lock);
}

/*
 * Sleep until 'deadline' (CLOCK_MONOTONIC ns; 'now' is the time read last).
 *
 * Where the server learns of the postmaster's death by a signal (Linux),
 * the worker sleeps on the clock alone: one clock_nanosleep to the exact
 * tick time, where a latch wait adds an epoll_wait, its bookkeeping and a
 * millisecond rounding to every tick (in a profile of the worker under
 * pgbench, the largest part of its time after the PGPROC reads).
 * Every signal the worker handles (SIGTERM, SIGHUP, procsignal interrupts,
 * postmaster death) ends the sleep as it ends a latch wait; one that comes
 * just before the sleep begins is seen a tick later. Nothing else needs the
 * worker's latch.
 */
static void
pgwt_sampler_sleep_until(uint64 now, uint64 deadline)
{
#ifdef USE_POSTMASTER_DEATH_SIGNAL
	struct timespec ts;

	(void) now;
	ts.tv_sec = (time_t) (deadline / UINT64CONST(1000000000));
	ts.tv_nsec = (long) (deadline % UINT64CONST(1000000000));
	pgstat_report_wait_start(PG_WAIT_EXTENSION);	/* as a latch wait shows it */
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	pgstat_report_wait_end();
	if (!PostmasterIsAlive())
		proc_exit(1);
#else
	long		wait_ms = (long) ((deadline - now + 999999) / 1000000);

	(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
					 wait_ms, PG_WAIT_EXTENSION);
	ResetLatch(MyLatch);
#endif
}

void
pgwt_sampler_main(Datum arg)
{
	uint64		prev_ns = 0,
				next_ns;
	int			delay;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	BackgroundWorkerUnblockSignals();

	/* a status entry of our own, whose index locates the others' */
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	pgstat_report_appname("pg_wait_tracer sampler");
	if (MyBEEntry == NULL || pgwt_sampler == NULL)
		elog(ERROR, "pg_wait_tracer sampler: no backend status entry or shared memory");
#if PG_VERSION_NUM >= 170000
	pgwt_status_array = MyBEEntry - MyProcNumber;
#else
	pgwt_status_array = MyBEEntry - (MyBackendId - 1);
#endif

	pgwt_carry = palloc0(sizeof(PgwtQidCarry) * pgwt_sampler_nprocs);
	pgwt_raw = palloc0(sizeof(PgwtRawSample) * pgwt_sampler_nprocs);
	pgwt_ident = palloc0(sizeof(PgwtRawSample) * pgwt_sampler_nprocs);
	pgwt_seen = palloc0(sizeof(PgwtSeen) * pgwt_sampler_nprocs);
	pgwt_present = palloc0(sizeof(int) * pgwt_sampler_nprocs);
	pgwt_prev_present = palloc0(sizeof(int) * pgwt_sampler_nprocs);
	pgwt_hints = palloc(sizeof(PgwtBillHints) * pgwt_sampler_nprocs);
	memset(pgwt_hints, 0xFF, sizeof(PgwtBillHints) * pgwt_sampler_nprocs);
	before_shmem_exit(pgwt_sampler_on_exit, (Datum) 0);

	delay = pgwt_sampler_note_start();
	if (delay > 0)
	{
		ereport(LOG,
				(errmsg("pg_wait_tracer sampler restarted %d times in a row; waiting %d s before sampling",
						pgwt_sampler->quick_restarts, delay)));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 delay * 1000L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	ereport(LOG, (errmsg("pg_wait_tracer sampler started at %d Hz", pgwt_sample_rate)));

	next_ns = pgwt_sampler_now_ns() + UINT64CONST(1000000000) / (uint64) pgwt_sample_rate;
	for (;;)
	{
		uint64		period_ns = UINT64CONST(1000000000) / (uint64) pgwt_sample_rate;
		uint64		now_ns = pgwt_sampler_now_ns();
		uint64		retried = 0,
					skipped;
		int			n;

		/* a deadline the previous tick's work ran past is skipped, never ticked late */
		next_ns = pgwt_tick_next_on_grid(next_ns, now_ns, period_ns, &skipped);
		if (skipped > 0)
		{
			LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
			pgwt_sampler->skipped_ticks += skipped;
			LWLockRelease(pgwt_sampler->lock);
		}
		pgwt_sampler_sleep_until(now_ns, next_ns);
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		now_ns = pgwt_sampler_now_ns();

		/*
		 * Woken early by a signal: wait again. A wait that ends a little
		 * early (a latch wait counts whole milliseconds, and resumes after a
		 * signal with the rest rounded down) is the tick: waiting again
		 * would cost a second wake-up for nothing, and the tick bills the
		 * time that really elapsed anyway.
		 */
		if (now_ns + Min(period_ns / 4, PGWT_TICK_SLACK_NS) < next_ns)
			continue;

		{
			uint64		bill = pgwt_tick_bill_ns(prev_ns, now_ns, period_ns);
			uint64		lost = pgwt_tick_lost_ns(prev_ns, now_ns, period_ns);
			TimestampTz now = GetCurrentTimestamp();

			/* once a second every process is read in full (see PgwtSeen) */
			n = pgwt_sampler_read(now - pgwt_last_flush < USECS_PER_SEC, &retried);

			LWLockAcquire(pgwt_sampler->lock, LW_EXCLUSIVE);
			pgwt_sampler->reads_retried += retried;
			pgwt_sampler_apply(pgwt_raw, n, bill, lost,
							   pgwt_tick_is_late(prev_ns, now_ns, period_ns), now);
			LWLockRelease(pgwt_sampler->lock);
			if (lost > 0)
				ereport(LOG,
						(errmsg("pg_wait_tracer sampler stalled: %.3f s since the previous tick, %.3f s of it not billed",
								(double) (bill + lost) / 1e9, (double) lost / 1e9)));
		}
		prev_ns = now_ns;
		/* keep the schedule: absolute deadlines on one grid */
		next_ns += period_ns;
	}
}
