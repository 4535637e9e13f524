/*
 * test_hist_probe.c
 *		One key's histogram (analysis/hist_probe.h) as the engine fills it:
 *		scripted waits around a window's edges, of a background process and
 *		of another event, against counts and times worked out by hand, and
 *		against the engine's own histograms of the same window (the event's,
 *		and the per-key ones of key_histograms).
 */
#include "analysis/engine.h"
#include "analysis/hist_probe.h"
#include "analysis/views.h"
#include "common/histogram.h"
#include "unit.h"

#include <string.h>

#define MS 1000000ull
#define S  1000000000ull

#define EV_PGSLEEP		0x09000002u
#define EV_DATAFILEREAD 0x0A000011u

static pgwt_record
tr(uint32_t pid, uint64_t ts, uint32_t old_ev, uint64_t dur)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_TRANSITION;
	r.pid = pid;
	r.ts_ns = ts;
	r.old_event = old_ev;
	r.new_event = 0;
	r.duration_ns = dur;
	r.query_id = pid;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return r;
}

/* The window [1 s, 5 s): what ends inside counts, with its full length. */
static const pgwt_window_spec probe_win = {1 * S, 5 * S, "1..5 s"};

/* Feed the script into a new engine with probe p (key_histograms on). */
static pgwt_engine *
probe_run(pgwt_hist_probe *p)
{
	pgwt_record recs[] = {
		tr(10, 900 * MS, EV_PGSLEEP, 100 * MS),	/* ends before: not counted */
		tr(10, 1200 * MS, EV_PGSLEEP, 200 * MS),
		tr(10, 1600 * MS, EV_PGSLEEP, 300 * MS),
		tr(11, 2000 * MS, EV_PGSLEEP, 1800 * MS),	/* began before: all of it */
		tr(12, 3000 * MS, EV_PGSLEEP, 50 * MS),	/* background: no query's */
		tr(11, 3000 * MS, EV_DATAFILEREAD, 5 * MS),	/* another event */
		tr(10, 4500 * MS, EV_PGSLEEP, 1500 * MS),
		tr(11, 5100 * MS, EV_PGSLEEP, 400 * MS),	/* ends after: not counted */
	};
	pgwt_engine_config cfg = {0};
	pgwt_backend_info bg = {.pid = 12};
	pgwt_engine *eng;
	pgwt_record smp = {0};

	cfg.key_histograms = true;
	eng = pgwt_engine_create(&cfg, &probe_win, 1, NULL);
	if (!eng)
		return NULL;
	snprintf(bg.type, sizeof(bg.type), "checkpointer");
	pgwt_engine_set_backend(eng, &bg);
	pgwt_engine_set_hist_probe(eng, p);
	pgwt_engine_add_many(eng, recs, sizeof(recs) / sizeof(recs[0]));
	/* a sample has no duration: never in a histogram */
	smp.kind = PGWT_REC_SAMPLE;
	smp.pid = 13;
	smp.ts_ns = 2 * S;
	smp.new_event = EV_PGSLEEP;
	smp.weight_ns = 10 * MS;
	pgwt_engine_add(eng, &smp);
	pgwt_engine_flush(eng);
	return eng;
}

static void
expect_bucket(const pgwt_hist_probe *p, uint64_t ns, uint64_t waits, uint64_t time_ns)
{
	unsigned	b = pgwt_hist_ns_bucket(ns);

	EXPECT_U64(p->count[b], waits);
	EXPECT_U64(p->time_ns[b], time_ns);
}

/* By hand: PgSleep waits counted 200, 300, 1500 ms (pid 10), 1800 ms
 * (pid 11), 50 ms (pid 12, background). */
