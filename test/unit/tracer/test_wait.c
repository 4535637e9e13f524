/*
 * test_wait.c
 *		wait_event_info validation and state classification; tick billing.
 */
#include <string.h>

#include "tracer/pg_layout.h"
#include "tracer/tick_clock.h"
#include "tracer/wait_class.h"
#include "unit.h"

static void
wait_validity(void)
{
	UNIT_CHECK(pgwt_wait_info_valid(0, 15));
	UNIT_CHECK(pgwt_wait_info_valid(0x09000002u, 15));	/* Timeout:PgSleep */
	UNIT_CHECK(pgwt_wait_info_valid(0x06000000u, 15));	/* Client:ClientRead */
	UNIT_CHECK(pgwt_wait_info_valid(0x03000004u, 15));	/* Lock:transactionid */
	UNIT_CHECK(pgwt_wait_info_valid(0x0100FFFFu, 18));	/* LWLock tranche */
	UNIT_CHECK(!pgwt_wait_info_valid(0x02000000u, 15));	/* no class 2 */
	UNIT_CHECK(!pgwt_wait_info_valid(0x0C000000u, 18));
	UNIT_CHECK(!pgwt_wait_info_valid(0xFF000000u, 18));
	UNIT_CHECK(!pgwt_wait_info_valid(0x09010002u, 15));	/* bits 16-23 set */
	UNIT_CHECK(!pgwt_wait_info_valid(0x0B000000u, 15));	/* InjectionPoint: 17+ */
	UNIT_CHECK(pgwt_wait_info_valid(0x0B000000u, 17));
	/* garbage from a wrong address is not trusted */
	UNIT_CHECK(!pgwt_wait_info_valid(0xDEADBEEFu, 18));
}

static void
wait_classification(void)
{
	UNIT_CHECK(pgwt_wait_classify(0, 15) == PGWT_STATE_CPU);
	/* the scheduler tier's CPU:RunQueue and CPU:OnCPU (common/event_ids.h) */
	UNIT_CHECK(pgwt_wait_classify(0x00000001u, 15) == PGWT_STATE_CPU);
	UNIT_CHECK(pgwt_wait_classify(0x00000002u, 18) == PGWT_STATE_CPU);
	UNIT_CHECK(!pgwt_wait_info_valid(0x00000003u, 18));
	UNIT_CHECK(pgwt_wait_classify(0x09000002u, 15) == PGWT_STATE_WAITING);
	UNIT_CHECK(pgwt_wait_classify(0x0A000010u, 15) == PGWT_STATE_WAITING);
	UNIT_CHECK(pgwt_wait_classify(0x06000000u, 15) == PGWT_STATE_IDLE);
	UNIT_CHECK(pgwt_wait_classify(0x06000001u, 15) == PGWT_STATE_WAITING);	/* ClientWrite */
	UNIT_CHECK(pgwt_wait_classify(0x05000003u, 18) == PGWT_STATE_IDLE);	/* Activity */
	UNIT_CHECK(pgwt_wait_classify(0x77000000u, 18) == PGWT_STATE_INVALID);
}

static void
tick_billing(void)
{
	pgwt_tick_clock c;
	const uint64_t s = 1000000000ull;

	pgwt_tick_init(&c, 10, 5 * s);
	UNIT_CHECK(c.period_ns == 100000000ull);
	UNIT_CHECK(c.next_deadline_ns == 5 * s + 100000000ull);
	/* first tick: one nominal period */
	UNIT_CHECK(pgwt_tick_bill(&c, 5 * s + 100000000ull) == 100000000ull);
	/* a late tick is billed the time really elapsed */
	UNIT_CHECK(pgwt_tick_bill(&c, 5 * s + 350000000ull) == 250000000ull);
	/* a tick at the same instant is billed one period, never zero */
	UNIT_CHECK(pgwt_tick_bill(&c, 5 * s + 350000000ull) == 100000000ull);
	/* a gap over the cap (1 s at 10 Hz) is capped and counted unobserved */
	UNIT_CHECK(pgwt_tick_bill(&c, 8 * s + 350000000ull) == s);
	UNIT_CHECK(c.unobserved_ns == 2 * s);
	UNIT_CHECK(c.ticks == 4);
}

static void
tick_weights_sum_to_elapsed(void)
{
	pgwt_tick_clock c;
	uint64_t	t = 1000,
				sum = 0;
	/* jittered ticks at 100 Hz: the weights add up to the elapsed time */
	const uint64_t jitter[] = {10000000, 12000000, 8000000, 30000000, 9000000, 11000000};

	pgwt_tick_init(&c, 100, t);
	t += 10000000;
	sum += pgwt_tick_bill(&c, t);
	for (int i = 0; i < 6; i++)
	{
		t += jitter[i];
		sum += pgwt_tick_bill(&c, t);
	}
	UNIT_CHECK(sum == t - 1000);
}

