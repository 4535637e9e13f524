/*
 * exact.c
 *		The streaming side of the exact-only analyses: the transition
 *		matrix, a start-ordered sweep over wait intervals (concurrency
 *		peaks, bursts, interference), and the matching of blocker
 *		observations to Lock waits (lock chains). exact_views.c reads the
 *		tables; exact.h states what the views mean.
 *
 * The sweep: a transition says a backend was in old_event during [ts-d,
 * ts), so intervals arrive at their end, not their start. They wait in a
 * bounded min-heap until the stream has moved interval_reorder_ns past
 * their start, then are swept in start order against each event's set of
 * running intervals. An interval that arrives after the sweep has passed
 * its start (a wait longer than the reorder delay) is counted as late and
 * left out of the sweep; a full heap sweeps its earliest interval early
 * (counted). Both counters are shown by the views, so a peak is never
 * quietly undercounted.
 *
 * All memory is allocated at creation; single-threaded like the engine.
 */
#include "analysis/exact_internal.h"

#include <stdlib.h>
#include <string.h>

#define XA_DEF_TRANSITION_PAIRS		4096
#define XA_DEF_INTERFERENCE_PAIRS	16384
#define XA_DEF_SWEEP_EVENTS			256
#define XA_DEF_CONCURRENT			256
#define XA_DEF_PENDING				65536
#define XA_DEF_REORDER_NS			(11ull * 1000000000ull)
#define XA_DEF_BURST_SESSIONS		4
#define XA_DEF_BURST_WINDOW_NS		(10ull * 1000000ull)
#define XA_DEF_BURSTS				256
#define XA_DEF_LOCK_EDGES			4096
#define XA_DEF_LOCK_PIDS			4096

/* Fill the defaults of the exact-analysis caps in place. */
static void
xa_defaults(pgwt_engine_config *c)
{
#define XA_DEF(field, def) do { if (c->field == 0) c->field = (def); } while (0)
	XA_DEF(max_transition_pairs, XA_DEF_TRANSITION_PAIRS);
	XA_DEF(max_interference_pairs, XA_DEF_INTERFERENCE_PAIRS);
	XA_DEF(max_sweep_events, XA_DEF_SWEEP_EVENTS);
	XA_DEF(max_concurrent, XA_DEF_CONCURRENT);
	XA_DEF(max_pending_intervals, XA_DEF_PENDING);
	XA_DEF(interval_reorder_ns, XA_DEF_REORDER_NS);
	XA_DEF(burst_sessions, XA_DEF_BURST_SESSIONS);
	XA_DEF(burst_window_ns, XA_DEF_BURST_WINDOW_NS);
	XA_DEF(max_bursts, XA_DEF_BURSTS);
	XA_DEF(max_lock_edges, XA_DEF_LOCK_EDGES);
	XA_DEF(max_lock_pids, XA_DEF_LOCK_PIDS);
#undef XA_DEF
}

