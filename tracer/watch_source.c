/*
 * watch_source.c
 *		The exact tiers behind the capture interface: follows the
 *		postmaster's children and traces each one while enabled, through a
 *		kernel side (exact_kernel.h): a hardware write watchpoint on its
 *		wait_event_info with the wait_watch BPF program (--mode full), or
 *		the scheduler's tracepoints (sched_source.c, --mode sched). Each
 *		tick drains the kernel's ring buffer into TRANSITION records.
 *
 * A backend can be watched only once InitProcess has pointed its
 * my_wait_event_info into its PGPROC (shared memory); before that the
 * pointer targets a dummy inside the binary's image (on 13: MyProc, NULL
 * until then; tracer/pg_layout.c). A new backend (seen
 * at once through the kernel's fork notifications) is therefore polled
 * every millisecond until its pointer moves, then watched. Backends that
 * never get a PGPROC (the syslogger) are given up after a while and looked
 * at again on the next /proc resync.
 *
 * Exits: the ring buffer is drained before exit notifications are handled,
 * so a backend's last transitions precede the EXIT transition emitted for
 * it (its duration runs from the last transition to when the exit was seen,
 * at most one tick late).
 *
 * The tracer's own backends are never watched: its libpq connection
 * (ignore_pid) and the SQL listener's (a pgwt_own_backends set, looked at
 * when its generation moved). A backend that becomes ours while watched
 * is unwatched silently and its transitions are dropped on the way out;
 * while a listener connect is in flight, backends forked after it began
 * wait (still polled) until its pid is known. Processes that are no
 * session (background workers without a database...: the session decides)
 * come in a second set of the same kind and are left out the same way.
 *
 * Single-threaded: the daemon loop calls tick(); nothing here locks. The
 * kernel side writes the ring buffer concurrently; libbpf's consumer
 * handles that.
 */
#include "tracer/watch_source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/event_ids.h"
#include "tracer/esc_notify.h"
#include "tracer/exact_kernel.h"
#include "tracer/proc_events.h"
#include "tracer/target.h"
#include "tracer/wait_class.h"
#include "tracer/watch/watchpoints.h"

#define WS_PENDING_POLL_NS	1000000ull		/* new backend: try every 1 ms */
#define WS_DRAIN_NS			10000000ull		/* ring buffer drained at 100 Hz */
#define WS_IDLE_NS			100000000ull	/* disabled: only follow forks */
#define WS_GIVE_UP_NS		3000000000ull	/* no PGPROC after 3 s: not a backend */
#define WS_RESYNC_NS		10000000000ull	/* /proc listing */

typedef enum ws_state
{
	WS_PENDING = 0,				/* not watched; try when enabled */
	WS_WATCHED,
	WS_GIVEN_UP					/* no PGPROC: retried at the next resync */
} ws_state;

typedef struct ws_backend
{
	uint32_t	pid;
	ws_state	state;
	uint64_t	seen_ns;		/* fork notification (0 = found running) */
	uint64_t	first_try_ns;	/* first attach attempt while enabled */
	pgwt_live_backend live;
	int			live_known;
	int			ever_watched;
} ws_backend;

typedef struct ws_state_t
{
	pgwt_watch_source_config cfg;
	pgwt_exact_kernel k;		/* watchpoints or the scheduler */
	int			cnfd;			/* proc connector, -1 = /proc only */
	bool		enabled;
	bool		postmaster_gone;
	bool		resync_wanted;
	ws_backend *be;				/* sorted by pid */
	size_t		nbe,
				capbe;
	uint32_t	ignore_pid;
	pgwt_exclusions excl;		/* listener's backends, no-session processes */
	uint64_t	last_tick_ns;
	uint64_t	last_resync_ns;
	size_t		npending_fresh;	/* pending backends still polled at 1 ms */
	pgwt_record *recs;			/* this tick's records */
	size_t		nrecs,
				caprecs;
	pgwt_watch_stats st;
	uint64_t	runq_ns;		/* CPU:RunQueue time of the records emitted */
	uint64_t	runq_total;
	pgwt_self_metrics local_metrics;
	uint64_t	now_ns;			/* the tick being processed */
	uint64_t	last_counters_ns;
	uint64_t	added_total;	/* backends followed, initial ones included */
	uint64_t	gone_total;		/* backends seen exiting */
} ws_t;

