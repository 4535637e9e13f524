/*
 * test_exact.c
 *		The exact-only views (transitions, fingerprints, concurrency and
 *		bursts, interference, lock chains) and cross_validate over scripted
 *		streams whose overlaps, bursts and chains are worked out by hand
 *		in the comments.
 */
#include "analysis/engine.h"
#include "analysis/exact.h"
#include "analysis/views.h"
#include "analysis/wait_event.h"
#include "unit.h"

#include "engine_fixture.h"

#define T0 (1 * S)				/* the scripts start here */

/* A wait of event ev over [s, e), ending back on CPU. */
static pgwt_record
wait_iv(uint32_t pid, uint32_t ev, uint64_t s, uint64_t e)
{
	return tr(pid, e, ev, 0, e - s, 0);
}

static pgwt_engine *
exact_engine(const pgwt_window_spec *w, int nw, pgwt_engine_config *cfg)
{
	pgwt_engine_config def = {0};
	const char *err = NULL;
	pgwt_engine *e;

	if (!cfg)
		cfg = &def;
	cfg->exact_analysis = true;
	e = pgwt_engine_create(cfg, w, nw, &err);
	if (!e)
	{
		fprintf(stderr, "engine: %s\n", err);
		abort();
	}
	return e;
}

static const pgwt_window_spec all_time = {0, UINT64_MAX, "all"};

/*
 * One backend, query 7: CPU 30 ms, DataFileRead 50, CPU 20, WALInsert 40,
 * CPU 10, Lock 50, CPU 10, then ClientRead. Per class: CPU 70, Lock 50,
 * IO 50, LWLock 40 of 210 ms = 33.3%, 23.8%, 23.8%, 19.0% -> 33, 24, 24,
 * 19; Lock and IO tie on time, so the lower class byte (Lock) comes first.
 * Seven moves, four of them out of CPU (25% each).
 */
static void
feed_query7(pgwt_engine *e)
{
	pgwt_record rs[] = {
		tr(100, T0 + 30 * MS, 0, EV_DATAFILEREAD, 30 * MS, 7),
		tr(100, T0 + 80 * MS, EV_DATAFILEREAD, 0, 50 * MS, 7),
		tr(100, T0 + 100 * MS, 0, EV_WALINSERT, 20 * MS, 7),
		tr(100, T0 + 140 * MS, EV_WALINSERT, 0, 40 * MS, 7),
		tr(100, T0 + 150 * MS, 0, EV_LOCK_XID, 10 * MS, 7),
		tr(100, T0 + 200 * MS, EV_LOCK_XID, 0, 50 * MS, 7),
		tr(100, T0 + 210 * MS, 0, EV_CLIENTREAD, 10 * MS, 7),
	};

	pgwt_engine_add_many(e, rs, sizeof(rs) / sizeof(rs[0]));
	pgwt_engine_flush(e);
}

static const pgwt_transition_row *
find_trans(const pgwt_transition_rows *t, uint32_t o, uint32_t n)
{
	for (size_t i = 0; i < t->n; i++)
		if (!t->rows[i].other && t->rows[i].old_event == o && t->rows[i].new_event == n)
			return &t->rows[i];
	return NULL;
}