pgwt_exact *
pgwt_exact_create(pgwt_engine *eng)
{
	pgwt_engine_config *c = &eng->cfg;
	pgwt_exact *x;
	bool		ok = true;

	xa_defaults(c);
	if (c->burst_sessions < 2 || c->burst_sessions > XA_RECENT ||
		c->max_concurrent > (1u << 16) || c->max_sweep_events > (1u << 16) ||
		c->max_pending_intervals > (1u << 26) || c->max_bursts > (1u << 20) ||
		c->max_transition_pairs > (1u << 24) || c->max_interference_pairs > (1u << 24) ||
		c->max_lock_edges > (1u << 24) || c->max_lock_pids > (1u << 24))
		return NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	for (int w = 0; w < eng->nwindows; w++)
	{
		xa_window  *xw = &x->win[w];

		ok = ok && pgwt_agg_init(&xw->conc, c->max_sweep_events, sizeof(xa_conc));
		ok = ok && pgwt_agg_init(&xw->pairs, c->max_interference_pairs, sizeof(xa_pair));
		ok = ok && pgwt_agg_init(&xw->trans, c->max_transition_pairs, sizeof(xa_trans));
		ok = ok && pgwt_agg_init(&xw->lock_waiters, c->max_lock_pids, sizeof(xa_lockwait));
		ok = ok && pgwt_agg_init(&xw->lock_edges, c->max_lock_edges, sizeof(xa_lockedge));
	}
	ok = ok && pgwt_agg_init(&x->event_index, c->max_sweep_events, sizeof(unsigned));
	ok = ok && pgwt_agg_init(&x->lock_pids, c->max_lock_pids, sizeof(xa_lockpid));
	x->heap = ok ? calloc(c->max_pending_intervals, sizeof(xa_interval)) : NULL;
	x->events = ok ? calloc(c->max_sweep_events, sizeof(xa_event)) : NULL;
	x->active_pool = ok ? calloc((size_t) c->max_sweep_events * c->max_concurrent, sizeof(xa_interval)) : NULL;
	x->bursts = ok ? calloc(c->max_bursts, sizeof(xa_burst)) : NULL;
	if (!ok || !x->heap || !x->events || !x->active_pool || !x->bursts)
	{
		pgwt_exact_free(x, eng->nwindows);
		return NULL;
	}
	return x;
}

void
pgwt_exact_free(pgwt_exact *x, int nwindows)
{
	if (!x)
		return;
	for (int w = 0; w < nwindows; w++)
	{
		pgwt_agg_free(&x->win[w].conc);
		pgwt_agg_free(&x->win[w].pairs);
		pgwt_agg_free(&x->win[w].trans);
		pgwt_agg_free(&x->win[w].lock_waiters);
		pgwt_agg_free(&x->win[w].lock_edges);
	}
	pgwt_agg_free(&x->event_index);
	pgwt_agg_free(&x->lock_pids);
	free(x->heap);
	free(x->events);
	free(x->active_pool);
	free(x->bursts);
	free(x);
}

void
pgwt_exact_reset(pgwt_exact *x, int nwindows)
{
	for (int w = 0; w < nwindows; w++)
	{
		pgwt_agg_clear(&x->win[w].conc);
		pgwt_agg_clear(&x->win[w].pairs);
		pgwt_agg_clear(&x->win[w].trans);
		pgwt_agg_clear(&x->win[w].lock_waiters);
		pgwt_agg_clear(&x->win[w].lock_edges);
		x->win[w].crossed = false;
	}
	pgwt_agg_clear(&x->event_index);
	pgwt_agg_clear(&x->lock_pids);
	x->nheap = 0;
	x->sweep_ns = 0;
	x->swept_any = false;
	x->nevents = 0;
	x->nbursts = 0;
}

/* ---- the start-ordered heap ---------------------------------------------- */

/*
 * The sweep order: by start, then end, pid and event. A total order (two
 * intervals equal in all four are one and the same), so the order the
 * heap yields them in depends on the set of intervals alone, never on how
 * the heap happens to hold them.
 */
static inline bool
xa_before(const xa_interval *a, const xa_interval *b)
{
	if (a->s != b->s)
		return a->s < b->s;
	if (a->e != b->e)
		return a->e < b->e;
	if (a->pid != b->pid)
		return a->pid < b->pid;
	return a->event < b->event;
}

static void
xa_heap_push(pgwt_exact *x, const xa_interval *iv)
{
	unsigned	i = x->nheap++;

	while (i > 0)
	{
		unsigned	p = (i - 1) / 2;

		if (!xa_before(iv, &x->heap[p]))
			break;
		x->heap[i] = x->heap[p];
		i = p;
	}
	x->heap[i] = *iv;
}

/*
 * Take the earliest interval. The hole it leaves goes down the smaller
 * child at each level to a leaf (one comparison a level), and the last
 * interval then rises from there: it is among the latest, so it rarely
 * rises far, where sifting it down from the top would compare it at
 * every level too.
 */
