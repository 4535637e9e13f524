/*
 * summary_build.c
 *		Per-second summaries: the builder that aggregates a record stream
 *		into seconds and minute rollups (docs/TRACE_FORMAT.md section 11).
 *		The frame payload codec is summary_codec.c. Pure: no I/O.
 *
 * Billing follows the analysis engine (analysis/engine.h) so that a view
 * computed from summaries equals the one computed from the records:
 *	- a transition at ts with duration d bills [ts-d, ts) to old_event; the
 *	  part inside ts's second goes into the second's stats (and the wait is
 *	  counted there), the part before it is kept as a "crossing" entry, so
 *	  a reader can clip it to any whole-second window start;
 *	- a sample bills its weight whole to its second, unless an escalation
 *	  window (ESC_START .. ESC_END markers) covers it: then it is kept per
 *	  event as superseded, as the engine does;
 *	- markers carry no time; a transition out of EXIT or a marker bills
 *	  nothing.
 *
 * Seconds stay open until the stream is PGWT_TF_SUM_LAG_NS past their end
 * (records reach the writer nearly in time order), then go to the callback
 * oldest first. A record for a second already written is counted as late
 * in the next second written. Each written second is also merged into a
 * minute rollup (crossings that began inside the minute become billed
 * time), written after the minute's last second, so long windows read 60
 * times fewer frames. Memory is fixed at creation: four open seconds and
 * one minute with their capped tables (about 3.5 MB).
 *
 * Cost: the builder sees every record the daemon writes, so the per-record
 * path is kept short without changing a byte of output (test/unit/
 * tracefmt/test_summary_same.c): the second of the previous record is
 * reused while it holds ts; a (key, event) pair is looked up before its
 * key and event, which only an insertion needs; a sample repeating its
 * backend's previous (event, query) in the second goes straight to the
 * three entries (sb_hot); and a second's tables are emptied by zeroing
 * the slots in use rather than the whole tables sized for the caps.
 *
 * The object belongs to one thread; no shared state.
 */
#include <stdlib.h>
#include <string.h>

#include "tracefmt/summary.h"
#include "tracefmt/tf_le.h"

#define SB_NOPEN		4		/* seconds open at once (lag 2 s + current) */
#define SB_SPANS		16		/* recent escalation windows remembered */
#define SB_HOT_BITS		10		/* 1024 sample shortcuts, by pid */

/* key -> index + 1 (0 = empty), open addressing, 2 x cap slots. */
typedef struct sb_hash
{
	uint32_t   *slot;
	uint32_t	mask;
} sb_hash;

typedef struct sb_second
{
	bool		used;
	uint64_t	gen;			/* bumped at each reset: dates shortcuts */
	pgwt_tf_second s;
	sb_hash		h_events;
	sb_hash		h_pids;
	sb_hash		h_pid_events;
	sb_hash		h_query_events;
	sb_hash		h_queries;
} sb_second;

/*
 * A sampler lists every backend each tick, and a backend is mostly where
 * it was a tick ago: a sample of (pid, event, query) then updates the same
 * three entries as that backend's previous sample in the second. The
 * shortcut remembers them, keyed by pid; it is used only when all three
 * were listed entries (a folded key also counts the fold, every time), so
 * a hit does exactly what the three lookups would.
 */
typedef struct sb_hot
{
	const sb_second *x;			/* the second, and its gen, it belongs to */
	uint64_t	gen;
	uint32_t	pid;
	uint32_t	event;
	uint64_t	query_id;
	pgwt_tf_sum_stat *ev_st;
	pgwt_tf_sum_stat *pid_ev_st;
	pgwt_tf_sum_stat *query_ev_st;
} sb_hot;

struct pgwt_tf_sum_builder
{
	pgwt_tf_second_cb cb;
	void	   *arg;
	uint64_t	max_ts;
	uint64_t	written_up_to;	/* seconds below this were written */
	uint64_t	late_pending;	/* late records to report */
	bool		esc_open;
	uint64_t	esc_from;
	uint64_t	span_from[SB_SPANS];	/* closed windows, a ring */
	uint64_t	span_to[SB_SPANS];
	unsigned	nspans;
	unsigned	span_head;
	sb_second	sec[SB_NOPEN];
	sb_second	minute;
	sb_second  *last;			/* the previous record's second (a hint) */
	sb_hot		hot[1u << SB_HOT_BITS];
};

