/*
 * sampler.c
 *		Sampled tier: every backend's wait_event_info and query_id at each
 *		tick, read from a read-only mapping of the server's shared memory.
 *
 * Per backend the sampler caches two pointers, read from the backend's own
 * memory: my_wait_event_info (-> wait_event_info in its PGPROC) and
 * MyBEEntry (-> its PgBackendStatus, where st_query_id lives). They are
 * verified while a backend is new, once a second, and after a doubtful
 * value, with one call to that backend that also returns its values; when
 * a pointer changed (the backend finished InitProcess, or the pid was
 * reused) the values are re-read through the new pointer before use.
 *
 * A sample's query id follows the carry of common/query_carry.h, as the
 * in-server sampler's does: a wait seen with no query id inside a
 * transaction is billed to that transaction's last statement, so
 * st_xact_start_timestamp (located by pgconn.c) is read with st_query_id.
 *
 * Every backend's values are read together: the PGPROC and
 * PgBackendStatus arrays are in the shared memory segment, mapped at the
 * same address in the postmaster and all its children, so they sit in a
 * few dense address ranges of the postmaster (read_plan.c). The pages of
 * those ranges are mapped read-only into our own address space through the
 * postmaster's /proc/PID/map_files entry of the segment, so a steady tick
 * reads each value with one aligned load: no system call, no remote page
 * walk, no copy of the ranges (a process_vm_readv of the ranges cost
 * 15-50 us a tick for 108 backends). The mapping is checked to still be
 * the postmaster's segment whenever the plan changes and once a second (a
 * crash restart replaces it). Without map_files (it needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE) the ranges are read with one process_vm_readv
 * against the postmaster per tick. The plan (ranges, where each backend's values are)
 * is kept from tick to tick and rebuilt only when a backend comes or goes
 * or a pointer changes, so a steady tick is a walk over the table, with no
 * sorting and no allocation. A backend verified this tick uses the values
 * of its own read. If the batch fails the backends are read one by one for
 * that tick (counted as a batch fallback). A backend whose
 * pointer still targets the binary's own image has no PGPROC yet (or never
 * will: syslogger) and is not sampled. A value whose class byte is not a
 * wait class is counted as a read fault and never emitted.
 *
 * Backends are the postmaster's children. With the kernel's proc connector
 * (root) a fork of the postmaster adds a backend at once and an exit drops
 * it (a socket filter passes only the postmaster's children, so the rest
 * of the host's process churn costs us nothing); /proc is still listed
 * every 60 s (and after lost events) to resync.
 * Without it /proc is listed at most every 10 ms (each tick at rates up to
 * 100 Hz). Only pids not seen before have their /proc/PID/stat read. A
 * backend also vanishes when a read fails with ESRCH.
 *
 * Scheduling: with a real-time priority (--sampler-priority, default 1 as
 * root) the process is SCHED_FIFO from the moment the loop goes to sleep
 * until this tick's values are read (live.c decides for work woken in
 * between), and normal otherwise: the wake-up is
 * on time under CPU saturation while recording and views never compete
 * with PostgreSQL at real-time priority. Two sched_setscheduler calls per
 * tick.
 *
 * The tracer's own backends are not sampled: its libpq connection
 * (ignore_pid) and the SQL listener's connections (a pgwt_own_backends
 * set, read when its generation moved: one comparison a steady tick).
 * While a listener connect is in flight, backends first seen after it
 * began are held back, since ours is among them until its pid is known.
 * Processes that are no session (background workers without a database,
 * processes without backend status: the session decides from
 * pg_stat_activity) come in a second set of the same kind, read the same
 * way.
 *
 * Single-threaded: the daemon loop calls tick(); nothing here locks.
 */
#include "tracer/sampler.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/query_carry.h"
#include "tracer/esc_notify.h"
#include "tracer/proc_events.h"
#include "tracer/read_plan.h"
#include "tracer/tick_clock.h"
#include "tracer/wait_class.h"

#define SAMPLER_SCAN_MIN_NS		10000000ull	/* list /proc at most every 10 ms */
#define SAMPLER_RESYNC_NS		60000000000ull	/* with the proc connector */
/*
 * Cached pointers are re-verified this often. With the proc connector a
 * reused pid is seen exiting and forking, so the check is only a safety
 * net; listing /proc could miss an exit and a reuse between two listings.
 */
#define SAMPLER_RECHECK_NS		1000000000ull
#define SAMPLER_RECHECK_CN_NS	30000000000ull
/*
 * A backend is re-read every tick until both pointers are set: InitProcess
 * sets my_wait_event_info first and MyBEEntry comes a little later, and a
 * backend cached in between would sample query id 0 until its next
 * periodic check. Past this age (syslogger never gets a PGPROC) the check
 * runs once a second.
 */