static void
test_transitions(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_transition_rows t;
	const pgwt_transition_row *r;

	feed_query7(e);
	EXPECT(pgwt_view_transitions(e, 0, NULL, &t) == PGWT_VIEW_OK);
	EXPECT_U64(t.n, 7);
	EXPECT_U64(t.transitions, 7);
	r = find_trans(&t, 0, EV_DATAFILEREAD);
	EXPECT(r && r->count == 1 && r->total_ns == 30 * MS);
	if (r)
		EXPECT_DBL(r->pct_of_old, 25.0);
	r = find_trans(&t, EV_LOCK_XID, 0);
	EXPECT(r && r->count == 1 && r->total_ns == 50 * MS);
	if (r)
		EXPECT_DBL(r->pct_of_old, 100.0);
	/* equal counts: by old, then new: CPU -> WALInsert (0x01..) first */
	EXPECT(t.rows[0].old_event == 0 && t.rows[0].new_event == EV_WALINSERT);
	pgwt_transition_rows_free(&t);
	/* a second cycle through IO makes CPU -> IO the top pair */
	{
		pgwt_record rs[] = {
			tr(100, T0 + 1 * S, EV_CLIENTREAD, 0, 790 * MS, 8),
			tr(100, T0 + 1 * S + 5 * MS, 0, EV_DATAFILEREAD, 5 * MS, 8),
			tr(100, T0 + 1 * S + 6 * MS, EV_DATAFILEREAD, PGWT_EVENT_EXIT, 1 * MS, 8),
		};

		pgwt_engine_add_many(e, rs, 3);
		pgwt_engine_flush(e);
	}
	EXPECT(pgwt_view_transitions(e, 0, &(pgwt_view_opts) {.limit = 2}, &t) == PGWT_VIEW_OK);
	EXPECT_U64(t.n, 2);
	EXPECT_U64(t.transitions, 10);
	EXPECT(t.rows[0].old_event == 0 && t.rows[0].new_event == EV_DATAFILEREAD &&
		   t.rows[0].count == 2 && t.rows[0].total_ns == 35 * MS);
	EXPECT_DBL(t.rows[0].pct_of_old, 40.0);	/* 2 of 5 moves out of CPU */
	r = find_trans(&t, EV_DATAFILEREAD, 0);
	pgwt_transition_rows_free(&t);
	EXPECT(pgwt_view_transitions(e, 0, NULL, &t) == PGWT_VIEW_OK);
	r = find_trans(&t, EV_DATAFILEREAD, PGWT_EVENT_EXIT);
	EXPECT(r && r->count == 1);
	if (r)
		EXPECT_DBL(r->pct_of_old, 50.0);
	pgwt_transition_rows_free(&t);
	pgwt_engine_free(e);
}

static void
test_fingerprint_format(void)
{
	uint64_t	c[PGWT_NCLASSES + 1] = {0};
	char		buf[PGWT_FINGERPRINT_MAX];

	EXPECT(!pgwt_fingerprint_format(c, buf, sizeof(buf)));
	EXPECT_STR(buf, "");
	/* thirds: 33 each; equal times go by class byte: CPU, LWLock, IO */
	c[PGWT_CLASS_CPU] = c[PGWT_CLASS_IO] = c[PGWT_CLASS_LWLOCK] = 1000;
	EXPECT(pgwt_fingerprint_format(c, buf, sizeof(buf)));
	EXPECT_STR(buf, "CPU:33%|LWLock:33%|IO:33%");
	/* 12.5% rounds half up to 13; 0.4% is left out */
	memset(c, 0, sizeof(c));
	c[PGWT_CLASS_IO] = 871;
	c[PGWT_CLASS_LOCK] = 125;
	c[PGWT_CLASS_IPC] = 4;
	pgwt_fingerprint_format(c, buf, sizeof(buf));
	EXPECT_STR(buf, "IO:87%|Lock:13%");
	/* at most four classes; an unknown class byte prints as Other */
	for (unsigned i = 0; i <= PGWT_NCLASSES; i++)
		c[i] = 100 + i;
	pgwt_fingerprint_format(c, buf, sizeof(buf));
	EXPECT_STR(buf, "Other:6%|0x0F:6%|0x0E:6%|0x0D:6%");
	/* a short buffer keeps whole classes only */
	memset(c, 0, sizeof(c));
	c[PGWT_CLASS_CPU] = 3;
	c[PGWT_CLASS_IO] = 1;
	pgwt_fingerprint_format(c, buf, 8);
	EXPECT_STR(buf, "CPU:75%");
}

static void
test_fingerprints(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_fingerprint_rows f;

	feed_query7(e);
	EXPECT(pgwt_view_fingerprints(e, 0, NULL, &f) == PGWT_VIEW_OK);
	EXPECT_U64(f.n, 1);
	if (f.n)
	{
		EXPECT_U64(f.rows[0].query_id, 7);
		EXPECT_U64(f.rows[0].exact_ns, 210 * MS);
		EXPECT_STR(f.rows[0].text, "CPU:33%|Lock:24%|IO:24%|LWLock:19%");
	}
	pgwt_fingerprint_rows_free(&f);
	EXPECT(pgwt_view_fingerprints(e, 0, &(pgwt_view_opts) {.has_query = true, .query_id = 8}, &f) ==
		   PGWT_VIEW_NO_DATA);
	pgwt_engine_free(e);
}

