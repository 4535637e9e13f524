/*
 * trace_worker.c
 *		The trace drain worker ("pg_wait_tracer trace writer"): every
 *		PGWT_DRAIN_MS while something is traced it reads what each process
 *		appended to its trace ring since the last pass, turns it into
 *		record-stream transitions (trace_records.c), adds the in-server
 *		sampler's new samples where it runs (trace_samples.c) and appends
 *		them to the trace directory through tracefmt (live current.trace,
 *		hourly rotation, retention by age and size, recovery of a file a
 *		crash left behind). With the wait-event hooks it also writes the
 *		ESC_START/ESC_END markers of the escalation windows, runs the
 *		window's clock (so a window closes in the books on time) and feeds
 *		the anomaly rules once a second.
 *
 * Idle: when no window is open, the sampler does not run and the rings
 * stayed empty for PGWT_IDLE_AFTER passes, it flushes and sleeps on its
 * latch for PGWT_ANOMALY_MS (automatic windows need the anomaly tick) or
 * PGWT_IDLE_MS, with worker_idle set; the first process that traces
 * something wakes it (trace_capture.h).
 *
 * Shared state: it reads the rings with their seqlocks (never blocking a
 * writer) and updates its counters in PgwtTraceShared under esc_lock.
 * Records written to the page cache survive a backend's kill -9 and an
 * immediate shutdown; what sits in the worker's buffers (at most
 * PGWT_FLUSH_MS of waits) is the "unflushed tail" a crash may lose.
 */
#include "postgres.h"

#include <sys/stat.h>
#include <unistd.h>

#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/wait_event.h"

#include "common/event_ids.h"
#include "extension/pgwt_shared.h"
#include "extension/sampler.h"
#include "extension/trace_capture.h"
#include "extension/trace_names.h"
#include "extension/trace_records.h"
#include "extension/trace_samples.h"
#include "extension/trace_worker.h"
#include "tracefmt/tracefmt.h"

#define PGWT_DRAIN_MS		100
#define PGWT_FLUSH_MS		1000
#define PGWT_RETENTION_MS	60000
#define PGWT_DRAIN_BATCH	512
#define PGWT_ANOMALY_MS		1000
#define PGWT_IDLE_MS		10000	/* idle sleep when no anomaly tick is due */
#define PGWT_IDLE_AFTER		10		/* empty passes before sleeping long */

/* One ring's stream, as the worker last saw it: one claim of the ring. */
typedef struct PgwtDrainStream
{
	uint32		pid;
	uint64		generation;		/* the claim's number (trace_ring.h) */
	pgwt_trace_stream conv;
	int			identify_tries;	/* passes left to find its backends.tsv line */
	bool		saw_window;		/* a window was open during this claim */
	bool		woken;			/* its holder was woken after a window closed */
} PgwtDrainStream;

/* At most one log line about an empty ring pool per window or this long. */
#define PGWT_EXHAUSTED_LOG_MS	600000

#define PGWT_IDENTIFY_TRIES	50	/* a process claims its slot within 5 s */

static PgwtDrainStream *pgwt_drain_streams = NULL;
static pgwt_tf_dir_writer *pgwt_drain_dir = NULL;
static pgwt_tf_file_opts pgwt_drain_side;	/* side files' mode and bound */
/* what of the escalation windows the files already announce */
static pgwt_esc_tracker pgwt_drain_esc;