#define SAMPLER_YOUNG_NS		1000000000ull
#define SAMPLER_BATCH_GAP		16384	/* copying a gap is cheaper than a page pin */
#define SAMPLER_BATCH_RANGES	64		/* iovecs of the batched read */
#define SAMPLER_BATCH_MAX		(8u << 20)	/* bytes read per tick at most */
/*
 * The mapped segment is checked to still be the postmaster's whenever the
 * plan changes (a crash restart replaces it: its backends exit and new ones
 * fork, so the plan changes before any value of the new segment is
 * wanted) and at least this often.
 */
#define SAMPLER_MAP_CHECK_NS	1000000000ull

typedef struct sampler_backend
{
	uint32_t	pid;
	uint64_t	wait_ptr;		/* cached my_wait_event_info value, 0 = none */
	uint64_t	be_ptr;			/* cached MyBEEntry value */
	uint64_t	checked_ns;		/* pointers last read */
	uint64_t	seen_ns;		/* first tick that knew the backend */
	int			suspect;		/* last value failed: re-verify pointers */
	int			own_read;		/* this tick: values came from its own read */
	int64_t		ev_off;			/* wait_event_info in the batch buffer, -1 none */
	int64_t		qid_off;		/* st_query_id in the batch buffer, -1 none */
	int64_t		xact_off;		/* st_xact_start_timestamp there, -1 none */
	uint32_t	snap_event;		/* this tick's values from the batch */
	uint64_t	snap_qid;
	int64_t		snap_xact;
	PgwtQidCarry carry;			/* common/query_carry.h */
	pgwt_live_backend live;
	int			sampled;		/* has produced at least one sample */
} sampler_backend;

typedef struct sampler_state
{
	pgwt_sampler_config cfg;
	pgwt_tick_clock clock;
	sampler_backend *be;		/* sorted by pid */
	size_t		nbe,
				capbe;
	uint32_t   *notchild;		/* sorted pids known not to be ours */
	size_t		nnot,
				capnot;
	uint32_t   *listing;		/* scratch: pids in /proc */
	size_t		caplist;
	pgwt_record *recs;			/* scratch: one tick's samples */
	size_t		caprecs;
	uint64_t	last_scan_ns;
	int			dirfd;			/* /proc, kept open */
	int			cnfd;			/* proc connector, -1 = list /proc instead */
	pgwt_read  *reads;			/* scratch: this tick's batched reads */
	size_t		capreads;
	pgwt_span	spans[SAMPLER_BATCH_RANGES];
	size_t		nspans;
	struct iovec iov_local[SAMPLER_BATCH_RANGES];
	struct iovec iov_remote[SAMPLER_BATCH_RANGES];
	uint8_t    *batch_buf;
	size_t		capbatch;
	/*
	 * The part of the server's shared memory the plan reads, mapped
	 * read-only (map.base NULL: the batch is read with process_vm_readv).
	 */
	pgwt_shm_view map;
	int			map_state;		/* 0 untried, 1 usable, -1 off */
	uint64_t	map_checked_ns;
	int			postmaster_gone;
	int			batch_state;	/* 0 untested, 1 usable, -1 off */
	uint32_t	ignore_pid;		/* our own libpq backend */
	pgwt_exclusions excl;		/* listener's backends, no-session processes */
	int			rt_on;			/* currently SCHED_FIFO */
	const char *rt_why;			/* why the asked priority is not used */
	int			plan_dirty;		/* membership or a pointer changed */
	int			plan_ok;		/* the plan below is usable */
	uint64_t	batch_total;	/* bytes the plan reads */
	pgwt_self_metrics local_metrics;
} sampler_state;

static int
sampler_cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
}