/* ---- small hash ------------------------------------------------------------ */

static uint32_t
sb_hashkey(uint64_t k1, uint32_t k2)
{
	uint64_t	x = k1 ^ ((uint64_t) k2 * 0x9E3779B97F4A7C15ull);

	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 29;
	return (uint32_t) x;
}

static bool
sb_hash_init(sb_hash *h, unsigned cap)
{
	unsigned	n = 16;

	while (n < cap * 2)
		n *= 2;
	h->mask = n - 1;
	h->slot = calloc(n, sizeof(uint32_t));
	return h->slot != NULL;
}

/*
 * Empties a table that holds n entries. A second usually fills a few
 * slots of tables sized for the caps: those are found again by their
 * keys (key_of(i) gives entry i's key) and zeroed one by one, instead of
 * wiping every slot. Each entry sits in exactly one slot holding i + 1,
 * reached by probing from its home slot.
 */
#define SB_HASH_CLEAR(h, n, KEY1, KEY2) \
	do { \
		uint32_t	nslots_ = (h)->mask + 1; \
		if ((uint64_t) (n) * 16 >= nslots_) \
			memset((h)->slot, 0, (size_t) nslots_ * sizeof(uint32_t)); \
		else \
			for (uint32_t i_ = 0; i_ < (n); i_++) \
			{ \
				uint32_t	s_ = sb_hashkey((KEY1(i_)), (KEY2(i_))) & (h)->mask; \
				while ((h)->slot[s_] != i_ + 1) \
					s_ = (s_ + 1) & (h)->mask; \
				(h)->slot[s_] = 0; \
			} \
	} while (0)

/*
 * Finds the slot of (k1, k2): *idx = entry index when present, else the
 * empty slot to fill. eq(i) compares entry i with the key.
 */
#define SB_LOOKUP(h, k1, k2, EQ, found, slotp) \
	do { \
		uint32_t	s_ = sb_hashkey((k1), (k2)) & (h)->mask; \
		(found) = -1; \
		while ((h)->slot[s_]) \
		{ \
			uint32_t	i_ = (h)->slot[s_] - 1; \
			if (EQ(i_)) { (found) = (int64_t) i_; break; } \
			s_ = (s_ + 1) & (h)->mask; \
		} \
		(slotp) = s_; \
	} while (0)

static void
sb_second_reset(sb_second *x, uint64_t sec_ts)
{
	pgwt_tf_second *s = &x->s;

#define SB_EV_K1(i) (s->events[i].event)
#define SB_PID_K1(i) (s->pids[i].pid)
#define SB_Q_K1(i) (s->queries[i])
#define SB_PE_K1(i) (s->pid_events[i].key)
#define SB_PE_K2(i) (s->pid_events[i].event)
#define SB_QE_K1(i) (s->query_events[i].key)
#define SB_QE_K2(i) (s->query_events[i].event)
#define SB_K0(i) 0
#define SB_K1(i) 1
	SB_HASH_CLEAR(&x->h_events, s->nevents, SB_EV_K1, SB_K0);
	SB_HASH_CLEAR(&x->h_pids, s->npids, SB_PID_K1, SB_K0);
	SB_HASH_CLEAR(&x->h_pid_events, s->npid_events, SB_PE_K1, SB_PE_K2);
	SB_HASH_CLEAR(&x->h_query_events, s->nquery_events, SB_QE_K1, SB_QE_K2);
	SB_HASH_CLEAR(&x->h_queries, s->nqueries, SB_Q_K1, SB_K1);
	s->sec_ts = sec_ts;
	s->span_ns = PGWT_TF_SUM_SECOND_NS;
	s->flags = 0;
	memset(&s->c, 0, sizeof(s->c));
	s->cover_lo = UINT64_MAX;
	s->cover_hi = 0;
	memset(&s->other_event, 0, sizeof(s->other_event));
	memset(&s->other_pid_event, 0, sizeof(s->other_pid_event));
	memset(&s->other_query_event, 0, sizeof(s->other_query_event));
	s->nevents = s->npids = s->npid_events = s->nquery_events = s->ncrossings = 0;
	s->nqueries = 0;
	x->used = true;
	x->gen++;
}

