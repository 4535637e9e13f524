/*
 * sampler.c
 *		Sampled tier: every backend's wait_event_info and query_id at each
 *		tick, read from a read-only mapping of the server's shared memory.
 *
 * How each value is read (cached pointers verified per backend, the
 * batch plan, the read-only mapping of the shared memory, remote reads)
 * is sampler_read.c's; this file keeps the backend table, the tick and
 * the sampler's lifecycle.
 *
 * A sample's query id follows the carry of common/query_carry.h, as the
 * in-server sampler's does: a wait seen with no query id inside a
 * transaction is billed to that transaction's last statement, so
 * st_xact_start_timestamp (located by pgconn.c) is read with st_query_id.
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
#include <time.h>
#include <unistd.h>

#include "common/query_carry.h"
#include "tracer/esc_notify.h"
#include "tracer/proc_events.h"
#include "tracer/sampler_read.h"
#include "tracer/tick_clock.h"
#include "tracer/wait_class.h"

#define SAMPLER_SCAN_MIN_NS		10000000ull	/* list /proc at most every 10 ms */
#define SAMPLER_RESYNC_NS		60000000000ull	/* with the proc connector */

static int
sampler_cmp_u32(const void *a, const void *b)
{
	uint32_t	x = *(const uint32_t *) a,
				y = *(const uint32_t *) b;

	return (x > y) - (x < y);
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
	if (pgwt_smp_grow((void **) &s->be, &s->capbe, s->nbe + 1, sizeof(sampler_backend)) != 0)
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
				if (pgwt_smp_grow((void **) &s->listing, &s->caplist, n + 1, sizeof(uint32_t)) != 0)
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
		if (s->batch_state == 1 && !pgwt_smp_needs_check(s, b, now_ns))
		{
			nbatched++;
			sampler_keep(s, &keep, i);
			continue;
		}
		rc = pgwt_smp_read_one(s, b, &rb, now_ns);
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
			rc = pgwt_smp_read_one(s, b, &rb, now_ns);
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
	if (pgwt_smp_grow((void **) &s->recs, &s->caprecs, s->nbe + 1, sizeof(pgwt_record)) != 0)
		return 0;
	if (sampler_pass_own(s, now_ns, weight, hold_since, &nrec) > 0)
	{
		const uint8_t *vals = NULL;
		int			batch_ok = pgwt_smp_batch_source(s, now_ns, &vals);

		if (batch_ok)
			pgwt_smp_snapshot(s, vals);
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
pgwt_sampler_wait_begin(pgwt_capture_source *src, uint64_t now_ns)
{
	sampler_state *s = src->state;

	/* a deadline already passed is skipped, never ticked late (tick_clock.h) */
	if (pgwt_tick_realign(&s->clock, now_ns) > 0)
		s->cfg.metrics->ticks_skipped_total = s->clock.skipped_ticks;
	sampler_prio_set(s, 1);
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
