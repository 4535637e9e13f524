/*
 * engine_internal.h
 *		The engine's tables, shared by engine.c (which fills them record by
 *		record), engine_batch.c (its batch loop) and views.c (which reads
 *		them). Not for use outside analysis/.
 */
#ifndef PGWT_ANALYSIS_ENGINE_INTERNAL_H
#define PGWT_ANALYSIS_ENGINE_INTERNAL_H

#include "analysis/agg_table.h"
#include "analysis/engine.h"
#include "analysis/wait_event.h"
#include "common/histogram.h"

/* Class totals: index = class byte 0..15, PGWT_CLASS_UNKNOWN = 16. */
#define ENGINE_NCLASS_SLOTS (PGWT_NCLASSES + 1)

/*
 * The last table entries billed for a (pid, event, query), two-way set
 * associative (ENGINE_KEY_CACHE / 2 sets): a backend cycles through few
 * such keys, so most records skip the four hash lookups. Table entries
 * never move (no deletion, no rehash) until a reset, which clears the
 * cache. Keys folded into "other" are not cached, so the overflow counters
 * stay per record.
 *
 * A cached key also accumulates its time in acc, and adds it to the seven
 * stats it belongs to (event, session, session x event, query x event,
 * class, DB or idle totals) only when it leaves the cache or a view reads
 * the window (engine_window() syncs): one stat update per record instead
 * of seven. A key's first record is billed directly (not yet hot), so a key
 * seen once costs no second round of misses when it is evicted. Histograms and the exit flag are written directly.
 *
 * 4096 keys: 8 backends x 20 queries x 5 states (800 keys) fit with few
 * conflicts, where 1024 missed on one record in ten; it adds 0.5 MB of
 * address space per window, resident only where keys land.
 */
#define ENGINE_KEY_CACHE_SET_BITS 11
#define ENGINE_KEY_CACHE (2 << ENGINE_KEY_CACHE_SET_BITS)

typedef struct key_cache
{
	uint64_t	pid_event;			/* pid << 32 | event: one comparison */
	uint64_t	query_id;
	uint32_t	pid;
	uint32_t	event;
	bool		valid;
	bool		hot;				/* valid and billed once since it was filled:
									 * its records go to acc */
	bool		idle;
	bool		background;			/* the pid is no session */
	uint8_t		class_index;
	pgwt_event_stat *event_stat;
	pgwt_session_stat *session;
	pgwt_stat  *session_event;
	pgwt_stat  *query_event;
	pgwt_stat	acc;				/* time not yet in the tables: none when
									 * every count and sum is 0 (key_sync) */
	uint64_t	whole_ns;			/* whole waits' time, owed to acc's
									 * exact_ns and completed_ns alike */
} __attribute__((aligned(64))) key_cache;	/* 128 bytes: two whole lines,
											 * found by a shift */
_Static_assert(sizeof(key_cache) == 128, "a key cache entry is two whole lines");

/*
 * Small direct-mapped memos of the events and sessions tables' values by
 * key, for the key cache fills: a window holds few events and sessions,
 * met again by nearly every new (pid, event, query), and a memo hit costs
 * a fraction of a table lookup. Values never move until a reset, which
 * clears the memos with the key cache; a key folded into "other" is never
 * kept, so its records are still counted there one by one.
 */
#define ENGINE_MEMO_BITS 8

typedef struct engine_memo
{
	uint64_t	key;
	void	   *value;				/* NULL: empty */
} engine_memo;

typedef struct window_agg
{
	pgwt_window_spec spec;
	uint64_t	exact_records;		/* transitions that billed time here */
	uint64_t	sample_records;		/* samples billed here */
	uint64_t	data_first_ns;		/* earliest billed instant (UINT64_MAX = none) */
	uint64_t	data_last_ns;		/* latest billed instant */
	pgwt_stat	classes[ENGINE_NCLASS_SLOTS];	/* non-idle time only */
	pgwt_stat	db;					/* DB time: CPU* + non-idle waits of sessions */
	pgwt_stat	idle;				/* idle time of sessions */
	pgwt_stat	background;			/* non-idle time of background processes */
	pgwt_stat	background_idle;
	pgwt_stat	background_queries;	/* sink: background time is no query's */
	const agg_table *backends;		/* the engine's metadata, to find background pids */
	bool		key_histograms;		/* the engine's cfg.key_histograms */
	agg_table	events;				/* (event, 0) -> pgwt_event_stat */
	agg_table	sessions;			/* (pid, 0) -> pgwt_session_stat */
	agg_table	session_events;		/* (pid, event) -> pgwt_stat, or
									 * pgwt_key_stat with key_histograms */
	agg_table	query_events;		/* (query_id, event) -> likewise */
	engine_memo event_memo[1 << ENGINE_MEMO_BITS];	/* (event, 0) -> events' value */
	engine_memo session_memo[1 << ENGINE_MEMO_BITS];	/* (pid, 0) -> sessions' value */
	key_cache	cache[ENGINE_KEY_CACHE];
	uint8_t		cache_lru[ENGINE_KEY_CACHE / 2];	/* way not used last, per set */
} window_agg;