static bool
sb_second_alloc(sb_second *x)
{
	pgwt_tf_second *s = &x->s;

	s->events = malloc(PGWT_TF_SUM_MAX_EVENTS * sizeof(*s->events));
	s->pids = malloc(PGWT_TF_SUM_MAX_PIDS * sizeof(*s->pids));
	s->queries = malloc(PGWT_TF_SUM_MAX_QUERIES * sizeof(*s->queries));
	s->pid_events = malloc(PGWT_TF_SUM_MAX_PID_EVENTS * sizeof(*s->pid_events));
	s->query_events = malloc(PGWT_TF_SUM_MAX_QUERY_EVENTS * sizeof(*s->query_events));
	s->crossings = malloc(PGWT_TF_SUM_MAX_CROSSINGS * sizeof(*s->crossings));
	return s->events && s->pids && s->queries && s->pid_events && s->query_events &&
		s->crossings &&
		sb_hash_init(&x->h_events, PGWT_TF_SUM_MAX_EVENTS) &&
		sb_hash_init(&x->h_pids, PGWT_TF_SUM_MAX_PIDS) &&
		sb_hash_init(&x->h_queries, PGWT_TF_SUM_MAX_QUERIES) &&
		sb_hash_init(&x->h_pid_events, PGWT_TF_SUM_MAX_PID_EVENTS) &&
		sb_hash_init(&x->h_query_events, PGWT_TF_SUM_MAX_QUERY_EVENTS);
}

static void
sb_second_release(sb_second *x)
{
	free(x->s.events);
	free(x->s.pids);
	free(x->s.queries);
	free(x->s.pid_events);
	free(x->s.query_events);
	free(x->s.crossings);
	free(x->h_events.slot);
	free(x->h_pids.slot);
	free(x->h_queries.slot);
	free(x->h_pid_events.slot);
	free(x->h_query_events.slot);
}

int
pgwt_tf_sum_builder_create(pgwt_tf_second_cb cb, void *arg, pgwt_tf_sum_builder **out)
{
	pgwt_tf_sum_builder *b;
	int			i;

	if (!cb || !out)
		return -PGWT_TF_INVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -PGWT_TF_NOMEM;
	b->cb = cb;
	b->arg = arg;
	for (i = 0; i <= SB_NOPEN; i++)
		if (!sb_second_alloc(i < SB_NOPEN ? &b->sec[i] : &b->minute))
		{
			pgwt_tf_sum_builder_free(b);
			return -PGWT_TF_NOMEM;
		}
	*out = b;
	return 0;
}

void
pgwt_tf_sum_builder_free(pgwt_tf_sum_builder *b)
{
	int			i;

	if (!b)
		return;
	for (i = 0; i < SB_NOPEN; i++)
		sb_second_release(&b->sec[i]);
	sb_second_release(&b->minute);
	free(b);
}

/* ---- table access -------------------------------------------------------- */

/* The event's entry, inserted; NULL past the cap (counted when count). */
static pgwt_tf_sum_event *
sb_event_get(sb_second *x, uint32_t ev, bool count)
{
	pgwt_tf_second *s = &x->s;
	int64_t		found;
	uint32_t	slot;

#define SB_EQ_EV(i) (s->events[i].event == ev)
	SB_LOOKUP(&x->h_events, ev, 0, SB_EQ_EV, found, slot);
	if (found >= 0)
		return &s->events[found];
	if (s->nevents >= PGWT_TF_SUM_MAX_EVENTS)
	{
		if (count)
			s->c.folded_events++;
		return NULL;
	}
	memset(&s->events[s->nevents], 0, sizeof(s->events[0]));
	s->events[s->nevents].event = ev;
	x->h_events.slot[slot] = ++s->nevents;
	return &s->events[s->nevents - 1];
}

#define sb_event(x, ev) sb_event_get((x), (ev), true)

static pgwt_tf_sum_pid *
sb_pid(sb_second *x, uint32_t pid)
{
	pgwt_tf_second *s = &x->s;
	int64_t		found;
	uint32_t	slot;

#define SB_EQ_PID(i) (s->pids[i].pid == pid)
	SB_LOOKUP(&x->h_pids, pid, 0, SB_EQ_PID, found, slot);
	if (found >= 0)
		return &s->pids[found];
	if (s->npids >= PGWT_TF_SUM_MAX_PIDS)
	{
		s->c.folded_pids++;
		return NULL;
	}
	s->pids[s->npids].pid = pid;
	s->pids[s->npids].flags = 0;
	x->h_pids.slot[slot] = ++s->npids;
	return &s->pids[s->npids - 1];
}