void
pgwt_trace_worker_register(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	worker.bgw_restart_time = 1;
	strlcpy(worker.bgw_library_name, "pg_wait_tracer", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "pgwt_trace_worker_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "pg_wait_tracer trace writer", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "pg_wait_tracer trace writer", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

char *
pgwt_trace_dir_path(void)
{
	const char *d = (pgwt_trace_dir != NULL && pgwt_trace_dir[0] != '\0') ?
		pgwt_trace_dir : "pg_wait_tracer";

	if (is_absolute_path(d))
		return pstrdup(d);
	return psprintf("%s/%s", DataDir, d);
}

/*
 * The trace directory is opened and checked once, as the external daemon
 * does (tracefmt/safe_dir.c): it must belong to the server's user (or
 * root) and be writable by no one else, and every file in it is written
 * through that descriptor, never through a link.
 */
static void
pgwt_drain_open(void)
{
	char	   *dir = pgwt_trace_dir_path();
	pgwt_tf_safe_dir_opts so;
	pgwt_tf_dir_opts o;
	char		why[1024];
	int			dirfd;
	int			rc;

	memset(&so, 0, sizeof(so));
	so.create = true;
	so.mode = S_IRWXU;
	so.group_gid = -1;
	rc = pgwt_tf_safe_dir_open(dir, &so, &dirfd, why, sizeof(why));
	if (rc == -PGWT_TF_UNSAFE)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("pg_wait_tracer refuses the trace directory \"%s\"", dir),
				 errdetail("%s", why),
				 errhint("Make it belong to the server's user with mode 0700, or set pg_wait_tracer.trace_dir to another directory.")));
	if (rc < 0)
		ereport(ERROR,
				(errcode(ERRCODE_IO_ERROR),
				 errmsg("could not open trace directory \"%s\"", dir),
				 errdetail("%s", why)));
	memset(&o, 0, sizeof(o));
	o.file.pg_version = PG_VERSION_NUM;
	o.file.write_meta = true;
	o.file.mode = 0600;
	o.file.group_gid = -1;
	o.retention_hours = (uint32) pgwt_trace_retention_hours;
	o.retention_bytes = (uint64) pgwt_trace_retention_mb * 1024 * 1024;
	rc = pgwt_tf_dir_open_fd(dirfd, dir, &o, &pgwt_drain_dir);
	close(dirfd);
	if (rc < 0)
		ereport(ERROR,
				(errmsg("could not open trace directory \"%s\": %s", dir,
						pgwt_tf_strerror(rc))));
	pgwt_drain_side = pgwt_tf_dir_side_opts(pgwt_drain_dir);
	pgwt_trace_names_start(dir);
	if (pgwt_tf_dir_writer_stats(pgwt_drain_dir)->recovered > 0)
		ereport(LOG,
				(errmsg("pg_wait_tracer recovered a trace file left by a crash in \"%s\" (%llu torn bytes cut)",
						dir, (unsigned long long) pgwt_tf_dir_writer_stats(pgwt_drain_dir)->recovered_bytes_cut)));
}

static void
pgwt_drain_on_exit(int code, Datum arg)
{
	if (pgwt_drain_dir != NULL)
	{
		(void) pgwt_tf_dir_close(pgwt_drain_dir);
		pgwt_drain_dir = NULL;
	}
	if (pgwt_trace_shared != NULL)
	{
		SpinLockAcquire(&pgwt_trace_shared->esc_lock);
		pgwt_trace_shared->worker_pid = 0;
		__atomic_store_n(&pgwt_trace_shared->worker_latch, NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&pgwt_trace_shared->worker_idle, 0, __ATOMIC_RELEASE);
		SpinLockRelease(&pgwt_trace_shared->esc_lock);
	}
}

/*
 * backends.tsv lines found in a pass, written together at its end (one
 * open and one write for a burst of new connections, not one each).
 */
typedef struct PgwtDrainBackend
{
	pgwt_tf_backend b;
	char		type[BGW_MAXLEN];
} PgwtDrainBackend;

static PgwtDrainBackend pgwt_drain_new_backends[PGWT_TF_BACKENDS_BATCH_MAX];
static int	pgwt_drain_new_nbackends = 0;