/*
 * DataFileRead: pid 1 [0, 100) ms, pid 2 [3, 50), pid 3 [6, 30), pid 4
 * [9, 20), all from T0; then pid 5 [200, 210) and pid 6 [205, 215).
 * Peak 4 at 9 ms. Four sessions enter within 10 ms: one burst at 0 ms.
 * Overlaps: (1,2) 47, (1,3) 24, (1,4) 11, (2,3) 24, (2,4) 11, (3,4) 11,
 * (5,6) 5 ms. WALInsert: pids 11..14 enter at 300, 304, 308, 312 ms
 * (1 ms each): 4 sessions, but not within 10 ms: no burst, peak 1; and
 * pid 15 enters it four times in 6 ms alone: no burst either.
 * Window 2 = [50 ms, 1 s): at its start only pid 1 runs (pid 2 ended at
 * 50), so its DataFileRead peak is 2 (pids 5, 6 at 205 ms) with two waits
 * begun in it, and only (5,6) interfere in it.
 */
static void
feed_herd(pgwt_engine *e)
{
	pgwt_record rs[] = {
		wait_iv(4, EV_DATAFILEREAD, T0 + 9 * MS, T0 + 20 * MS),
		wait_iv(3, EV_DATAFILEREAD, T0 + 6 * MS, T0 + 30 * MS),
		wait_iv(2, EV_DATAFILEREAD, T0 + 3 * MS, T0 + 50 * MS),
		wait_iv(1, EV_DATAFILEREAD, T0, T0 + 100 * MS),
		wait_iv(5, EV_DATAFILEREAD, T0 + 200 * MS, T0 + 210 * MS),
		wait_iv(6, EV_DATAFILEREAD, T0 + 205 * MS, T0 + 215 * MS),
		wait_iv(11, EV_WALINSERT, T0 + 300 * MS, T0 + 301 * MS),
		wait_iv(12, EV_WALINSERT, T0 + 304 * MS, T0 + 305 * MS),
		wait_iv(13, EV_WALINSERT, T0 + 308 * MS, T0 + 309 * MS),
		wait_iv(14, EV_WALINSERT, T0 + 312 * MS, T0 + 313 * MS),
		wait_iv(15, EV_WALINSERT, T0 + 400 * MS, T0 + 401 * MS),
		wait_iv(15, EV_WALINSERT, T0 + 402 * MS, T0 + 403 * MS),
		wait_iv(15, EV_WALINSERT, T0 + 404 * MS, T0 + 405 * MS),
		wait_iv(15, EV_WALINSERT, T0 + 406 * MS, T0 + 407 * MS),
	};

	pgwt_engine_add_many(e, rs, sizeof(rs) / sizeof(rs[0]));
	pgwt_engine_flush(e);
}

static const pgwt_concurrency_row *
find_conc(const pgwt_concurrency *c, uint32_t ev)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].event == ev)
			return &c->rows[i];
	return NULL;
}