/* Index of query q in queries[], inserted; -1 when full. */
static int64_t
sb_query(sb_second *x, uint64_t q)
{
	pgwt_tf_second *s = &x->s;
	int64_t		found;
	uint32_t	slot;

#define SB_EQ_Q(i) (s->queries[i] == q)
	SB_LOOKUP(&x->h_queries, q, 1, SB_EQ_Q, found, slot);
	if (found >= 0)
		return found;
	if (s->nqueries >= PGWT_TF_SUM_MAX_QUERIES)
		return -1;
	s->queries[s->nqueries] = q;
	x->h_queries.slot[slot] = ++s->nqueries;
	return s->nqueries - 1;
}

/*
 * (key, event) pairs. The pair is looked up first: when it is listed, its
 * key and event are too (entries are never removed within a second), so
 * the key's and the event's own lookups are needed only to insert.
 */
static inline int64_t
sb_pair_find(const sb_hash *h, const pgwt_tf_sum_pair *arr, uint64_t key, uint32_t ev,
			 uint32_t *slot)
{
	int64_t		found;

#define SB_EQ_PAIR(i) (arr[i].key == key && arr[i].event == ev)
	SB_LOOKUP(h, key, ev, SB_EQ_PAIR, found, *slot);
	return found;
}

/* Inserts into the empty slot sb_pair_find gave (no insert into h since). */
static pgwt_tf_sum_stat *
sb_pair_add(sb_hash *h, pgwt_tf_sum_pair *arr, uint32_t *n, uint32_t cap,
			uint64_t *folded, pgwt_tf_sum_stat *other, uint64_t key, uint32_t ev,
			int64_t key_index, const pgwt_tf_sum_event *e, const pgwt_tf_sum_event *events,
			uint32_t slot)
{
	/* a pair refers to its key and event by index: both must be listed */
	if (*n >= cap || key_index < 0 || !e)
	{
		(*folded)++;
		return other;
	}
	memset(&arr[*n], 0, sizeof(arr[0]));
	arr[*n].key = key;
	arr[*n].event = ev;
	arr[*n].key_index = (uint32_t) key_index;
	arr[*n].event_index = (uint32_t) (e - events);
	h->slot[slot] = ++(*n);
	return &arr[*n - 1].st;
}

/* e: the event's entry as sb_event_get(x, ev, false) returns it. */
static inline pgwt_tf_sum_stat *
sb_pid_event_e(sb_second *x, uint32_t pid, uint32_t ev, const pgwt_tf_sum_event *e)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	slot;
	int64_t		found = sb_pair_find(&x->h_pid_events, s->pid_events, pid, ev, &slot);
	pgwt_tf_sum_pid *p;

	if (found >= 0)
		return &s->pid_events[found].st;
	p = sb_pid(x, pid);
	return sb_pair_add(&x->h_pid_events, s->pid_events, &s->npid_events,
					   PGWT_TF_SUM_MAX_PID_EVENTS, &s->c.folded_pid_events,
					   &s->other_pid_event, pid, ev, p ? p - s->pids : -1, e, s->events,
					   slot);
}

static inline pgwt_tf_sum_stat *
sb_query_event_e(sb_second *x, uint64_t q, uint32_t ev, const pgwt_tf_sum_event *e)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	slot;
	int64_t		found = sb_pair_find(&x->h_query_events, s->query_events, q, ev, &slot);

	if (found >= 0)
		return &s->query_events[found].st;
	return sb_pair_add(&x->h_query_events, s->query_events, &s->nquery_events,
					   PGWT_TF_SUM_MAX_QUERY_EVENTS, &s->c.folded_query_events,
					   &s->other_query_event, q, ev, sb_query(x, q), e, s->events, slot);
}

