/*
 * test_engine.c
 *		Known-truth scripted record streams through the engine and its
 *		views; every expected number is derived by hand in the comments.
 */
#include "analysis/engine.h"
#include "analysis/views.h"
#include "analysis/wait_event.h"
#include "unit.h"
#include "engine_fixture.h"

#include <stdlib.h>
#include <string.h>

static const pgwt_event_row *
find_row(const pgwt_event_rows *rows, uint32_t ev)
{
	for (size_t i = 0; i < rows->n; i++)
		if (!rows->rows[i].other && rows->rows[i].event == ev)
			return &rows->rows[i];
	return NULL;
}

/*
 * One backend: 10 x (50 ms CPU, then 200 ms PgSleep), then 1 s ClientRead.
 * DB time = 10*50 + 10*200 = 2500 ms; CPU* 500 ms (20%), Timeout 2000 ms
 * (80%); idle 1000 ms. Every sleep is 2e8 ns: us bucket 15 (>=16 ms), ns
 * bucket 18 ([2^27, 2^28)).
 */
static void
feed_sleeps(pgwt_engine *e)
{
	uint64_t	t = 1 * S;

	for (int i = 0; i < 10; i++)
	{
		t += 50 * MS;
		{
			pgwt_record r = tr(100, t, 0, EV_PGSLEEP, 50 * MS, 7);

			pgwt_engine_add(e, &r);
		}
		t += 200 * MS;
		{
			pgwt_record r = tr(100, t, EV_PGSLEEP, 0, 200 * MS, 7);

			pgwt_engine_add(e, &r);
		}
	}
	t += 1 * S;
	{
		pgwt_record r = tr(100, t, EV_CLIENTREAD, 0, 1 * S, 0);

		pgwt_engine_add(e, &r);
	}
}

static void
test_sleep_system_event(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_event_rows rows;
	const pgwt_event_row *r;
	pgwt_names names;

	pgwt_names_init(&names, 15);
	feed_sleeps(e);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.names = &names}, &rows) == PGWT_VIEW_OK);
	EXPECT_U64(rows.n, 3);		/* PgSleep, CPU*, ClientRead */
	r = find_row(&rows, EV_PGSLEEP);
	EXPECT(r != NULL);
	if (r)
	{
		EXPECT(r == &rows.rows[0]);		/* largest total first */
		EXPECT(r->waits_known);
		EXPECT_U64(r->waits, 10);
		EXPECT_U64(r->total_ns, 2000 * MS);
		EXPECT(r->avg_known);
		EXPECT_U64(r->avg_ns, 200 * MS);
		EXPECT(r->max_known);
		EXPECT_U64(r->max_ns, 200 * MS);
		EXPECT_DBL(r->pct_db, 80.0);
		EXPECT(r->fidelity == PGWT_FIDELITY_EXACT);
	}
	r = find_row(&rows, 0);
	EXPECT(r && r->waits == 10 && r->total_ns == 500 * MS);
	if (r)
		EXPECT_DBL(r->pct_db, 20.0);
	r = find_row(&rows, EV_CLIENTREAD);
	EXPECT(r && r->idle && r->pct_db < 0 && r->total_ns == 1 * S);
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(e);
}

static void
test_sleep_time_model(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_time_model tm;

	feed_sleeps(e);
	EXPECT(pgwt_view_time_model(e, 0, &tm) == PGWT_VIEW_OK);
	EXPECT_U64(tm.sum.db_ns, 2500 * MS);
	EXPECT_U64(tm.sum.cpu_ns, 500 * MS);
	EXPECT_U64(tm.sum.wait_ns, 2000 * MS);
	EXPECT_U64(tm.sum.idle_ns, 1 * S);
	EXPECT_U64(tm.sum.backends, 1);
	EXPECT(tm.sum.fidelity == PGWT_FIDELITY_EXACT);
	EXPECT_U64(tm.nclasses, 2);
	EXPECT_U64(tm.classes[0].class_index, PGWT_CLASS_CPU);
	EXPECT_DBL(tm.classes[0].pct_db, 20.0);
	EXPECT_U64(tm.classes[1].class_index, PGWT_CLASS_TIMEOUT);
	EXPECT_U64(tm.classes[1].total_ns, 2000 * MS);
	EXPECT_U64(tm.classes[1].ntop, 1);
	EXPECT_U64(tm.classes[1].top[0].event, EV_PGSLEEP);
	/* data covers [1.0 s, 4.5 s): 3.5 s; AAS = 2.5 / 3.5 */
	EXPECT_U64(tm.sum.data_first_ns, 1 * S);
	EXPECT_U64(tm.sum.data_last_ns, 4500 * MS);
	EXPECT_DBL(tm.sum.aas, 2.5 / 3.5);
	pgwt_engine_free(e);
}

