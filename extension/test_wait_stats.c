/*
 * test_wait_stats.c
 *		Unit tests of the coop tier's pure logic (wait_stats.h): aggregates,
 *		the event table and the eviction choice (the histogram layout is
 *		tested in test/unit/common/test_histogram.c).
 *		Runs without a server, built with ASan+UBSan (extension/test.mk).
 *		Prints one PASS/FAIL line per test; exits non-zero on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "extension/wait_stats.h"

static int	failures = 0;

#define CHECK(cond) \
	do { if (!(cond)) { printf("  check failed at line %d: %s\n", __LINE__, #cond); ok = 0; } } while (0)

static void
report(const char *name, int ok)
{
	printf("%s %s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": see checks above");
	if (!ok)
		failures++;
}

static void
test_agg(void)
{
	int			ok = 1;
	PgwtAgg		a,
				b;
	uint64_t	sum = 0;
	int			i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	pgwt_agg_add(&a, 500);
	pgwt_agg_add(&a, 3000);
	pgwt_agg_add(&a, 200000000);
	CHECK(a.count == 3);
	CHECK(a.total_ns == 200003500);
	CHECK(a.max_ns == 200000000);
	CHECK(a.hist[0] == 1 && a.hist[2] == 1 && a.hist[18] == 1);

	pgwt_agg_add(&b, 7);
	pgwt_agg_add(&b, UINT64_C(1) << 41);
	pgwt_agg_merge(&a, &b);
	CHECK(a.count == 5);
	CHECK(a.max_ns == UINT64_C(1) << 41);
	CHECK(a.hist[0] == 2 && a.hist[31] == 1);
	for (i = 0; i < PGWT_HIST_NS_BUCKETS; i++)
		sum += a.hist[i];
	CHECK(sum == a.count);
	report("aggregate-add-merge", ok);
}

static void
test_idle(void)
{
	int			ok = 1;

	CHECK(pgwt_event_is_idle(0x05000000U));	/* Activity:ArchiverMain */
	CHECK(pgwt_event_is_idle(0x0500000AU));
	CHECK(pgwt_event_is_idle(0x06000000U));	/* Client:ClientRead */
	CHECK(!pgwt_event_is_idle(0x06000001U));	/* Client:ClientWrite */
	CHECK(!pgwt_event_is_idle(0x09000002U));	/* Timeout:PgSleep */
	CHECK(!pgwt_event_is_idle(0x01000000U));
	/* the hot path's filter never hides an idle event */
	{
		uint32_t	cls,
					low;

		for (cls = 0; cls < 256; cls++)
			for (low = 0; low < 64; low++)
			{
				uint32_t	ev = (cls << 24) | low;

				if (pgwt_event_is_idle(ev))
					CHECK(pgwt_event_maybe_idle(ev));
				if (cls != 5 && cls != 6)
					CHECK(!pgwt_event_maybe_idle(ev));
			}
	}
	report("idle-classification", ok);
}

static void
test_event_table(void)
{
	int			ok = 1;
	PgwtEventStat tab[8];
	uint32_t	ev;
	int			n = 0;

	memset(tab, 0, sizeof(tab));
	CHECK(pgwt_event_lookup(tab, 8, 0, true) == NULL);
	CHECK(pgwt_event_lookup(tab, 8, 0x09000002U, false) == NULL);
	for (ev = 1; ev <= 8; ev++)
	{
		PgwtEventStat *row = pgwt_event_lookup(tab, 8, 0x0A000000U + ev, true);

		CHECK(row != NULL && row->event == 0x0A000000U + ev);
		if (row)
			pgwt_agg_add(&row->agg, ev);
	}
	/* full: a ninth event finds no row, the eight are all still found */
	CHECK(pgwt_event_lookup(tab, 8, 0x09000002U, true) == NULL);
	for (ev = 1; ev <= 8; ev++)
	{
		PgwtEventStat *row = pgwt_event_lookup(tab, 8, 0x0A000000U + ev, false);

		CHECK(row != NULL && row->agg.total_ns == ev);
	}
	for (ev = 0; ev < 8; ev++)
		n += tab[ev].event != 0;
	CHECK(n == 8);
	report("event-table", ok);
}