/* Write the lines the pass collected. */
static void
pgwt_drain_backends_flush(void)
{
	pgwt_tf_backend b[PGWT_TF_BACKENDS_BATCH_MAX];
	int			rc;

	if (pgwt_drain_new_nbackends == 0)
		return;
	for (int i = 0; i < pgwt_drain_new_nbackends; i++)
	{
		b[i] = pgwt_drain_new_backends[i].b;
		b[i].type = pgwt_drain_new_backends[i].type;
	}
	rc = pgwt_tf_backends_append_at(pgwt_tf_dir_writer_fd(pgwt_drain_dir), &pgwt_drain_side,
									b, (size_t) pgwt_drain_new_nbackends);
	pgwt_drain_new_nbackends = 0;
	if (rc < 0 && rc != -PGWT_TF_FULL)
		ereport(LOG,
				(errmsg("pg_wait_tracer could not write %s in \"%s\": %s",
						PGWT_TF_BACKENDS_NAME, pgwt_trace_dir_path(), pgwt_tf_strerror(rc))));
}

/*
 * Note the backends.tsv line of a traced pid (docs/TRACE_FORMAT.md 8.1),
 * so readers of the directory know whether its time is DB time
 * (common/process_rule.h): its type as pg_stat_activity shows it, from
 * its statistics slot. Returns false while the process has no live slot
 * yet (the caller tries again at later passes). Names of role and database
 * need catalog access, which this worker has not: they stay empty.
 */