static int
sampler_grow(void **arr, size_t *cap, size_t need, size_t elsize)
{
	size_t		nc;
	void	   *p;

	if (need <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	while (nc < need)
		nc *= 2;
	p = realloc(*arr, nc * elsize);
	if (!p)
		return -1;
	*arr = p;
	*cap = nc;
	return 0;
}

static int
sampler_in_sorted(const uint32_t *a, size_t n, uint32_t v)
{
	return n > 0 && bsearch(&v, a, n, sizeof(uint32_t), sampler_cmp_u32) != NULL;
}

/* Add pid to the sorted backend table (no-op when present). */
static void
sampler_add(sampler_state *s, uint32_t pid)
{
	size_t		lo = 0,
				hi = s->nbe;

	while (lo < hi)
	{
		size_t		mid = (lo + hi) / 2;

		if (s->be[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nbe && s->be[lo].pid == pid)
		return;
	if (sampler_grow((void **) &s->be, &s->capbe, s->nbe + 1, sizeof(sampler_backend)) != 0)
		return;
	if (lo < s->nbe)
		memmove(&s->be[lo + 1], &s->be[lo], (s->nbe - lo) * sizeof(sampler_backend));
	memset(&s->be[lo], 0, sizeof(sampler_backend));
	s->be[lo].pid = pid;
	s->be[lo].live.pid = pid;
	s->be[lo].ev_off = -1;
	s->be[lo].qid_off = -1;
	s->be[lo].xact_off = -1;
	s->nbe++;
	s->plan_dirty = 1;
	s->cfg.metrics->backends_seen_total++;
	s->cfg.metrics->backends_tracked = s->nbe;
}

static void
sampler_remove(sampler_state *s, uint32_t pid)
{
	sampler_backend key,
			   *hit;

	key.pid = pid;
	hit = s->nbe ? bsearch(&key, s->be, s->nbe, sizeof(sampler_backend), sampler_cmp_u32) : NULL;
	if (!hit)
		return;
	memmove(hit, hit + 1, (size_t) (s->be + s->nbe - hit - 1) * sizeof(sampler_backend));
	s->nbe--;
	s->plan_dirty = 1;
	s->cfg.metrics->backends_exited_total++;
	s->cfg.metrics->backends_tracked = s->nbe;
}

/* Never sampled: ours, or known to be no session. */
static bool
sampler_excluded(const sampler_state *s, uint32_t pid)
{
	return pid == s->ignore_pid || pgwt_exclusions_has(&s->excl, pid);
}

static void
sampler_on_fork(void *arg, uint32_t parent, uint32_t child)
{
	sampler_state *s = arg;

	if (parent == (uint32_t) s->cfg.postmaster_pid && !sampler_excluded(s, child))
		sampler_add(s, child);
}

static void
sampler_on_exit(void *arg, uint32_t pid)
{
	sampler_state *s = arg;

	if (pid == (uint32_t) s->cfg.postmaster_pid)
		s->postmaster_gone = 1;
	else
		sampler_remove(s, pid);
}

/* List /proc pids into s->listing (sorted); returns the count or -1. */
static long
sampler_list_proc(sampler_state *s)
{
	char		buf[16384];
	size_t		n = 0;

	if (lseek(s->dirfd, 0, SEEK_SET) != 0)
		return -1;
	for (;;)
	{
		long		got = syscall(SYS_getdents64, s->dirfd, buf, sizeof(buf));

		if (got < 0)
			return -1;
		if (got == 0)
			break;
		for (long off = 0; off < got;)
		{
			/* struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name */
			unsigned short reclen;
			const char *name = buf + off + 19;
			uint32_t	pid = 0;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (isdigit((unsigned char) name[0]))
			{
				for (const char *p = name; *p; p++)
					pid = pid * 10 + (uint32_t) (*p - '0');
				if (sampler_grow((void **) &s->listing, &s->caplist, n + 1, sizeof(uint32_t)) != 0)
					return -1;
				s->listing[n++] = pid;
			}
			off += reclen;
		}
	}
	qsort(s->listing, n, sizeof(uint32_t), sampler_cmp_u32);
	return (long) n;
}

/*
 * Bring the backend table in line with /proc: drop pids that are gone, add
 * new children of the postmaster. Returns -1 when the postmaster is gone.
 */
static int
sampler_rescan(sampler_state *s)
{
	long		n = sampler_list_proc(s);
	size_t		keep = 0,
				nnot = 0;
	uint32_t   *newnot;
	size_t		i;

	if (n < 0)
		return 0;				/* transient; keep the old view */
	s->cfg.metrics->proc_scans_total++;
	if (!sampler_in_sorted(s->listing, (size_t) n, (uint32_t) s->cfg.postmaster_pid))
		return -1;

	/* drop exited backends */
	for (i = 0; i < s->nbe; i++)
	{
		if (sampler_in_sorted(s->listing, (size_t) n, s->be[i].pid))
			s->be[keep++] = s->be[i];
		else
		{
			s->cfg.metrics->backends_exited_total++;
			s->plan_dirty = 1;
		}
	}
	s->nbe = keep;

	/* new pids: classify once, remember non-children */
	newnot = malloc(((size_t) n + 1) * sizeof(uint32_t));
	if (!newnot)
		return 0;
	for (long k = 0; k < n; k++)
	{
		uint32_t	pid = s->listing[k];
		sampler_backend key,
				   *hit;
		int			ppid;

		key.pid = pid;
		hit = s->nbe ? bsearch(&key, s->be, s->nbe, sizeof(sampler_backend), sampler_cmp_u32) : NULL;
		if (hit)
			continue;
		if (sampler_in_sorted(s->notchild, s->nnot, pid))
		{
			newnot[nnot++] = pid;
			continue;
		}
		if (pgwt_proc_stat((int) pid, &ppid, NULL, 0) != 0)
			continue;			/* exited meanwhile */
		if (ppid != s->cfg.postmaster_pid || sampler_excluded(s, pid))
		{
			newnot[nnot++] = pid;
			continue;
		}
		sampler_add(s, pid);
	}
	free(s->notchild);
	s->notchild = newnot;
	s->nnot = nnot;
	s->capnot = (size_t) n + 1;
	s->cfg.metrics->backends_tracked = s->nbe;
	return 0;
}

typedef struct sampler_readbuf
{
	uint64_t	wait_ptr;
	uint64_t	be_ptr;
	uint32_t	event;
	uint64_t	query_id;
	int64_t		xact_start;		/* 0: none, or its place unknown */
} sampler_readbuf;

/*
 * Batched reads go through the postmaster, assuming it maps the shared
 * memory where its children do (fork without exec). Check that once on a
 * verified PGPROC address; if the postmaster cannot read it or reads no
 * wait_event_info there, every backend is read on its own instead.
 */
static void
sampler_test_batch(sampler_state *s, uint64_t wait_ptr)
{
	uint32_t	v;

	if (pgwt_remote_read(s->cfg.postmaster_pid, wait_ptr, &v, sizeof(v)) == 0 &&
		pgwt_wait_info_valid(v, s->cfg.attach.pg_major))
	{
		s->batch_state = 1;
		s->plan_dirty = 1;
	}
	else
		s->batch_state = -1;
}

static int
sampler_needs_check(const sampler_state *s, const sampler_backend *b, uint64_t now_ns)
{
	uint64_t	every = s->cnfd >= 0 ? SAMPLER_RECHECK_CN_NS : SAMPLER_RECHECK_NS;

	if (b->suspect)
		return 1;
	if (b->wait_ptr == 0 || (s->cfg.attach.be_var && b->be_ptr == 0))
		return now_ns - b->seen_ns < SAMPLER_YOUNG_NS ||
			now_ns - b->checked_ns >= SAMPLER_RECHECK_NS;
	/* spread the checks: each backend's phase depends on its pid */
	return now_ns - b->checked_ns >= every - (b->pid % 64) * (every / 256);
}

/*
 * One read of backend b. Returns 1 with *rb filled when the backend is
 * sampleable, 0 when it has no PGPROC yet, -1 when it is gone, -2 on a
 * read fault.
 *
 * Steady state is one call with two iovecs (wait_event_info, st_query_id):
 * each remote page costs a page-table walk and pin in the kernel, so the
 * pointer variables (two more pages) are re-read only for a new backend,
 * every SAMPLER_RECHECK_NS, and after a value failed validation.
 */
static int
sampler_read(sampler_state *s, sampler_backend *b, sampler_readbuf *rb, uint64_t now_ns)
{
	const pgwt_attach *a = &s->cfg.attach;
	struct iovec l[5],
				r[5];
	int			n,
				pass;
	ssize_t		want,
				got;
	uint64_t	new_wait;
	int			check = sampler_needs_check(s, b, now_ns);

	for (pass = 0; pass < 2; pass++)
	{
		n = 0;
		want = 0;
		if (check)
		{
			l[n] = (struct iovec) {&rb->wait_ptr, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) a->wait_var, 8};
			rb->be_ptr = 0;
			if (a->be_var)
			{
				l[n] = (struct iovec) {&rb->be_ptr, 8};
				r[n++] = (struct iovec) {(void *) (uintptr_t) a->be_var, 8};
			}
		}
		if (b->wait_ptr)
		{
			l[n] = (struct iovec) {&rb->event, 4};
			r[n++] = (struct iovec) {(void *) (uintptr_t) b->wait_ptr, 4};
		}
		rb->query_id = 0;
		if (b->wait_ptr && b->be_ptr && a->qid_offset >= 0)
		{
			l[n] = (struct iovec) {&rb->query_id, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) (b->be_ptr + (uint64_t) a->qid_offset), 8};
		}
		rb->xact_start = 0;
		if (b->wait_ptr && b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
		{
			l[n] = (struct iovec) {&rb->xact_start, 8};
			r[n++] = (struct iovec) {(void *) (uintptr_t) (b->be_ptr + (uint64_t) a->xact_offset), 8};
		}
		if (n == 0)
			return 0;
		for (int i = 0; i < n; i++)
			want += (ssize_t) l[i].iov_len;
		got = process_vm_readv((pid_t) b->pid, l, (unsigned long) n, r, (unsigned long) n, 0);
		s->cfg.metrics->read_syscalls_total++;
		if (got < 0 && errno == ESRCH)
			return -1;
		if (!check)
			break;
		if (got < (ssize_t) l[0].iov_len + (a->be_var ? 8 : 0))
			return -2;
		b->checked_ns = now_ns;
		/* pointers still what we dereferenced? then the values are good */
		if (rb->wait_ptr == b->wait_ptr && rb->be_ptr == b->be_ptr)
		{
			b->suspect = 0;
			if (s->batch_state == 0 && b->wait_ptr)
				sampler_test_batch(s, b->wait_ptr);
			break;
		}
		new_wait = 0;			/* the process-local dummy, or no pointer */
		if ((rb->wait_ptr < a->image_lo || rb->wait_ptr >= a->image_hi) &&
			rb->wait_ptr && (rb->wait_ptr & 3) == 0)
			new_wait = rb->wait_ptr;
		if (new_wait != b->wait_ptr || rb->be_ptr != b->be_ptr)
			s->plan_dirty = 1;
		b->wait_ptr = new_wait;
		b->be_ptr = rb->be_ptr;
		if (!b->wait_ptr)
			return 0;
	}
	if (pass == 2 || !b->wait_ptr)
		return 0;
	if (got != want)
	{
		b->suspect = 1;
		return -2;
	}
	return 1;
}

/* Turn one backend's values into a sample (or a counted fault). */
static void
sampler_account(sampler_state *s, sampler_backend *b, int rc, const sampler_readbuf *rb,
				uint64_t now_ns, uint64_t weight, uint64_t hold_since, size_t *nrec)
{
	pgwt_self_metrics *m = s->cfg.metrics;
	pgwt_backend_state st;
	pgwt_record *r;

	/* rc 0: no PGPROC yet; held: may be a listener connection starting */
	if (rc == 0 || b->seen_ns >= hold_since)
		return;
	st = rc == 1 ? pgwt_wait_classify(rb->event, s->cfg.attach.pg_major) : PGWT_STATE_INVALID;
	if (st == PGWT_STATE_INVALID)
	{
		b->suspect = 1;
		m->sample_read_faults_total++;
		return;
	}
	if (!b->sampled || b->live.event != rb->event)
		b->live.state_since_ns = now_ns;
	if (!b->sampled)
		m->backends_sampled_total++;
	b->sampled = 1;
	b->live.event = rb->event;
	/* a wait with no query id is billed to its transaction's last one */
	b->live.query_id = pgwt_qid_carry(&b->carry, (int32_t) b->pid, rb->xact_start, rb->query_id);
	b->live.state = st;
	if (st != PGWT_STATE_IDLE)
		b->live.db_time_ns += weight;

	r = &s->recs[(*nrec)++];
	memset(r, 0, sizeof(*r));
	r->kind = PGWT_REC_SAMPLE;
	r->ts_ns = now_ns;
	r->pid = b->pid;
	r->new_event = rb->event;
	r->query_id = b->live.query_id;
	r->weight_ns = weight;
	r->cpu_ns = PGWT_CPU_UNKNOWN;
}

/*
 * Rebuild the batch plan: the ranges that cover the values of every backend
 * whose pointers are known, their iovecs, and where each backend's values
 * land in the buffer. Allocates only when the table grew. Returns 0, or -1
 * when the values cannot be batched (too many ranges or bytes): backends
 * are then read one by one until the next change.
 */
static int
sampler_plan(sampler_state *s)
{
	const pgwt_attach *a = &s->cfg.attach;
	size_t		nreads = 0,
				nr;
	uint64_t	total;

	s->nspans = 0;
	if (sampler_grow((void **) &s->reads, &s->capreads, 3 * s->nbe + 1, sizeof(pgwt_read)) != 0)
		return -1;
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		b->ev_off = -1;
		b->qid_off = -1;
		b->xact_off = -1;
		if (!b->wait_ptr)
			continue;
		s->reads[nreads++] = (pgwt_read) {b->wait_ptr, 4};
		if (b->be_ptr && a->qid_offset >= 0)
			s->reads[nreads++] = (pgwt_read) {b->be_ptr + (uint64_t) a->qid_offset, 8};
		if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
			s->reads[nreads++] = (pgwt_read) {b->be_ptr + (uint64_t) a->xact_offset, 8};
	}
	if (nreads == 0)
		return 0;
	nr = pgwt_plan_ranges(s->reads, nreads, SAMPLER_BATCH_GAP, s->spans,
						  SAMPLER_BATCH_RANGES, &total);
	if (nr == 0 || total > SAMPLER_BATCH_MAX ||
		sampler_grow((void **) &s->batch_buf, &s->capbatch, total, 1) != 0)
		return -1;
	for (size_t i = 0; i < nr; i++)
	{
		s->iov_local[i] = (struct iovec) {s->batch_buf + s->spans[i].buf_off, s->spans[i].len};
		s->iov_remote[i] = (struct iovec) {(void *) (uintptr_t) s->spans[i].addr, s->spans[i].len};
	}
	s->nspans = nr;
	s->batch_total = total;
	/* map the ranges when they left the mapped pages (or none are mapped) */
	if (s->map_state >= 0 &&
		(!s->map.base || s->spans[0].addr < s->map.lo ||
		 s->spans[nr - 1].addr + s->spans[nr - 1].len > s->map.hi))
	{
		if (pgwt_shm_view_open(&s->map, s->cfg.postmaster_pid, s->spans[0].addr,
							   s->spans[nr - 1].addr + s->spans[nr - 1].len) == 0)
			s->map_state = 1;
		else if (s->map_state == 0)
			s->map_state = -1;	/* never worked (no map_files): don't retry */
	}
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		if (!b->wait_ptr)
			continue;
		if (s->map.base)
		{
			b->ev_off = (int64_t) (b->wait_ptr - s->map.lo);
			if (b->be_ptr && a->qid_offset >= 0)
				b->qid_off = (int64_t) (b->be_ptr + (uint64_t) a->qid_offset - s->map.lo);
			if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
				b->xact_off = (int64_t) (b->be_ptr + (uint64_t) a->xact_offset - s->map.lo);
			continue;
		}
		b->ev_off = pgwt_plan_locate(s->spans, nr, b->wait_ptr, 4);
		if (b->be_ptr && a->qid_offset >= 0)
			b->qid_off = pgwt_plan_locate(s->spans, nr, b->be_ptr + (uint64_t) a->qid_offset, 8);
		if (b->be_ptr && a->qid_offset >= 0 && a->xact_offset >= 0)
			b->xact_off = pgwt_plan_locate(s->spans, nr, b->be_ptr + (uint64_t) a->xact_offset, 8);
	}
	return 0;
}