static void
test_sleep_histogram(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_histogram h;
	uint64_t	sum = 0;

	feed_sleeps(e);
	EXPECT(pgwt_view_histogram(e, 0, EV_PGSLEEP, &h) == PGWT_VIEW_OK);
	EXPECT_U64(h.waits, 10);
	EXPECT_U64(h.ns[18], 10);
	for (int b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
		sum += h.ns[b];
	EXPECT_U64(sum, 10);
	EXPECT_U64(h.completed_ns, 2000 * MS);
	EXPECT(h.fidelity == PGWT_FIDELITY_EXACT);
	EXPECT(pgwt_view_histogram(e, 0, EV_DATAFILEREAD, &h) == PGWT_VIEW_NO_DATA);
	pgwt_engine_free(e);
}

/*
 * A 200 ms sleep ending at 1.1 s covers [0.9, 1.1): windows [0, 1) and
 * [1, 2) get 100 ms each; only [1, 2) counts the wait (it ended there),
 * with its full length as avg and max. A third window [0, 2) gets it whole.
 */
static void
test_window_clipping(void)
{
	pgwt_window_spec w[3] = {{0, 1 * S, "a"}, {1 * S, 2 * S, "b"}, {0, 2 * S, "c"}};
	pgwt_engine *e = pgwt_engine_create(NULL, w, 3, NULL);
	pgwt_record r = tr(1, 1100 * MS, EV_PGSLEEP, 0, 200 * MS, 0);
	pgwt_record before = tr(1, 3 * S, EV_PGSLEEP, 0, 500 * MS, 0);	/* [2.5, 3): no window */
	pgwt_event_rows rows;
	const pgwt_event_row *x;

	pgwt_engine_add(e, &r);
	pgwt_engine_add(e, &before);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_PGSLEEP);
	EXPECT(x && x->total_ns == 100 * MS && x->waits == 0 && x->waits_known && !x->avg_known && !x->max_known);
	pgwt_event_rows_free(&rows);
	EXPECT(pgwt_view_system_event(e, 1, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_PGSLEEP);
	EXPECT(x && x->total_ns == 100 * MS && x->waits == 1 && x->avg_ns == 200 * MS && x->max_ns == 200 * MS);
	pgwt_event_rows_free(&rows);
	EXPECT(pgwt_view_system_event(e, 2, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_PGSLEEP);
	EXPECT(x && x->total_ns == 200 * MS && x->waits == 1);
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(e);
}

/*
 * Samples of DataFileRead weighing 10, 20, 30 ms and one CPU sample of
 * 15 ms: IO 60 ms, DB 75 ms, waits unknown, max unknown, histogram refused.
 */
static void
test_sampled_only(void)
{
	pgwt_engine *e = one_window(0, 10 * S, NULL);
	pgwt_record rs[] = {
		smp(5, 1 * S, EV_DATAFILEREAD, 10 * MS, 9),
		smp(5, 2 * S, EV_DATAFILEREAD, 20 * MS, 9),
		smp(6, 2 * S, EV_DATAFILEREAD, 30 * MS, 9),
		smp(6, 3 * S, 0, 15 * MS, 9),
		smp(6, 11 * S, 0, 15 * MS, 9),	/* outside the window */
	};
	pgwt_event_rows rows;
	const pgwt_event_row *x;
	pgwt_histogram h;
	pgwt_time_model tm;

	pgwt_engine_add_many(e, rs, 5);
	EXPECT_U64(pgwt_engine_pending(e), 5);	/* waiting for their reorder delay */
	pgwt_engine_flush(e);
	EXPECT_U64(pgwt_engine_pending(e), 0);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_DATAFILEREAD);
	EXPECT(x != NULL);
	if (x)
	{
		EXPECT_U64(x->total_ns, 60 * MS);
		EXPECT_U64(x->sampled_ns, 60 * MS);
		EXPECT(!x->waits_known);
		EXPECT(!x->avg_known);
		EXPECT(!x->max_known);
		EXPECT(x->fidelity == PGWT_FIDELITY_SAMPLED);
		EXPECT_DBL(x->pct_db, 80.0);
	}
	pgwt_event_rows_free(&rows);
	EXPECT(pgwt_view_histogram(e, 0, EV_DATAFILEREAD, &h) == PGWT_VIEW_REQUIRES_EXACT);
	EXPECT(pgwt_view_time_model(e, 0, &tm) == PGWT_VIEW_OK);
	EXPECT_U64(tm.sum.db_ns, 75 * MS);
	EXPECT(tm.sum.fidelity == PGWT_FIDELITY_SAMPLED);
	EXPECT_U64(tm.sum.backends, 2);
	pgwt_engine_free(e);
}

/* Exact sleeps in [1, 4.5) plus samples elsewhere: mixed; exact-only
 * histogram still works on the exact part, a sampled-only event is refused. */
static void
test_mixed(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_record s1 = smp(200, 50 * S, EV_PGSLEEP, 100 * MS, 0);
	pgwt_record s2 = smp(200, 51 * S, EV_WALWRITE, 40 * MS, 0);
	pgwt_event_rows rows;
	const pgwt_event_row *x;
	pgwt_histogram h;
	pgwt_window_summary sum;

	feed_sleeps(e);
	pgwt_engine_add(e, &s1);
	pgwt_engine_add(e, &s2);
	pgwt_engine_flush(e);
	pgwt_view_summary(e, 0, &sum);
	EXPECT(sum.fidelity == PGWT_FIDELITY_MIXED);
	EXPECT_U64(sum.db_ns, 2640 * MS);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_PGSLEEP);
	EXPECT(x && x->fidelity == PGWT_FIDELITY_MIXED && !x->waits_known && x->waits == 10 &&
		   x->total_ns == 2100 * MS && x->max_known && x->max_ns == 200 * MS);
	pgwt_event_rows_free(&rows);
	EXPECT(pgwt_view_histogram(e, 0, EV_PGSLEEP, &h) == PGWT_VIEW_OK);
	EXPECT(h.waits == 10 && h.sampled_ns == 100 * MS && h.fidelity == PGWT_FIDELITY_MIXED);
	EXPECT(pgwt_view_histogram(e, 0, EV_WALWRITE, &h) == PGWT_VIEW_REQUIRES_EXACT);
	pgwt_engine_free(e);
}