static void ws_stats(ws_t *s, pgwt_watch_stats *out);
static void wk_close(void *h);

static ws_backend *
ws_find(ws_t *s, uint32_t pid, size_t *pos)
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
	if (pos)
		*pos = lo;
	return lo < s->nbe && s->be[lo].pid == pid ? &s->be[lo] : NULL;
}

/* Never watched: ours, or known to be no session. */
static bool
ws_excluded(const ws_t *s, uint32_t pid)
{
	return pid == s->ignore_pid || pgwt_exclusions_has(&s->excl, pid);
}

static ws_backend *
ws_add(ws_t *s, uint32_t pid, uint64_t seen_ns)
{
	size_t		pos;
	ws_backend *b = ws_find(s, pid, &pos);

	if (b || ws_excluded(s, pid))
		return b;
	if (s->nbe == s->capbe)
	{
		size_t		nc = s->capbe ? s->capbe * 2 : 64;
		ws_backend *p = realloc(s->be, nc * sizeof(*p));

		if (!p)
			return NULL;
		s->be = p;
		s->capbe = nc;
	}
	memmove(&s->be[pos + 1], &s->be[pos], (s->nbe - pos) * sizeof(*s->be));
	b = &s->be[pos];
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->seen_ns = seen_ns;
	b->live.pid = pid;
	s->nbe++;
	s->added_total++;
	if (seen_ns)
		s->st.backends_seen++;
	return b;
}

/* Backends watched before MyBEEntry was set learn it in the program. */
static void
ws_qid_source(ws_t *s)
{
	if (!s->cfg.skip_query_id && s->cfg.attach.be_var && s->cfg.attach.qid_offset >= 0)
		s->k.set_qid_source(s->k.h, s->cfg.attach.be_var, s->cfg.attach.qid_offset,
							s->cfg.attach.xact_offset);
	else
		s->k.set_qid_source(s->k.h, 0, -1, -1);
}

static int
ws_push(ws_t *s, const pgwt_record *r)
{
	if (s->nrecs == s->caprecs)
	{
		size_t		nc = s->caprecs ? s->caprecs * 2 : 1024;
		pgwt_record *p = realloc(s->recs, nc * sizeof(*p));

		if (!p)
			return -1;
		s->recs = p;
		s->caprecs = nc;
	}
	s->recs[s->nrecs++] = *r;
	return 0;
}

static void
ws_note_live(ws_t *s, const pgwt_record *r)
{
	ws_backend *b = ws_find(s, r->pid, NULL);

	if (!b || r->new_event == PGWT_EVENT_EXIT)
		return;
	b->live.event = r->new_event;
	b->live.query_id = r->query_id;
	b->live.state = pgwt_wait_classify(r->new_event, s->cfg.attach.pg_major);
	b->live.state_since_ns = r->ts_ns;
	if (pgwt_wait_classify(r->old_event, s->cfg.attach.pg_major) != PGWT_STATE_IDLE)
		b->live.db_time_ns += r->duration_ns;
	b->live_known = 1;
}

