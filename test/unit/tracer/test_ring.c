/*
 * test_ring.c
 *		Record ring: order across growth, trimming by age, the size limit.
 */
#include "tracer/record_ring.h"
#include "unit.h"

static void
ring_order_and_trim(void)
{
	pgwt_record_ring r;
	pgwt_record rec = {0};

	pgwt_ring_init(&r, 0);
	for (uint64_t t = 1; t <= 5000; t++)
	{
		rec.ts_ns = t;
		UNIT_CHECK(pgwt_ring_push(&r, &rec, 1) == 0);
		if (t % 1000 == 0)
			pgwt_ring_trim(&r, t - 700);	/* keep the last 700 */
	}
	/* the last trim (at 5000) kept 4300..5000 */
	UNIT_CHECK(r.n == 701);
	UNIT_CHECK(pgwt_ring_at(&r, 0)->ts_ns == 4300);
	pgwt_ring_trim(&r, 4500);
	UNIT_CHECK(r.n == 501);
	UNIT_CHECK(pgwt_ring_at(&r, 0)->ts_ns == 4500);
	UNIT_CHECK(pgwt_ring_at(&r, r.n - 1)->ts_ns == 5000);
	for (size_t i = 1; i < r.n; i++)
		UNIT_CHECK(pgwt_ring_at(&r, i)->ts_ns == pgwt_ring_at(&r, i - 1)->ts_ns + 1);
	pgwt_ring_trim(&r, 99999);
	UNIT_CHECK(r.n == 0);
	pgwt_ring_free(&r);
}

static void
ring_limit_drops_oldest(void)
{
	pgwt_record_ring r;
	pgwt_record recs[3000];

	pgwt_ring_init(&r, 2048);
	for (int i = 0; i < 3000; i++)
	{
		recs[i] = (pgwt_record) {0};
		recs[i].ts_ns = (uint64_t) i;
	}
	UNIT_CHECK(pgwt_ring_push(&r, recs, 3000) == 0);
	UNIT_CHECK(r.n == 2048);
	UNIT_CHECK(r.dropped == 3000 - 2048);
	UNIT_CHECK(pgwt_ring_at(&r, 0)->ts_ns == 3000 - 2048);
	UNIT_CHECK(pgwt_ring_at(&r, 2047)->ts_ns == 2999);
	pgwt_ring_free(&r);
}

void
run_ring_tests(void)
{
	UNIT_RUN(ring_order_and_trim);
	UNIT_RUN(ring_limit_drops_oldest);
}