/* The same when the event's entry is not at hand (the minute rollup). */
static pgwt_tf_sum_stat *
sb_pid_event(sb_second *x, uint32_t pid, uint32_t ev)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	slot;
	int64_t		found = sb_pair_find(&x->h_pid_events, s->pid_events, pid, ev, &slot);
	pgwt_tf_sum_pid *p;

	if (found >= 0)
		return &s->pid_events[found].st;
	/* the key first, then the event: the order of their insertions */
	p = sb_pid(x, pid);
	return sb_pair_add(&x->h_pid_events, s->pid_events, &s->npid_events,
					   PGWT_TF_SUM_MAX_PID_EVENTS, &s->c.folded_pid_events,
					   &s->other_pid_event, pid, ev, p ? p - s->pids : -1,
					   sb_event_get(x, ev, false), s->events, slot);
}

static pgwt_tf_sum_stat *
sb_query_event(sb_second *x, uint64_t q, uint32_t ev)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	slot;
	int64_t		found = sb_pair_find(&x->h_query_events, s->query_events, q, ev, &slot);
	int64_t		qi;

	if (found >= 0)
		return &s->query_events[found].st;
	qi = sb_query(x, q);
	return sb_pair_add(&x->h_query_events, s->query_events, &s->nquery_events,
					   PGWT_TF_SUM_MAX_QUERY_EVENTS, &s->c.folded_query_events,
					   &s->other_query_event, q, ev, qi, sb_event_get(x, ev, false),
					   s->events, slot);
}

static void
sb_stat_exact(pgwt_tf_sum_stat *st, uint64_t ns, uint64_t full_ns)
{
	st->exact_ns += ns;
	if (full_ns < st->min_ns || st->waits == 0)
		st->min_ns = full_ns;
	st->waits++;
	st->completed_ns += full_ns;
	if (full_ns > st->max_ns)
		st->max_ns = full_ns;
}

static void
sb_stat_sampled(pgwt_tf_sum_stat *st, uint64_t ns)
{
	st->sampled_ns += ns;
	st->samples++;
}

/* ---- seconds ------------------------------------------------------------- */

static bool
sb_in_span(const pgwt_tf_sum_builder *b, uint64_t ts)
{
	unsigned	i;

	if (b->esc_open && ts >= b->esc_from)
		return true;
	for (i = 0; i < b->nspans; i++)
		if (ts >= b->span_from[i] && ts < b->span_to[i])
			return true;
	return false;
}

static void
sb_set_flags(pgwt_tf_sum_builder *b, pgwt_tf_second *s)
{
	if (s->c.exact_records)
		s->flags |= PGWT_TF_SUM_F_EXACT;
	if (s->c.sample_records)
		s->flags |= PGWT_TF_SUM_F_SAMPLED;
	if (sb_in_span(b, s->sec_ts))
		s->flags |= PGWT_TF_SUM_F_ESC_AT_START;
	if (sb_in_span(b, s->sec_ts + s->span_ns - 1))
		s->flags |= PGWT_TF_SUM_F_ESC_AT_END;
}

static void
sb_stat_add(pgwt_tf_sum_stat *d, const pgwt_tf_sum_stat *a)
{
	if (a->waits > 0 && (d->waits == 0 || a->min_ns < d->min_ns))
		d->min_ns = a->min_ns;
	d->waits += a->waits;
	d->exact_ns += a->exact_ns;
	d->completed_ns += a->completed_ns;
	if (a->max_ns > d->max_ns)
		d->max_ns = a->max_ns;
	d->sampled_ns += a->sampled_ns;
	d->samples += a->samples;
}

static void
sb_cover(pgwt_tf_second *s, uint64_t lo, uint64_t hi)
{
	if (lo < s->cover_lo)
		s->cover_lo = lo;
	if (hi > s->cover_hi)
		s->cover_hi = hi;
}

/*
 * Adds written second s to the minute rollup m: the same billing over 60
 * seconds. A crossing's part inside the minute becomes time of its keys
 * (its wait was counted in s); the rest stays a crossing of the minute.
 */