static void
ws_sink(const pgwt_record *in, void *arg)
{
	ws_t	   *s = arg;
	pgwt_record r = *in;

	/* a backend learnt to be excluded after its transitions were captured */
	if (ws_excluded(s, r.pid))
		return;
	/* the kernel side's "no event" is this source's CPU id (exact_kernel.h) */
	if (r.kind == PGWT_REC_TRANSITION && s->k.cpu_event)
	{
		if (r.old_event == 0)
			r.old_event = s->k.cpu_event;
		if (r.new_event == 0)
			r.new_event = s->k.cpu_event;
	}
	if (ws_push(s, &r) == 0)
		s->st.records++;
	/* every record the views see, the closing ones of ws_unwatch included */
	if (r.kind == PGWT_REC_TRANSITION && r.old_event == PGWT_EVENT_CPU_RUNQUEUE)
	{
		s->runq_ns += r.duration_ns;
		s->runq_total++;
	}
	ws_note_live(s, &r);
}

/*
 * Stop watching b, closing its last state: with exited, an EXIT transition
 * (the process is gone); otherwise (a window ends) a transition from that
 * state into itself, so the part of a wait inside the window is billed to
 * it: a wait in progress at a window's edge is cut there, as the first
 * transition after the attach cuts it at the start.
 */
typedef enum ws_close
{
	WS_CLOSE_CUT,				/* the window ends */
	WS_CLOSE_EXIT,				/* the backend exited */
	WS_CLOSE_SILENT				/* not to be traced (our own backend) */
} ws_close;

static void
ws_unwatch(ws_t *s, ws_backend *b, ws_close how)
{
	struct pgwt_watch_target t;
	bool		exited = how == WS_CLOSE_EXIT;

	if (b->state != WS_WATCHED)
		return;
	if (how != WS_CLOSE_SILENT && !s->cfg.lightweight &&
		s->k.target_get(s->k.h, (pid_t) b->pid, &t) == 0)
	{
		pgwt_record r;

		memset(&r, 0, sizeof(r));
		r.kind = PGWT_REC_TRANSITION;
		r.ts_ns = s->now_ns > t.since_ns ? s->now_ns : t.since_ns;
		r.duration_ns = r.ts_ns - t.since_ns;
		r.cpu_ns = PGWT_CPU_UNKNOWN;
		r.pid = b->pid;
		r.old_event = t.event;
		r.new_event = exited ? PGWT_EVENT_EXIT : t.event;
		if (!exited && t.query_id_addr)
			pgwt_remote_read((int) b->pid, t.query_id_addr, &r.query_id, sizeof(r.query_id));
		ws_sink(&r, s);
	}
	s->k.remove(s->k.h, (pid_t) b->pid);
	b->state = WS_PENDING;
	b->first_try_ns = 0;
	s->st.watched_now--;
}

static void
ws_on_fork(void *arg, uint32_t parent, uint32_t child)
{
	ws_t	   *s = arg;

	if (parent == (uint32_t) s->cfg.postmaster_pid)
		ws_add(s, child, s->now_ns ? s->now_ns : 1);
}

static void
ws_on_exit(void *arg, uint32_t pid)
{
	ws_t	   *s = arg;
	size_t		pos;
	ws_backend *b;

	if (pid == (uint32_t) s->cfg.postmaster_pid)
	{
		s->postmaster_gone = true;
		return;
	}
	b = ws_find(s, pid, &pos);
	if (!b)
		return;
	s->gone_total++;
	if (b->state == WS_WATCHED)
		ws_unwatch(s, b, WS_CLOSE_EXIT);
	else if (b->seen_ns && !b->ever_watched && s->enabled)
		s->st.exited_unwatched++;
	memmove(b, b + 1, (s->nbe - pos - 1) * sizeof(*b));
	s->nbe--;
}

