/*
 * test_series.c
 *		The one-pass time series (analysis/series.h) against the engine's
 *		own windows: for scripted records, and for a pgwt-synth directory
 *		(PGWT_SERIES_DIR, set by test/suites/40-analysis) read once with a
 *		series and again in chunks of PGWT_MAX_WINDOWS windows, the way
 *		pgwt-server's /api/aas used to. Each bucket's class times and
 *		fidelity must equal the window's time model, to the ns.
 */
#include "analysis/engine.h"
#include "analysis/range_load.h"
#include "analysis/series.h"
#include "analysis/views.h"
#include "unit.h"
#include "engine_fixture.h"

#include <stdlib.h>
#include <string.h>

/* The windows of buckets [first, first + n) of s (the last one ending
 * one ns past the range when it is the series' last bucket). */
static int
series_windows(const pgwt_series *s, unsigned first, unsigned n, pgwt_window_spec *w)
{
	memset(w, 0, n * sizeof(*w));
	for (unsigned i = 0; i < n; i++)
	{
		const pgwt_series_bucket *b = pgwt_series_get(s, first + i);

		w[i].from_ns = b->from_ns;
		w[i].to_ns = first + i + 1 == pgwt_series_len(s) ? pgwt_range_window_end(b->to_ns) : b->to_ns;
		snprintf(w[i].label, sizeof(w[i].label), "bucket %u", first + i);
	}
	return (int) n;
}

/* Bucket first + w of s against window w of eng; false and UNIT_FAIL on
 * the first difference. */
static bool
series_matches(const pgwt_series *s, unsigned first, const pgwt_engine *eng, int w)
{
	const pgwt_series_bucket *b = pgwt_series_get(s, first + (unsigned) w);
	pgwt_time_model tm;
	uint64_t	want[PGWT_SERIES_NCLASS] = {0};
	pgwt_fidelity fid = PGWT_FIDELITY_NONE;

	if (pgwt_view_time_model(eng, w, &tm) == PGWT_VIEW_OK)
	{
		fid = tm.sum.fidelity;
		for (unsigned c = 0; c < tm.nclasses; c++)
			want[tm.classes[c].class_index] += tm.classes[c].total_ns;
	}
	for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
		if (b->class_ns[c] != want[c])
		{
			UNIT_FAIL("bucket %u class %u: series %" PRIu64 " ns, window %" PRIu64 " ns",
					  first + w, c, b->class_ns[c], want[c]);
			return false;
		}
	if (pgwt_series_fidelity(b) != fid)
	{
		UNIT_FAIL("bucket %u: series fidelity %s, window %s", first + w,
				  pgwt_fidelity_name(pgwt_series_fidelity(b)), pgwt_fidelity_name(fid));
		return false;
	}
	return true;
}

/*
 * Scripted: waits crossing bucket edges (one spans three buckets), a
 * wait ending exactly on an edge, idle time, a background process, and
 * samples of which one falls in an escalation span (superseded). Six
 * buckets of 1 s fit in one engine: the series and the windows see the
 * same stream.
 */