/* Samples inside an escalation span are superseded by the exact records. */
static void
test_escalation_span(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_record rs[] = {
		smp(1, 500 * MS, EV_DATAFILEREAD, 100 * MS, 0),	/* kept */
		tr(0, 1 * S, 0, PGWT_MARKER_ESC_START, 0, 0),
		smp(1, 1500 * MS, EV_DATAFILEREAD, 100 * MS, 0),	/* dropped */
		tr(1, 1600 * MS, EV_DATAFILEREAD, 0, 300 * MS, 0),	/* exact */
		tr(0, 2 * S, 0, PGWT_MARKER_ESC_END, 0, 0),
		smp(1, 2500 * MS, EV_DATAFILEREAD, 100 * MS, 0),	/* kept */
		smp(1, 1800 * MS, EV_DATAFILEREAD, 100 * MS, 0),	/* late, in the closed span: dropped */
	};
	pgwt_event_rows rows;
	const pgwt_event_row *x;
	const pgwt_engine_counters *c;

	pgwt_engine_add_many(e, rs, 7);
	pgwt_engine_flush(e);
	c = pgwt_engine_counters_get(e);
	EXPECT_U64(c->superseded_samples, 2);
	EXPECT_U64(c->markers, 2);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	x = find_row(&rows, EV_DATAFILEREAD);
	EXPECT(x && x->total_ns == 500 * MS && x->exact_ns == 300 * MS && x->sampled_ns == 200 * MS);
	pgwt_event_rows_free(&rows);
	/* a span declared up front works the same */
	pgwt_engine_reset(e);
	pgwt_engine_add_exact_span(e, 10 * S, 20 * S);
	{
		pgwt_record a = smp(1, 15 * S, 0, 1 * S, 0),
					b = smp(1, 20 * S, 0, 1 * S, 0);

		pgwt_engine_add(e, &a);
		pgwt_engine_add(e, &b);
	}
	pgwt_engine_flush(e);
	EXPECT_U64(pgwt_engine_counters_get(e)->superseded_samples, 1);
	pgwt_engine_free(e);
}

/*
 * A sample block read before the transition block holding ESC_START: the
 * sample at 1.5 s arrives first, the marker (1.2 s) after it, within the
 * reorder delay; the sample is still superseded. A sample at 0.5 s is
 * committed as soon as the stream passes 0.5 s + 11 s. A queue of 2 forces
 * the oldest out when a third sample comes, and counts it.
 */
static void
test_sample_reorder(void)
{
	pgwt_engine_config cfg = {.max_pending_samples = 2};
	pgwt_engine *e = one_window(0, 100 * S, &cfg);
	pgwt_record early = smp(1, 500 * MS, EV_DATAFILEREAD, 100 * MS, 0);
	pgwt_record s15 = smp(1, 1500 * MS, EV_DATAFILEREAD, 100 * MS, 0);
	pgwt_record esc = tr(0, 1200 * MS, 0, PGWT_MARKER_ESC_START, 0, 0);
	pgwt_record late = tr(1, 11600 * MS, EV_WALWRITE, 0, 1 * MS, 0);
	pgwt_record s3 = smp(1, 30 * S, 0, 1 * MS, 0),
				s4 = smp(1, 31 * S, 0, 1 * MS, 0),
				s5 = smp(1, 32 * S, 0, 1 * MS, 0);
	pgwt_window_summary sum;

	pgwt_engine_add(e, &early);
	pgwt_engine_add(e, &s15);
	pgwt_engine_add(e, &esc);
	EXPECT_U64(pgwt_engine_pending(e), 2);
	pgwt_engine_add(e, &late);	/* 11.6 s: 0.5 s + 11 s has passed */
	EXPECT_U64(pgwt_engine_pending(e), 1);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.db_ns, 101 * MS);
	pgwt_engine_flush(e);
	EXPECT_U64(pgwt_engine_counters_get(e)->superseded_samples, 1);
	/* end the span, then overflow the queue of 2 */
	{
		pgwt_record end = tr(0, 12 * S, 0, PGWT_MARKER_ESC_END, 0, 0);

		pgwt_engine_add(e, &end);
	}
	pgwt_engine_add(e, &s3);
	pgwt_engine_add(e, &s4);
	pgwt_engine_add(e, &s5);
	EXPECT_U64(pgwt_engine_counters_get(e)->samples_forced, 1);
	pgwt_engine_flush(e);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.db_ns, 104 * MS);
	EXPECT_U64(sum.sample_records, 4);
	pgwt_engine_free(e);
}

/*
 * A key folded into "other" counts every record there, even when new
 * (pid, event, query) keys meet it again (the fills' memos keep no folded
 * key); a reset forgets the tables and whatever pointed into them. With
 * room for one event, A takes it: B's three records (three queries)
 * fold, and after a reset B takes it and A's two fold.
 */
