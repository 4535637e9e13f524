/*
 * test_engine_batch.c
 *		The engine's batch entry points (pgwt_engine_add_many,
 *		pgwt_engine_add_transitions: analysis/engine_batch.c) against
 *		pgwt_engine_add record by record, views and counters compared.
 */
#include "analysis/engine.h"
#include "analysis/exact.h"
#include "analysis/views.h"
#include "unit.h"
#include "engine_fixture.h"

#include <string.h>

/* Two event-row lists hold the same rows, histograms by content. */
static bool
same_rows(const pgwt_event_rows *a, const pgwt_event_rows *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
	{
		pgwt_event_row x = a->rows[i],
					y = b->rows[i];

		if ((x.hist_ns == NULL) != (y.hist_ns == NULL) ||
			(x.hist_ns && memcmp(x.hist_ns, y.hist_ns, PGWT_HIST_NS_BUCKETS * sizeof(uint64_t)) != 0))
			return false;
		x.hist_ns = y.hist_ns = NULL;
		if (x.event != y.event || x.pid != y.pid || x.query_id != y.query_id ||
			x.other != y.other || x.idle != y.idle || x.fidelity != y.fidelity ||
			x.waits != y.waits || x.total_ns != y.total_ns || x.exact_ns != y.exact_ns ||
			x.sampled_ns != y.sampled_ns || x.avg_ns != y.avg_ns || x.max_ns != y.max_ns || x.min_ns != y.min_ns ||
			x.max_known != y.max_known || x.pct_db != y.pct_db || x.exited != y.exited)
			return false;
	}
	return true;
}

/*
 * pgwt_engine_add_many's loop for one window (engine_add_batch) gives what
 * pgwt_engine_add gives record by record: a pseudo-random stream of
 * transitions (some crossing the window's start or end, some into exit,
 * some of no duration, some of an event id past every class), markers,
 * idle waits and samples, more keys than the cache has ways for, through
 * both, every view and counter compared; with and without key histograms,
 * and with the exact-only analyses (their views compared too).
 * by_kind: each run of transitions goes to pgwt_engine_add_transitions
 * (no kind tested), the samples between them to pgwt_engine_add_many.
 */
/* The exact-only views of two engines fed alike are the same. */
static bool
same_exact_views(const pgwt_engine *a, const pgwt_engine *b)
{
	pgwt_transition_rows ta,
				tb;
	pgwt_concurrency ca,
				cb;
	pgwt_interference_rows ia,
				ib;
	bool		same;

	if (pgwt_view_transitions(a, 0, NULL, &ta) != PGWT_VIEW_OK)
		return false;
	if (pgwt_view_transitions(b, 0, NULL, &tb) != PGWT_VIEW_OK)
		return false;
	same = ta.n > 0 && ta.n == tb.n && ta.transitions == tb.transitions;
	for (size_t i = 0; same && i < ta.n; i++)
		same = ta.rows[i].old_event == tb.rows[i].old_event &&
			ta.rows[i].new_event == tb.rows[i].new_event && ta.rows[i].other == tb.rows[i].other &&
			ta.rows[i].count == tb.rows[i].count && ta.rows[i].total_ns == tb.rows[i].total_ns;
	pgwt_transition_rows_free(&ta);
	pgwt_transition_rows_free(&tb);
	if (!same || pgwt_view_concurrency(a, 0, NULL, &ca) != PGWT_VIEW_OK)
		return false;
	if (pgwt_view_concurrency(b, 0, NULL, &cb) != PGWT_VIEW_OK)
		return false;
	same = ca.n > 0 && ca.n == cb.n && ca.nbursts == cb.nbursts && ca.bursts_total == cb.bursts_total;
	for (size_t i = 0; same && i < ca.n; i++)
		same = ca.rows[i].event == cb.rows[i].event && ca.rows[i].peak == cb.rows[i].peak &&
			ca.rows[i].peak_ns == cb.rows[i].peak_ns && ca.rows[i].intervals == cb.rows[i].intervals &&
			ca.rows[i].bursts == cb.rows[i].bursts &&
			ca.rows[i].max_burst_sessions == cb.rows[i].max_burst_sessions;
	for (size_t i = 0; same && i < ca.nbursts; i++)
		same = ca.bursts[i].event == cb.bursts[i].event && ca.bursts[i].sessions == cb.bursts[i].sessions &&
			ca.bursts[i].first_ns == cb.bursts[i].first_ns;
	pgwt_concurrency_free(&ca);
	pgwt_concurrency_free(&cb);
	if (!same || pgwt_view_interference(a, 0, NULL, &ia) != PGWT_VIEW_OK)
		return false;
	if (pgwt_view_interference(b, 0, NULL, &ib) != PGWT_VIEW_OK)
		return false;
	same = ia.n > 0 && ia.n == ib.n;
	for (size_t i = 0; same && i < ia.n; i++)
		same = ia.rows[i].pid_a == ib.rows[i].pid_a && ia.rows[i].pid_b == ib.rows[i].pid_b &&
			ia.rows[i].other == ib.rows[i].other && ia.rows[i].overlap_ns == ib.rows[i].overlap_ns &&
			ia.rows[i].overlaps == ib.rows[i].overlaps && ia.rows[i].top_event == ib.rows[i].top_event &&
			ia.rows[i].top_event_ns == ib.rows[i].top_event_ns;
	pgwt_interference_rows_free(&ia);
	pgwt_interference_rows_free(&ib);
	return same;
}