static void
test_series_scripted_equals_windows(void)
{
	pgwt_record recs[] = {
		tr(10, 2500 * MS, 0, EV_PGSLEEP, 2500 * MS, 10),	/* CPU 0..2.5 s */
		tr(10, 5 * S, EV_PGSLEEP, 0, 2500 * MS, 10),	/* PgSleep 2.5..5 s */
		tr(11, 3 * S, EV_CLIENTREAD, EV_LOCK_XID, 3 * S, 11),	/* idle 0..3 s, ends on an edge */
		tr(11, 3700 * MS, EV_LOCK_XID, EV_DATAFILEREAD, 700 * MS, 11),
		tr(11, 3700 * MS, 0, PGWT_MARKER_ESC_START, 0, 11),
		tr(11, 4200 * MS, EV_DATAFILEREAD, 0, 500 * MS, 11),
		tr(11, 4500 * MS, 0, PGWT_MARKER_ESC_END, 0, 11),
		tr(12, 5500 * MS, EV_DATAFILEREAD, 0, 4 * S, 12),	/* background: 1.5..5.5 s */
		smp(13, 500 * MS, EV_LOCK_XID, 10 * MS, 13),
		smp(13, 4 * S, EV_LOCK_XID, 10 * MS, 13),	/* inside the escalation span */
		smp(13, 5900 * MS, EV_DATAFILEREAD, 10 * MS, 13),
	};
	pgwt_backend_info bg = {.pid = 12};
	pgwt_window_spec w[6],
				all = {0, 6 * S + 1, "all"};
	pgwt_series *s = pgwt_series_create(0, 6 * S, 6, NULL);
	pgwt_engine *one,
			   *many;
	pgwt_time_model tm;
	uint64_t	sum = 0;

	EXPECT(s != NULL);
	if (!s)
		return;
	EXPECT_U64(pgwt_series_len(s), 6);
	series_windows(s, 0, 6, w);
	one = pgwt_engine_create(NULL, &all, 1, NULL);
	many = pgwt_engine_create(NULL, w, 6, NULL);
	snprintf(bg.type, sizeof(bg.type), "checkpointer");
	pgwt_engine_set_backend(one, &bg);
	pgwt_engine_set_backend(many, &bg);
	pgwt_engine_set_series(one, s);
	for (size_t i = 0; i < sizeof(recs) / sizeof(recs[0]); i++)
	{
		pgwt_engine_add(one, &recs[i]);
		pgwt_engine_add(many, &recs[i]);
	}
	pgwt_engine_flush(one);
	pgwt_engine_flush(many);
	for (int i = 0; i < 6 && series_matches(s, 0, many, i); i++)
		;
	/* by hand: 2.5 s CPU, 2.5 s PgSleep, 0.7 s Lock + 0.5 s IO (exact),
	 * 10 ms Lock + 10 ms IO (samples); the background's 4 s and the idle
	 * 3 s are no class's, the superseded sample is not billed */
	for (unsigned i = 0; i < pgwt_series_len(s); i++)
		for (unsigned c = 0; c < PGWT_SERIES_NCLASS; c++)
			sum += pgwt_series_get(s, i)->class_ns[c];
	EXPECT_U64(sum, 6220 * MS);
	EXPECT_U64(pgwt_series_get(s, 1)->class_ns[9], 0);
	EXPECT_U64(pgwt_series_get(s, 3)->class_ns[3], 700 * MS);
	EXPECT(pgwt_view_time_model(one, 0, &tm) == PGWT_VIEW_OK);
	EXPECT_U64(tm.sum.db_ns, sum);
	EXPECT(pgwt_series_fidelity(pgwt_series_get(s, 0)) == PGWT_FIDELITY_MIXED);
	EXPECT(pgwt_series_fidelity(pgwt_series_get(s, 4)) == PGWT_FIDELITY_EXACT);
	pgwt_engine_free(one);
	pgwt_engine_free(many);
	pgwt_series_free(s);
}

/* Bucket edges: width is the ceiling, the last bucket is shorter, bad
 * arguments are refused. */
static void
test_series_edges(void)
{
	pgwt_series *s = pgwt_series_create(100, 110, 3, NULL);
	const char *err = NULL;

	EXPECT(s != NULL);
	if (s)
	{
		EXPECT_U64(pgwt_series_width(s), 4);
		EXPECT_U64(pgwt_series_len(s), 3);
		EXPECT_U64(pgwt_series_get(s, 2)->from_ns, 108);
		EXPECT_U64(pgwt_series_get(s, 2)->to_ns, 110);
		EXPECT(pgwt_series_get(s, 3) == NULL);
		/* a wait ending at "to" counts in the last bucket */
		pgwt_series_bill_wait(s, EV_PGSLEEP, 109, 110, true);
		EXPECT_U64(pgwt_series_get(s, 2)->class_ns[9], 1);
		EXPECT(pgwt_series_get(s, 2)->exact);
		pgwt_series_free(s);
	}
	/* 10 ns in 4 points: width 3, and 4 buckets (3+3+3+1) */
	s = pgwt_series_create(0, 10, 4, NULL);
	EXPECT(s && pgwt_series_len(s) == 4 && pgwt_series_get(s, 3)->to_ns == 10);
	pgwt_series_free(s);
	/* 10 ns in 6 points: width 2 covers it in 5 */
	s = pgwt_series_create(0, 10, 6, NULL);
	EXPECT(s && pgwt_series_len(s) == 5);
	pgwt_series_free(s);
	EXPECT(pgwt_series_create(5, 5, 1, &err) == NULL && err != NULL);
	EXPECT(pgwt_series_create(0, 5, 0, NULL) == NULL);
	EXPECT(pgwt_series_create(0, UINT64_MAX, 3, NULL) == NULL);
}

/* Load [from, to) of dir into eng through the range loader. */
static int
load(const char *dir, uint64_t from, uint64_t to, pgwt_engine *eng)
{
	pgwt_range_loader *l;
	pgwt_range_batch b;
	int			rc;

	if ((rc = pgwt_range_open(dir, from, to, &l)) < 0)
		return rc;
	while ((rc = pgwt_range_next(l, &b)) > 0)
		pgwt_engine_add_many(eng, b.recs, b.n);
	pgwt_range_close(l);
	pgwt_engine_flush(eng);
	return rc;
}