static void
test_caps_refold(void)
{
	pgwt_engine_config cfg = {.max_events = 1};
	pgwt_engine *e = one_window(0, 100 * S, &cfg);
	pgwt_window_summary sum;
	pgwt_record rs[4] = {
		tr(10, 1 * S, 0x0A000001, 0, 1 * MS, 1),
		tr(10, 2 * S, 0x0A000002, 0, 2 * MS, 1),
		tr(10, 3 * S, 0x0A000002, 0, 3 * MS, 2),
		tr(11, 4 * S, 0x0A000002, 0, 4 * MS, 3),
	};
	pgwt_record again[3] = {
		tr(10, 1 * S, 0x0A000002, 0, 1 * MS, 1),
		tr(10, 2 * S, 0x0A000001, 0, 2 * MS, 2),
		tr(12, 3 * S, 0x0A000001, 0, 3 * MS, 3),
	};
	pgwt_event_rows rows;

	pgwt_engine_add_many(e, rs, 4);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.other_event_records, 3);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT(rows.n == 2 && rows.rows[0].event == 0x0A000001 && rows.rows[0].total_ns == 1 * MS &&
		   rows.rows[1].other && rows.rows[1].total_ns == 9 * MS);
	pgwt_event_rows_free(&rows);
	pgwt_engine_reset(e);
	pgwt_engine_add_many(e, again, 3);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.other_event_records, 2);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT(rows.n == 2 && rows.rows[0].event == 0x0A000002 && rows.rows[0].total_ns == 1 * MS &&
		   rows.rows[1].other && rows.rows[1].total_ns == 5 * MS);
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(e);
}

/* 6 events into a table capped at 4: the 2 latest fold into "other". */
static void
test_caps_overflow(void)
{
	pgwt_engine_config cfg = {.max_events = 4, .max_query_events = 2, .max_sessions = 2};
	pgwt_engine *e = one_window(0, 100 * S, &cfg);
	uint32_t	evs[6] = {0x0A000001, 0x0A000002, 0x0A000003, 0x0A000004, 0x0A000005, 0x0A000006};
	pgwt_event_rows rows;
	pgwt_session_rows srows;
	pgwt_window_summary sum;
	uint64_t	total = 0;

	for (int i = 0; i < 6; i++)
	{
		pgwt_record r = tr((uint32_t) (10 + i), (uint64_t) (i + 1) * S, evs[i], 0, (uint64_t) (i + 1) * MS, (uint64_t) i);

		pgwt_engine_add(e, &r);
	}
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT_U64(rows.n, 5);
	EXPECT(rows.rows[4].other);
	EXPECT_U64(rows.rows[4].total_ns, 11 * MS);	/* 5 + 6 ms */
	EXPECT_U64(rows.rows[4].waits, 2);
	for (size_t i = 0; i < rows.n; i++)
		total += rows.rows[i].total_ns;
	EXPECT_U64(total, 21 * MS);		/* nothing lost */
	pgwt_event_rows_free(&rows);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.other_event_records, 2);
	EXPECT_U64(sum.other_query_event_records, 4);
	EXPECT_U64(sum.other_session_records, 4);
	EXPECT_U64(sum.db_ns, 21 * MS);	/* class totals are never capped */
	EXPECT(pgwt_view_query_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	EXPECT_U64(rows.n, 3);
	EXPECT(rows.rows[2].other && rows.rows[2].total_ns == 18 * MS);
	pgwt_event_rows_free(&rows);
	EXPECT(pgwt_view_session_event(e, 0, NULL, &srows) == PGWT_VIEW_OK);
	EXPECT_U64(srows.n, 3);
	EXPECT(srows.rows[2].other && srows.rows[2].db_ns == 18 * MS);
	pgwt_session_rows_free(&srows);
	{
		pgwt_histogram h;

		EXPECT(pgwt_view_histogram(e, 0, 0x0A000006, &h) == PGWT_VIEW_TRUNCATED);
	}
	pgwt_engine_free(e);
}

/*
 * pid 1: CPU 300 ms + DataFileRead 700 ms -> DB 1 s, CPU 30%, top IO.
 * pid 2: Lock:transactionid 2 s, then exits after 100 ms of CPU.
 */
static void
test_sessions(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_backend_info b1 = {.pid = 1, .type = "client backend", .user = "app", .database = "db1"};
	pgwt_record rs[] = {
		tr(1, 1300 * MS, 0, EV_DATAFILEREAD, 300 * MS, 0),
		tr(1, 2000 * MS, EV_DATAFILEREAD, 0, 700 * MS, 0),
		tr(2, 3000 * MS, EV_LOCK_XID, 0, 2000 * MS, 0),
		tr(2, 3100 * MS, 0, PGWT_EVENT_EXIT, 100 * MS, 0),
	};
	pgwt_session_rows s;
	pgwt_event_rows d;
	pgwt_names names;

	pgwt_names_init(&names, 15);
	EXPECT(pgwt_engine_set_backend(e, &b1));
	pgwt_engine_add_many(e, rs, 4);
	EXPECT(pgwt_view_session_event(e, 0, NULL, &s) == PGWT_VIEW_OK);
	EXPECT_U64(s.n, 2);
	if (s.n == 2)
	{
		EXPECT_U64(s.rows[0].pid, 2);
		EXPECT_U64(s.rows[0].db_ns, 2100 * MS);
		EXPECT(s.rows[0].exited);
		EXPECT(s.rows[0].info == NULL);
		EXPECT(s.rows[0].has_top_wait && s.rows[0].top_wait == EV_LOCK_XID);
		EXPECT_U64(s.rows[1].pid, 1);
		EXPECT_U64(s.rows[1].db_ns, 1000 * MS);
		EXPECT_DBL(s.rows[1].cpu_pct, 30.0);
		EXPECT_DBL(s.rows[1].wait_pct, 70.0);
		EXPECT(s.rows[1].top_wait == EV_DATAFILEREAD);
		EXPECT(s.rows[1].info && strcmp(s.rows[1].info->user, "app") == 0);
		EXPECT(!s.rows[1].exited);
	}
	pgwt_session_rows_free(&s);
	EXPECT(pgwt_view_session_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_PID}, &s) == PGWT_VIEW_OK);
	EXPECT(s.n == 2 && s.rows[0].pid == 1);
	pgwt_session_rows_free(&s);
	/* event sort: IO:DataFileRead < Lock:transactionid */
	EXPECT(pgwt_view_session_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_EVENT, .names = &names}, &s) == PGWT_VIEW_OK);
	EXPECT(s.n == 2 && s.rows[0].pid == 1);
	pgwt_session_rows_free(&s);
	EXPECT(pgwt_view_session_detail(e, 0, 1, NULL, &d) == PGWT_VIEW_OK);
	EXPECT_U64(d.n, 2);
	if (d.n == 2)
	{
		EXPECT(d.rows[0].event == EV_DATAFILEREAD && d.rows[0].total_ns == 700 * MS && d.rows[0].pid == 1);
		EXPECT_DBL(d.rows[0].pct_db, 70.0);
		EXPECT(d.rows[1].event == 0 && d.rows[1].total_ns == 300 * MS);
	}
	pgwt_event_rows_free(&d);
	EXPECT(pgwt_view_session_detail(e, 0, 99, NULL, &d) == PGWT_VIEW_NO_DATA);
	pgwt_engine_free(e);
}