static void
test_concurrency_bursts(void)
{
	pgwt_window_spec w[2] = {{0, UINT64_MAX, "all"}, {T0 + 50 * MS, T0 + 1 * S, "w2"}};
	pgwt_engine *e = exact_engine(w, 2, NULL);
	pgwt_concurrency c;
	const pgwt_concurrency_row *r;

	feed_herd(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	EXPECT_U64(c.n, 2);
	r = find_conc(&c, EV_DATAFILEREAD);
	EXPECT(r == &c.rows[0]);
	EXPECT(r && r->peak == 4 && r->peak_ns == T0 + 9 * MS && r->intervals == 6 &&
		   r->bursts == 1 && r->max_burst_sessions == 4);
	r = find_conc(&c, EV_WALINSERT);
	EXPECT(r && r->peak == 1 && r->intervals == 8 && r->bursts == 0);
	EXPECT_U64(c.bursts_total, 1);
	EXPECT_U64(c.nbursts, 1);
	if (c.nbursts)
		EXPECT(c.bursts[0].event == EV_DATAFILEREAD && c.bursts[0].sessions == 4 && c.bursts[0].first_ns == T0);
	EXPECT_U64(c.burst_sessions, 4);
	EXPECT_U64(c.burst_window_ns, 10 * MS);
	EXPECT_U64(c.late_intervals + c.forced_intervals + c.concurrent_overflow, 0);
	pgwt_concurrency_free(&c);

	EXPECT(pgwt_view_concurrency(e, 1, NULL, &c) == PGWT_VIEW_OK);
	r = find_conc(&c, EV_DATAFILEREAD);
	EXPECT(r && r->peak == 2 && r->peak_ns == T0 + 205 * MS && r->intervals == 2 && r->bursts == 0);
	EXPECT_U64(c.nbursts, 0);
	pgwt_concurrency_free(&c);
	/* a reset forgets everything: the same stream gives the same answers */
	pgwt_engine_reset(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_NO_DATA);
	feed_herd(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	r = find_conc(&c, EV_DATAFILEREAD);
	EXPECT(r && r->peak == 4 && r->intervals == 6 && r->bursts == 1);
	EXPECT_U64(c.nbursts, 1);
	pgwt_concurrency_free(&c);
	pgwt_engine_free(e);
}

/*
 * The sweep takes waits in start order however they arrive: 300 waits of
 * two events on a coarse grid (many share a start, an end, or both) go in
 * shuffled and are all swept at the flush. Each event's peak is counted
 * here directly: at each start, the waits that began at or before it and
 * end after it; the first start with the most is its instant.
 */
static void
test_sweep_shuffled(void)
{
	enum {NIV = 300};
	static pgwt_record rs[NIV];
	static const uint32_t evs[2] = {EV_DATAFILEREAD, EV_WALWRITE};
	uint64_t	seed = 0x2545F4914F6CDD1Dull;
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_concurrency c;

	for (int i = 0; i < NIV; i++)
	{
		uint64_t	s,
					d;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		s = T0 + (seed % 50) * MS;
		d = (1 + (seed >> 16) % 20) * MS;
		rs[i] = wait_iv(1 + (uint32_t) i, evs[(seed >> 32) % 2], s, s + d);
	}
	for (int i = NIV - 1; i > 0; i--)
	{
		int			j;
		pgwt_record t;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		j = (int) (seed % (uint64_t) (i + 1));
		t = rs[i], rs[i] = rs[j], rs[j] = t;
	}
	pgwt_engine_add_many(e, rs, NIV);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	for (int k = 0; k < 2; k++)
	{
		uint32_t	peak = 0,
					n = 0;
		uint64_t	peak_ns = 0;
		const pgwt_concurrency_row *r = find_conc(&c, evs[k]);

		for (int i = 0; i < NIV; i++)
		{
			uint64_t	si = rs[i].ts_ns - rs[i].duration_ns;
			uint32_t	at = 0;

			if (rs[i].old_event != evs[k])
				continue;
			n++;
			for (int j = 0; j < NIV; j++)
				if (rs[j].old_event == evs[k] && rs[j].ts_ns - rs[j].duration_ns <= si &&
					rs[j].ts_ns > si)
					at++;
			if (at > peak || (at == peak && si < peak_ns))
			{
				peak = at;
				peak_ns = si;
			}
		}
		EXPECT(r && r->intervals == n && r->peak == peak && r->peak_ns == peak_ns);
	}
	EXPECT_U64(c.late_intervals + c.forced_intervals + c.concurrent_overflow, 0);
	pgwt_concurrency_free(&c);
	pgwt_engine_free(e);
}

/* A herd that keeps coming: 6 sessions within the burst's 10 ms make one
 * burst of 6; the next 4, starting 10 ms after the first, a second one. */
static void
test_burst_grows(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_concurrency c;

	for (uint32_t i = 0; i < 10; i++)
	{
		uint64_t	s = T0 + (i < 6 ? i * 1 * MS : 10 * MS + (i - 6) * MS);
		pgwt_record r = wait_iv(20 + i, EV_WALWRITE, s, s + 500 * 1000);

		pgwt_engine_add(e, &r);
	}
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	EXPECT_U64(c.nbursts, 2);
	if (c.nbursts == 2)
	{
		EXPECT(c.bursts[0].first_ns == T0 && c.bursts[0].sessions == 6);
		EXPECT(c.bursts[1].first_ns == T0 + 10 * MS && c.bursts[1].sessions == 4);
	}
	EXPECT(c.n == 1 && c.rows[0].bursts == 2 && c.rows[0].max_burst_sessions == 6 && c.rows[0].peak == 1);
	pgwt_concurrency_free(&c);
	pgwt_engine_free(e);
}

static void
test_interference(void)
{
	pgwt_window_spec w[2] = {{0, UINT64_MAX, "all"}, {T0 + 50 * MS, T0 + 1 * S, "w2"}};
	pgwt_engine *e = exact_engine(w, 2, NULL);
	pgwt_interference_rows rows;
	static const struct
	{
		uint32_t	a,
					b;
		uint64_t	ms;
	}			want[] = {{1, 2, 47}, {1, 3, 24}, {2, 3, 24}, {1, 4, 11}, {2, 4, 11}, {3, 4, 11}, {5, 6, 5}};

	feed_herd(e);
	EXPECT(pgwt_view_interference(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT_U64(rows.n, 7);
	for (size_t i = 0; i < rows.n && i < 7; i++)
	{
		EXPECT_U64(rows.rows[i].pid_a, want[i].a);
		EXPECT_U64(rows.rows[i].pid_b, want[i].b);
		EXPECT_U64(rows.rows[i].overlap_ns, want[i].ms * MS);
		EXPECT_U64(rows.rows[i].overlaps, 1);
		EXPECT_U64(rows.rows[i].top_event, EV_DATAFILEREAD);
	}
	pgwt_interference_rows_free(&rows);
	EXPECT(pgwt_view_interference(e, 0, &(pgwt_view_opts) {.limit = 1}, &rows) == PGWT_VIEW_OK);
	EXPECT_U64(rows.n, 1);
	pgwt_interference_rows_free(&rows);
	/* the second window clips: only (5, 6) */
	EXPECT(pgwt_view_interference(e, 1, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT(rows.n == 1 && rows.rows[0].pid_a == 5 && rows.rows[0].overlap_ns == 5 * MS);
	pgwt_interference_rows_free(&rows);
	pgwt_engine_free(e);
}

/*
 * With a 1 ms reorder delay, pid 1's wait [0, 2 ms) is swept when the
 * stream reaches 2 ms; pid 2's wait [-100 ms, 3 ms) then arrives after the
 * sweep passed its start: it is counted late, left out, and the view says
 * so. A heap of 2 sweeps its earliest interval early (forced).
 */
static void
test_sweep_late_forced(void)
{
	pgwt_engine_config cfg = {.interval_reorder_ns = 1 * MS};
	pgwt_engine *e = exact_engine(&all_time, 1, &cfg);
	pgwt_concurrency c;
	pgwt_record a = wait_iv(1, EV_DATAFILEREAD, T0, T0 + 2 * MS),
				b = wait_iv(2, EV_DATAFILEREAD, T0 - 100 * MS, T0 + 3 * MS);

	pgwt_engine_add(e, &a);
	pgwt_engine_add(e, &b);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	EXPECT_U64(c.late_intervals, 1);
	EXPECT(c.n == 1 && c.rows[0].peak == 1 && c.rows[0].intervals == 1);
	pgwt_concurrency_free(&c);
	pgwt_engine_free(e);

	cfg = (pgwt_engine_config) {.max_pending_intervals = 2};
	e = exact_engine(&all_time, 1, &cfg);
	for (uint32_t i = 0; i < 3; i++)
	{
		pgwt_record r = wait_iv(1 + i, EV_DATAFILEREAD, T0 + i * MS, T0 + 10 * MS);

		pgwt_engine_add(e, &r);
	}
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_OK);
	EXPECT_U64(c.forced_intervals, 1);
	EXPECT_U64(c.late_intervals, 0);
	EXPECT(c.n == 1 && c.rows[0].peak == 3 && c.rows[0].peak_ns == T0 + 2 * MS);
	pgwt_concurrency_free(&c);
	pgwt_engine_free(e);
}

/*
 * Lock waits (from T0, ms) and what pg_blocking_pids said during them:
 *	200 [0, 150)  obs at 5:  blocked by 100
 *	300 [10, 110) obs at 20: blocked by 200
 *	400 [30, 80)  obs at 40: blocked by 100 (the observation arrives after
 *	              the wait's transition)
 *	500 [0, 20)   obs at 1:  blocked by 600
 *	800 [0, 10)   obs at 2:  blocked by 100 and 600
 *	700 [0, 60)   no observation: in no chain
 *	obs at 500 for 200: after its wait ended, matches nothing
 * Heads: 100 (on CPU) with 200, 400, 800 directly and 300 through 200:
 * 4 waiters, 150+100+50+10 = 310 ms, depth 2 (300 -> 200 -> 100); 600 with
 * 500 and 800: 2 waiters, 30 ms, depth 1.
 */
static void
test_lock_chains(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_lock_chains lc;
	pgwt_record rs[] = {
		wait_iv(200, EV_LOCK_XID, T0, T0 + 150 * MS),
		wait_iv(300, EV_LOCK_XID, T0 + 10 * MS, T0 + 110 * MS),
		wait_iv(400, EV_LOCK_XID, T0 + 30 * MS, T0 + 80 * MS),
		wait_iv(500, EV_LOCK_XID, T0, T0 + 20 * MS),
		wait_iv(800, EV_LOCK_XID, T0, T0 + 10 * MS),
		wait_iv(700, EV_LOCK_XID, T0, T0 + 60 * MS),
	};
	pgwt_blocker_obs before[] = {
		{T0 + 5 * MS, 200, 1, {100}},
		{T0 + 20 * MS, 300, 1, {200}},
		{T0 + 1 * MS, 500, 1, {600}},
		{T0 + 2 * MS, 800, 2, {100, 600}},
	};
	pgwt_blocker_obs after[] = {
		{T0 + 40 * MS, 400, 1, {100}},
		{T0 + 500 * MS, 200, 1, {100}},
	};

	for (size_t i = 0; i < 4; i++)
		pgwt_engine_feed_blockers(e, &before[i]);
	pgwt_engine_add_many(e, rs, 6);
	for (size_t i = 0; i < 2; i++)
		pgwt_engine_feed_blockers(e, &after[i]);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_lock_chains(e, 0, NULL, &lc) == PGWT_VIEW_OK);
	EXPECT_U64(lc.n, 2);
	if (lc.n == 2)
	{
		const pgwt_lock_chain_row *a = &lc.chains[0],
				   *b = &lc.chains[1];

		EXPECT(a->head == 100 && !a->cycle && a->waiters == 4 && a->total_wait_ns == 310 * MS && a->depth == 2);
		EXPECT(a->npath == 3 && a->path[0] == 300 && a->path[1] == 200 && a->path[2] == 100);
		EXPECT(b->head == 600 && b->waiters == 2 && b->total_wait_ns == 30 * MS && b->depth == 1);
		EXPECT(b->npath == 2 && b->path[0] == 500 && b->path[1] == 600);
	}
	EXPECT_U64(lc.nedges, 6);
	if (lc.nedges == 6)
	{
		/* by wait: 200->100 150 ms (2 observations, one outside the wait) */
		EXPECT(lc.edges[0].waiter == 200 && lc.edges[0].blocker == 100 && lc.edges[0].wait_ns == 150 * MS &&
			   lc.edges[0].waits == 1 && lc.edges[0].observations == 2);
		EXPECT(lc.edges[2].waiter == 400 && lc.edges[2].wait_ns == 50 * MS);
		EXPECT(lc.edges[4].waiter == 800 && lc.edges[4].blocker == 100 && lc.edges[4].wait_ns == 10 * MS);
		EXPECT(lc.edges[5].waiter == 800 && lc.edges[5].blocker == 600 && lc.edges[5].wait_ns == 10 * MS);
	}
	pgwt_lock_chains_free(&lc);
	pgwt_engine_free(e);
}

/* A deadlock: 900 and 901 each wait on the other for 1 s. No head waits
 * on no one, so the cycle is one chain from its lowest pid. */
static void
test_lock_cycle(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_lock_chains lc;
	pgwt_record a = wait_iv(900, EV_LOCK_XID, T0, T0 + 1 * S),
				b = wait_iv(901, EV_LOCK_XID, T0, T0 + 1 * S);
	pgwt_blocker_obs o1 = {T0 + 1 * MS, 900, 1, {901}},
				o2 = {T0 + 1 * MS, 901, 1, {900}};

	pgwt_engine_feed_blockers(e, &o1);
	pgwt_engine_feed_blockers(e, &o2);
	pgwt_engine_add(e, &a);
	pgwt_engine_add(e, &b);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_lock_chains(e, 0, NULL, &lc) == PGWT_VIEW_OK);
	EXPECT(lc.n == 1 && lc.chains[0].cycle && lc.chains[0].head == 900 && lc.chains[0].waiters == 1 &&
		   lc.chains[0].total_wait_ns == 1 * S);
	pgwt_lock_chains_free(&lc);
	pgwt_engine_free(e);
}

/* Sampled-only windows: every exact view says so; an engine built without
 * exact_analysis says that instead. */
static void
test_requires_exact(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_record s = smp(1, T0, EV_DATAFILEREAD, 100 * MS, 0);
	pgwt_blocker_obs o = {T0, 1, 1, {2}};
	pgwt_transition_rows t;
	pgwt_fingerprint_rows f;
	pgwt_concurrency c;
	pgwt_interference_rows i;
	pgwt_lock_chains l;
	pgwt_cross_validation x;

	EXPECT(pgwt_view_transitions(e, 0, NULL, &t) == PGWT_VIEW_NO_DATA);
	pgwt_engine_add(e, &s);
	pgwt_engine_feed_blockers(e, &o);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_transitions(e, 0, NULL, &t) == PGWT_VIEW_REQUIRES_EXACT && t.n == 0 && !t.rows);
	EXPECT(pgwt_view_fingerprints(e, 0, NULL, &f) == PGWT_VIEW_REQUIRES_EXACT && f.n == 0);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_REQUIRES_EXACT && c.n == 0);
	EXPECT(pgwt_view_interference(e, 0, NULL, &i) == PGWT_VIEW_REQUIRES_EXACT && i.n == 0);
	EXPECT(pgwt_view_lock_chains(e, 0, NULL, &l) == PGWT_VIEW_REQUIRES_EXACT && l.n == 0);
	EXPECT(pgwt_view_cross_validate(e, 0, &x) == PGWT_VIEW_REQUIRES_EXACT && x.n == 0);
	EXPECT(pgwt_view_transitions(e, 1, NULL, &t) == PGWT_VIEW_BAD_ARG);
	pgwt_engine_free(e);

	e = pgwt_engine_create(NULL, &all_time, 1, NULL);
	feed_query7(e);
	EXPECT(pgwt_view_transitions(e, 0, NULL, &t) == PGWT_VIEW_NOT_ENABLED);
	EXPECT(pgwt_view_concurrency(e, 0, NULL, &c) == PGWT_VIEW_NOT_ENABLED);
	EXPECT(pgwt_view_lock_chains(e, 0, NULL, &l) == PGWT_VIEW_NOT_ENABLED);
	EXPECT(pgwt_view_fingerprints(e, 0, NULL, &f) == PGWT_VIEW_OK && f.n == 1);
	pgwt_fingerprint_rows_free(&f);
	EXPECT(pgwt_view_cross_validate(e, 0, &x) == PGWT_VIEW_REQUIRES_SAMPLES);
	pgwt_engine_free(e);
	/* a cap out of range refuses to build */
	{
		pgwt_engine_config cfg = {.exact_analysis = true, .burst_sessions = 1};
		const char *err = NULL;

		EXPECT(pgwt_engine_create(&cfg, &all_time, 1, &err) == NULL && err != NULL);
	}
}

static const pgwt_xv_row *
find_xv(const pgwt_cross_validation *x, uint32_t ev)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->rows[i].event == ev)
			return &x->rows[i];
	return NULL;
}