static void
test_batch_equals_single_one(bool key_histograms, bool by_kind, bool exact)
{
	/* a short reorder delay, so the sweep runs as the stream goes */
	pgwt_engine_config cfg = {.key_histograms = key_histograms, .max_query_events = 64,
	.exact_analysis = exact, .interval_reorder_ns = 1 * MS};
	pgwt_engine *one = one_window(2 * S, 40 * S, &cfg);
	pgwt_engine *many = one_window(2 * S, 40 * S, &cfg);
	static const uint32_t evs[] = {0, EV_DATAFILEREAD, EV_WALWRITE, EV_LOCK_XID, EV_CLIENTREAD};
	static pgwt_record rs[20000];
	uint64_t	seed = 12345,
				t = 1 * S;
	pgwt_window_summary sa,
				sb;
	pgwt_event_rows ra,
				rb;

	for (size_t i = 0; i < 20000; i++)
	{
		uint64_t	x;

		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		x = seed >> 16;
		t += 1 + (x & 0xFFFFF);
		if (x % 97 == 0)
			rs[i] = tr((uint32_t) (x % 7) + 1, t, 0, PGWT_MARKER_IDLE, 0, 0);
		else if (x % 89 == 0)
			rs[i] = tr((uint32_t) (x % 7) + 1, t, EV_DATAFILEREAD, PGWT_EVENT_EXIT, x % 5000, 3);
		else if (x % 11 == 0)
			rs[i] = smp((uint32_t) (x % 7) + 1, t, evs[(x >> 8) % 5], 10 * MS, (x >> 12) % 30);
		else if (x % 83 == 0)
			rs[i] = tr((uint32_t) (x % 7) + 1, t, evs[(x >> 8) % 5], 0, 0, (x >> 12) % 30);
		else if (x % 79 == 0)
			rs[i] = tr((uint32_t) (x % 7) + 1, t, 0xF1000000u + (uint32_t) (x % 3), 0,
					   (x >> 4) % 2000000, (x >> 12) % 30);
		else
			rs[i] = tr((uint32_t) (x % 7) + 1, t, evs[(x >> 8) % 5], 0,
					   (x >> 20) % 7 == 0 ? 3 * S : (x >> 4) % 2000000, (x >> 12) % 30);
	}
	/* the latest instant a wait of no duration's: it bills nothing, so
	 * the window's extent must not reach it */
	rs[19999] = tr(1, t + S, EV_DATAFILEREAD, 0, 0, 1);
	for (size_t i = 0; i < 20000; i++)
		pgwt_engine_add(one, &rs[i]);
	for (size_t i = 0; i < 20000 && !by_kind; i += 1000)
		pgwt_engine_add_many(many, rs + i, 1000);
	for (size_t i = 0, j; i < 20000 && by_kind; i = j)
	{
		for (j = i + 1; j < 20000 && rs[j].kind == rs[i].kind; j++)
			;
		if (rs[i].kind == PGWT_REC_TRANSITION)
			pgwt_engine_add_transitions(many, rs + i, j - i);
		else
			pgwt_engine_add_many(many, rs + i, j - i);
	}
	pgwt_engine_flush(one);
	pgwt_engine_flush(many);
	EXPECT(memcmp(pgwt_engine_counters_get(one), pgwt_engine_counters_get(many),
				  sizeof(pgwt_engine_counters)) == 0);
	pgwt_view_summary(one, 0, &sa);
	pgwt_view_summary(many, 0, &sb);
	EXPECT(sa.exact_records > 10000 && sa.sample_records > 1000);
	EXPECT(sa.exact_records == sb.exact_records && sa.sample_records == sb.sample_records &&
		   sa.data_first_ns == sb.data_first_ns && sa.data_last_ns == sb.data_last_ns &&
		   sa.db_ns == sb.db_ns && sa.cpu_ns == sb.cpu_ns && sa.wait_ns == sb.wait_ns &&
		   sa.idle_ns == sb.idle_ns && sa.backends == sb.backends &&
		   sa.other_query_event_records == sb.other_query_event_records);
	EXPECT(pgwt_view_system_event(one, 0, NULL, &ra) == PGWT_VIEW_OK);
	EXPECT(pgwt_view_system_event(many, 0, NULL, &rb) == PGWT_VIEW_OK);
	EXPECT(same_rows(&ra, &rb));
	pgwt_event_rows_free(&ra);
	pgwt_event_rows_free(&rb);
	EXPECT(pgwt_view_session_events(one, 0, NULL, &ra) == PGWT_VIEW_OK);
	EXPECT(pgwt_view_session_events(many, 0, NULL, &rb) == PGWT_VIEW_OK);
	EXPECT(same_rows(&ra, &rb));
	pgwt_event_rows_free(&ra);
	pgwt_event_rows_free(&rb);
	EXPECT(pgwt_view_query_event(one, 0, NULL, &ra) == PGWT_VIEW_OK);
	EXPECT(pgwt_view_query_event(many, 0, NULL, &rb) == PGWT_VIEW_OK);
	EXPECT(ra.n > 0 && same_rows(&ra, &rb));
	pgwt_event_rows_free(&ra);
	pgwt_event_rows_free(&rb);
	if (exact)
		EXPECT(same_exact_views(one, many));
	pgwt_engine_free(one);
	pgwt_engine_free(many);
}

static void
test_batch_equals_single(void)
{
	test_batch_equals_single_one(true, false, false);
	test_batch_equals_single_one(false, false, false);
	test_batch_equals_single_one(true, true, false);
	test_batch_equals_single_one(false, true, false);
	test_batch_equals_single_one(false, false, true);
	test_batch_equals_single_one(true, true, true);
}

int
main(void)
{
	RUN(test_batch_equals_single);
	return unit_failures ? 1 : 0;
}