/* q1: IO 100 ms + CPU 50 ms; q2: IO 300 ms. */
static void
test_query_event(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_record rs[] = {
		tr(1, 1 * S, EV_DATAFILEREAD, 0, 100 * MS, 11),
		tr(1, 2 * S, 0, EV_DATAFILEREAD, 50 * MS, 11),
		tr(2, 3 * S, EV_DATAFILEREAD, 0, 300 * MS, 22),
		tr(2, 4 * S, EV_DATAFILEREAD, 0, 100 * MS, 22),
		tr(2, 9 * S, EV_CLIENTREAD, 0, 5 * S, 22),	/* idle after q2 */
	};
	pgwt_event_rows r;

	pgwt_engine_add_many(e, rs, 5);
	EXPECT(pgwt_view_query_event(e, 0, NULL, &r) == PGWT_VIEW_OK);
	EXPECT_U64(r.n, 3);
	if (r.n == 3)
	{
		EXPECT(r.rows[0].query_id == 22 && r.rows[0].event == EV_DATAFILEREAD && r.rows[0].total_ns == 400 * MS);
		EXPECT(r.rows[0].waits == 2 && r.rows[0].avg_ns == 200 * MS && r.rows[0].max_ns == 300 * MS);
		EXPECT(r.rows[1].query_id == 11 && r.rows[1].event == EV_DATAFILEREAD);
		EXPECT(r.rows[2].query_id == 11 && r.rows[2].event == 0);
	}
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.has_event = true, .event = EV_DATAFILEREAD}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 2 && r.rows[0].query_id == 22 && r.rows[1].query_id == 11);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.has_query = true, .query_id = 11, .sort = PGWT_SORT_WAITS}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 2 && r.rows[0].event == EV_DATAFILEREAD && r.rows[1].event == 0);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.has_query = true, .query_id = 33}, &r) == PGWT_VIEW_NO_DATA);
	/* idle time shows only when asked for */
	EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.has_event = true, .event = EV_CLIENTREAD}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 1 && r.rows[0].query_id == 22 && r.rows[0].total_ns == 5 * S && r.rows[0].idle && r.rows[0].pct_db < 0);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.limit = 1}, &r) == PGWT_VIEW_OK);
	EXPECT_U64(r.n, 1);
	pgwt_event_rows_free(&r);
	pgwt_engine_free(e);
}

/* Sort orders of system_event, with ties broken by id. */
static void
test_sorting(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_names names;
	pgwt_record rs[] = {
		tr(1, 1 * S, EV_WALINSERT, 0, 10 * MS, 0),	/* LWLock: 3 waits, 30 ms, max 10 */
		tr(1, 2 * S, EV_WALINSERT, 0, 10 * MS, 0),
		tr(1, 3 * S, EV_WALINSERT, 0, 10 * MS, 0),
		tr(1, 4 * S, EV_PGSLEEP, 0, 50 * MS, 0),	/* 1 wait, 50 ms */
		smp(1, 5 * S, EV_DATAFILEREAD, 40 * MS, 0),	/* sampled 40 ms */
	};
	pgwt_event_rows r;

	pgwt_names_init(&names, 15);
	pgwt_engine_add_many(e, rs, 5);
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_TOTAL}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 3 && r.rows[0].event == EV_PGSLEEP && r.rows[1].event == EV_DATAFILEREAD && r.rows[2].event == EV_WALINSERT);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_WAITS}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 3 && r.rows[0].event == EV_WALINSERT && r.rows[1].event == EV_PGSLEEP && r.rows[2].event == EV_DATAFILEREAD);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_EVENT, .names = &names}, &r) == PGWT_VIEW_OK);
	/* IO:DataFileRead < LWLock:WALInsert < Timeout:PgSleep */
	EXPECT(r.n == 3 && r.rows[0].event == EV_DATAFILEREAD && r.rows[1].event == EV_WALINSERT && r.rows[2].event == EV_PGSLEEP);
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.sort = PGWT_SORT_MAX}, &r) == PGWT_VIEW_OK);
	EXPECT(r.n == 3 && r.rows[0].event == EV_PGSLEEP && r.rows[2].event == EV_DATAFILEREAD);
	pgwt_event_rows_free(&r);
	{
		pgwt_sort s;

		EXPECT(pgwt_sort_parse("wait_time", &s) && s == PGWT_SORT_TOTAL);
		EXPECT(pgwt_sort_parse("db_time", &s) && s == PGWT_SORT_DB_TIME);
		EXPECT(!pgwt_sort_parse("bogus", &s));
	}
	pgwt_engine_free(e);
}