/*
 * An escalation [T0, T0+1 s): pid 1 exactly 600 ms CPU, 400 ms
 * DataFileRead; ten 100 ms samples inside it: 6 CPU, 3 DataFileRead,
 * 1 WALWrite, all superseded. Shares exact 60/40/0, sampled 60/30/10:
 * diffs 0, -10, +10 pp; the worst is DataFileRead (first in row order);
 * top lists have 2 events each side (exact has only 2), both shared.
 * Samples after the span (pid 2, LWLock) are not part of the comparison,
 * and system_event shows no WALWrite row (its only sample was superseded).
 */
static void
test_cross_validate(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_cross_validation x;
	const pgwt_xv_row *r;
	pgwt_event_rows ev;

	{
		pgwt_record m = tr(0, T0, 0, PGWT_MARKER_ESC_START, 0, 0);

		pgwt_engine_add(e, &m);
	}
	for (int i = 0; i < 10; i++)
	{
		uint32_t	evs = i < 6 ? 0 : i < 9 ? EV_DATAFILEREAD : EV_WALWRITE;
		pgwt_record s = smp(1, T0 + (uint64_t) i * 100 * MS + 50 * MS, evs, 100 * MS, 0);

		pgwt_engine_add(e, &s);
	}
	{
		pgwt_record rs[] = {
			tr(1, T0 + 600 * MS, 0, EV_DATAFILEREAD, 600 * MS, 0),
			tr(1, T0 + 1 * S, EV_DATAFILEREAD, 0, 400 * MS, 0),
			tr(0, T0 + 1 * S, 0, PGWT_MARKER_ESC_END, 0, 0),
			smp(2, T0 + 2 * S, EV_WALINSERT, 100 * MS, 0),
			smp(2, T0 + 3 * S, EV_WALINSERT, 100 * MS, 0),
		};

		pgwt_engine_add_many(e, rs, 5);
	}
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_cross_validate(e, 0, &x) == PGWT_VIEW_OK);
	EXPECT(x.superseded_basis);
	EXPECT_U64(x.samples, 10);
	EXPECT_U64(x.exact_db_ns, 1 * S);
	EXPECT_U64(x.sampled_db_ns, 1 * S);
	EXPECT_U64(x.n, 3);
	r = find_xv(&x, 0);
	EXPECT(r && r == &x.rows[0]);
	if (r)
		EXPECT_DBL(r->diff_pp, 0.0);
	r = find_xv(&x, EV_DATAFILEREAD);
	if (r)
	{
		EXPECT_DBL(r->exact_pct, 40.0);
		EXPECT_DBL(r->sampled_pct, 30.0);
		EXPECT_DBL(r->diff_pp, -10.0);
	}
	r = find_xv(&x, EV_WALWRITE);
	EXPECT(r && r->exact_ns == 0 && r->sampled_ns == 100 * MS);
	EXPECT_DBL(x.worst_diff_pp, 10.0);
	EXPECT_U64(x.worst_event, EV_DATAFILEREAD);
	EXPECT_U64(x.top_n, 2);
	EXPECT_U64(x.top_overlap, 2);
	pgwt_cross_validation_free(&x);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &ev) == PGWT_VIEW_OK);
	for (size_t i = 0; i < ev.n; i++)
		EXPECT(ev.rows[i].event != EV_WALWRITE);
	pgwt_event_rows_free(&ev);
	pgwt_engine_free(e);
}