static bool
pgwt_drain_identify(uint32 pid)
{
#ifdef PGWT_COOP_BUILD
	PgwtSlot   *copy;
	int			i;
	bool		found = false;

	if (pgwt_shared == NULL)
		return false;
	copy = palloc(sizeof(PgwtSlot));
	for (i = 0; i < pgwt_shared->nslots && !found; i++)
	{
		PgwtDrainBackend *nb;

		if (*(volatile int *) &pgwt_slots[i].pid != (int) pid ||
			*(volatile uint32 *) &pgwt_slots[i].state != PGWT_SLOT_LIVE)
			continue;
		pgwt_slot_copy(&pgwt_slots[i], copy);
		if (copy->pid != (int) pid || copy->state != PGWT_SLOT_LIVE)
			continue;
		found = true;
		if (pgwt_drain_new_nbackends == PGWT_TF_BACKENDS_BATCH_MAX)
			pgwt_drain_backends_flush();
		nb = &pgwt_drain_new_backends[pgwt_drain_new_nbackends++];
		memset(nb, 0, sizeof(*nb));
		nb->b.pid = pid;
		nb->b.start_realtime_ns = (uint64) (copy->start_time +
											(int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
											SECS_PER_DAY * USECS_PER_SEC) * 1000;
		strlcpy(nb->type, copy->bgw_type[0] ? copy->bgw_type :
				GetBackendTypeDesc((BackendType) copy->backend_type), sizeof(nb->type));
		nb->b.user = nb->b.database = nb->b.client_addr = nb->b.application_name = "";
	}
	pfree(copy);
	return found;
#else
	(void) pid;
	return true;
#endif
}

/*
 * Is the holder of a pool word gone (its PGPROC has another pid)? Then it
 * appends no more: a dying process stops before its PGPROC is handed on.
 */
static bool
pgwt_drain_holder_gone(uint64 w)
{
	uint32		procno = pgwt_tpool_procno(w);

	if (procno >= ProcGlobal->allProcCount)
		return true;
	return (uint32) *((volatile int *) &ProcGlobal->allProcs[procno].pid) != pgwt_tpool_pid(w);
}

/*
 * The ring's holder stopped tracing or is gone, and the ring is read to
 * its head: free it for the next process (trace_pool.h). A holder that
 * still holds its ring after a window it saw closed is idle in a wait (a
 * session waiting for its client): its latch wakes it, and the safe point
 * before its next wait gives the ring back. Once per claim, and only after
 * a window: a capture = trace session that saw none is never woken (a set
 * latch would end a pg_sleep early).
 */
static void
pgwt_drain_settle_pool(int i, uint64 w, PgwtDrainStream *s, uint64 now)
{
	uint64	   *words = pgwt_trace_pool_words();

	if (pgwt_tpool_state(w) == PGWT_TPOOL_RELEASED ||
		(pgwt_tpool_state(w) == PGWT_TPOOL_HELD && pgwt_drain_holder_gone(w)))
	{
		if (pgwt_tpool_recycle(words, i, w))
			__atomic_fetch_add(&pgwt_trace_shared->ring_recycled, 1, __ATOMIC_RELAXED);
		return;
	}
	if (now < __atomic_load_n(&pgwt_trace_shared->escwin.published.end_ns, __ATOMIC_ACQUIRE))
	{
		s->saw_window = true;
		return;
	}
	if (pgwt_tpool_state(w) == PGWT_TPOOL_HELD && s->saw_window && !s->woken)
	{
		s->woken = true;
		SetLatch(&ProcGlobal->allProcs[pgwt_tpool_procno(w)].procLatch);
	}
}

/* Drain ring i of the pool; returns records written. */
static uint64
pgwt_drain_ring(int i, pgwt_tring_rec *in, pgwt_record *out,
				uint64 *lost, uint64 *read, uint64 *errors, uint64 now)
{
	pgwt_trace_ring *r = pgwt_trace_ring_at(i);
	PgwtDrainStream *s = &pgwt_drain_streams[i];
	/* the word first: RELEASED (acquire) means every record is visible */
	uint64		w = pgwt_tpool_load(pgwt_trace_pool_words(), i);
	pgwt_tring_owner who;
	uint64		base,
				head,
				next,
				written = 0;
	pgwt_tring_read_stats st = {0};
	size_t		n;

	if (w == PGWT_TPOOL_FREE)
		return 0;
	if (!pgwt_tring_owner_of(r, &who, &base, &head) || who.pid == 0)
		return 0;
	if (s->pid != who.pid || s->generation != who.generation)
	{
		/* the previous claim's records not read yet are lost */
		if (s->pid != 0 && base > s->conv.next_pos)
			*lost += base - s->conv.next_pos;
		if (s->pid != who.pid)
			s->identify_tries = PGWT_IDENTIFY_TRIES;
		s->pid = who.pid;
		s->generation = who.generation;
		s->woken = false;
		s->saw_window = false;
		pgwt_trace_stream_init(&s->conv, who.pid, base);
	}
	if (s->identify_tries > 0 && (pgwt_drain_identify(who.pid) || --s->identify_tries == 0))
		s->identify_tries = 0;
	while ((n = pgwt_tring_read_owner(r, &who, s->conv.next_pos, in, PGWT_DRAIN_BATCH,
									  &next, &st)) > 0)
	{
		size_t		m = pgwt_trace_convert(&s->conv, in, n, out);

		for (size_t k = 0; k < m; k++)
		{
			if (pgwt_tf_dir_append(pgwt_drain_dir, &out[k]) < 0)
				(*errors)++;
			else
			{
				pgwt_trace_names_note(&out[k]);
				written++;
			}
		}
		s->conv.next_pos = next;
		/* a held ring's head moves on: read what is there now */
		(void) pgwt_tring_owner_of(r, &who, &base, &head);
	}
	/* lost positions were skipped by the read: resume after them */
	if (next > s->conv.next_pos)
		s->conv.next_pos = next;
	pgwt_tring_set_drained(r, s->conv.next_pos);
	*lost += st.overwritten + st.torn;
	*read += st.copied;
	/* a ring given back (or of a gone holder) is free once read to its head */
	if (s->conv.next_pos >= head || pgwt_tpool_state(w) == PGWT_TPOOL_HELD)
		pgwt_drain_settle_pool(i, w, s, now);
	return written;
}

/*
 * Processes refused a ring since the last pass: one log line per window at
 * most (or per PGWT_EXHAUSTED_LOG_MS without a window), saying how many.
 */
static void
pgwt_drain_log_exhausted(uint64 now)
{
	static uint64 logged_count = 0;
	static uint64 logged_window = UINT64_MAX;
	static uint64 logged_ns = 0;
	uint64		count = __atomic_load_n(&pgwt_trace_shared->ring_exhausted, __ATOMIC_RELAXED);
	uint64		window;

	if (count <= logged_count)
		return;
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	window = pgwt_trace_shared->escwin.esc.windows_total;
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	if (window == logged_window && logged_ns != 0 &&
		now - logged_ns < (uint64) PGWT_EXHAUSTED_LOG_MS * 1000000)
		return;
	ereport(LOG,
			(errmsg("pg_wait_tracer: %llu processes found no free trace ring and were not traced",
					(unsigned long long) (count - logged_count)),
			 errhint("pg_wait_tracer.trace_rings (%d) bounds how many processes are traced at once.",
					 pgwt_trace_shared->nrings)));
	logged_count = count;
	logged_window = window;
	logged_ns = now;
}

/*
 * ESC_START/ESC_END markers for what the escalation windows did since the
 * last pass (trace_records.c decides; this copies the policy state under
 * esc_lock and writes outside it). Returns records written.
 */
static uint64
pgwt_drain_esc_markers(uint64 now, uint64 *errors)
{
	static pgwt_escalation esc;	/* 2 kB: not on the stack */
	pgwt_record out[PGWT_ESC_MARKERS_MAX];
	size_t		n;
	uint64		written = 0;

	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	memcpy(&esc, &pgwt_trace_shared->escwin.esc, sizeof(esc));
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	n = pgwt_trace_esc_markers(&pgwt_drain_esc, &esc, now, out);
	for (size_t k = 0; k < n; k++)
	{
		if (pgwt_tf_dir_append(pgwt_drain_dir, &out[k]) < 0)
			(*errors)++;
		else
			written++;
	}
	return written;
}

/* Has any ring records the worker has not read? (no lock: a hint) */
static bool
pgwt_drain_rings_pending(int nrings)
{
	for (int i = 0; i < nrings; i++)
	{
		pgwt_trace_ring *r = pgwt_trace_ring_at(i);
		PgwtDrainStream *s = &pgwt_drain_streams[i];
		pgwt_tring_owner who;
		uint64		base,
					head;

		/* a free ring has been read; one given back waits to be freed */
		if (pgwt_tpool_load(pgwt_trace_pool_words(), i) == PGWT_TPOOL_FREE)
			continue;
		if (!pgwt_tring_owner_of(r, &who, &base, &head) || who.pid == 0)
			continue;
		if (who.pid != s->pid || who.generation != s->generation ||
			head > s->conv.next_pos ||
			pgwt_tpool_state(pgwt_tpool_load(pgwt_trace_pool_words(), i)) != PGWT_TPOOL_HELD)
			return true;
	}
	return false;
}

/*
 * What the anomaly rules see once a second: every backend's current wait
 * read from its PGPROC (a 4-byte read, no lock; as the sampler does).
 * A backend with no event is on CPU (idle ones wait in Client:ClientRead
 * or the Activity class); a non-idle event is active time; Lock-class
 * waits count apart.
 */
static void
pgwt_anomaly_observe_procs(pgwt_anomaly_tick *t, uint64 now)
{
	double		aas = 0,
				lock_aas = 0,
				cpu_aas = 0;

	for (int i = 0; i < MaxBackends; i++)
	{
		PGPROC	   *proc = &ProcGlobal->allProcs[i];
		uint32		ev;

		if (proc == MyProc || proc->pid == 0)
			continue;
		ev = *((volatile uint32 *) &proc->wait_event_info);
		if (ev == 0)
		{
			/* no event and no snapshot: a process between jobs */
			if (proc->xmin == InvalidTransactionId)
				continue;
			cpu_aas += 1;
			aas += 1;
		}
		else if (!pgwt_event_is_idle(ev))
		{
			aas += 1;
			if (pgwt_event_class(ev) == PGWT_CLASS_LOCK)
				lock_aas += 1;
		}
	}
	memset(t, 0, sizeof(*t));
	t->now_ns = now;
	t->dt_s = PGWT_ANOMALY_MS / 1000.0;
	t->complete = true;
	t->aas = aas;
	t->lock_aas = lock_aas;
	t->cpu_aas = cpu_aas;
}

/* One pass's counts, added to the shared counters under esc_lock. */
typedef struct PgwtDrainCounts
{
	uint64		lost,
				read,
				errors,
				written;
} PgwtDrainCounts;

/*
 * Start-up: the streams and batch buffers, the files, and the worker's
 * place in shared memory (what the rings held before we started is
 * drained too).
 */
static void
pgwt_drain_setup(int nrings, pgwt_tring_rec **in, pgwt_record **out)
{
	pgwt_drain_streams = palloc0(sizeof(PgwtDrainStream) * Max(nrings, 1));
	*in = palloc(sizeof(pgwt_tring_rec) * PGWT_DRAIN_BATCH);
	*out = palloc(sizeof(pgwt_record) * PGWT_DRAIN_BATCH * 2);
	before_shmem_exit(pgwt_drain_on_exit, (Datum) 0);
	pgwt_drain_open();
	/* what the rings held before we started is drained too */
	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	pgwt_trace_shared->worker_pid = MyProcPid;
	__atomic_store_n(&pgwt_trace_shared->worker_latch, MyLatch, __ATOMIC_RELEASE);
	/* windows closed before we started are history; an open one is announced */
	pgwt_esc_tracker_init(&pgwt_drain_esc, &pgwt_trace_shared->escwin.esc);
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
}

/* The files' clocks: a flush (or the hourly rotation) and the retention. */
static void
pgwt_drain_files_tick(uint64 now, bool *dirty, uint64 *last_flush,
					  uint64 *last_retention, uint64 *errors)
{
	if (now - *last_flush >= (uint64) PGWT_FLUSH_MS * 1000000)
	{
		/* with nothing new, only the hourly rotation may be due */
		if ((*dirty ? pgwt_tf_dir_flush(pgwt_drain_dir) :
			 pgwt_tf_dir_tick(pgwt_drain_dir)) < 0)
			(*errors)++;
		*dirty = false;
		*last_flush = now;
	}
	if (now - *last_retention >= (uint64) PGWT_RETENTION_MS * 1000000)
	{
		(void) pgwt_tf_dir_apply_retention(pgwt_drain_dir);
		*last_retention = now;
	}
}

/*
 * The escalation window's clock (fed the anomaly tick once a second when
 * the hooks run) and this pass's counters, under esc_lock. Returns whether
 * a window is open; *auto_on whether automatic windows are enabled.
 */
static bool
pgwt_drain_escalation(int nrings, uint64 now, uint64 *last_anomaly,
					  const PgwtDrainCounts *c, bool *auto_on)
{
	pgwt_anomaly_tick tick;
	bool		have_tick,
				opened,
				window_open;
	pgwt_esc_reason reason;

	have_tick = false;
	/* automatic windows need the hooks (a tracer has its own rules) */
	if (nrings > 0 && now - *last_anomaly >= (uint64) PGWT_ANOMALY_MS * 1000000)
	{
		pgwt_anomaly_observe_procs(&tick, now);
		have_tick = true;
		*last_anomaly = now;
	}

	SpinLockAcquire(&pgwt_trace_shared->esc_lock);
	pgwt_trace_esc_sync_budget();
	opened = pgwt_escwin_tick(&pgwt_trace_shared->escwin, now,
							  have_tick ? &tick : NULL);
	reason = pgwt_trace_shared->escwin.esc.reason;
	window_open = pgwt_trace_shared->escwin.esc.active;
	*auto_on = pgwt_trace_shared->escwin.auto_enabled;
	pgwt_trace_shared->drained_records += c->read;
	pgwt_trace_shared->written_records += c->written;
	pgwt_trace_shared->lost_records += c->lost;
	pgwt_trace_shared->write_errors += c->errors;
	SpinLockRelease(&pgwt_trace_shared->esc_lock);
	if (opened)
		ereport(LOG,
				(errmsg("pg_wait_tracer opened an escalation window by itself: %s",
						pgwt_esc_reason_name(reason))));
	return window_open;
}

/*
 * How long to sleep after a pass. Nothing traced for a while, no window,
 * no sampler: sleep long until a tracing process wakes us. The flag goes
 * up before the last look at the rings, so an append racing with it is
 * seen here or wakes us, or else the next append does; only an append
 * with none after it can wait for the timeout (trace_capture.h).
 */
static long
pgwt_drain_sleep_ms(int nrings, bool busy, bool auto_on, int *empty_passes, bool *dirty)
{
	long		sleep_ms;

	*empty_passes = busy ? 0 : *empty_passes + 1;
	sleep_ms = PGWT_DRAIN_MS;
	if (*empty_passes >= PGWT_IDLE_AFTER && !pgwt_sampler_active())
	{
		__atomic_store_n(&pgwt_trace_shared->worker_idle, 1, __ATOMIC_SEQ_CST);
		if (pgwt_drain_rings_pending(nrings))
		{
			__atomic_store_n(&pgwt_trace_shared->worker_idle, 0, __ATOMIC_RELAXED);
			*empty_passes = 0;
		}
		else
		{
			if (*dirty && pgwt_tf_dir_flush(pgwt_drain_dir) == 0)
				*dirty = false;
			sleep_ms = (nrings > 0 && auto_on) ? PGWT_ANOMALY_MS : PGWT_IDLE_MS;
		}
	}
	return sleep_ms;
}

void
pgwt_trace_worker_main(Datum main_arg)
{
	pgwt_tring_rec *in;
	pgwt_record *out;
	uint64		last_flush = 0,
				last_retention = 0,
				last_anomaly = 0,
				sample_cursor = 0;
	int			nrings,
				empty_passes = 0;
	bool		dirty = false;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	BackgroundWorkerUnblockSignals();
	if (pgwt_trace_shared == NULL)
		proc_exit(0);

	nrings = pgwt_trace_shared->nrings;
	pgwt_drain_setup(nrings, &in, &out);

	while (!ShutdownRequestPending)
	{
		PgwtDrainCounts c = {0};
		bool		window_open,
					auto_on;
		uint64		now;
		long		sleep_ms;

		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		now = pgwt_trace_now_ns();
		/* window starts go before the window's records (without hooks the
		 * files hold samples only, which an exact span must not hide) */
		if (nrings > 0)
			c.written += pgwt_drain_esc_markers(now, &c.errors);
		for (int i = 0; i < nrings; i++)
			c.written += pgwt_drain_ring(i, in, out, &c.lost, &c.read, &c.errors, now);
		pgwt_drain_backends_flush();
		if (nrings > 0)
			pgwt_drain_log_exhausted(now);
		now = pgwt_trace_now_ns();
		c.written += pgwt_trace_drain_samples(pgwt_drain_dir, &sample_cursor, now, &c.lost);
		if (c.written > 0)
			dirty = true;
		/* the names of ids the compiled tables lack, once each */
		pgwt_trace_names_flush(pgwt_drain_dir, &pgwt_drain_side);
		pgwt_drain_files_tick(now, &dirty, &last_flush, &last_retention, &c.errors);
		window_open = pgwt_drain_escalation(nrings, now, &last_anomaly, &c, &auto_on);
		sleep_ms = pgwt_drain_sleep_ms(nrings, c.read > 0 || window_open, auto_on,
									   &empty_passes, &dirty);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 sleep_ms, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		__atomic_store_n(&pgwt_trace_shared->worker_idle, 0, __ATOMIC_RELAXED);
	}
	/* a clean stop drains what is left and finishes the live file */
	{
		uint64		lost = 0,
					read = 0,
					errors = 0;

		for (int i = 0; i < nrings; i++)
			(void) pgwt_drain_ring(i, in, out, &lost, &read, &errors, pgwt_trace_now_ns());
		pgwt_drain_backends_flush();
		pgwt_trace_names_flush(pgwt_drain_dir, &pgwt_drain_side);
	}
	proc_exit(0);
}