/* Activity is idle: a row in the event list with no share of DB time
 * (common/event_ids.h pgwt_event_is_wait); markers carry no time; bad
 * records are counted, not billed. */
static void
test_idle_markers_bad(void)
{
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_record rs[] = {
		tr(7, 1 * S, EV_ARCHIVER, 0, 1 * S, 0),
		tr(7, 2 * S, 0, PGWT_MARKER_EXEC_START, 5 * S, 0),
		tr(7, 3 * S, PGWT_EVENT_EXIT, 0, 5 * S, 0),	/* first sighting */
		smp(7, 4 * S, 0, 0, 0),	/* zero weight */
	};
	pgwt_record bad = {.kind = 9, .ts_ns = 1};
	pgwt_event_rows r;
	pgwt_window_summary sum;

	pgwt_engine_add_many(e, rs, 4);
	pgwt_engine_add(e, &bad);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.idle_ns, 1 * S);
	EXPECT_U64(sum.db_ns, 0);
	EXPECT_U64(pgwt_engine_counters_get(e)->bad_records, 2);
	EXPECT_U64(pgwt_engine_counters_get(e)->markers, 1);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &r) == PGWT_VIEW_OK);
	EXPECT_U64(r.n, 1);
	EXPECT(r.rows[0].event == EV_ARCHIVER && r.rows[0].idle && r.rows[0].pct_db < 0);
	EXPECT_U64(r.rows[0].total_ns, 1 * S);
	pgwt_event_rows_free(&r);
	pgwt_engine_free(e);
}

/*
 * The process rule in the engine: pid 10 is a client backend, pid 20 the
 * extension's trace writer, pid 30 a checkpointer, pid 40 has no metadata.
 * Each spends 100 ms on CPU, then 200 ms in WALWrite, then 1 s ClientRead
 * (idle). DB time = pids 10 and 40 (unknown counts as a session):
 * 2 x 300 = 600 ms; background = 20 and 30: 600 ms, their idle 2 s apart;
 * the WALWrite row holds 800 ms, of which 400 ms is the sessions' (66.67%
 * of DB time); a background pid bills no query; the session rows keep all
 * four pids.
 */
static void
test_background_processes(void)
{
	pgwt_engine *e = one_window(0, UINT64_MAX, NULL);
	static const char *const types[] = {"client backend", "pg_wait_tracer trace writer",
	"checkpointer"};
	pgwt_window_summary sum;
	pgwt_time_model tm;
	pgwt_event_rows r;
	const pgwt_event_row *w;

	for (int i = 0; i < 3; i++)
	{
		pgwt_backend_info bi = {0};

		bi.pid = 10u * (uint32_t) (i + 1);
		snprintf(bi.type, sizeof(bi.type), "%s", types[i]);
		EXPECT(pgwt_engine_set_backend(e, &bi));
	}
	EXPECT(!pgwt_engine_backend(e, 10)->background);
	EXPECT(pgwt_engine_backend(e, 20)->background);
	EXPECT(pgwt_engine_backend(e, 30)->background);
	for (uint32_t pid = 10; pid <= 40; pid += 10)
	{
		pgwt_record rs[3] = {
			tr(pid, 1 * S + 100 * MS, 0, EV_WALWRITE, 100 * MS, 7),
			tr(pid, 1 * S + 300 * MS, EV_WALWRITE, EV_CLIENTREAD, 200 * MS, 7),
			tr(pid, 2 * S + 300 * MS, EV_CLIENTREAD, 0, 1 * S, 0),
		};

		pgwt_engine_add_many(e, rs, 3);
	}
	pgwt_engine_flush(e);
	pgwt_view_summary(e, 0, &sum);
	EXPECT_U64(sum.db_ns, 600 * MS);
	EXPECT_U64(sum.cpu_ns, 200 * MS);
	EXPECT_U64(sum.idle_ns, 2 * S);
	EXPECT_U64(sum.background_ns, 600 * MS);
	EXPECT_U64(sum.background_idle_ns, 2 * S);
	EXPECT(pgwt_view_time_model(e, 0, &tm) == PGWT_VIEW_OK);
	EXPECT_U64(tm.classes[0].total_ns, 200 * MS);	/* CPU* of sessions only */
	/* the background processes' time by class, as the live time model */
	EXPECT_U64(tm.background_class_ns[0], 200 * MS);
	EXPECT_U64(tm.background_class_ns[EV_WALWRITE >> 24], 400 * MS);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &r) == PGWT_VIEW_OK);
	w = find_row(&r, EV_WALWRITE);
	EXPECT(w != NULL);
	if (w)
	{
		EXPECT_U64(w->total_ns, 800 * MS);
		EXPECT(w->pct_db > 66.6 && w->pct_db < 66.7);
	}
	pgwt_event_rows_free(&r);
	EXPECT(pgwt_view_query_event(e, 0, NULL, &r) == PGWT_VIEW_OK);
	w = find_row(&r, EV_WALWRITE);
	EXPECT(w != NULL && w->total_ns == 400 * MS);
	pgwt_event_rows_free(&r);
	pgwt_engine_free(e);
}