/* Add running children of the postmaster; drop pids that are gone. */
static int
ws_resync(ws_t *s)
{
	DIR		   *d = opendir("/proc");
	struct dirent *de;
	size_t		keep = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
	{
		int			ppid;
		uint32_t	pid;

		if (!isdigit((unsigned char) de->d_name[0]))
			continue;
		pid = (uint32_t) strtoul(de->d_name, NULL, 10);
		if (ws_find(s, pid, NULL))
			continue;
		if (pgwt_proc_stat((int) pid, &ppid, NULL, 0) == 0 && ppid == s->cfg.postmaster_pid)
			ws_add(s, pid, 0);
	}
	closedir(d);
	if (kill(s->cfg.postmaster_pid, 0) != 0 && errno == ESRCH)
		return -1;
	for (size_t i = 0; i < s->nbe; i++)
	{
		ws_backend *b = &s->be[i];

		if (kill((pid_t) b->pid, 0) != 0 && errno == ESRCH)
		{
			s->gone_total++;
			if (b->state == WS_WATCHED)
				ws_unwatch(s, b, WS_CLOSE_EXIT);
			continue;
		}
		if (b->state == WS_GIVEN_UP)
		{
			b->state = WS_PENDING;
			b->first_try_ns = 0;
		}
		s->be[keep++] = *b;
	}
	s->nbe = keep;
	return 0;
}

/*
 * Try to watch b. 1 watched, 0 not yet (no PGPROC), -1 gone or refused.
 * The current value is read before the watchpoint is set and again after:
 * a write in between trapped nothing, so when the program has not seen a
 * change since, its state is moved to the new value (counted as an attach
 * race; the wait or CPU stretch that ended in between is lost).
 */
static int
ws_try_attach(ws_t *s, ws_backend *b)
{
	const pgwt_attach *a = &s->cfg.attach;
	uint64_t	ptrs[2] = {0, 0};
	struct iovec l[2],
				r[2];
	int			n = 1;
	uint32_t	cur;
	uint64_t	qid_addr = 0;
	uint64_t	xact_addr = 0;
	char		err[256];
	int			rc;

	l[0] = (struct iovec) {&ptrs[0], 8};
	r[0] = (struct iovec) {(void *) (uintptr_t) a->wait_var, 8};
	if (a->be_var)
	{
		l[1] = (struct iovec) {&ptrs[1], 8};
		r[1] = (struct iovec) {(void *) (uintptr_t) a->be_var, 8};
		n = 2;
	}
	if (process_vm_readv((pid_t) b->pid, l, (unsigned long) n, r, (unsigned long) n, 0) < 8)
		return errno == ESRCH ? -1 : 0;
	ptrs[0] = pgwt_pg_layout_wait_addr(&a->layout, ptrs[0], a->image_lo, a->image_hi);
	if (ptrs[0] == 0)
		return 0;				/* no PGPROC yet (the process-local dummy, or NULL) */
	if (pgwt_remote_read((int) b->pid, ptrs[0], &cur, sizeof(cur)) != 0)
		return -1;
	if (!pgwt_wait_info_valid(cur, a->pg_major))
		return 0;
	if (!s->cfg.skip_query_id && ptrs[1] && a->qid_offset >= 0)
	{
		qid_addr = ptrs[1] + (uint64_t) a->qid_offset;
		if (a->xact_offset >= 0)
			xact_addr = ptrs[1] + (uint64_t) a->xact_offset;
	}
	rc = s->k.add(s->k.h, (pid_t) b->pid, ptrs[0], qid_addr, xact_addr, cur, err, sizeof(err));
	if (rc != 0)
	{
		if (rc != -ESRCH)
		{
			s->st.attach_failures++;
			if (s->st.attach_failures <= 3)
				fprintf(stderr, "pg_wait_tracer: %s\n", err);
		}
		return -1;
	}
	{
		uint32_t	again;
		struct pgwt_watch_target t;

		if (pgwt_remote_read((int) b->pid, ptrs[0], &again, sizeof(again)) == 0 && again != cur &&
			pgwt_wait_info_valid(again, a->pg_major) &&
			s->k.target_get(s->k.h, (pid_t) b->pid, &t) == 0 && t.event == cur)
		{
			t.event = again;
			t.since_ns = pgwt_mono_ns();
			s->k.target_set(s->k.h, (pid_t) b->pid, &t);
			s->st.attach_races++;
			cur = again;
		}
	}
	b->state = WS_WATCHED;
	b->ever_watched = 1;
	b->live.event = cur;
	b->live.state = pgwt_wait_classify(cur, a->pg_major);
	b->live.state_since_ns = s->now_ns;
	b->live_known = 1;
	s->st.watched_now++;
	s->st.attached_total++;
	if (cur == 0)
		s->st.attached_at_zero++;
	if (b->seen_ns)
	{
		uint64_t	lat = s->now_ns > b->seen_ns ? s->now_ns - b->seen_ns : 0;

		s->st.attach_latency_ns_sum += lat;
		if (lat > s->st.attach_latency_ns_max)
			s->st.attach_latency_ns_max = lat;
	}
	return 1;
}