static xa_interval
xa_heap_pop(pgwt_exact *x)
{
	xa_interval top = x->heap[0];
	xa_interval last = x->heap[--x->nheap];
	unsigned	n = x->nheap;
	unsigned	i = 0;

	if (n == 0)
		return top;
	for (unsigned c = 1; c < n; c = 2 * i + 1)
	{
		if (c + 1 < n && xa_before(&x->heap[c + 1], &x->heap[c]))
			c++;
		x->heap[i] = x->heap[c];
		i = c;
	}
	while (i > 0)
	{
		unsigned	p = (i - 1) / 2;

		if (!xa_before(&last, &x->heap[p]))
			break;
		x->heap[i] = x->heap[p];
		i = p;
	}
	x->heap[i] = last;
	return top;
}

/* ---- the sweep ------------------------------------------------------------ */

static xa_event *
xa_event_state(pgwt_engine *eng, uint32_t event)
{
	pgwt_exact *x = eng->exact;
	unsigned   *idx = pgwt_agg_get(&x->event_index, event, 0);
	xa_event   *ev;

	if ((void *) idx == (void *) x->event_index.other)
		return NULL;
	if (x->event_index.n > x->nevents)
	{
		/* a new key: its state is the next free one */
		*idx = x->nevents++;
		ev = &x->events[*idx];
		memset(ev, 0, sizeof(*ev));
		ev->event = event;
		ev->active = x->active_pool + (size_t) *idx * eng->cfg.max_concurrent;
		ev->burst_listed = -1;
	}
	return &x->events[*idx];
}

/* Forget the intervals of ev that ended at or before t. */
static void
xa_retire(xa_event *ev, uint64_t t)
{
	uint64_t	min_e = UINT64_MAX;

	if (t < ev->active_min_e)
		return;
	for (unsigned i = 0; i < ev->nactive;)
	{
		if (ev->active[i].e <= t)
			ev->active[i] = ev->active[--ev->nactive];
		else
		{
			min_e = ev->active[i].e < min_e ? ev->active[i].e : min_e;
			i++;
		}
	}
	ev->active_min_e = min_e;
}

static void
xa_peak(xa_window *xw, uint32_t event, uint32_t count, uint64_t at, bool new_interval)
{
	xa_conc    *c = pgwt_agg_get(&xw->conc, event, 0);

	if (new_interval)
		c->intervals++;
	if (count > c->peak)
	{
		c->peak = count;
		c->peak_ns = at;
	}
}

/*
 * The sweep reached t: windows starting in (previous point, t] get the
 * concurrency at their first instant (waits begun before the window that
 * still run in it).
 */
static void
xa_cross_windows(pgwt_engine *eng, uint64_t t)
{
	pgwt_exact *x = eng->exact;

	for (int w = 0; w < eng->nwindows; w++)
	{
		uint64_t	from = eng->win[w].spec.from_ns;

		if (x->win[w].crossed || from > t)
			continue;
		x->win[w].crossed = true;
		for (unsigned i = 0; i < x->nevents; i++)
		{
			xa_event   *ev = &x->events[i];

			xa_retire(ev, from);
			if (ev->nactive > 0 && from < eng->win[w].spec.to_ns)
				xa_peak(&x->win[w], ev->event, ev->nactive, from, false);
		}
	}
}

static void
xa_burst_note(pgwt_engine *eng, xa_event *ev, unsigned sessions, bool opened)
{
	pgwt_exact *x = eng->exact;

	for (int w = 0; w < eng->nwindows; w++)
	{
		const pgwt_window_spec *sp = &eng->win[w].spec;
		xa_conc    *c;

		if (ev->burst_t0 < sp->from_ns || ev->burst_t0 >= sp->to_ns)
			continue;
		c = pgwt_agg_get(&x->win[w].conc, ev->event, 0);
		if (opened)
			c->bursts++;
		if (sessions > c->max_burst_sessions)
			c->max_burst_sessions = sessions;
	}
	if (opened)
	{
		if (x->nbursts < eng->cfg.max_bursts)
		{
			ev->burst_listed = (int) x->nbursts;
			x->bursts[x->nbursts].event = ev->event;
			x->bursts[x->nbursts].first_ns = ev->burst_t0;
			x->nbursts++;
		}
		else
		{
			ev->burst_listed = -1;
			eng->counters.bursts_unlisted++;
		}
	}
	if (ev->burst_listed >= 0)
		x->bursts[ev->burst_listed].sessions = sessions;
}