/*
 * Without spans, both tiers' records of one window are compared as they
 * are (pgwt-synth writes both for one truth). Exact: CPU 100, IO:DFR 300,
 * LWLock 600 ms; samples: CPU 200, DFR 200, LWLock 500, Lock 100 ms.
 * Top lists are 3 wide (exact has 3 events); the sampled top 3 has DFR
 * and CPU tied at 200: the lower id (CPU) wins, so all 3 match.
 */
static void
test_cross_validate_no_spans(void)
{
	pgwt_engine *e = exact_engine(&all_time, 1, NULL);
	pgwt_cross_validation x;
	pgwt_record rs[] = {
		tr(1, T0 + 100 * MS, 0, EV_DATAFILEREAD, 100 * MS, 0),
		tr(1, T0 + 400 * MS, EV_DATAFILEREAD, EV_WALINSERT, 300 * MS, 0),
		tr(1, T0 + 1000 * MS, EV_WALINSERT, 0, 600 * MS, 0),
		smp(1, T0 + 100 * MS, 0, 200 * MS, 0),
		smp(1, T0 + 300 * MS, EV_DATAFILEREAD, 200 * MS, 0),
		smp(1, T0 + 800 * MS, EV_WALINSERT, 500 * MS, 0),
		smp(1, T0 + 900 * MS, EV_LOCK_XID, 100 * MS, 0),
	};

	pgwt_engine_add_many(e, rs, 7);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_cross_validate(e, 0, &x) == PGWT_VIEW_OK);
	EXPECT(!x.superseded_basis);
	EXPECT_U64(x.samples, 4);
	EXPECT_U64(x.n, 4);
	EXPECT(x.n == 4 && x.rows[0].event == EV_WALINSERT && x.rows[3].event == EV_LOCK_XID);
	EXPECT_DBL(x.worst_diff_pp, 10.0);	/* CPU +10, DFR -10, LWLock -10, Lock +10 */
	EXPECT_U64(x.worst_event, EV_WALINSERT);
	EXPECT_U64(x.top_n, 3);
	EXPECT_U64(x.top_overlap, 3);
	pgwt_cross_validation_free(&x);
	pgwt_engine_free(e);
}

int
main(void)
{
	RUN(test_transitions);
	RUN(test_fingerprint_format);
	RUN(test_fingerprints);
	RUN(test_concurrency_bursts);
	RUN(test_burst_grows);
	RUN(test_sweep_shuffled);
	RUN(test_interference);
	RUN(test_sweep_late_forced);
	RUN(test_lock_chains);
	RUN(test_lock_cycle);
	RUN(test_requires_exact);
	RUN(test_cross_validate);
	RUN(test_cross_validate_no_spans);
	return unit_failures ? 1 : 0;
}