static void
tick_deadlines(void)
{
	pgwt_tick_clock c;

	pgwt_tick_init(&c, 100, 0);
	UNIT_CHECK(pgwt_tick_advance(&c, 10000000) == 20000000);
	/* slightly late: keeps the absolute schedule */
	UNIT_CHECK(pgwt_tick_advance(&c, 21000000) == 30000000);
	/* far behind: restarts from now */
	UNIT_CHECK(pgwt_tick_advance(&c, 95000000) == 105000000);
	pgwt_tick_init(&c, 1000, 0);
	UNIT_CHECK(c.period_ns == 1000000);
}

/* Late ticks are counted by common/tick_rule.h, as in the extension. */
static void
tick_late_rule(void)
{
	pgwt_tick_clock c;

	pgwt_tick_init(&c, 100, 0);
	(void) pgwt_tick_bill(&c, 10000000);	/* first */
	(void) pgwt_tick_bill(&c, 24000000);	/* 1.4 periods: not late */
	UNIT_CHECK(c.late_ticks == 0);
	(void) pgwt_tick_bill(&c, 40000000);	/* 1.6 periods: late */
	UNIT_CHECK(c.late_ticks == 1);
	/* 50 periods at 10 Hz: the cap (1 s) is billed, the rest unobserved */
	pgwt_tick_init(&c, 10, 0);
	(void) pgwt_tick_bill(&c, 100000000);
	UNIT_CHECK(pgwt_tick_bill(&c, 100000000 + 50 * 100000000ull) == 1000000000ull);
	UNIT_CHECK(c.unobserved_ns == 4000000000ull && c.late_ticks == 1);
}

/*
 * A deadline that passed before the wait began is skipped to the next point
 * of the same grid, never ticked at once; the next tick bills the interval.
 */
static void
tick_realign_rule(void)
{
	pgwt_tick_clock c;

	pgwt_tick_init(&c, 100, 0);		/* deadline 10 ms */
	UNIT_CHECK(pgwt_tick_realign(&c, 9000000) == 0 && c.next_deadline_ns == 10000000);
	UNIT_CHECK(pgwt_tick_realign(&c, 10000000) == 1 && c.next_deadline_ns == 20000000);
	UNIT_CHECK(pgwt_tick_realign(&c, 43500000) == 3 && c.next_deadline_ns == 50000000);
	UNIT_CHECK(c.skipped_ticks == 4);
	(void) pgwt_tick_bill(&c, 10000000);
	UNIT_CHECK(pgwt_tick_bill(&c, 50000000) == 40000000);
}

/* Which pointer each major reads through, and what counts as "no PGPROC". */
static void
layout_per_major(void)
{
	pgwt_pg_layout l;
	char		err[160];
	const uint64_t lo = 0x400000,
				hi = 0x900000;

	UNIT_CHECK(pgwt_pg_layout_of(12, &l, err, sizeof(err)) == -1);
	UNIT_CHECK(strstr(err, "PostgreSQL 12 is not supported") != NULL);
	UNIT_CHECK(pgwt_pg_layout_of(19, &l, err, sizeof(err)) == -1);
	for (int m = 14; m <= 18; m++)
	{
		UNIT_CHECK(pgwt_pg_layout_of(m, &l, err, sizeof(err)) == 0);
		UNIT_CHECK(strcmp(l.pointer_sym, "my_wait_event_info") == 0);
		UNIT_CHECK(l.wait_off == 0);
	}
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0x500000, lo, hi) == 0);	/* the dummy */
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0, lo, hi) == 0);
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0x7f0000001002, lo, hi) == 0);	/* misaligned */
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0x7f0000001000, lo, hi) == 0x7f0000001000);

	UNIT_CHECK(pgwt_pg_layout_of(13, &l, err, sizeof(err)) == 0);
	UNIT_CHECK(strcmp(l.pointer_sym, "MyProc") == 0);
	UNIT_CHECK(l.wait_off > 0 && (l.wait_off & 3) == 0);
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0, lo, hi) == 0);	/* no PGPROC yet */
	UNIT_CHECK(pgwt_pg_layout_wait_addr(&l, 0x7f0000001000, lo, hi) == 0x7f0000001000u + l.wait_off);
}

void
run_wait_tests(void)
{
	UNIT_RUN(wait_validity);
	UNIT_RUN(wait_classification);
	UNIT_RUN(layout_per_major);
}

void
run_tick_tests(void)
{
	UNIT_RUN(tick_billing);
	UNIT_RUN(tick_weights_sum_to_elapsed);
	UNIT_RUN(tick_deadlines);
	UNIT_RUN(tick_late_rule);
	UNIT_RUN(tick_realign_rule);
}