/*
 * Read the planned ranges in one call against the postmaster (the shared
 * memory is mapped at the same address there). Returns 0 with the values
 * in s->batch_buf, -1 when the batch could not be read (the caller falls
 * back to per-backend reads).
 */
static int
sampler_read_batch(sampler_state *s)
{
	ssize_t		got;

	got = process_vm_readv((pid_t) s->cfg.postmaster_pid, s->iov_local, (unsigned long) s->nspans,
						   s->iov_remote, (unsigned long) s->nspans, 0);
	s->cfg.metrics->read_syscalls_total++;
	return got == (ssize_t) s->batch_total ? 0 : -1;
}

static void
sampler_prio_set(sampler_state *s, int on)
{
	struct sched_param sp;

	if (s->cfg.rt_priority <= 0 || s->rt_on == on)
		return;
	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = on ? s->cfg.rt_priority : 0;
	if (sched_setscheduler(0, (on ? SCHED_FIFO : SCHED_OTHER) | SCHED_RESET_ON_FORK, &sp) == 0)
		s->rt_on = on;
	else if (on)
	{
		/* not permitted (no CAP_SYS_NICE, a container's limits): go on at
		 * normal priority */
		s->rt_why = errno == EPERM ? "not permitted (CAP_SYS_NICE or RLIMIT_RTPRIO needed)"
			: "sched_setscheduler failed";
		s->cfg.rt_priority = 0;
	}
}