/*
 * Bursts: burst_sessions distinct backends entering one wait event less
 * than burst_window_ns apart. The burst spans [t0, t0 + window) from its
 * first start; later starts inside it grow it, and only starts after it
 * can begin the next one, so one herd is one burst. CPU* is not a wait
 * anyone enters together, so it has no bursts.
 *
 * recent[] keeps, per backend, its latest start within the window, in
 * start order (the sweep runs in start order): a backend entering the
 * event again counts once.
 */
static void
xa_bursts(pgwt_engine *eng, xa_event *ev, const xa_interval *iv)
{
	uint64_t	wnd = eng->cfg.burst_window_ns;
	uint64_t	lo = iv->s >= wnd ? iv->s - wnd + 1 : 0;	/* (s - wnd, s] */
	uint64_t	prev = 0;
	bool		seen = false;
	unsigned	keep = 0,
				first;

	for (unsigned i = 0; i < ev->nrecent; i++)
	{
		if (ev->recent[i].s < lo)
			continue;
		if (ev->recent[i].pid == iv->pid)
		{
			seen = true;
			prev = ev->recent[i].s;
			continue;			/* re-added last, with this start */
		}
		ev->recent[keep++] = ev->recent[i];
	}
	ev->nrecent = keep;
	if (ev->nrecent == XA_RECENT)
	{
		memmove(ev->recent, ev->recent + 1, (XA_RECENT - 1) * sizeof(xa_start));
		ev->nrecent--;
	}
	ev->recent[ev->nrecent].s = iv->s;
	ev->recent[ev->nrecent].pid = iv->pid;
	ev->nrecent++;

	if (ev->burst_open && iv->s >= ev->burst_end)
		ev->burst_open = false;
	if (ev->burst_open)
	{
		/* a backend not yet in it joins the burst */
		if (!seen || prev < ev->burst_t0)
		{
			ev->burst_sessions++;
			xa_burst_note(eng, ev, ev->burst_sessions, false);
		}
		return;
	}
	{
		uint64_t	since = lo > ev->burst_end ? lo : ev->burst_end;

		/* starts before a past burst's end belong to it */
		for (first = 0; first < ev->nrecent && ev->recent[first].s < since; first++)
			;
		if (ev->nrecent - first < eng->cfg.burst_sessions)
			return;
		ev->burst_open = true;
		ev->burst_t0 = ev->recent[first].s;
		ev->burst_end = ev->burst_t0 + wnd;
		ev->burst_sessions = ev->nrecent - first;
		xa_burst_note(eng, ev, ev->burst_sessions, true);
	}
}

/* Time both waited, inside each window, for one pair of pids. */
static void
xa_overlap(pgwt_engine *eng, const xa_interval *a, const xa_interval *b, uint64_t lo, uint64_t hi)
{
	pgwt_exact *x = eng->exact;
	uint32_t	p1 = a->pid < b->pid ? a->pid : b->pid;
	uint32_t	p2 = a->pid < b->pid ? b->pid : a->pid;

	for (int w = 0; w < eng->nwindows; w++)
	{
		const pgwt_window_spec *sp = &eng->win[w].spec;
		uint64_t	l = lo > sp->from_ns ? lo : sp->from_ns;
		uint64_t	h = hi < sp->to_ns ? hi : sp->to_ns;
		xa_pair    *p;

		if (h <= l)
			continue;
		p = pgwt_agg_get(&x->win[w].pairs, (uint64_t) p1 << 32 | p2, a->event);
		p->overlap_ns += h - l;
		p->overlaps++;
	}
}