static void
ws_attach_pending(ws_t *s, uint64_t now_ns)
{
	size_t		fresh = 0;
	uint64_t	hold = pgwt_exclusions_hold_since(&s->excl, now_ns);

	for (size_t i = 0; i < s->nbe; i++)
	{
		ws_backend *b = &s->be[i];
		int			rc;

		if (b->state != WS_PENDING)
			continue;
		if (b->seen_ns && b->seen_ns >= hold)
		{
			fresh++;			/* may be a listener connection starting */
			continue;
		}
		if (!b->first_try_ns)
			b->first_try_ns = now_ns;
		rc = ws_try_attach(s, b);
		if (rc == 0 && now_ns - b->first_try_ns < WS_GIVE_UP_NS)
			fresh++;
		else if (rc != 1)
			b->state = WS_GIVEN_UP;
	}
	s->npending_fresh = fresh;
}

static void
ws_flush(ws_t *s, pgwt_emit_fn emit, void *arg)
{
	pgwt_self_metrics *m = s->cfg.metrics;

	if (s->nrecs && emit)
		emit(arg, s->recs, s->nrecs);
	s->nrecs = 0;
	if (s->cfg.primary)
	{
		/* the sampler's counters when it runs; ours in --mode full */
		m->backends_tracked = s->nbe;
		m->backends_seen_total = s->added_total;
		m->backends_exited_total = s->gone_total;
	}
	m->events_total = s->st.records;
	m->backends_watched = s->st.watched_now;
	m->wp_attach_failures_total = s->st.attach_failures;
	m->wp_backends_forked_total = s->st.backends_seen;
	m->wp_attached_total = s->st.attached_total;
	m->wp_exited_unwatched_total = s->st.exited_unwatched;
	m->wp_attached_at_zero_total = s->st.attached_at_zero;
	m->wp_attach_races_total = s->st.attach_races;
	m->wp_attach_latency_ns_sum = s->st.attach_latency_ns_sum;
	m->wp_attach_latency_ns_max = s->st.attach_latency_ns_max;
	if (s->k.metrics_drained)
		s->k.metrics_drained(s->k.h, m);
	m->sched_runq_ns = s->runq_ns;
	m->sched_runq_total = s->runq_total;
	/* the kernel's counters cost a few map reads: once a second */
	if (s->now_ns - s->last_counters_ns >= 1000000000ull)
	{
		pgwt_watch_stats st;

		s->last_counters_ns = s->now_ns;
		ws_stats(s, &st);
		m->ringbuf_drops_total = st.drops;
		if (s->k.metrics)
			s->k.metrics(s->k.h, m);
	}
}

/* A set changed: stop following the backends now excluded. */
static void
ws_apply_excluded(ws_t *s)
{
	size_t		keep = 0;

	pgwt_exclusions_applied(&s->excl);
	for (size_t i = 0; i < s->nbe; i++)
	{
		if (ws_excluded(s, s->be[i].pid))
		{
			ws_unwatch(s, &s->be[i], WS_CLOSE_SILENT);
			continue;
		}
		s->be[keep++] = s->be[i];
	}
	s->nbe = keep;
}

