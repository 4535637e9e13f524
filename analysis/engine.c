/*
 * engine.c
 *		Streaming aggregation of records into per-window tables
 *		(see engine.h for the accounting rules).
 *
 * All memory is allocated in pgwt_engine_create(); adding records never
 * allocates. The engine is single-threaded: callers serialise access.
 */
#include "analysis/engine_internal.h"
#include "analysis/exact_internal.h"
#include "analysis/hist_probe.h"
#include "analysis/series.h"
#include "analysis/span_cut.h"
#include "common/process_rule.h"

#include <stdlib.h>
#include <string.h>

#define ENGINE_DEF_EVENTS			1024
#define ENGINE_DEF_SESSIONS			4096
#define ENGINE_DEF_SESSION_EVENTS	32768
#define ENGINE_DEF_QUERY_EVENTS		65536
#define ENGINE_DEF_BACKENDS			8192
#define ENGINE_DEF_SPANS			1024
#define ENGINE_DEF_PENDING			65536
#define ENGINE_DEF_REORDER_NS		(11ull * 1000000000ull)
#define ENGINE_MAX_CAP				(1u << 26)

/* ---- creation ------------------------------------------------------------ */

/*
 * The event of no key the cache is asked for (an exit bills nothing, and
 * samples and transitions of one are refused before): the pid_event of
 * an entry that holds no valid key, so a probe needs no test of valid.
 */
#define ENGINE_KEY_NONE PGWT_EVENT_EXIT

static void
engine_cache_clear(window_agg *wa)
{
	memset(wa->event_memo, 0, sizeof(wa->event_memo));
	memset(wa->session_memo, 0, sizeof(wa->session_memo));
	memset(wa->cache, 0, sizeof(wa->cache));
	memset(wa->cache_lru, 0, sizeof(wa->cache_lru));
	for (unsigned i = 0; i < ENGINE_KEY_CACHE; i++)
		wa->cache[i].pid_event = ENGINE_KEY_NONE;
}

static unsigned
engine_cap(unsigned v, unsigned def)
{
	return v == 0 ? def : v;
}

pgwt_engine *
pgwt_engine_create(const pgwt_engine_config *cfg, const pgwt_window_spec *windows,
				   int nwindows, const char **err)
{
	pgwt_engine *eng;
	const char *dummy;
	bool		ok = true;
	size_t		key_size;

	if (!err)
		err = &dummy;
	if (nwindows < 1 || nwindows > PGWT_MAX_WINDOWS || !windows)
	{
		*err = "the number of windows must be 1..8";
		return NULL;
	}
	for (int w = 0; w < nwindows; w++)
		if (windows[w].from_ns >= windows[w].to_ns)
		{
			*err = "a window must end after it starts";
			return NULL;
		}
	eng = calloc(1, sizeof(*eng));
	if (!eng)
	{
		*err = "out of memory";
		return NULL;
	}
	if (cfg)
		eng->cfg = *cfg;
	eng->cfg.max_events = engine_cap(eng->cfg.max_events, ENGINE_DEF_EVENTS);
	eng->cfg.max_sessions = engine_cap(eng->cfg.max_sessions, ENGINE_DEF_SESSIONS);
	eng->cfg.max_session_events = engine_cap(eng->cfg.max_session_events, ENGINE_DEF_SESSION_EVENTS);
	eng->cfg.max_query_events = engine_cap(eng->cfg.max_query_events, ENGINE_DEF_QUERY_EVENTS);
	eng->cfg.max_backends = engine_cap(eng->cfg.max_backends, ENGINE_DEF_BACKENDS);
	eng->cfg.max_exact_spans = engine_cap(eng->cfg.max_exact_spans, ENGINE_DEF_SPANS);
	eng->cfg.max_pending_samples = engine_cap(eng->cfg.max_pending_samples, ENGINE_DEF_PENDING);
	if (eng->cfg.sample_reorder_ns == 0)
		eng->cfg.sample_reorder_ns = ENGINE_DEF_REORDER_NS;
	if (eng->cfg.max_events > ENGINE_MAX_CAP || eng->cfg.max_sessions > ENGINE_MAX_CAP ||
		eng->cfg.max_session_events > ENGINE_MAX_CAP || eng->cfg.max_query_events > ENGINE_MAX_CAP ||
		eng->cfg.max_backends > ENGINE_MAX_CAP || eng->cfg.max_exact_spans > ENGINE_MAX_CAP ||
		eng->cfg.max_pending_samples > ENGINE_MAX_CAP)
	{
		free(eng);
		*err = "a table cap is too large";
		return NULL;
	}
	eng->nwindows = nwindows;
	key_size = eng->cfg.key_histograms ? sizeof(pgwt_key_stat) : sizeof(pgwt_stat);
	for (int w = 0; w < nwindows; w++)
	{
		window_agg *wa = &eng->win[w];

		wa->spec = windows[w];
		wa->spec.label[sizeof(wa->spec.label) - 1] = '\0';
		wa->data_first_ns = UINT64_MAX;
		wa->backends = &eng->backends;
		wa->key_histograms = eng->cfg.key_histograms;
		engine_cache_clear(wa);
		ok = ok && pgwt_agg_init(&wa->events, eng->cfg.max_events, sizeof(pgwt_event_stat));
		ok = ok && pgwt_agg_init(&wa->sessions, eng->cfg.max_sessions, sizeof(pgwt_session_stat));
		ok = ok && pgwt_agg_init(&wa->session_events, eng->cfg.max_session_events, key_size);
		ok = ok && pgwt_agg_init(&wa->query_events, eng->cfg.max_query_events, key_size);
	}
	ok = ok && pgwt_agg_init(&eng->backends, eng->cfg.max_backends, sizeof(pgwt_backend_info));
	eng->span_from = calloc(eng->cfg.max_exact_spans, sizeof(uint64_t));
	eng->span_to = calloc(eng->cfg.max_exact_spans, sizeof(uint64_t));
	eng->span_maxto = calloc(eng->cfg.max_exact_spans, sizeof(uint64_t));
	eng->pending = calloc(eng->cfg.max_pending_samples, sizeof(pgwt_record));
	eng->drain_at = UINT64_MAX;
	if (ok && eng->cfg.exact_analysis && !(eng->exact = pgwt_exact_create(eng)))
	{
		pgwt_engine_free(eng);
		*err = "out of memory, or an exact-analysis cap out of range";
		return NULL;
	}
	if (!ok || !eng->span_from || !eng->span_to || !eng->span_maxto || !eng->pending)
	{
		pgwt_engine_free(eng);
		*err = "out of memory";
		return NULL;
	}
	return eng;
}