static void
test_probe_by_hand(void)
{
	pgwt_hist_probe ev,
				pid10,
				q10,
				q12;
	pgwt_engine *e[4];
	uint64_t	n = 0;

	pgwt_hist_probe_init(&ev, EV_PGSLEEP, false, 0, false, 0);
	pgwt_hist_probe_init(&pid10, EV_PGSLEEP, true, 10, false, 0);
	pgwt_hist_probe_init(&q10, EV_PGSLEEP, false, 0, true, 10);
	pgwt_hist_probe_init(&q12, EV_PGSLEEP, false, 0, true, 12);
	e[0] = probe_run(&ev);
	e[1] = probe_run(&pid10);
	e[2] = probe_run(&q10);
	e[3] = probe_run(&q12);
	EXPECT(e[0] && e[1] && e[2] && e[3]);
	EXPECT_U64(ev.waits, 5);
	EXPECT_U64(ev.completed_ns, 3850 * MS);
	EXPECT_U64(ev.min_ns, 50 * MS);
	EXPECT_U64(ev.max_ns, 1800 * MS);
	/* 1.5 s and 1.8 s share [2^30, 2^31) ns */
	expect_bucket(&ev, 1500 * MS, 2, 3300 * MS);
	expect_bucket(&ev, 300 * MS, 1, 300 * MS);
	expect_bucket(&ev, 200 * MS, 1, 200 * MS);
	expect_bucket(&ev, 50 * MS, 1, 50 * MS);
	for (unsigned b = 0; b < PGWT_HIST_NS_BUCKETS; b++)
		n += ev.count[b];
	EXPECT_U64(n, 5);
	EXPECT_U64(pid10.waits, 3);
	EXPECT_U64(pid10.completed_ns, 2000 * MS);
	expect_bucket(&pid10, 1500 * MS, 1, 1500 * MS);
	EXPECT_U64(q10.waits, 3);
	EXPECT(memcmp(q10.count, pid10.count, sizeof(q10.count)) == 0);
	EXPECT_U64(q12.waits, 0);
	for (int i = 0; i < 4; i++)
		pgwt_engine_free(e[i]);
}

/* The probe's counts are the engine's own histograms of the window. */
static void
test_probe_equals_engine(void)
{
	pgwt_hist_probe ev,
				pid;
	pgwt_engine *a,
			   *b;
	pgwt_histogram h;
	pgwt_view_opts vo = {0};
	pgwt_event_rows rows = {0};
	bool		found = false;

	pgwt_hist_probe_init(&ev, EV_PGSLEEP, false, 0, false, 0);
	pgwt_hist_probe_init(&pid, EV_PGSLEEP, true, 11, false, 0);
	a = probe_run(&ev);
	b = probe_run(&pid);
	EXPECT(a && b);
	if (!a || !b)
		return;
	EXPECT(pgwt_view_histogram(a, 0, EV_PGSLEEP, &h) == PGWT_VIEW_OK);
	EXPECT(memcmp(h.ns, ev.count, sizeof(h.ns)) == 0);
	EXPECT_U64(h.waits, ev.waits);
	EXPECT_U64(h.completed_ns, ev.completed_ns);
	EXPECT_U64(h.min_ns, ev.min_ns);
	EXPECT_U64(h.max_ns, ev.max_ns);
	EXPECT(pgwt_view_session_detail(b, 0, 11, &vo, &rows) == PGWT_VIEW_OK);
	for (size_t i = 0; i < rows.n; i++)
		if (rows.rows[i].event == EV_PGSLEEP)
		{
			found = true;
			EXPECT(rows.rows[i].hist_ns != NULL &&
				   memcmp(rows.rows[i].hist_ns, pid.count, sizeof(pid.count)) == 0);
			EXPECT_U64(rows.rows[i].max_ns, pid.max_ns);
			EXPECT_U64(rows.rows[i].waits, pid.waits);
		}
	EXPECT(found);
	pgwt_event_rows_free(&rows);
	pgwt_engine_free(a);
	pgwt_engine_free(b);
}

int
main(void)
{
	RUN(test_probe_by_hand);
	RUN(test_probe_equals_engine);
	return unit_failures ? 1 : 0;
}