struct pgwt_engine
{
	pgwt_engine_config cfg;
	int			nwindows;
	window_agg	win[PGWT_MAX_WINDOWS];
	pgwt_engine_counters counters;
	/* Exact spans, sorted by start; plus the one open now, if any. */
	uint64_t   *span_from;
	uint64_t   *span_to;
	uint64_t   *span_maxto;		/* max of span_to[0..i]: most samples lie
								 * after every span, told by one compare */
	unsigned	nspans;
	bool		span_open;
	uint64_t	span_open_from;
	agg_table	backends;			/* (pid, 0) -> pgwt_backend_info */
	/* Samples waiting for their reorder delay: a ring in arrival order. */
	pgwt_record *pending;
	unsigned	pending_head;
	unsigned	pending_n;
	uint64_t	drain_at;			/* when the oldest is due (engine.c) */
	uint64_t	max_ts_seen;		/* latest timestamp of any record */
	struct pgwt_exact *exact;	/* exact-only analyses, or NULL (exact.c) */
	struct pgwt_series *series;	/* the caller's time series, or NULL */
	struct pgwt_hist_probe *hist_probe;	/* one key's histogram, or NULL */
};

/*
 * Window w for reading, or NULL: first adds the time the key cache holds
 * to the tables. Logically const: the totals do not change, only where
 * they are kept.
 */
const window_agg *engine_window(const pgwt_engine *eng, int w);

/*
 * The billing steps the record-by-record path (engine.c) and the batch
 * loop (engine_batch.c) share.
 */

/*
 * The key cache's set of one (pid << 32 | event, query): the top bits of
 * two multiplicative hashes, one per half of the key, so each half's
 * every bit reaches them (event ids differ in their high class byte, pids
 * and small query ids in their low bits). XORing the query id into the
 * pid/event product before one final multiply would leave the low bits of
 * small ids (pgwt-synth's are 1..20) to that multiplier alone, and keys
 * crowd: sets that three keys share evict on every record of theirs
 * (test_key_cache.c bounds the spread). The two products are independent,
 * so the set is also known one multiply sooner.
 */
static inline unsigned
engine_key_set(uint64_t pid_event, uint64_t query_id)
{
	uint64_t	h = pid_event * 0x9E3779B97F4A7C15ull ^ query_id * 0xD6E8FEB86659FD93ull;

	return (unsigned) (h >> (64 - ENGINE_KEY_CACHE_SET_BITS));
}

/* The cache missed: look the key up in the four tables (engine.c). */
key_cache  *window_keys_fill(window_agg *wa, key_cache *c, uint32_t pid, uint32_t ev,
							 uint64_t query_id);

/*
 * The table entries of one (pid, event, query) in a window. The cache is
 * two-way set associative with a least-recently-used bit per set, so two
 * keys of busy backends that hash alike do not evict each other.
 */
static inline key_cache *
window_keys(window_agg *wa, uint32_t pid, uint32_t ev, uint64_t query_id)
{
	uint64_t	pe = (uint64_t) pid << 32 | ev;
	unsigned	set = engine_key_set(pe, query_id);
	key_cache  *c = wa->cache + 2 * (size_t) set;
	uint8_t    *lru = &wa->cache_lru[set];

	/* an entry that is not valid holds a pid_event no lookup asks for */
	if (c[0].pid_event == pe && c[0].query_id == query_id)
	{
		*lru = 1;
		return &c[0];
	}
	if (c[1].pid_event == pe && c[1].query_id == query_id)
	{
		*lru = 0;
		return &c[1];
	}
	/* replace the way used less recently: way 0 in a set not used yet
	 * (lru 0), so a set's only key is found by the first probe */
	c += *lru;
	*lru ^= 1;
	return window_keys_fill(wa, c, pid, ev, query_id);
}

/* The histograms of a wait of ns counted under key k (a key's
 * histogram follows its stat: pgwt_key_stat). */
static inline __attribute__((always_inline)) void
window_bill_hist(window_agg *wa, key_cache *k, uint64_t ns, bool key_histograms)
{
	unsigned	b = pgwt_hist_ns_bucket(ns);

	k->event_stat->hist_ns[b]++;
	if (key_histograms)
	{
		/* a background pid's query_event is the sink, no key */
		((pgwt_key_stat *) k->session_event)->hist_ns[b]++;
		if (!k->background)
			((pgwt_key_stat *) k->query_event)->hist_ns[b]++;
	}
}

/* Widen the window's extent of billed instants to [from, to). */
static inline void
window_cover(window_agg *wa, uint64_t from, uint64_t to)
{
	if (from < wa->data_first_ns)
		wa->data_first_ns = from;
	if (to > wa->data_last_ns)
		wa->data_last_ns = to;
}

/* A new key, or one folded into "other" somewhere: bill every table now
 * (engine.c). */
void		window_bill_exact_direct(window_agg *wa, key_cache *k, uint32_t ev, uint64_t ns,
									 bool counted, uint64_t full_ns);
/* The same for a wait wholly inside the window, counted there (ns is all
 * of it): the batch loop's case, with the tests of counted folded away. */
void		window_bill_whole_direct(window_agg *wa, key_cache *k, uint32_t ev, uint64_t ns);

/* Commit the queued samples the stream has moved far enough past
 * (engine.c). */
void		engine_drain(pgwt_engine *eng);

#endif							/* PGWT_ANALYSIS_ENGINE_INTERNAL_H */