/* The row of (pid, event) in session_events rows, or NULL. */
static const pgwt_event_row *
find_pid_row(const pgwt_event_rows *rows, uint32_t pid, uint32_t ev)
{
	for (size_t i = 0; i < rows->n; i++)
		if (!rows->rows[i].other && rows->rows[i].pid == pid && rows->rows[i].event == ev)
			return &rows->rows[i];
	return NULL;
}

/*
 * Rows per session and event, as the live pgwt_session_event: pid 1 (a
 * client backend) CPU 300 ms then DataFileRead 700 ms (ns bucket 20:
 * [2^29, 2^30)), 70% of its DB time; pid 2 (checkpointer, background)
 * DataFileRead 100 ms (bucket 17: [2^26, 2^27)), then exits: no share of
 * DB time, and no query's. With key_histograms each key has its buckets;
 * without, session and query rows have none (system rows always do).
 */
static void
test_session_events(void)
{
	pgwt_engine_config cfg = {.key_histograms = true};
	pgwt_backend_info b1 = {.pid = 1, .type = "client backend", .start_realtime_ns = 42};
	pgwt_backend_info b2 = {.pid = 2, .type = "checkpointer"};
	pgwt_record rs[] = {
		tr(1, 1300 * MS, 0, EV_DATAFILEREAD, 300 * MS, 5),
		tr(1, 2000 * MS, EV_DATAFILEREAD, 0, 700 * MS, 5),
		tr(2, 3000 * MS, EV_DATAFILEREAD, 0, 100 * MS, 6),
		tr(2, 3100 * MS, 0, PGWT_EVENT_EXIT, 100 * MS, 6),
	};
	pgwt_event_rows r;
	const pgwt_event_row *w;

	for (int pass = 0; pass < 2; pass++)
	{
		pgwt_engine *e;

		cfg.key_histograms = pass == 0;
		e = one_window(0, 100 * S, &cfg);
		EXPECT(pgwt_engine_set_backend(e, &b1) && pgwt_engine_set_backend(e, &b2));
		EXPECT_U64(pgwt_engine_backend(e, 1)->start_realtime_ns, 42);
		pgwt_engine_add_many(e, rs, 4);
		EXPECT(pgwt_view_session_events(e, 0, NULL, &r) == PGWT_VIEW_OK);
		EXPECT_U64(r.n, 4);		/* (1, IO), (1, CPU*), (2, IO), (2, CPU*) */
		w = find_pid_row(&r, 1, EV_DATAFILEREAD);
		EXPECT(w != NULL);
		if (w)
		{
			EXPECT(w->total_ns == 700 * MS && w->waits == 1 && !w->exited);
			EXPECT(w->min_ns == 700 * MS && w->max_ns == 700 * MS);
			EXPECT_DBL(w->pct_db, 70.0);
			EXPECT(pass == 0 ? w->hist_ns != NULL && w->hist_ns[20] == 1 : w->hist_ns == NULL);
		}
		w = find_pid_row(&r, 2, EV_DATAFILEREAD);
		EXPECT(w != NULL);
		if (w)
		{
			EXPECT(w->total_ns == 100 * MS && w->pct_db < 0 && w->exited);
			EXPECT(pass == 0 ? w->hist_ns != NULL && w->hist_ns[17] == 1 : w->hist_ns == NULL);
		}
		EXPECT(find_pid_row(&r, 1, 0) != NULL && find_pid_row(&r, 1, 0)->total_ns == 300 * MS);
		pgwt_event_rows_free(&r);
		EXPECT(pgwt_view_query_event(e, 0, &(pgwt_view_opts) {.has_event = true, .event = EV_DATAFILEREAD}, &r) == PGWT_VIEW_OK);
		EXPECT(r.n == 1 && r.rows[0].query_id == 5);	/* the checkpointer's is no query's */
		if (r.n == 1)
			EXPECT(pass == 0 ? r.rows[0].hist_ns != NULL && r.rows[0].hist_ns[20] == 1 &&
				   r.rows[0].hist_ns[17] == 0 : r.rows[0].hist_ns == NULL);
		pgwt_event_rows_free(&r);
		EXPECT(pgwt_view_system_event(e, 0, NULL, &r) == PGWT_VIEW_OK);
		w = find_row(&r, EV_DATAFILEREAD);
		EXPECT(w != NULL && w->hist_ns != NULL && w->hist_ns[20] == 1 && w->hist_ns[17] == 1);
		/* the event's extremes over both sessions */
		EXPECT(w != NULL && w->min_ns == 100 * MS && w->max_ns == 700 * MS);
		pgwt_event_rows_free(&r);
		pgwt_engine_free(e);
	}
}

static void
test_bad_config(void)
{
	pgwt_window_spec w = {5, 5, ""};
	const char *err = NULL;

	EXPECT(pgwt_engine_create(NULL, &w, 1, &err) == NULL && err != NULL);
	EXPECT(pgwt_engine_create(NULL, &w, 0, &err) == NULL);
	EXPECT(pgwt_engine_create(NULL, &w, 9, &err) == NULL);
}