static void
xa_sweep_one(pgwt_engine *eng, const xa_interval *iv)
{
	pgwt_exact *x = eng->exact;
	xa_event   *ev;

	xa_cross_windows(eng, iv->s);
	x->sweep_ns = iv->s;
	x->swept_any = true;
	ev = xa_event_state(eng, iv->event);
	if (!ev)
	{
		eng->counters.sweep_events_overflow++;
		return;
	}
	xa_retire(ev, iv->s);
	/* interference: waits, not CPU time */
	if (!pgwt_event_is_cpu(iv->event))
		for (unsigned i = 0; i < ev->nactive; i++)
		{
			const xa_interval *o = &ev->active[i];

			if (o->pid != iv->pid)
				xa_overlap(eng, iv, o, iv->s, o->e < iv->e ? o->e : iv->e);
		}
	for (int w = 0; w < eng->nwindows; w++)
	{
		const pgwt_window_spec *sp = &eng->win[w].spec;

		if (iv->s >= sp->from_ns && iv->s < sp->to_ns)
			xa_peak(&x->win[w], iv->event, ev->nactive + 1, iv->s, true);
	}
	if (ev->nactive < eng->cfg.max_concurrent)
	{
		ev->active[ev->nactive++] = *iv;
		if (iv->e < ev->active_min_e)
			ev->active_min_e = iv->e;
	}
	else
		eng->counters.concurrent_overflow++;
	if (!pgwt_event_is_cpu(iv->event))
		xa_bursts(eng, ev, iv);
}

/* Sweep the heap's intervals the stream has moved far enough past. */
static void
xa_sweep_ready(pgwt_engine *eng)
{
	pgwt_exact *x = eng->exact;
	uint64_t	delay = eng->cfg.interval_reorder_ns;

	while (x->nheap > 0 && eng->max_ts_seen >= delay && x->heap[0].s < eng->max_ts_seen - delay)
	{
		xa_interval iv = xa_heap_pop(x);

		xa_sweep_one(eng, &iv);
	}
}

/* ---- lock chains ----------------------------------------------------------- */