void
pgwt_engine_free(pgwt_engine *eng)
{
	if (!eng)
		return;
	for (int w = 0; w < PGWT_MAX_WINDOWS; w++)
	{
		pgwt_agg_free(&eng->win[w].events);
		pgwt_agg_free(&eng->win[w].sessions);
		pgwt_agg_free(&eng->win[w].session_events);
		pgwt_agg_free(&eng->win[w].query_events);
	}
	pgwt_agg_free(&eng->backends);
	pgwt_exact_free(eng->exact, eng->nwindows);
	free(eng->span_from);
	free(eng->span_to);
	free(eng->span_maxto);
	free(eng->pending);
	free(eng);
}

void
pgwt_engine_reset(pgwt_engine *eng)
{
	for (int w = 0; w < eng->nwindows; w++)
	{
		window_agg *wa = &eng->win[w];

		pgwt_agg_clear(&wa->events);
		pgwt_agg_clear(&wa->sessions);
		pgwt_agg_clear(&wa->session_events);
		pgwt_agg_clear(&wa->query_events);
		wa->exact_records = wa->sample_records = 0;
		wa->data_first_ns = UINT64_MAX;
		wa->data_last_ns = 0;
		memset(wa->classes, 0, sizeof(wa->classes));
		memset(&wa->db, 0, sizeof(wa->db));
		memset(&wa->idle, 0, sizeof(wa->idle));
		memset(&wa->background, 0, sizeof(wa->background));
		memset(&wa->background_idle, 0, sizeof(wa->background_idle));
		memset(&wa->background_queries, 0, sizeof(wa->background_queries));
		engine_cache_clear(wa);
	}
	if (eng->exact)
		pgwt_exact_reset(eng->exact, eng->nwindows);
	eng->nspans = 0;
	eng->span_open = false;
	eng->pending_head = eng->pending_n = 0;
	eng->drain_at = UINT64_MAX;
	eng->max_ts_seen = 0;
	{
		uint64_t	dropped = eng->counters.backends_dropped;

		memset(&eng->counters, 0, sizeof(eng->counters));
		eng->counters.backends_dropped = dropped;
	}
}