/* Compacts the table while walking it: entry i stays, as entry *keep. */
static inline void
sampler_keep(sampler_state *s, size_t *keep, size_t i)
{
	if (*keep != i)
		s->be[*keep] = s->be[i];
	(*keep)++;
}

/*
 * A set changed: drop the backends that are now excluded, and forget which
 * pids are not the postmaster's children, so that a pid of a closed
 * connection, reused by a new backend, is classified again.
 */
static void
sampler_apply_excluded(sampler_state *s)
{
	size_t		keep = 0;

	pgwt_exclusions_applied(&s->excl);
	s->nnot = 0;
	for (size_t i = 0; i < s->nbe; i++)
	{
		if (!sampler_excluded(s, s->be[i].pid))
			sampler_keep(s, &keep, i);
		else
			s->plan_dirty = 1;
	}
	s->nbe = keep;
	s->cfg.metrics->backends_tracked = s->nbe;
}

/*
 * Before a tick reads anything: forks and exits from the proc connector,
 * exclusions, and a rescan of the postmaster's children when due. -1 when
 * the postmaster is gone.
 */
static int
sampler_tick_prepare(sampler_state *s, uint64_t now_ns)
{
	int			resync = 0;

	if (s->cnfd >= 0)
	{
		pgwt_proc_event_cb cb = {sampler_on_fork, sampler_on_exit, s};

		if (pgwt_proc_events_drain(s->cnfd, &cb) < 0)
			resync = 1;			/* events were lost */
		if (s->postmaster_gone)
			return -1;
	}
	/* before a rescan, which must not trust the forgotten non-children */
	if (pgwt_exclusions_moved(&s->excl))
		sampler_apply_excluded(s);
	if (resync || s->last_scan_ns == 0 ||
		now_ns - s->last_scan_ns >= (s->cnfd >= 0 ? SAMPLER_RESYNC_NS : SAMPLER_SCAN_MIN_NS))
	{
		if (sampler_rescan(s) != 0)
			return -1;
		s->last_scan_ns = now_ns;
	}
	return 0;
}