/*
 * A pgwt-synth directory (both tiers, escalations): the series of one
 * read equals, bucket by bucket, the engine windows of reads in chunks of
 * PGWT_MAX_WINDOWS buckets (each chunk its own range, waits cut at its
 * ends), for a range starting mid-trace and cut into 100 buckets.
 */
static void
test_series_synth_dir_equals_windows(void)
{
	const char *dir = getenv("PGWT_SERIES_DIR");
	uint64_t	first = UINT64_MAX,
				last = 0,
				from,
				to;
	pgwt_range_loader *l;
	pgwt_range_batch b;
	pgwt_series *s;
	pgwt_window_spec all = {0};
	pgwt_engine *one;
	unsigned	nonempty = 0;

	if (!dir)
	{
		UNIT_FAIL("PGWT_SERIES_DIR (a pgwt-synth directory) is not set");
		return;
	}
	if (pgwt_range_open(dir, 0, UINT64_MAX, &l) < 0)
	{
		UNIT_FAIL("cannot read %s", dir);
		return;
	}
	while (pgwt_range_next(l, &b) > 0)
		if (b.n > 0)
		{
			first = b.first_ts < first ? b.first_ts : first;
			last = b.last_ts > last ? b.last_ts : last;
		}
	pgwt_range_close(l);
	EXPECT(first < last);
	if (first >= last)
		return;
	/* from 1/7 in: an escalation may be open at "from" */
	from = first + (last - first) / 7;
	to = last + 1;
	s = pgwt_series_create(from, to, 100, NULL);
	all.from_ns = from;
	all.to_ns = pgwt_range_window_end(to);
	one = pgwt_engine_create(NULL, &all, 1, NULL);
	pgwt_engine_set_series(one, s);
	EXPECT(load(dir, from, to, one) == 0);
	for (unsigned i = 0; i < pgwt_series_len(s) && !unit_why[0]; i += PGWT_MAX_WINDOWS)
	{
		unsigned	n = pgwt_series_len(s) - i < PGWT_MAX_WINDOWS ? pgwt_series_len(s) - i : PGWT_MAX_WINDOWS;
		pgwt_window_spec w[PGWT_MAX_WINDOWS];
		pgwt_engine *many = pgwt_engine_create(NULL, w, series_windows(s, i, n, w), NULL);

		if (!many)
		{
			UNIT_FAIL("engine of %u windows", n);
			break;
		}
		EXPECT(load(dir, pgwt_series_get(s, i)->from_ns, pgwt_series_get(s, i + n - 1)->to_ns, many) == 0);
		for (unsigned k = 0; k < n && series_matches(s, i, many, (int) k); k++)
			;
		pgwt_engine_free(many);
	}
	for (unsigned i = 0; i < pgwt_series_len(s); i++)
		nonempty += pgwt_series_get(s, i)->any_ns > 0;
	/* the trace covers the range: the comparison compared something */
	EXPECT(nonempty == pgwt_series_len(s));
	pgwt_engine_free(one);
	pgwt_series_free(s);
}

/* A summary frame's time goes whole to the bucket of its start. */
static void
test_series_bill_block(void)
{
	pgwt_series *s = pgwt_series_create(0, 120 * S, 2, NULL);

	EXPECT(s != NULL);
	if (!s)
		return;
	pgwt_series_bill_block(s, EV_DATAFILEREAD, 59 * S, 7 * S, true, true, false);
	pgwt_series_bill_block(s, EV_DATAFILEREAD, 60 * S, 5 * S, true, false, true);
	/* idle: all time, no class; outside the range: nothing */
	pgwt_series_bill_block(s, EV_CLIENTREAD, 60 * S, 3 * S, false, false, true);
	pgwt_series_bill_block(s, EV_DATAFILEREAD, 120 * S, 11 * S, true, true, true);
	EXPECT_U64(pgwt_series_get(s, 0)->class_ns[0x0A], 7 * S);
	EXPECT_U64(pgwt_series_get(s, 1)->class_ns[0x0A], 5 * S);
	EXPECT_U64(pgwt_series_get(s, 1)->class_ns[0x06], 0);
	EXPECT_U64(pgwt_series_get(s, 1)->any_ns, 8 * S);
	EXPECT(pgwt_series_fidelity(pgwt_series_get(s, 0)) == PGWT_FIDELITY_EXACT);
	EXPECT(pgwt_series_fidelity(pgwt_series_get(s, 1)) == PGWT_FIDELITY_SAMPLED);
	pgwt_series_free(s);
}

int
main(void)
{
	RUN(test_series_edges);
	RUN(test_series_bill_block);
	RUN(test_series_scripted_equals_windows);
	RUN(test_series_synth_dir_equals_windows);
	return unit_failures ? 1 : 0;
}