/* ---- metadata -------------------------------------------------------------- */

bool
pgwt_engine_set_backend(pgwt_engine *eng, const pgwt_backend_info *info)
{
	pgwt_backend_info *b = pgwt_agg_get(&eng->backends, info->pid, 0);

	if (b == (pgwt_backend_info *) eng->backends.other)
	{
		eng->counters.backends_dropped++;
		return false;
	}
	*b = *info;
	b->type[PGWT_BACKEND_STR - 1] = b->user[PGWT_BACKEND_STR - 1] = '\0';
	b->database[PGWT_BACKEND_STR - 1] = b->application[PGWT_BACKEND_STR - 1] = '\0';
	b->client_addr[PGWT_BACKEND_STR - 1] = '\0';
	b->background = !pgwt_kind_is_session(pgwt_proc_kind_of_type(b->type));
	return true;
}

const pgwt_backend_info *
pgwt_engine_backend(const pgwt_engine *eng, uint32_t pid)
{
	int			s = pgwt_agg_find(&eng->backends, pid, 0);

	return s < 0 ? NULL : agg_value(&eng->backends, (unsigned) s);
}

bool
pgwt_engine_has_background(const pgwt_engine *eng)
{
	for (unsigned i = 0; i < eng->backends.n; i++)
		if (((const pgwt_backend_info *) agg_value(&eng->backends, eng->backends.order[i]))->background)
			return true;
	return false;
}

const pgwt_engine_counters *
pgwt_engine_counters_get(const pgwt_engine *eng)
{
	return &eng->counters;
}

int
pgwt_engine_nwindows(const pgwt_engine *eng)
{
	return eng->nwindows;
}

const pgwt_window_spec *
pgwt_engine_window(const pgwt_engine *eng, int w)
{
	return (w >= 0 && w < eng->nwindows) ? &eng->win[w].spec : NULL;
}

void
pgwt_engine_set_series(pgwt_engine *eng, struct pgwt_series *s)
{
	eng->series = s;
}

void
pgwt_engine_set_hist_probe(pgwt_engine *eng, struct pgwt_hist_probe *p)
{
	eng->hist_probe = p;
}

/* Is pid a background process (by its metadata; none given: no)? The
 * empty table is told first, so a trace without metadata probes none. */
static bool
engine_backends_background(const agg_table *backends, uint32_t pid)
{
	int			b;

	if (backends->n == 0)
		return false;
	b = pgwt_agg_find(backends, pid, 0);
	return b >= 0 && ((const pgwt_backend_info *) agg_value(backends, (unsigned) b))->background;
}

/* The series' share of a wait or a sample: class time for a session's
 * non-idle time, as the windows' classes[] (key_sync) */
static void
engine_series_bill(pgwt_engine *eng, const pgwt_record *r, uint32_t ev, uint64_t start)
{
	bool		db = !pgwt_event_is_idle(ev) && !engine_backends_background(&eng->backends, r->pid);

	if (r->kind == PGWT_REC_SAMPLE)
		pgwt_series_bill_sample(eng->series, ev, r->ts_ns, r->weight_ns, db);
	else
		pgwt_series_bill_wait(eng->series, ev, start, r->ts_ns, db);
}

/* ---- exact spans ----------------------------------------------------------- */

/* span_maxto from index i on (after a change there) */
static void
engine_spans_remax(pgwt_engine *eng, unsigned i)
{
	for (; i < eng->nspans; i++)
		eng->span_maxto[i] = i > 0 && eng->span_maxto[i - 1] > eng->span_to[i]
			? eng->span_maxto[i - 1] : eng->span_to[i];
}

void
pgwt_engine_add_exact_span(pgwt_engine *eng, uint64_t from_ns, uint64_t to_ns)
{
	unsigned	pos;

	if (from_ns >= to_ns)
		return;
	if (eng->nspans == eng->cfg.max_exact_spans)
	{
		/* forget the oldest: its samples are most likely already read */
		memmove(eng->span_from, eng->span_from + 1, (eng->nspans - 1) * sizeof(uint64_t));
		memmove(eng->span_to, eng->span_to + 1, (eng->nspans - 1) * sizeof(uint64_t));
		eng->nspans--;
		eng->counters.spans_forgotten++;
		engine_spans_remax(eng, 0);
	}
	pos = eng->nspans;
	while (pos > 0 && eng->span_from[pos - 1] > from_ns)
		pos--;
	memmove(eng->span_from + pos + 1, eng->span_from + pos, (eng->nspans - pos) * sizeof(uint64_t));
	memmove(eng->span_to + pos + 1, eng->span_to + pos, (eng->nspans - pos) * sizeof(uint64_t));
	eng->span_from[pos] = from_ns;
	eng->span_to[pos] = to_ns;
	eng->nspans++;
	engine_spans_remax(eng, pos);
}