/*
 * Pass 1 of a tick; returns how many backends wait for the batch, and
 * adds the records it made to *nrec.
 */
static size_t
sampler_pass_own(sampler_state *s, uint64_t now_ns, uint64_t weight,
				 uint64_t hold_since, size_t *nrec)
{
	pgwt_self_metrics *m = s->cfg.metrics;
	size_t		keep = 0,
				nbatched = 0;

	/*
	 * Pass 1: backends whose pointers need verifying are read one by one;
	 * that read also returns their values, which this tick uses. The
	 * others take theirs from the batch.
	 */
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];
		sampler_readbuf rb;
		int			rc;

		b->own_read = 0;
		if (b->seen_ns == 0)
			b->seen_ns = now_ns;
		if (s->batch_state == 1 && !sampler_needs_check(s, b, now_ns))
		{
			nbatched++;
			sampler_keep(s, &keep, i);
			continue;
		}
		rc = sampler_read(s, b, &rb, now_ns);
		if (rc == -1)
		{
			m->backends_exited_total++;
			s->plan_dirty = 1;
			continue;			/* dropped from the table */
		}
		b->own_read = 1;
		sampler_keep(s, &keep, i);
		sampler_account(s, &s->be[keep - 1], rc, &rb, now_ns, weight, hold_since, nrec);
	}
	s->nbe = keep;
	return nbatched;
}