static void
sb_merge_minute(sb_second *m, const pgwt_tf_second *s)
{
	pgwt_tf_second *ms = &m->s;
	uint64_t	mstart = s->sec_ts - s->sec_ts % PGWT_TF_SUM_MINUTE_NS;
	uint32_t	i;

	if (!m->used)
	{
		sb_second_reset(m, mstart);
		ms->span_ns = PGWT_TF_SUM_MINUTE_NS;
	}
	ms->c.exact_records += s->c.exact_records;
	ms->c.sample_records += s->c.sample_records;
	ms->c.markers += s->c.markers;
	ms->c.esc_markers += s->c.esc_markers;
	ms->c.late_records += s->c.late_records;
	ms->c.folded_events += s->c.folded_events;
	ms->c.folded_pids += s->c.folded_pids;
	ms->c.folded_pid_events += s->c.folded_pid_events;
	ms->c.folded_query_events += s->c.folded_query_events;
	ms->c.folded_crossings += s->c.folded_crossings;
	sb_stat_add(&ms->other_event, &s->other_event);
	sb_stat_add(&ms->other_pid_event, &s->other_pid_event);
	sb_stat_add(&ms->other_query_event, &s->other_query_event);
	if (s->cover_lo <= s->cover_hi)
		sb_cover(ms, s->cover_lo, s->cover_hi);
	for (i = 0; i < s->nevents; i++)
	{
		const pgwt_tf_sum_event *e = &s->events[i];
		pgwt_tf_sum_event *me = sb_event(m, e->event);
		unsigned	k;

		if (!me)
		{
			sb_stat_add(&ms->other_event, &e->st);
			continue;
		}
		sb_stat_add(&me->st, &e->st);
		me->superseded_ns += e->superseded_ns;
		me->superseded_samples += e->superseded_samples;
		for (k = 0; k < PGWT_TF_US_BUCKETS; k++)
			me->hist_us[k] += e->hist_us[k];
		for (k = 0; k < PGWT_HIST_NS_BUCKETS; k++)
			me->hist_ns[k] += e->hist_ns[k];
	}
	for (i = 0; i < s->npids; i++)
	{
		pgwt_tf_sum_pid *p = sb_pid(m, s->pids[i].pid);

		if (p)
			p->flags |= s->pids[i].flags;
	}
	for (i = 0; i < s->npid_events; i++)
		sb_stat_add(sb_pid_event(m, (uint32_t) s->pid_events[i].key, s->pid_events[i].event),
					&s->pid_events[i].st);
	for (i = 0; i < s->nquery_events; i++)
		sb_stat_add(sb_query_event(m, s->query_events[i].key, s->query_events[i].event),
					&s->query_events[i].st);
	for (i = 0; i < s->ncrossings; i++)
	{
		const pgwt_tf_sum_crossing *c = &s->crossings[i];
		uint64_t	room = s->sec_ts - mstart;
		pgwt_tf_sum_stat t = {0};
		pgwt_tf_sum_event *me;

		t.exact_ns = c->ns < room ? c->ns : room;
		if (t.exact_ns > 0)
		{
			if ((me = sb_event(m, c->event)) != NULL)
				sb_stat_add(&me->st, &t);
			else
				sb_stat_add(&ms->other_event, &t);
			(void) sb_pid(m, c->pid);
			sb_stat_add(sb_pid_event(m, c->pid, c->event), &t);
			sb_stat_add(sb_query_event(m, c->query_id, c->event), &t);
			sb_cover(ms, s->sec_ts - t.exact_ns, s->sec_ts);
		}
		if (c->ns > room)
		{
			if (ms->ncrossings < PGWT_TF_SUM_MAX_CROSSINGS)
			{
				pgwt_tf_sum_crossing *mc = &ms->crossings[ms->ncrossings++];

				*mc = *c;
				mc->ns = c->ns - room;
			}
			else
				ms->c.folded_crossings++;
		}
	}
}

static int
sb_emit_minute(pgwt_tf_sum_builder *b)
{
	pgwt_tf_second *ms = &b->minute.s;

	if (!b->minute.used)
		return 0;
	sb_set_flags(b, ms);
	ms->flags |= PGWT_TF_SUM_F_MINUTE;
	b->minute.used = false;
	return b->cb(ms, b->arg);
}