static bool
engine_in_exact_span(const pgwt_engine *eng, uint64_t ts)
{
	unsigned	lo = 0,
				hi = eng->nspans;

	if (eng->span_open && ts >= eng->span_open_from)
		return true;
	/* most samples lie after every span: one compare, no search */
	if (hi == 0 || eng->span_maxto[hi - 1] <= ts)
		return false;
	/* the spans starting at or before ts: [0, lo) */
	while (lo < hi)
	{
		unsigned	mid = lo + (hi - lo) / 2;

		if (eng->span_from[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* no span starting at or before ts reaches past it */
	if (lo == 0 || eng->span_maxto[lo - 1] <= ts)
		return false;
	/* spans rarely overlap: a few steps back cover the nested ones */
	for (unsigned steps = 0; lo > 0 && steps < 8; steps++)
	{
		lo--;
		if (ts < eng->span_to[lo])
			return true;
	}
	return false;
}

/* ---- billing ----------------------------------------------------------------- */

static inline void
stat_exact(pgwt_stat *st, uint64_t ns, bool counted, uint64_t full_ns)
{
	st->exact_ns += ns;
	if (counted)
	{
		if (full_ns < st->min_ns || st->waits == 0)
			st->min_ns = full_ns;
		st->waits++;
		st->completed_ns += full_ns;
		if (full_ns > st->max_ns)
			st->max_ns = full_ns;
	}
}

static inline void
stat_sampled(pgwt_stat *st, uint64_t ns)
{
	st->sampled_ns += ns;
	st->samples++;
}

static inline void
stat_add(pgwt_stat *st, const pgwt_stat *a)
{
	if (a->waits > 0 && (st->waits == 0 || a->min_ns < st->min_ns))
		st->min_ns = a->min_ns;
	st->waits += a->waits;
	st->exact_ns += a->exact_ns;
	st->completed_ns += a->completed_ns;
	if (a->max_ns > st->max_ns)
		st->max_ns = a->max_ns;
	st->sampled_ns += a->sampled_ns;
	st->samples += a->samples;
}

/*
 * Where a key's window-wide time goes (common/process_rule.h): a
 * session's into DB time (or idle), a background process's apart.
 */
static inline pgwt_stat *
window_total(window_agg *wa, const key_cache *c)
{
	if (c->background)
		return c->idle ? &wa->background_idle : &wa->background;
	return c->idle ? &wa->idle : &wa->db;
}

/* The event's background share, for ns more of a key's time. */
static inline void
window_split(const key_cache *c, uint64_t ns)
{
	if (c->background && !c->idle)
		c->event_stat->background_ns += ns;
}

/* An empty acc: zeros, and the minimum at its identity, so a wait billed
 * to acc takes the smaller of two without testing waits first */
static inline void
key_acc_clear(key_cache *c)
{
	memset(&c->acc, 0, sizeof(c->acc));
	c->acc.min_ns = UINT64_MAX;
	c->whole_ns = 0;
}

/* Add a cached key's accumulated time to its tables. */
static void
key_sync(window_agg *wa, key_cache *c)
{
	pgwt_stat  *a = &c->acc;

	if (!c->hot)
		return;					/* its acc is unused, so empty */
	a->exact_ns += c->whole_ns;
	a->completed_ns += c->whole_ns;
	c->whole_ns = 0;
	/* nothing owed (a billed record counts a wait, time or a sample) */
	if ((a->waits | a->exact_ns | a->sampled_ns | a->samples) == 0)
		return;
	stat_add(&c->event_stat->st, a);
	stat_add(window_total(wa, c), a);
	window_split(c, a->exact_ns + a->sampled_ns);
	if (c->idle)
		stat_add(&c->session->idle, a);
	else
	{
		if (!c->background)
			stat_add(&wa->classes[c->class_index], a);
		stat_add(&c->session->db, a);
		if (pgwt_event_is_cpu(c->event))
			stat_add(&c->session->cpu, a);
	}
	stat_add(c->session_event, a);
	stat_add(c->query_event, a);
	key_acc_clear(c);
}

const window_agg *
engine_window(const pgwt_engine *eng, int w)
{
	window_agg *wa;

	if (w < 0 || w >= eng->nwindows)
		return NULL;
	wa = (window_agg *) &eng->win[w];
	for (unsigned i = 0; i < ENGINE_KEY_CACHE; i++)
		key_sync(wa, &wa->cache[i]);
	return wa;
}

/* The value of (key, 0) in t, through memo m (engine_memo). */
static inline void *
engine_memo_get(agg_table *t, engine_memo *m, uint64_t key)
{
	engine_memo *e = &m[(key * 0x9E3779B97F4A7C15ull) >> (64 - ENGINE_MEMO_BITS)];
	void	   *v;

	if (e->value && e->key == key)
		return e->value;
	v = pgwt_agg_get(t, key, 0);
	if (v != (void *) t->other)
	{
		e->key = key;
		e->value = v;
	}
	return v;
}

/* The cache missed: look the key up in the four tables. */
__attribute__((noinline)) key_cache *
window_keys_fill(window_agg *wa, key_cache *c, uint32_t pid, uint32_t ev, uint64_t query_id)
{
	key_sync(wa, c);
	key_acc_clear(c);			/* also after a reset zeroed the cache */
	c->hot = false;
	c->idle = pgwt_event_is_idle(ev);
	c->class_index = (uint8_t) pgwt_event_class(ev);
	c->pid = pid;
	c->event = ev;
	c->pid_event = (uint64_t) pid << 32 | ev;
	c->query_id = query_id;
	c->background = engine_backends_background(wa->backends, pid);
	c->event_stat = engine_memo_get(&wa->events, wa->event_memo, ev);
	c->session = engine_memo_get(&wa->sessions, wa->session_memo, pid);
	c->session_event = pgwt_agg_get(&wa->session_events, pid, ev);
	c->query_event = c->background ? &wa->background_queries :
		pgwt_agg_get(&wa->query_events, query_id, ev);
	c->valid = (void *) c->event_stat != (void *) wa->events.other &&
		(void *) c->session != (void *) wa->sessions.other &&
		(void *) c->session_event != (void *) wa->session_events.other &&
		(void *) c->query_event != (void *) wa->query_events.other;
	if (!c->valid)
		c->pid_event = (uint64_t) pid << 32 | ENGINE_KEY_NONE;
	return c;
}

/* Bill ns of event ev (a wait that ended here if counted) to one
 * window, under key k (window_keys of r's pid and query and ev). The
 * caller counts the record in wa->exact_records. */
static inline __attribute__((always_inline)) void
window_bill_exact_key(window_agg *wa, key_cache *k, const pgwt_record *r, uint32_t ev,
					  uint64_t ns, bool counted, uint64_t full_ns)
{
	if (counted)
	{
		window_bill_hist(wa, k, full_ns, wa->key_histograms);
		if (r->new_event == PGWT_EVENT_EXIT)
			k->session->exited = true;
	}
	if (__builtin_expect(k->hot, 1))
	{
		/* a key seen again: one stat, added to the tables later */
		stat_exact(&k->acc, ns, counted, full_ns);
		return;
	}
	/* a key seen once may never come back: deferring would cost a second
	 * round of cache misses at eviction */
	k->hot = k->valid;
	window_bill_exact_direct(wa, k, ev, ns, counted, full_ns);
}

static inline __attribute__((always_inline)) void
window_bill_exact(window_agg *wa, const pgwt_record *r, uint32_t ev, uint64_t ns,
				  bool counted, uint64_t full_ns)
{
	wa->exact_records++;
	window_bill_exact_key(wa, window_keys(wa, r->pid, ev, r->query_id), r, ev, ns, counted, full_ns);
}

/* A new key, or one folded into "other" somewhere: bill every table now
 * (the key holds its event's idle test and class). */
static inline __attribute__((always_inline)) void
window_bill_exact_steps(window_agg *wa, key_cache *k, uint32_t ev, uint64_t ns,
						bool counted, uint64_t full_ns)
{
	pgwt_event_stat *es = k->event_stat;

	window_split(k, ns);
	stat_exact(window_total(wa, k), ns, counted, full_ns);
	if (k->idle)
		stat_exact(&k->session->idle, ns, counted, full_ns);
	else
	{
		if (!k->background)
			stat_exact(&wa->classes[k->class_index], ns, counted, full_ns);
		stat_exact(&k->session->db, ns, counted, full_ns);
		if (pgwt_event_is_cpu(ev))
			stat_exact(&k->session->cpu, ns, counted, full_ns);
	}
	stat_exact(&es->st, ns, counted, full_ns);
	stat_exact(k->session_event, ns, counted, full_ns);
	stat_exact(k->query_event, ns, counted, full_ns);
}

__attribute__((noinline)) void
window_bill_exact_direct(window_agg *wa, key_cache *k, uint32_t ev, uint64_t ns,
						 bool counted, uint64_t full_ns)
{
	window_bill_exact_steps(wa, k, ev, ns, counted, full_ns);
}

__attribute__((noinline)) void
window_bill_whole_direct(window_agg *wa, key_cache *k, uint32_t ev, uint64_t ns)
{
	window_bill_exact_steps(wa, k, ev, ns, true, ns);
}

static void
window_bill_sample(window_agg *wa, const pgwt_record *r)
{
	uint32_t	ev = r->new_event;
	uint64_t	ns = r->weight_ns;
	key_cache  *k = window_keys(wa, r->pid, ev, r->query_id);

	wa->sample_records++;
	window_cover(wa, r->ts_ns > ns ? r->ts_ns - ns : 0, r->ts_ns);
	if (k->hot)
	{
		stat_sampled(&k->acc, ns);
		return;
	}
	k->hot = k->valid;
	window_split(k, ns);
	stat_sampled(window_total(wa, k), ns);
	if (pgwt_event_is_idle(ev))
		stat_sampled(&k->session->idle, ns);
	else
	{
		if (!k->background)
			stat_sampled(&wa->classes[pgwt_event_class(ev)], ns);
		stat_sampled(&k->session->db, ns);
		if (pgwt_event_is_cpu(ev))
			stat_sampled(&k->session->cpu, ns);
	}
	stat_sampled(&k->event_stat->st, ns);
	stat_sampled(k->session_event, ns);
	stat_sampled(k->query_event, ns);
}

/* inlined into engine_add_one: most records are transitions */
static inline __attribute__((always_inline)) void
engine_add_transition(pgwt_engine *eng, const pgwt_record *r)
{
	uint32_t	ev = r->old_event;
	uint64_t	end = r->ts_ns;
	uint64_t	start = r->duration_ns > end ? 0 : end - r->duration_ns;

	eng->counters.transitions++;
	if (__builtin_expect(PGWT_IS_MARKER(r->new_event), 0))
	{
		eng->counters.markers++;
		if (r->new_event == PGWT_MARKER_ESC_START && !eng->span_open)
		{
			eng->span_open = true;
			eng->span_open_from = r->ts_ns;
		}
		else if (r->new_event == PGWT_MARKER_ESC_END && eng->span_open)
		{
			eng->span_open = false;
			pgwt_engine_add_exact_span(eng, eng->span_open_from, r->ts_ns);
		}
		return;
	}
	/* A backend's first sighting has no previous state to bill. */
	if (__builtin_expect(ev >= PGWT_MARKER_FIRST, 0) && (ev == PGWT_EVENT_EXIT || PGWT_IS_MARKER(ev)))
		return;
	if (eng->exact)
		pgwt_exact_transition(eng, r);
	if (eng->series)
		engine_series_bill(eng, r, ev, start);
	/* counted where window 0 counts it (below) */
	if (eng->hist_probe && end >= eng->win[0].spec.from_ns && end < eng->win[0].spec.to_ns)
		pgwt_hist_probe_add(eng->hist_probe, r->pid, ev, r->query_id,
							engine_backends_background(&eng->backends, r->pid), r->duration_ns);

	for (int w = 0; w < eng->nwindows; w++)
	{
		window_agg *wa = &eng->win[w];
		uint64_t	from = wa->spec.from_ns,
					to = wa->spec.to_ns;
		bool		counted = end >= from && end < to;
		uint64_t	lo,
					hi;
		uint64_t	ns = pgwt_span_cut(start, end, from, to, &lo, &hi);

		if (!counted && ns == 0)
			continue;
		window_bill_exact(wa, r, ev, ns, counted, r->duration_ns);
		if (ns > 0)
			window_cover(wa, lo, hi);
	}
}

/* Bill one sample now: unless an exact span covers it. */
static void
engine_commit_sample(pgwt_engine *eng, const pgwt_record *r)
{
	if (engine_in_exact_span(eng, r->ts_ns))
	{
		eng->counters.superseded_samples++;
		/* kept per event only, to compare the tiers (cross_validate) */
		for (int w = 0; w < eng->nwindows; w++)
		{
			window_agg *wa = &eng->win[w];

			if (r->ts_ns >= wa->spec.from_ns && r->ts_ns < wa->spec.to_ns)
			{
				pgwt_event_stat *es = pgwt_agg_get(&wa->events, r->new_event, 0);

				es->superseded_ns += r->weight_ns;
				es->superseded_samples++;
			}
		}
		return;
	}
	if (eng->series)
		engine_series_bill(eng, r, r->new_event, r->ts_ns);
	for (int w = 0; w < eng->nwindows; w++)
	{
		window_agg *wa = &eng->win[w];

		if (r->ts_ns >= wa->spec.from_ns && r->ts_ns < wa->spec.to_ns)
			window_bill_sample(wa, r);
	}
}

/*
 * The oldest queued sample is due once the stream has seen an instant
 * sample_reorder_ns past it: drain_at is that instant (UINT64_MAX: none
 * queued, or never), kept so a record tests one number, not the queue.
 */
static void
engine_drain_at_update(pgwt_engine *eng)
{
	uint64_t	ts;

	eng->drain_at = UINT64_MAX;
	if (eng->pending_n == 0)
		return;
	ts = eng->pending[eng->pending_head].ts_ns;
	if (ts <= UINT64_MAX - eng->cfg.sample_reorder_ns)
		eng->drain_at = ts + eng->cfg.sample_reorder_ns;
}

static void
engine_commit_oldest(pgwt_engine *eng)
{
	const pgwt_record *r = &eng->pending[eng->pending_head];

	if (++eng->pending_head == eng->cfg.max_pending_samples)
		eng->pending_head = 0;
	eng->pending_n--;
	engine_drain_at_update(eng);
	engine_commit_sample(eng, r);
}

/* Commit the queued samples the stream has moved far enough past. */
void
engine_drain(pgwt_engine *eng)
{
	while (eng->pending_n > 0 && eng->max_ts_seen >= eng->drain_at)
		engine_commit_oldest(eng);
}

static void
engine_add_sample(pgwt_engine *eng, const pgwt_record *r)
{
	unsigned	at;

	eng->counters.samples++;
	if (r->new_event == PGWT_EVENT_EXIT || PGWT_IS_MARKER(r->new_event) || r->weight_ns == 0)
	{
		eng->counters.bad_records++;
		return;
	}
	if (eng->pending_n == eng->cfg.max_pending_samples)
	{
		eng->counters.samples_forced++;
		engine_commit_oldest(eng);
	}
	/* head + n < 2 x the ring's size: a wrap is one subtraction, not a
	 * division */
	at = eng->pending_head + eng->pending_n;
	if (at >= eng->cfg.max_pending_samples)
		at -= eng->cfg.max_pending_samples;
	eng->pending[at] = *r;
	if (eng->pending_n++ == 0)
		engine_drain_at_update(eng);
}

/* One record (pgwt_engine_add: also the batch loop's way, in
 * engine_batch.c, for any record it does not bill itself). */
static inline __attribute__((always_inline)) void
engine_add_one(pgwt_engine *eng, const pgwt_record *rec)
{
	eng->counters.records++;
	if (rec->ts_ns > eng->max_ts_seen)
		eng->max_ts_seen = rec->ts_ns;
	if (rec->kind == PGWT_REC_TRANSITION)
		engine_add_transition(eng, rec);
	else if (rec->kind == PGWT_REC_SAMPLE)
		engine_add_sample(eng, rec);
	else
		eng->counters.bad_records++;
	if (eng->max_ts_seen >= eng->drain_at)
		engine_drain(eng);
}

void
pgwt_engine_add(pgwt_engine *eng, const pgwt_record *rec)
{
	engine_add_one(eng, rec);
}

void
pgwt_engine_flush(pgwt_engine *eng)
{
	while (eng->pending_n > 0)
		engine_commit_oldest(eng);
	if (eng->exact)
		pgwt_exact_flush(eng);
	for (int w = 0; w < eng->nwindows; w++)
		engine_window(eng, w);
}

size_t
pgwt_engine_pending(const pgwt_engine *eng)
{
	return eng->pending_n;
}

