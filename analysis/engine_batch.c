/*
 * engine_batch.c
 *		The analysis engine's batch entry points (pgwt_engine_add_many,
 *		pgwt_engine_add_transitions): a loop that bills the common record,
 *		a wait wholly inside the one window, with fewer steps than
 *		pgwt_engine_add (engine.c), to the same totals.
 *
 * Shares the engine's state and billing steps through engine_internal.h;
 * single-threaded like the engine: callers serialise access.
 */
#include "analysis/engine_internal.h"
#include "analysis/exact_internal.h"

/*
 * Whether a batch can take the fast loop: one window, no series and no
 * histogram probe, the case of pgwt-dump's default view (with or without
 * the exact-only analyses) and of each history function.
 */
static inline bool
engine_fast_ok(const pgwt_engine *eng)
{
	return eng->nwindows == 1 && eng->series == NULL && eng->hist_probe == NULL;
}

/* one record the general way, out of line: keeps the fast loop's
 * registers its own */
static __attribute__((noinline)) void
engine_add_slow(pgwt_engine *eng, const pgwt_record *r)
{
	pgwt_engine_add(eng, r);
}

/* A wait of ns wholly inside the window, counted, into a key's acc. */
static inline void
key_acc_whole(key_cache *c, uint64_t ns)
{
	pgwt_stat  *a = &c->acc;

	c->whole_ns += ns;
	a->waits++;
	/* branches, not selects: a key's extremes rarely move, and a store
	 * only when they do */
	if (ns < a->min_ns)
		a->min_ns = ns;
	if (ns > a->max_ns)
		a->max_ns = ns;
}

/* Events up to this (both of a transition) can take the batch loop. */
#define ENGINE_FAST_EVENT_MAX 0xEFFFFFFFu
_Static_assert(PGWT_MARKER_FIRST > ENGINE_FAST_EVENT_MAX, "markers and exits take pgwt_engine_add");

/*
 * The batch loop for one window: a transition out of a wait (no marker,
 * no first sighting, no exit) wholly inside the window is billed here,
 * without the window loop and its clipping, its counters and the window's
 * extent kept in registers until the batch ends (sums, minima and maxima,
 * so the result is what pgwt_engine_add gives record by record); anything
 * else goes through pgwt_engine_add, the exits with the markers, so a wait
 * billed here ends no session. One copy per key_histograms and per
 * transitions (constants here; transitions: the caller's word that every
 * record is one, so no kind is tested).
 */
static inline __attribute__((always_inline)) void
engine_add_fast_loop(pgwt_engine *eng, const pgwt_record *recs, size_t n, bool key_histograms,
					 bool transitions, bool exact)
{
	window_agg *wa = &eng->win[0];
	uint64_t	from = wa->spec.from_ns,
				span = wa->spec.to_ns - wa->spec.from_ns;
	uint64_t	slow = 0,
				first = UINT64_MAX,
				last = 0;
	/*
	 * Kept in registers: only pgwt_engine_add and engine_drain read or
	 * move them, and they are stored back before either runs. The
	 * stream's latest instant is max(seen, last): last, the latest end
	 * of a wait billed here, is the loop's own. drain_at is past it
	 * whenever the loop reads a record (pgwt_engine_add and engine_drain
	 * leave it so), so a record reaches drain_at exactly when its end
	 * does.
	 */
	uint64_t	seen = eng->max_ts_seen,
				drain_at = eng->drain_at;

	for (const pgwt_record *r = recs, *rend = recs + n; r < rend; r++)
	{
		uint64_t	end = r->ts_ns,
					dur = r->duration_ns,
					since = end - from;
		uint32_t	ev = r->old_event;
		key_cache  *k;

		/*
		 * from <= end - dur and end < to, as one range test and one more
		 * that also sends a wait of no duration the general way (dur - 1
		 * wraps), so each wait here extends the window's extent; markers,
		 * exits and first sightings (either event at or past
		 * PGWT_MARKER_FIRST) by one test of both events' top bits, which
		 * also sends the rare event ids of a class past 0xEF the general
		 * way (no class is: the class is the id's high byte)
		 */
		if (__builtin_expect((!transitions && r->kind != PGWT_REC_TRANSITION) |
							 ((ev | r->new_event) > ENGINE_FAST_EVENT_MAX) |
							 (since >= span) | (dur - 1 >= since), 0))
		{
			eng->max_ts_seen = seen > last ? seen : last;
			engine_add_slow(eng, r);
			seen = eng->max_ts_seen;
			drain_at = eng->drain_at;
			slow++;
			continue;
		}
		/* pgwt_engine_add's steps for such a record, in its order
		 * (exact_records is counted once, after the loop): the exact-only
		 * analyses first, which read the stream's latest instant */
		last = end > last ? end : last;
		if (exact)
		{
			eng->max_ts_seen = seen > last ? seen : last;
			pgwt_exact_transition(eng, r);
		}
		k = window_keys(wa, r->pid, ev, r->query_id);
		window_bill_hist(wa, k, dur, key_histograms);
		if (__builtin_expect(k->hot, 1))
			key_acc_whole(k, dur);
		else
		{
			k->hot = k->valid;
			window_bill_whole_direct(wa, k, ev, dur);
		}
		/* the extent of the waits that billed time (all here: dur > 0) */
		first = end - dur < first ? end - dur : first;
		if (__builtin_expect(end >= drain_at, 0))
		{
			eng->max_ts_seen = seen > last ? seen : last;
			engine_drain(eng);
			seen = eng->max_ts_seen;
			drain_at = eng->drain_at;
		}
	}
	eng->max_ts_seen = seen > last ? seen : last;
	wa->exact_records += n - slow;
	eng->counters.records += n - slow;
	eng->counters.transitions += n - slow;
	if (first != UINT64_MAX)
		window_cover(wa, first, last);
}

/* The fast loop's copy for a batch of transitions or not, with or
 * without the exact-only analyses (so no record tests for them). */
static inline __attribute__((always_inline)) void
engine_add_fast(pgwt_engine *eng, const pgwt_record *recs, size_t n, bool key_histograms,
				bool transitions)
{
	if (eng->exact)
		transitions ? engine_add_fast_loop(eng, recs, n, key_histograms, true, true) :
			engine_add_fast_loop(eng, recs, n, key_histograms, false, true);
	else
		transitions ? engine_add_fast_loop(eng, recs, n, key_histograms, true, false) :
			engine_add_fast_loop(eng, recs, n, key_histograms, false, false);
}

/* A batch: the fast loop's copy for the window's key_histograms, or
 * record by record. */
static void
engine_add_batch(pgwt_engine *eng, const pgwt_record *recs, size_t n, bool transitions)
{
	if (!engine_fast_ok(eng))
		for (size_t i = 0; i < n; i++)
			pgwt_engine_add(eng, &recs[i]);
	else if (eng->win[0].key_histograms)
		engine_add_fast(eng, recs, n, true, transitions);
	else
		engine_add_fast(eng, recs, n, false, transitions);
}

void
pgwt_engine_add_many(pgwt_engine *eng, const pgwt_record *recs, size_t n)
{
	engine_add_batch(eng, recs, n, false);
}

void
pgwt_engine_add_transitions(pgwt_engine *eng, const pgwt_record *recs, size_t n)
{
	engine_add_batch(eng, recs, n, true);
}