static int
sb_emit(pgwt_tf_sum_builder *b, sb_second *x)
{
	pgwt_tf_second *s = &x->s;
	int			rc;

	s->c.late_records += b->late_pending;
	b->late_pending = 0;
	sb_set_flags(b, s);
	x->used = false;
	if (s->sec_ts + PGWT_TF_SUM_SECOND_NS > b->written_up_to)
		b->written_up_to = s->sec_ts + PGWT_TF_SUM_SECOND_NS;
	if ((rc = b->cb(s, b->arg)) != 0)
		return rc;
	if (b->minute.used &&
		b->minute.s.sec_ts != s->sec_ts - s->sec_ts % PGWT_TF_SUM_MINUTE_NS &&
		(rc = sb_emit_minute(b)) != 0)
		return rc;
	sb_merge_minute(&b->minute, s);
	return 0;
}

/* Emit, oldest first, every open second ending at or before limit. */
static int
sb_close_until(pgwt_tf_sum_builder *b, uint64_t limit)
{
	for (;;)
	{
		sb_second  *oldest = NULL;
		int			i,
					rc;

		for (i = 0; i < SB_NOPEN; i++)
		{
			sb_second  *x = &b->sec[i];

			if (x->used && x->s.sec_ts + PGWT_TF_SUM_SECOND_NS <= limit &&
				(!oldest || x->s.sec_ts < oldest->s.sec_ts))
				oldest = x;
		}
		if (!oldest)
			return 0;
		if ((rc = sb_emit(b, oldest)) != 0)
			return rc;
	}
}

/* The open second holding ts, or NULL when it was already written. */
static int
sb_second_for(pgwt_tf_sum_builder *b, uint64_t ts, sb_second **out)
{
	uint64_t	sec = ts - ts % PGWT_TF_SUM_SECOND_NS;
	sb_second  *x = &b->sec[(sec / PGWT_TF_SUM_SECOND_NS) % SB_NOPEN];
	int			rc;

	*out = NULL;
	if (sec < b->written_up_to)
	{
		b->late_pending++;
		return 0;
	}
	if (x->used && x->s.sec_ts != sec)
	{
		/* its slot holds an older second (max_ts moved past it) or a
		 * newer one (then ts is too far behind): emit what is older */
		if (x->s.sec_ts > sec)
		{
			b->late_pending++;
			return 0;
		}
		if ((rc = sb_close_until(b, x->s.sec_ts + PGWT_TF_SUM_SECOND_NS)) != 0)
			return rc;
	}
	if (!x->used)
		sb_second_reset(x, sec);
	*out = x;
	return 0;
}

static void
sb_add_transition(pgwt_tf_sum_builder *b, sb_second *x, const pgwt_record *r)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	ev = r->old_event;
	uint64_t	end = r->ts_ns;
	uint64_t	start = r->duration_ns > end ? 0 : end - r->duration_ns;
	uint64_t	lo = start > s->sec_ts ? start : s->sec_ts;
	uint64_t	ns = end - lo;
	pgwt_tf_sum_event *e;
	pgwt_tf_sum_pid *p;
	pgwt_tf_sum_stat *st;

	if (PGWT_IS_MARKER(r->new_event))
	{
		s->c.markers++;
		if (r->new_event == PGWT_MARKER_ESC_START && !b->esc_open)
		{
			b->esc_open = true;
			b->esc_from = r->ts_ns;
			s->c.esc_markers++;
		}
		else if (r->new_event == PGWT_MARKER_ESC_END && b->esc_open)
		{
			unsigned	i = (b->span_head + b->nspans) % SB_SPANS;

			if (b->nspans == SB_SPANS)
			{
				b->span_head = (b->span_head + 1) % SB_SPANS;
				b->nspans--;
			}
			b->span_from[i] = b->esc_from;
			b->span_to[i] = r->ts_ns;
			b->nspans++;
			b->esc_open = false;
			s->c.esc_markers++;
		}
		return;
	}
	if (ev == PGWT_EVENT_EXIT || PGWT_IS_MARKER(ev))
		return;
	s->c.exact_records++;
	if ((e = sb_event(x, ev)) != NULL)
	{
		sb_stat_exact(&e->st, ns, r->duration_ns);
		e->hist_us[pgwt_tf_us_bucket(r->duration_ns)]++;
		e->hist_ns[pgwt_hist_ns_bucket(r->duration_ns)]++;
	}
	else
		sb_stat_exact(&s->other_event, ns, r->duration_ns);
	if ((p = sb_pid(x, r->pid)) != NULL && r->new_event == PGWT_EVENT_EXIT)
		p->flags |= PGWT_TF_SUM_PID_EXITED;
	st = sb_pid_event_e(x, r->pid, ev, e);
	sb_stat_exact(st, ns, r->duration_ns);
	st = sb_query_event_e(x, r->query_id, ev, e);
	sb_stat_exact(st, ns, r->duration_ns);
	if (ns > 0)
		sb_cover(s, lo, end);
	if (start < s->sec_ts)
	{
		if (s->ncrossings < PGWT_TF_SUM_MAX_CROSSINGS)
		{
			pgwt_tf_sum_crossing *c = &s->crossings[s->ncrossings++];

			c->pid = r->pid;
			c->event = ev;
			c->query_id = r->query_id;
			c->ns = s->sec_ts - start;
		}
		else
			s->c.folded_crossings++;
	}
}