/*
 * Pass 2's source of values: the read-only mapping, else one
 * process_vm_readv over the planned spans. Returns whether it holds this
 * tick's values (*vals points at them); false sends every backend to its
 * own read.
 */
static int
sampler_batch_source(sampler_state *s, uint64_t now_ns, const uint8_t **valsp)
{
	pgwt_self_metrics *m = s->cfg.metrics;
	const uint8_t *vals;
	int			batch_ok;

	if (s->map_state == 1 &&
		(s->plan_dirty || now_ns - s->map_checked_ns >= SAMPLER_MAP_CHECK_NS))
	{
		s->map_checked_ns = now_ns;
		if (!s->map.base || !pgwt_shm_view_current(&s->map))
		{
			/* the segment was replaced (or a remap failed): map again */
			pgwt_shm_view_close(&s->map);
			s->plan_dirty = 1;
		}
	}
	if (s->plan_dirty)
	{
		s->plan_ok = sampler_plan(s) == 0;
		s->plan_dirty = 0;
	}
	if (s->plan_ok && s->nspans > 0 && s->map.base)
	{
		vals = s->map.base;
		batch_ok = 1;
	}
	else
	{
		vals = s->batch_buf;
		batch_ok = s->plan_ok && s->nspans > 0 && sampler_read_batch(s) == 0;
	}
	m->batch_fallbacks_total += !batch_ok;
	*valsp = vals;
	return batch_ok;
}

/*
 * Take every value first, in a loop of independent loads: from the
 * mapping each is a cache miss on a line the backend writes, and a
 * tight loop keeps many in flight (accounting between the loads kept
 * one at a time). It also makes the tick a snapshot a few
 * microseconds wide. From the mapping, one aligned load each (the
 * server writes them whole); the copied ranges of process_vm_readv
 * are packed, so their values may be unaligned.
 */
static void
sampler_snapshot(sampler_state *s, const uint8_t *vals)
{
	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];

		if (b->own_read || b->ev_off < 0)
			continue;
		b->snap_qid = 0;
		b->snap_xact = 0;
		if (vals == s->map.base)
		{
			b->snap_event = *(const volatile uint32_t *) (vals + b->ev_off);
			if (b->qid_off >= 0)
				b->snap_qid = *(const volatile uint64_t *) (vals + b->qid_off);
			if (b->xact_off >= 0)
				b->snap_xact = *(const volatile int64_t *) (vals + b->xact_off);
		}
		else
		{
			memcpy(&b->snap_event, vals + b->ev_off, 4);
			if (b->qid_off >= 0)
				memcpy(&b->snap_qid, vals + b->qid_off, 8);
			if (b->xact_off >= 0)
				memcpy(&b->snap_xact, vals + b->xact_off, 8);
		}
	}
}

/* Pass 2: the batched backends, from the snapshot or their own read. */
static void
sampler_pass_batched(sampler_state *s, int batch_ok, uint64_t now_ns, uint64_t weight,
					 uint64_t hold_since, size_t *nrec)
{
	pgwt_self_metrics *m = s->cfg.metrics;
	size_t		keep = 0;

	for (size_t i = 0; i < s->nbe; i++)
	{
		sampler_backend *b = &s->be[i];
		sampler_readbuf rb;
		int			rc = 1;

		if (b->own_read)
		{
			sampler_keep(s, &keep, i);
			continue;
		}
		if (batch_ok && b->ev_off >= 0)
		{
			rb.event = b->snap_event;
			rb.query_id = b->snap_qid;
			rb.xact_start = b->snap_xact;
		}
		else
		{
			rc = sampler_read(s, b, &rb, now_ns);
			if (rc == -1)
			{
				m->backends_exited_total++;
				s->plan_dirty = 1;
				continue;
			}
		}
		sampler_keep(s, &keep, i);
		sampler_account(s, &s->be[keep - 1], rc, &rb, now_ns, weight, hold_since, nrec);
	}
	s->nbe = keep;
}