static int
ws_tick(pgwt_capture_source *src, uint64_t now_ns, pgwt_emit_fn emit, void *arg)
{
	ws_t	   *s = src->state;

	s->now_ns = now_ns;
	s->last_tick_ns = now_ns;
	/* transitions first: they precede any exit seen below */
	s->k.poll(s->k.h, 0, ws_sink, s);
	if (s->cnfd >= 0)
	{
		pgwt_proc_event_cb cb = {ws_on_fork, ws_on_exit, s};

		if (pgwt_proc_events_drain(s->cnfd, &cb) < 0)
			s->resync_wanted = true;
	}
	if (pgwt_exclusions_moved(&s->excl))
		ws_apply_excluded(s);
	if (s->postmaster_gone)
	{
		ws_flush(s, emit, arg);
		return -1;
	}
	if (s->resync_wanted || now_ns - s->last_resync_ns >= WS_RESYNC_NS)
	{
		s->resync_wanted = false;
		s->last_resync_ns = now_ns;
		if (ws_resync(s) != 0)
		{
			ws_flush(s, emit, arg);
			return -1;
		}
	}
	if (s->enabled)
		ws_attach_pending(s, now_ns);
	ws_flush(s, emit, arg);
	return 0;
}

static uint64_t
ws_next_deadline(pgwt_capture_source *src)
{
	ws_t	   *s = src->state;

	if (!s->enabled)
		return s->last_tick_ns + WS_IDLE_NS;
	return s->last_tick_ns + (s->npending_fresh ? WS_PENDING_POLL_NS : WS_DRAIN_NS);
}

static size_t
ws_live(pgwt_capture_source *src, pgwt_live_backend *out, size_t max)
{
	ws_t	   *s = src->state;
	size_t		n = 0;

	for (size_t i = 0; i < s->nbe && n < max; i++)
		if (s->be[i].state == WS_WATCHED && s->be[i].live_known)
			out[n++] = s->be[i].live;
	return n;
}

static void
ws_destroy(pgwt_capture_source *src)
{
	ws_t	   *s;

	if (!src)
		return;
	s = src->state;
	if (s)
	{
		s->k.close(s->k.h);
		pgwt_proc_events_close(s->cnfd);
		free(s->be);
		free(s->recs);
		free(s);
	}
	free(src);
}

int
pgwt_watch_source_enable(pgwt_capture_source *src, bool on, uint64_t now_ns,
						 pgwt_emit_fn emit, void *arg)
{
	ws_t	   *s = src->state;

	s->now_ns = now_ns;
	if (on && !s->enabled)
	{
		char		err[256];

		if (s->k.set_active && s->k.set_active(s->k.h, true, err, sizeof(err)) != 0)
		{
			/* the window has no exact source: it says so and stays sampled */
			fprintf(stderr, "pg_wait_tracer: %s\n", err);
			return -1;
		}
		s->enabled = true;
		ws_resync(s);
		ws_attach_pending(s, now_ns);
		s->last_tick_ns = now_ns;
	}
	else if (!on && s->enabled)
	{
		/* keep what the kernel captured until now, then detach */
		s->k.poll(s->k.h, 0, ws_sink, s);
		s->now_ns = pgwt_mono_ns();
		for (size_t i = 0; i < s->nbe; i++)
		{
			ws_unwatch(s, &s->be[i], WS_CLOSE_CUT);
			s->be[i].live_known = 0;
		}
		s->k.poll(s->k.h, 0, ws_sink, s);
		if (s->k.set_active)
			s->k.set_active(s->k.h, false, NULL, 0);
		s->enabled = false;
		s->npending_fresh = 0;
	}
	ws_flush(s, emit, arg);
	return s->k.count(s->k.h);
}

int
pgwt_watch_source_wake_fd(pgwt_capture_source *src)
{
	ws_t	   *s = src->state;

	return s->enabled ? s->cnfd : -1;
}