static void
sb_add_sample(pgwt_tf_sum_builder *b, sb_second *x, const pgwt_record *r)
{
	pgwt_tf_second *s = &x->s;
	uint32_t	ev = r->new_event;
	uint64_t	w = r->weight_ns;
	pgwt_tf_sum_event *e;
	pgwt_tf_sum_stat *st;
	sb_hot	   *hot;

	if (ev == PGWT_EVENT_EXIT || PGWT_IS_MARKER(ev) || w == 0)
		return;
	if (sb_in_span(b, r->ts_ns))
	{
		if ((e = sb_event(x, ev)) != NULL)
		{
			e->superseded_ns += w;
			e->superseded_samples++;
		}
		return;
	}
	s->c.sample_records++;
	hot = &b->hot[(r->pid * 0x9E3779B1u) >> (32 - SB_HOT_BITS)];
	if (hot->x == x && hot->gen == x->gen && hot->pid == r->pid &&
		hot->event == ev && hot->query_id == r->query_id)
	{
		sb_stat_sampled(hot->ev_st, w);
		sb_stat_sampled(hot->pid_ev_st, w);
		sb_stat_sampled(hot->query_ev_st, w);
	}
	else
	{
		pgwt_tf_sum_stat *qst;

		if ((e = sb_event(x, ev)) != NULL)
			sb_stat_sampled(&e->st, w);
		else
			sb_stat_sampled(&s->other_event, w);
		st = sb_pid_event_e(x, r->pid, ev, e);
		sb_stat_sampled(st, w);
		qst = sb_query_event_e(x, r->query_id, ev, e);
		sb_stat_sampled(qst, w);
		if (e && st != &s->other_pid_event && qst != &s->other_query_event)
		{
			hot->x = x;
			hot->gen = x->gen;
			hot->pid = r->pid;
			hot->event = ev;
			hot->query_id = r->query_id;
			hot->ev_st = &e->st;
			hot->pid_ev_st = st;
			hot->query_ev_st = qst;
		}
	}
	sb_cover(s, r->ts_ns > w ? r->ts_ns - w : 0, r->ts_ns);
}

int
pgwt_tf_sum_builder_add(pgwt_tf_sum_builder *b, const pgwt_record *rec)
{
	sb_second  *x;
	int			rc;

	if (rec->ts_ns > b->max_ts)
	{
		b->max_ts = rec->ts_ns;
		if (b->max_ts >= PGWT_TF_SUM_LAG_NS &&
			(rc = sb_close_until(b, b->max_ts - PGWT_TF_SUM_LAG_NS)) != 0)
			return rc;
	}
	/* Records come in bursts of one second: while the previous record's
	 * second is open and holds ts, it is the one sb_second_for finds. */
	x = b->last;
	if (!x || !x->used || rec->ts_ns - x->s.sec_ts >= PGWT_TF_SUM_SECOND_NS)
	{
		if ((rc = sb_second_for(b, rec->ts_ns, &x)) != 0)
			return rc;
		if (!x)
			return 0;
		b->last = x;
	}
	if (rec->kind == PGWT_REC_TRANSITION)
		sb_add_transition(b, x, rec);
	else if (rec->kind == PGWT_REC_SAMPLE)
		sb_add_sample(b, x, rec);
	return 0;
}

int
pgwt_tf_sum_builder_finish(pgwt_tf_sum_builder *b)
{
	int			rc = sb_close_until(b, UINT64_MAX);

	return rc != 0 ? rc : sb_emit_minute(b);
}