static int
sampler_tick(pgwt_capture_source *src, uint64_t now_ns, pgwt_emit_fn emit, void *arg)
{
	sampler_state *s = src->state;
	pgwt_self_metrics *m = s->cfg.metrics;
	uint64_t	weight;
	uint64_t	hold_since;
	size_t		nrec = 0;

	if (sampler_tick_prepare(s, now_ns) != 0)
		return -1;
	hold_since = pgwt_exclusions_hold_since(&s->excl, now_ns);
	weight = pgwt_tick_bill(&s->clock, now_ns);
	m->ticks_total++;
	m->unobserved_ns = s->clock.unobserved_ns;
	m->late_ticks_total = s->clock.late_ticks;
	if (sampler_grow((void **) &s->recs, &s->caprecs, s->nbe + 1, sizeof(pgwt_record)) != 0)
		return 0;
	if (sampler_pass_own(s, now_ns, weight, hold_since, &nrec) > 0)
	{
		const uint8_t *vals = NULL;
		int			batch_ok = sampler_batch_source(s, now_ns, &vals);

		if (batch_ok)
			sampler_snapshot(s, vals);
		sampler_pass_batched(s, batch_ok, now_ns, weight, hold_since, &nrec);
	}
	else
		sampler_pass_batched(s, 0, now_ns, weight, hold_since, &nrec);
	/* values read: recording runs at normal priority */
	sampler_prio_set(s, 0);
	m->backends_tracked = s->nbe;
	m->samples_total += nrec;
	if (nrec && emit)
		emit(arg, s->recs, nrec);
	pgwt_tick_advance(&s->clock, now_ns);
	return 0;
}

static uint64_t
sampler_next_deadline(pgwt_capture_source *src)
{
	sampler_state *s = src->state;

	return s->clock.next_deadline_ns;
}

static size_t
sampler_live(pgwt_capture_source *src, pgwt_live_backend *out, size_t max)
{
	sampler_state *s = src->state;
	size_t		n = 0;

	for (size_t i = 0; i < s->nbe && n < max; i++)
		if (s->be[i].sampled)
			out[n++] = s->be[i].live;
	return n;
}

static void
sampler_destroy(pgwt_capture_source *src)
{
	sampler_state *s;

	if (!src)
		return;
	s = src->state;
	if (s)
	{
		sampler_prio_set(s, 0);
		if (s->dirfd >= 0)
			close(s->dirfd);
		pgwt_proc_events_close(s->cnfd);
		free(s->be);
		free(s->notchild);
		free(s->listing);
		free(s->recs);
		free(s->reads);
		free(s->batch_buf);
		pgwt_shm_view_close(&s->map);
		free(s);
	}
	free(src);
}

void
pgwt_sampler_wait_begin(pgwt_capture_source *src)
{
	sampler_prio_set(src->state, 1);
}

void
pgwt_sampler_wait_end(pgwt_capture_source *src)
{
	sampler_prio_set(src->state, 0);
}

int
pgwt_sampler_priority(pgwt_capture_source *src, const char **why)
{
	sampler_state *s = src->state;

	if (why)
		*why = s->rt_why;
	return s->cfg.rt_priority;
}

void
pgwt_sampler_set_qid_offset(pgwt_capture_source *src, int offset, int xact_offset)
{
	sampler_state *s = src->state;

	s->cfg.attach.qid_offset = offset;
	s->cfg.attach.xact_offset = xact_offset;
	s->plan_dirty = 1;
}

void
pgwt_sampler_ignore_pid(pgwt_capture_source *src, uint32_t pid)
{
	sampler_state *s = src->state;
	size_t		keep = 0;

	if (s->ignore_pid == pid)
		return;
	s->ignore_pid = pid;
	for (size_t i = 0; i < s->nbe; i++)
		if (s->be[i].pid != pid)
			s->be[keep++] = s->be[i];
	s->nbe = keep;
	s->plan_dirty = 1;
}

void
pgwt_sampler_set_exclusions(pgwt_capture_source *src, const pgwt_own_backends *own,
							const pgwt_own_backends *nonsess)
{
	sampler_state *s = src->state;

	pgwt_exclusions_init(&s->excl, own, nonsess);	/* applied at the next tick */
}

void
pgwt_sampler_rescan_soon(pgwt_capture_source *src)
{
	sampler_state *s = src->state;

	s->last_scan_ns = 0;
}

pgwt_capture_source *
pgwt_sampler_create(const pgwt_sampler_config *cfg)
{
	pgwt_capture_source *src = calloc(1, sizeof(*src));
	sampler_state *s = calloc(1, sizeof(*s));
	struct timespec ts;

	if (!src || !s)
	{
		free(src);
		free(s);
		return NULL;
	}
	s->cfg = *cfg;
	if (!s->cfg.metrics)
		s->cfg.metrics = &s->local_metrics;
	s->dirfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* subscribe before the first /proc listing so no fork falls between */
	s->cnfd = pgwt_proc_events_open_children((uint32_t) cfg->postmaster_pid);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	pgwt_tick_init(&s->clock, cfg->rate_hz, (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec);
	src->name = "sampled";
	src->state = s;
	src->tick = sampler_tick;
	src->next_deadline = sampler_next_deadline;
	src->live = sampler_live;
	src->destroy = sampler_destroy;
	/* find out now whether real-time is permitted (rt_why says if not) */
	sampler_prio_set(s, 1);
	sampler_prio_set(s, 0);
	if (s->dirfd < 0)
	{
		sampler_destroy(src);
		return NULL;
	}
	return src;
}