bool
pgwt_watch_source_enabled(pgwt_capture_source *src)
{
	return ((ws_t *) src->state)->enabled;
}

int
pgwt_watch_source_self_test(pgwt_capture_source *src, pgwt_watch_self_test *r)
{
	ws_t	   *s = src->state;

	if (s->enabled)
	{
		/* its traps would mix with the backends' */
		memset(r, 0, sizeof(*r));
		snprintf(r->why, sizeof(r->why), "the self-test cannot run while watching");
		return -1;
	}
	return s->k.self_test(s->k.h, r);
}

int
pgwt_exact_probe(pgwt_watch_self_test *r)
{
	pgwt_watch *w = NULL;
	char		err[sizeof(r->why)];
	int			rc;

	memset(r, 0, sizeof(*r));
	if (pgwt_watch_open(&w, true, err, sizeof(err)) != 0)
	{
		snprintf(r->why, sizeof(r->why), "%s", err);
		return -1;
	}
	rc = pgwt_watch_run_self_test(w, r);
	pgwt_watch_close(w);
	return rc;
}

void
pgwt_watch_source_set_qid_offset(pgwt_capture_source *src, int offset, int xact_offset)
{
	ws_t	   *s = src->state;

	s->cfg.attach.qid_offset = offset;
	s->cfg.attach.xact_offset = xact_offset;
	ws_qid_source(s);
}

void
pgwt_watch_source_ignore_pid(pgwt_capture_source *src, uint32_t pid)
{
	ws_t	   *s = src->state;
	size_t		pos;
	ws_backend *b;

	s->ignore_pid = pid;
	b = ws_find(s, pid, &pos);
	if (!b)
		return;
	ws_unwatch(s, b, WS_CLOSE_SILENT);
	memmove(b, b + 1, (s->nbe - pos - 1) * sizeof(*b));
	s->nbe--;
}

void
pgwt_watch_source_set_exclusions(pgwt_capture_source *src, const pgwt_own_backends *own,
								 const pgwt_own_backends *nonsess)
{
	ws_t	   *s = src->state;

	pgwt_exclusions_init(&s->excl, own, nonsess);	/* applied at the next tick */
}

void
pgwt_watch_source_rescan_soon(pgwt_capture_source *src)
{
	ws_t	   *s = src->state;

	s->resync_wanted = true;
}

void
pgwt_watch_source_stats(pgwt_capture_source *src, pgwt_watch_stats *out)
{
	ws_stats(src->state, out);
}

static void
ws_stats(ws_t *s, pgwt_watch_stats *out)
{
	uint64_t	c[PGWT_WC_NCOUNTERS];

	s->k.counters(s->k.h, c);
	s->st.transitions = c[PGWT_WC_TRANSITIONS];
	s->st.same_value = c[PGWT_WC_SAME_VALUE];
	s->st.drops = c[PGWT_WC_DROPS];
	s->st.read_faults = c[PGWT_WC_READ_FAULTS];
	s->st.unknown_pid = c[PGWT_WC_UNKNOWN_PID];
	*out = s->st;
}

typedef struct ws_agg_ctx
{
	void		(*fn) (uint32_t, uint64_t, uint64_t, uint64_t, void *);
	void	   *arg;
} ws_agg_ctx;

static void
ws_agg_cb(uint32_t event, const struct pgwt_watch_agg *agg, void *arg)
{
	ws_agg_ctx *c = arg;

	c->fn(event, agg->count, agg->total_ns, agg->max_ns, c->arg);
}

int
pgwt_watch_source_aggregates(pgwt_capture_source *src,
							 void (*fn) (uint32_t, uint64_t, uint64_t, uint64_t, void *),
							 void *arg)
{
	ws_t	   *s = src->state;
	ws_agg_ctx	c = {fn, arg};

	if (s->k.close != wk_close)
		return 0;				/* only the watchpoint program aggregates */
	return pgwt_watch_aggregates(s->k.h, ws_agg_cb, &c);
}

