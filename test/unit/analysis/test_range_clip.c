/*
 * test_range_clip.c
 *		The range rule (analysis/range_load.h): records cut to [from, to),
 *		alone and through the engine, with the numbers derived by hand.
 */
#include "analysis/engine.h"
#include "analysis/range_load.h"
#include "analysis/views.h"
#include "unit.h"

#define MS 1000000ull
#define S  1000000000ull
#define EV_PGSLEEP 0x09000002u

static pgwt_record
tr(uint64_t ts, uint32_t old_ev, uint32_t new_ev, uint64_t dur, uint64_t cpu)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_TRANSITION;
	r.pid = 4242;
	r.ts_ns = ts;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.cpu_ns = cpu;
	return r;
}

/* One record against the range [100 s, 103.6 s). */
static void
test_clip_one(void)
{
	const uint64_t from = 100 * S,
				to = 100 * S + 3600 * MS;
	pgwt_record in,
				out;

	/* a 50 s wait ending 1 s into the range: only that second counts */
	in = tr(101 * S, EV_PGSLEEP, 0, 50 * S, 10 * S);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	EXPECT_U64(out.ts_ns, 101 * S);
	EXPECT_U64(out.duration_ns, 1 * S);
	EXPECT_U64(out.cpu_ns, 200 * MS);	/* 10 s of 50, in proportion */
	/* inside: unchanged */
	in = tr(102 * S, EV_PGSLEEP, 0, 500 * MS, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	EXPECT_U64(out.ts_ns, 102 * S);
	EXPECT_U64(out.duration_ns, 500 * MS);
	EXPECT_U64(out.cpu_ns, PGWT_CPU_UNKNOWN);
	/* outlasting the range: cut at its end */
	in = tr(110 * S, EV_PGSLEEP, 0, 8 * S, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	EXPECT_U64(out.ts_ns, to);
	EXPECT_U64(out.duration_ns, 1600 * MS);
	/* covering the whole range */
	in = tr(200 * S, EV_PGSLEEP, 0, 150 * S, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	EXPECT_U64(out.duration_ns, 3600 * MS);
	/* ended where the range begins, began where it ends: outside */
	in = tr(from, EV_PGSLEEP, 0, 5 * S, PGWT_CPU_UNKNOWN);
	EXPECT(!pgwt_range_clip(&in, from, to, &out));
	in = tr(to + S, EV_PGSLEEP, 0, S, PGWT_CPU_UNKNOWN);
	EXPECT(!pgwt_range_clip(&in, from, to, &out));
	/* a first sighting (no time) counts where it happened */
	in = tr(from, PGWT_EVENT_EXIT, 0, 0, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	in = tr(to, PGWT_EVENT_EXIT, 0, 0, PGWT_CPU_UNKNOWN);
	EXPECT(!pgwt_range_clip(&in, from, to, &out));
	/* markers pass as they are, even outside */
	in = tr(to + 5 * S, 1, PGWT_MARKER_ESC_END, 9 * S, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	EXPECT_U64(out.ts_ns, to + 5 * S);
	EXPECT_U64(out.duration_ns, 9 * S);
	/* samples: where they were taken */
	in = (pgwt_record) {.kind = PGWT_REC_SAMPLE, .ts_ns = to - 1, .weight_ns = 10 * MS};
	EXPECT(pgwt_range_clip(&in, from, to, &out));
	in.ts_ns = to;
	EXPECT(!pgwt_range_clip(&in, from, to, &out));
	in.ts_ns = from - 1;
	EXPECT(!pgwt_range_clip(&in, from, to, &out));
	/* open ends */
	in = tr(101 * S, EV_PGSLEEP, 0, 50 * S, PGWT_CPU_UNKNOWN);
	EXPECT(pgwt_range_clip(&in, 0, UINT64_MAX, &out));
	EXPECT_U64(out.duration_ns, 50 * S);
}

/*
 * The defect: over a 3.6 s range a session got a whole 50 s wait that
 * ended in it. One backend: PgSleep [51, 101) s, CPU [101, 101.001), PgSleep
 * [101.001, 111.001). Range [100, 103.6): PgSleep 1 s + 2.599 s = 3.599 s
 * in two waits, the longest 2.599 s; CPU 1 ms; DB time 3.6 s. Both waits
 * land in the >= 16 ms bucket, so the histogram holds 2 waits of 3.599 s.
 */
static void
test_clip_through_engine(void)
{
	const uint64_t from = 100 * S,
				to = 100 * S + 3600 * MS;
	pgwt_record recs[3] = {
		tr(101 * S, EV_PGSLEEP, 0, 50 * S, PGWT_CPU_UNKNOWN),
		tr(101 * S + MS, 0, EV_PGSLEEP, MS, PGWT_CPU_UNKNOWN),
		tr(111 * S + MS, EV_PGSLEEP, 0, 10 * S, PGWT_CPU_UNKNOWN),
	};
	pgwt_window_spec w = {0, UINT64_MAX, "range"};
	pgwt_engine *e = pgwt_engine_create(NULL, &w, 1, NULL);
	pgwt_event_rows rows = {0};
	pgwt_histogram h;
	const pgwt_event_row *sleep = NULL;

	EXPECT(e != NULL);
	if (!e)
		return;
	for (int i = 0; i < 3; i++)
	{
		pgwt_record o;

		if (pgwt_range_clip(&recs[i], from, to, &o))
			pgwt_engine_add(e, &o);
	}
	pgwt_engine_flush(e);
	EXPECT(pgwt_view_system_event(e, 0, NULL, &rows) == PGWT_VIEW_OK);
	for (size_t i = 0; i < rows.n; i++)
		if (rows.rows[i].event == EV_PGSLEEP)
			sleep = &rows.rows[i];
	EXPECT(sleep != NULL);
	if (sleep)
	{
		EXPECT_U64(sleep->total_ns, 3599 * MS);
		EXPECT_U64(sleep->waits, 2);
		EXPECT_U64(sleep->max_ns, 2599 * MS);
	}
	EXPECT(pgwt_view_histogram(e, 0, EV_PGSLEEP, &h) == PGWT_VIEW_OK);
	EXPECT_U64(h.waits, 2);
	EXPECT_U64(h.completed_ns, 3599 * MS);
	EXPECT_U64(h.ns[pgwt_hist_ns_bucket(2599 * MS)] + h.ns[pgwt_hist_ns_bucket(1000 * MS)], 2);
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(e);
}

int
main(void)
{
	RUN(test_clip_one);
	RUN(test_clip_through_engine);
	return unit_failures ? 1 : 0;
}
