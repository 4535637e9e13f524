/*
 * test_wait_stats.c
 *		Unit tests of the coop tier's pure logic (wait_stats.h): aggregates,
 *		the event table, its bitmap of rows in use and the eviction choice;
 *		and which pool slot a claim takes (slot_pool.h). The histogram
 *		layout is tested in test/unit/common/test_histogram.c.
 *		Runs without a server, built with ASan+UBSan (extension/test.mk).
 *		Prints one PASS/FAIL line per test; exits non-zero on any failure.
 */
#include <stdio.h>
#include <string.h>

#include "extension/wait_stats.h"
#include "extension/slot_pool.h"

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
	CHECK(a.min_ns == 500 && a.max_ns == 200000000);
	CHECK(a.hist[0] == 1 && a.hist[2] == 1 && a.hist[18] == 1);

	/* an empty aggregate changes no extreme, either way round */
	pgwt_agg_merge(&a, &b);
	CHECK(a.count == 3 && a.min_ns == 500);
	pgwt_agg_merge(&b, &a);
	CHECK(b.count == 3 && b.min_ns == 500 && b.max_ns == 200000000);
	memset(&b, 0, sizeof(b));
	pgwt_agg_add(&b, 7);
	pgwt_agg_add(&b, UINT64_C(1) << 41);
	pgwt_agg_merge(&a, &b);
	CHECK(a.count == 5);
	CHECK(a.min_ns == 7 && a.max_ns == UINT64_C(1) << 41);
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
	PgwtFoldState st = {0, 1000, 0, 12345, NULL};	/* a stale cache index is harmless */
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

/*
 * The bitmap of rows in use: every row a fold claims is marked, iteration
 * visits exactly those, and clearing them empties the whole table, so a
 * slot's next owner starts from zero without the table being swept.
 */
static void
test_used_rows(void)
{
	int			ok = 1;
	PgwtEventStat tab[128];
	uint64_t	used[PGWT_USED_ROWS_WORDS(128)] = {0};
	PgwtFoldState st = {0, 0, 0, 0, used};
	PgwtEventStat zero;
	int			r,
				n = 0,
				i;

	memset(tab, 0, sizeof(tab));
	memset(&zero, 0, sizeof(zero));
	for (i = 1; i <= 40; i++)
		pgwt_fold_wait(tab, 128, &st, 0x0A000000U + (uint32_t) i * 977, (uint64_t) i * 100,
					   (uint64_t) i * 100 + 10);
	pgwt_fold_wait(tab, 128, &st, 0x0A000000U + 977, 5000, 5010);	/* a known row: no new bit */
	for (r = pgwt_used_rows_next(used, 128, 0); r >= 0; r = pgwt_used_rows_next(used, 128, r + 1))
	{
		CHECK(tab[r].event != 0);
		n++;
	}
	CHECK(n == 40);
	for (r = 0; r < 128; r++)
		CHECK((tab[r].event != 0) == ((used[r / 64] >> (r % 64)) & 1));
	/* rows at both ends of a word, and past the table's end */
	memset(used, 0, sizeof(used));
	used[0] = UINT64_C(1) << 63;
	used[1] = 1;
	CHECK(pgwt_used_rows_next(used, 128, 0) == 63);
	CHECK(pgwt_used_rows_next(used, 128, 64) == 64);
	CHECK(pgwt_used_rows_next(used, 128, 65) == -1);
	CHECK(pgwt_used_rows_next(used, 100, 64) == 64);
	used[1] = UINT64_C(1) << 40;	/* row 104 of a 100-row table: not a row */
	CHECK(pgwt_used_rows_next(used, 100, 64) == -1);

	/* clear: the table is all zero again, and folding starts afresh */
	memset(used, 0, sizeof(used));
	memset(tab, 0, sizeof(tab));
	st.cached_row = 0;
	for (i = 1; i <= 5; i++)
		pgwt_fold_wait(tab, 128, &st, 0x06000000U + (uint32_t) i, 100, 200);
	pgwt_used_rows_clear(tab, used, 128);
	for (r = 0; r < 128; r++)
		CHECK(memcmp(&tab[r], &zero, sizeof(zero)) == 0);
	CHECK(used[0] == 0 && used[1] == 0);
	pgwt_fold_wait(tab, 128, &st, 0x06000001U, 300, 400);
	CHECK(pgwt_used_rows_next(used, 128, 0) >= 0);
	r = pgwt_used_rows_next(used, 128, 0);
	CHECK(r >= 0 && tab[r].event == 0x06000001U && tab[r].agg.count == 1);
	CHECK(pgwt_used_rows_next(used, 128, r + 1) == -1);
	report("used-rows", ok);
}

/*
 * A claim takes a free slot while any is left, then the slot that exited
 * first (the ring wraps around), and nothing when every slot is live.
 */
static void
test_slot_pool(void)
{
	int			ok = 1;
	int32_t		mem[8];
	PgwtSlotPool p;
	int			i;

	pgwt_pool_init(&p, mem, 4);
	CHECK(pgwt_pool_take_oldest_exited(&p) == -1);
	for (i = 0; i < 4; i++)
		CHECK(pgwt_pool_take_free(&p) == i);
	CHECK(pgwt_pool_take_free(&p) == -1);
	CHECK(pgwt_pool_take_oldest_exited(&p) == -1);
	/* exits in the order 2, 0, 3: claims reuse them in that order */
	pgwt_pool_add_exited(&p, 2);
	pgwt_pool_add_exited(&p, 0);
	pgwt_pool_add_exited(&p, 3);
	CHECK(pgwt_pool_take_oldest_exited(&p) == 2);
	pgwt_pool_add_exited(&p, 1);
	pgwt_pool_add_exited(&p, 2);
	CHECK(pgwt_pool_take_oldest_exited(&p) == 0);
	CHECK(pgwt_pool_take_oldest_exited(&p) == 3);
	CHECK(pgwt_pool_take_oldest_exited(&p) == 1);
	CHECK(pgwt_pool_take_oldest_exited(&p) == 2);
	CHECK(pgwt_pool_take_oldest_exited(&p) == -1);
	/* many laps of the ring keep the exit order */
	for (i = 0; i < 4; i++)
		pgwt_pool_add_exited(&p, i);
	for (i = 0; i < 40; i++)
	{
		int32_t		s = pgwt_pool_take_oldest_exited(&p);

		CHECK(s == i % 4);
		pgwt_pool_add_exited(&p, s);
	}
	/* a slot that was never claimed, or a full ring, leaves the lists sound */
	pgwt_pool_add_exited(&p, 1);
	pgwt_pool_add_exited(&p, 7);
	pgwt_pool_add_exited(&p, -1);
	CHECK(p.nexited == 4 && p.nfree == 0);
	report("slot-pool", ok);
}

int
main(void)
{
	test_agg();
	test_idle();
	test_event_table();
	test_eviction();
	test_fold_wait();
	test_used_rows();
	test_slot_pool();
	return failures ? 1 : 0;
}