pgwt_capture_source *
pgwt_exact_source_create(const pgwt_watch_source_config *cfg, const pgwt_exact_kernel *k,
						 char *err, size_t errlen)
{
	pgwt_capture_source *src = calloc(1, sizeof(*src));
	ws_t	   *s = calloc(1, sizeof(*s));

	if (!src || !s)
	{
		free(src);
		free(s);
		k->close(k->h);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->cfg = *cfg;
	s->k = *k;
	if (!s->cfg.metrics)
		s->cfg.metrics = &s->local_metrics;
	s->cnfd = -1;
	src->name = k->tier;
	src->state = s;
	src->tick = ws_tick;
	src->next_deadline = ws_next_deadline;
	src->live = ws_live;
	src->destroy = ws_destroy;
	ws_qid_source(s);
	/* subscribe before listing /proc so no fork falls in between */
	s->cnfd = pgwt_proc_events_open();
	s->now_ns = pgwt_mono_ns();
	s->last_resync_ns = s->now_ns;
	s->last_tick_ns = s->now_ns;
	if (ws_resync(s) != 0)
	{
		snprintf(err, errlen, "postmaster %d is gone", cfg->postmaster_pid);
		ws_destroy(src);
		return NULL;
	}
	if (cfg->enabled)
		pgwt_watch_source_enable(src, true, s->now_ns, NULL, NULL);
	else if (s->k.set_active)
		s->k.set_active(s->k.h, false, NULL, 0);
	return src;
}

/* The watchpoint program behind the kernel interface. */
static int
wk_add(void *h, pid_t pid, uint64_t wait_addr, uint64_t qid_addr, uint64_t xact_addr,
	   uint32_t cur, char *err, size_t errlen)
{
	return pgwt_watch_add(h, pid, wait_addr, qid_addr, xact_addr, cur, err, errlen);
}

static int
wk_remove(void *h, pid_t pid)
{
	return pgwt_watch_remove(h, pid);
}

static int
wk_count(void *h)
{
	return pgwt_watch_count(h);
}

static int
wk_target_get(void *h, pid_t pid, struct pgwt_watch_target *out)
{
	return pgwt_watch_target_get(h, pid, out);
}

static int
wk_target_set(void *h, pid_t pid, const struct pgwt_watch_target *t)
{
	return pgwt_watch_target_set(h, pid, t);
}

static void
wk_set_qid_source(void *h, uint64_t be_var, int qid_offset, int xact_offset)
{
	pgwt_watch_set_qid_source(h, be_var, qid_offset, xact_offset);
}

static int
wk_poll(void *h, int timeout_ms, pgwt_watch_sink sink, void *arg)
{
	return pgwt_watch_poll(h, timeout_ms, sink, arg);
}

static void
wk_counters(void *h, uint64_t out[PGWT_WC_NCOUNTERS])
{
	pgwt_watch_counters(h, out);
}

static int
wk_self_test(void *h, pgwt_watch_self_test *r)
{
	return pgwt_watch_run_self_test(h, r);
}

static void
wk_close(void *h)
{
	pgwt_watch_close(h);
}

pgwt_capture_source *
pgwt_watch_source_create(const pgwt_watch_source_config *cfg, char *err, size_t errlen)
{
	pgwt_exact_kernel k = {
		.tier = "full", .add = wk_add, .remove = wk_remove, .count = wk_count,
		.target_get = wk_target_get, .target_set = wk_target_set,
		.set_qid_source = wk_set_qid_source, .poll = wk_poll, .counters = wk_counters,
		.self_test = wk_self_test, .close = wk_close,
	};
	pgwt_watch *w = NULL;

	if (pgwt_watch_open(&w, cfg->lightweight, err, errlen) != 0)
		return NULL;
	k.h = w;
	return pgwt_exact_source_create(cfg, &k, err, errlen);
}