static void
test_eviction(void)
{
	int			ok = 1;
	double		usage[6] = {5.0, 1.0, 3.0, 1.0, 0.5, 9.0};
	int			order[6];
	int			k;

	k = pgwt_pick_least_used(usage, 6, 3, order);
	CHECK(k == 3);
	CHECK(order[0] == 4);
	CHECK(order[1] == 1);		/* tie with index 3: lower index first */
	CHECK(order[2] == 3);

	k = pgwt_pick_least_used(usage, 6, 10, order);
	CHECK(k == 6);
	CHECK(order[5] == 5);
	k = pgwt_pick_least_used(usage, 6, -1, order);
	CHECK(k == 0);
	k = pgwt_pick_least_used(usage, 0, 1, order);
	CHECK(k == 0);
	report("eviction-least-used", ok);
}

/*
 * pgwt_fold_wait: the same row as a fresh lookup (cache hit or miss), CPU*
 * from the gaps between waits, skewed waits as 0 ns, a zeroed table and a
 * full table handled without touching the wrong row.
 */
static void
test_fold_wait(void)
{
	int			ok = 1;
	PgwtEventStat tab[8];
	PgwtFoldState st = {0, 1000, 0, 12345};	/* a stale cache index is harmless */
	PgwtEventStat *row;
	int			i;

	memset(tab, 0, sizeof(tab));
	pgwt_fold_wait(tab, 8, &st, 0x09000002U, 1500, 4000);	/* 500 ns gap, 2500 ns wait */
	CHECK(st.cpu_ns == 500);
	CHECK(st.last_end_ns == 4000);
	CHECK(st.cached_row < 8 && tab[st.cached_row].event == 0x09000002U);
	pgwt_fold_wait(tab, 8, &st, 0x09000002U, 4000, 6000);	/* no gap: cache hit */
	CHECK(st.cpu_ns == 500);
	pgwt_fold_wait(tab, 8, &st, 0x06000000U, 7000, 9000);	/* other event: miss */
	CHECK(st.cpu_ns == 1500);
	pgwt_fold_wait(tab, 8, &st, 0x09000002U, 9000, 8000);	/* skewed: 0 ns */
	row = pgwt_event_lookup(tab, 8, 0x09000002U, false);
	CHECK(row != NULL && row->agg.count == 3 && row->agg.total_ns == 4500 && row->agg.max_ns == 2500);
	CHECK(row != NULL && row->agg.hist[0] == 1 && row->agg.hist[1] == 1 && row->agg.hist[2] == 1);
	row = pgwt_event_lookup(tab, 8, 0x06000000U, false);
	CHECK(row != NULL && row->agg.count == 1 && row->agg.total_ns == 2000);
	CHECK(st.last_end_ns == 9000);
	CHECK(st.lost_waits == 0);

	/* the table zeroed under a stale cache: the wait lands in a real row */
	memset(tab, 0, sizeof(tab));
	pgwt_fold_wait(tab, 8, &st, 0x06000000U, 9000, 9100);
	row = pgwt_event_lookup(tab, 8, 0x06000000U, false);
	CHECK(row != NULL && row->agg.count == 1 && row->agg.total_ns == 100);
	for (i = 0; i < 8; i++)
		CHECK(tab[i].event == 0 || tab[i].event == 0x06000000U);

	/* a full table counts the new event as lost, the known ones still fold */
	for (i = 1; i <= 8; i++)
		pgwt_fold_wait(tab, 8, &st, 0x01000000U + (uint32_t) i, 10000, 10010);
	CHECK(st.lost_waits == 1);	/* 7 new rows fit beside the ClientRead row */
	pgwt_fold_wait(tab, 8, &st, 0x06000000U, 10010, 10020);
	row = pgwt_event_lookup(tab, 8, 0x06000000U, false);
	CHECK(row != NULL && row->agg.count == 2);
	/* event 0 (no wait) is never stored */
	pgwt_fold_wait(tab, 8, &st, 0, 10020, 10030);
	CHECK(st.lost_waits == 2);
	report("fold-wait", ok);
}

int
main(void)
{
	test_agg();
	test_idle();
	test_event_table();
	test_eviction();
	test_fold_wait();
	return failures ? 1 : 0;
}