/*
 * The scheduler tier's CPU* split (common/event_ids.h): one backend runs
 * 100 ms, waits 300 ms in the run queue, runs 100 ms, sleeps 50 ms, runs
 * 10 ms. On CPU 100 + 100 + 10 = 210 ms, CPU:RunQueue 300 ms, so CPU* is
 * 510 ms; PgSleep 50 ms; DB time 560 ms. The run queue is a row of its own, sits
 * under CPU* in the time model (with CPU:OnCPU), counts as the session's CPU and is never
 * its top wait. As that tier writes it, the on-CPU part is CPU:OnCPU, not
 * event 0: the view has no unsplit CPU* row beside the run queue.
 */
static void
test_cpu_runqueue_split(void)
{
	const uint32_t ON = PGWT_EVENT_CPU_ONCPU;
	pgwt_engine *e = one_window(0, 100 * S, NULL);
	pgwt_record rs[] = {
		tr(7, 1100 * MS, ON, PGWT_EVENT_CPU_RUNQUEUE, 100 * MS, 5),
		tr(7, 1400 * MS, PGWT_EVENT_CPU_RUNQUEUE, ON, 300 * MS, 5),
		tr(7, 1500 * MS, ON, EV_PGSLEEP, 100 * MS, 5),
		tr(7, 1550 * MS, EV_PGSLEEP, ON, 50 * MS, 5),
		tr(7, 1560 * MS, ON, PGWT_EVENT_EXIT, 10 * MS, 5),
	};
	pgwt_event_rows rows;
	pgwt_session_rows s;
	pgwt_time_model tm;
	const pgwt_event_row *r;
	pgwt_names names;
	char		buf[PGWT_EVENT_NAME_MAX];
	uint32_t	id = 0;

	pgwt_names_init(&names, 15);
	pgwt_engine_add_many(e, rs, 5);
	EXPECT(pgwt_view_system_event(e, 0, &(pgwt_view_opts) {.names = &names}, &rows) == PGWT_VIEW_OK);
	r = find_row(&rows, PGWT_EVENT_CPU_RUNQUEUE);
	EXPECT(r && r->total_ns == 300 * MS && r->waits == 1 && !r->idle);
	r = find_row(&rows, ON);
	EXPECT(r && r->total_ns == 210 * MS && !r->idle);
	EXPECT(find_row(&rows, 0) == NULL);
	pgwt_event_rows_free(&rows);

	EXPECT(pgwt_view_time_model(e, 0, &tm) == PGWT_VIEW_OK);
	EXPECT_U64(tm.sum.db_ns, 560 * MS);
	EXPECT_U64(tm.sum.cpu_ns, 510 * MS);
	EXPECT(tm.nclasses >= 1 && tm.classes[0].class_index == PGWT_CLASS_CPU);
	if (tm.nclasses >= 1)
	{
		EXPECT_U64(tm.classes[0].total_ns, 510 * MS);
		/* CPU*'s two parts under it, largest first */
		EXPECT(tm.classes[0].ntop == 2 && tm.classes[0].top[0].event == PGWT_EVENT_CPU_RUNQUEUE &&
			   tm.classes[0].top[1].event == ON && tm.classes[0].top[1].total_ns == 210 * MS);
	}

	EXPECT(pgwt_view_session_event(e, 0, NULL, &s) == PGWT_VIEW_OK);
	EXPECT(s.n == 1);
	if (s.n == 1)
	{
		EXPECT_U64(s.rows[0].cpu_ns, 510 * MS);
		EXPECT_U64(s.rows[0].wait_ns, 50 * MS);
		EXPECT(s.rows[0].has_top_wait && s.rows[0].top_wait == EV_PGSLEEP);
	}
	pgwt_session_rows_free(&s);

	pgwt_event_format(&names, PGWT_EVENT_CPU_RUNQUEUE, buf, sizeof(buf));
	EXPECT(strcmp(buf, "CPU:RunQueue") == 0);
	EXPECT(pgwt_event_parse(&names, "cpu:runqueue", &id) && id == PGWT_EVENT_CPU_RUNQUEUE);
	pgwt_event_format(&names, ON, buf, sizeof(buf));
	EXPECT(strcmp(buf, "CPU:OnCPU") == 0);
	EXPECT(pgwt_event_parse(&names, "CPU:OnCPU", &id) && id == ON);
	EXPECT(pgwt_event_is_cpu(ON) && !pgwt_event_is_idle(ON));
	EXPECT(pgwt_event_is_cpu(PGWT_EVENT_CPU_RUNQUEUE) && pgwt_event_is_cpu(0) &&
		   !pgwt_event_is_cpu(EV_PGSLEEP) && !pgwt_event_is_idle(PGWT_EVENT_CPU_RUNQUEUE));
	pgwt_names_free(&names);
	pgwt_engine_free(e);
}

int
main(void)
{
	RUN(test_sleep_system_event);
	RUN(test_sleep_time_model);
	RUN(test_sleep_histogram);
	RUN(test_window_clipping);
	RUN(test_sampled_only);
	RUN(test_mixed);
	RUN(test_escalation_span);
	RUN(test_sample_reorder);
	RUN(test_caps_overflow);
	RUN(test_caps_refold);
	RUN(test_sessions);
	RUN(test_query_event);
	RUN(test_sorting);
	RUN(test_idle_markers_bad);
	RUN(test_background_processes);
	RUN(test_session_events);
	RUN(test_bad_config);
	RUN(test_cpu_runqueue_split);
	return unit_failures ? 1 : 0;
}