static bool
xa_has_pid(const uint32_t *pids, unsigned n, uint32_t pid)
{
	for (unsigned i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Bill the waiter's Lock wait [s, e) to blocker (and to the waiter the
 * first time the wait is matched at all). */
static void
xa_lock_bill(pgwt_engine *eng, xa_lockpid *lp, uint32_t waiter, uint32_t blocker)
{
	pgwt_exact *x = eng->exact;
	bool		first = lp->nattr == 0;

	if (xa_has_pid(lp->attr, lp->nattr, blocker) || lp->nattr == PGWT_MAX_BLOCKERS)
		return;
	lp->attr[lp->nattr++] = blocker;
	for (int w = 0; w < eng->nwindows; w++)
	{
		const pgwt_window_spec *sp = &eng->win[w].spec;
		uint64_t	l = lp->wait_s > sp->from_ns ? lp->wait_s : sp->from_ns;
		uint64_t	h = lp->wait_e < sp->to_ns ? lp->wait_e : sp->to_ns;
		bool		counted = lp->wait_e >= sp->from_ns && lp->wait_e < sp->to_ns;
		uint64_t	ns = h > l ? h - l : 0;
		xa_lockedge *ed;

		if (ns == 0 && !counted)
			continue;
		ed = pgwt_agg_get(&x->win[w].lock_edges, waiter, blocker);
		ed->wait_ns += ns;
		ed->waits += counted;
		if (first)
		{
			xa_lockwait *lw = pgwt_agg_get(&x->win[w].lock_waiters, waiter, 0);

			lw->wait_ns += ns;
			lw->waits += counted;
		}
	}
}

static void
xa_lock_wait(pgwt_engine *eng, uint32_t pid, uint64_t s, uint64_t e)
{
	xa_lockpid *lp = pgwt_agg_get(&eng->exact->lock_pids, pid, 0);
	unsigned	nobs;

	if ((void *) lp == (void *) eng->exact->lock_pids.other)
		return;
	lp->has_wait = true;
	lp->wait_s = s;
	lp->wait_e = e;
	lp->nattr = 0;
	nobs = lp->nobs < XA_OBS_RING ? lp->nobs : XA_OBS_RING;
	for (unsigned i = 0; i < nobs; i++)
	{
		const pgwt_blocker_obs *o = &lp->obs[i];

		if (o->ts_ns >= s && o->ts_ns < e)
			for (unsigned b = 0; b < o->nblockers; b++)
				xa_lock_bill(eng, lp, pid, o->blocker_pids[b]);
	}
}

void
pgwt_engine_feed_blockers(pgwt_engine *eng, const pgwt_blocker_obs *obs)
{
	pgwt_exact *x = eng->exact;
	xa_lockpid *lp;
	pgwt_blocker_obs o = *obs;

	eng->counters.blocker_obs++;
	if (!x)
		return;
	if (o.nblockers > PGWT_MAX_BLOCKERS)
		o.nblockers = PGWT_MAX_BLOCKERS;
	lp = pgwt_agg_get(&x->lock_pids, o.waiter_pid, 0);
	if ((void *) lp == (void *) x->lock_pids.other)
		return;
	lp->obs[lp->nobs % XA_OBS_RING] = o;
	lp->nobs++;
	for (unsigned b = 0; b < o.nblockers; b++)
	{
		uint32_t	blocker = o.blocker_pids[b];

		if (blocker == o.waiter_pid || xa_has_pid(o.blocker_pids, b, blocker))
			continue;			/* a repeated pid counts once */
		for (int w = 0; w < eng->nwindows; w++)
		{
			const pgwt_window_spec *sp = &eng->win[w].spec;

			if (o.ts_ns >= sp->from_ns && o.ts_ns < sp->to_ns)
				((xa_lockedge *) pgwt_agg_get(&x->win[w].lock_edges, o.waiter_pid, blocker))->observations++;
		}
		/* the Lock wait it falls in may already be here */
		if (lp->has_wait && o.ts_ns >= lp->wait_s && o.ts_ns < lp->wait_e)
			xa_lock_bill(eng, lp, o.waiter_pid, blocker);
	}
}

/* ---- entry points from the engine ----------------------------------------- */

void
pgwt_exact_transition(pgwt_engine *eng, const pgwt_record *r)
{
	pgwt_exact *x = eng->exact;
	uint32_t	ev = r->old_event;
	uint64_t	e = r->ts_ns;
	uint64_t	s = r->duration_ns > e ? 0 : e - r->duration_ns;

	for (int w = 0; w < eng->nwindows; w++)
	{
		const pgwt_window_spec *sp = &eng->win[w].spec;
		xa_trans   *t;

		if (e < sp->from_ns || e >= sp->to_ns)
			continue;
		t = pgwt_agg_get(&x->win[w].trans, ev, r->new_event);
		t->count++;
		t->ns += r->duration_ns;
	}
	if (s == e || pgwt_event_is_idle(ev))
		return;
	if (pgwt_event_class(ev) == PGWT_CLASS_LOCK)
		xa_lock_wait(eng, r->pid, s, e);
	if (x->swept_any && s < x->sweep_ns)
		eng->counters.late_intervals++;
	else
	{
		xa_interval iv = {s, e, r->pid, ev};

		if (x->nheap == eng->cfg.max_pending_intervals)
		{
			xa_interval early = xa_heap_pop(x);

			eng->counters.forced_intervals++;
			xa_sweep_one(eng, &early);
			if (iv.s < x->sweep_ns)
			{
				eng->counters.late_intervals++;
				return;
			}
		}
		xa_heap_push(x, &iv);
	}
	xa_sweep_ready(eng);
}

void
pgwt_exact_flush(pgwt_engine *eng)
{
	pgwt_exact *x = eng->exact;

	while (x->nheap > 0)
	{
		xa_interval iv = xa_heap_pop(x);

		xa_sweep_one(eng, &iv);
	}
	/* windows that start after the last wait began still see those running */
	xa_cross_windows(eng, eng->max_ts_seen);
}
