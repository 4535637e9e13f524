/*
 * test_sampler_logic.c
 *		Unit tests of the in-server sampler's pure logic (sampler_logic.h):
 *		classification, query-id carry, tick billing, the bounded profile
 *		table (eviction, backward-shift deletion, forgetting a backend)
 *		and the history ring.
 *		Runs without a server under ASan+UBSan; one PASS/FAIL line per test,
 *		non-zero exit on any failure.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/query_carry.h"
#include "common/tick_rule.h"
#include "extension/sampler_logic.h"

static int	failures = 0;

#define CHECK(cond) \
	do { if (!(cond)) { printf("  check failed at line %d: %s\n", __LINE__, #cond); ok = 0; } } while (0)

static void
report(const char *name, int ok)
{
	printf("%s sampler-%s%s\n", ok ? "PASS" : "FAIL", name, ok ? "" : ": see checks above");
	if (!ok)
		failures++;
}

static void
test_classify(void)
{
	int			ok = 1;

	/* Timeout:PgSleep, Lock:transactionid (PG15 encodings) */
	CHECK(pgwt_sample_classify(0x09000002U) == PGWT_SAMPLE_WAITING);
	CHECK(pgwt_sample_classify(0x03000004U) == PGWT_SAMPLE_WAITING);
	/* Client:ClientRead and the Activity class are idle */
	CHECK(pgwt_sample_classify(0x06000000U) == PGWT_SAMPLE_IDLE);
	CHECK(pgwt_sample_classify(0x05000003U) == PGWT_SAMPLE_IDLE);
	/* no event: CPU*, as the exact tier's time between waits */
	CHECK(pgwt_sample_classify(0) == PGWT_SAMPLE_CPU);
	/* Client:ClientWrite is not idle */
	CHECK(pgwt_sample_classify(0x06000001U) == PGWT_SAMPLE_WAITING);
	report("classify", ok);
}

static void
test_qid_carry(void)
{
	int			ok = 1;
	PgwtQidCarry c = {0};

	/* a statement's id carries to a later id-less sample of its transaction */
	CHECK(pgwt_qid_carry(&c, 100, 5000, 42) == 42);
	CHECK(pgwt_qid_carry(&c, 100, 5000, 0) == 42);
	CHECK(pgwt_qid_carry(&c, 100, 5000, 43) == 43);
	CHECK(pgwt_qid_carry(&c, 100, 5000, 0) == 43);
	/* a new transaction forgets it */
	CHECK(pgwt_qid_carry(&c, 100, 6000, 0) == 0);
	/* outside a transaction nothing is carried */
	CHECK(pgwt_qid_carry(&c, 100, 0, 7) == 7);
	CHECK(pgwt_qid_carry(&c, 100, 0, 0) == 0);
	/* another process in the same proc slot forgets it */
	CHECK(pgwt_qid_carry(&c, 100, 7000, 9) == 9);
	CHECK(pgwt_qid_carry(&c, 101, 7000, 0) == 0);
	report("qid-carry", ok);
}

static void
test_tick_bill(void)
{
	int			ok = 1;

	CHECK(pgwt_tick_bill_ns(0, 123456789, 10000000) == 10000000);
	CHECK(pgwt_tick_bill_ns(1000, 1000 + 10000000, 10000000) == 10000000);
	/* a late tick is billed for its real length */
	CHECK(pgwt_tick_bill_ns(1000, 1000 + 35000000, 10000000) == 35000000);
	/* the clock never runs backwards, but if it did: the nominal period */
	CHECK(pgwt_tick_bill_ns(5000, 4000, 10000000) == 10000000);
	report("tick-bill", ok);
}

/*
 * A stalled sampler must not invent time: a tick 50 periods late (10 Hz,
 * 5 s) bills at most the cap of common/tick_rule.h (1 s here), the rest is
 * lost, and the tick is late. Before the rule moved to common/ the
 * extension billed the whole 5 s to the samples of that one tick.
 */
static void
test_tick_cap(void)
{
	int			ok = 1;
	const uint64_t period = 100000000;	/* 10 Hz */
	const uint64_t prev = 1000;
	uint64_t	bill = pgwt_tick_bill_ns(prev, prev + 50 * period, period);

	CHECK(bill <= 10 * period);
	CHECK(bill == 1000000000);
	CHECK(pgwt_tick_lost_ns(prev, prev + 50 * period, period) == 4000000000ULL);
	CHECK(pgwt_tick_is_late(prev, prev + 50 * period, period));
	/* at 1000 Hz ten periods are 10 ms: the 1 s floor keeps a hiccup billed */
	CHECK(pgwt_tick_bill_ns(prev, prev + 300000000, 1000000) == 300000000);
	/* late is over 1.5 periods, the same rule as the tracer's */
	CHECK(!pgwt_tick_is_late(prev, prev + 15000000, 10000000));
	CHECK(pgwt_tick_is_late(prev, prev + 15000001, 10000000));
	CHECK(!pgwt_tick_is_late(0, 999999999, 10000000));
	report("tick-cap", ok);
}

/*
 * A deadline the previous tick's work ran past moves to the next point of
 * the same grid (never a tick at once, when the sampler gets a CPU back):
 * the rule both samplers call before they sleep.
 */
static void
test_tick_grid(void)
{
	int			ok = 1;
	const uint64_t p = 10000000;	/* 100 Hz */
	uint64_t	skipped = 99;

	/* a deadline still ahead is kept */
	CHECK(pgwt_tick_next_on_grid(50 * p, 49 * p + 1, p, &skipped) == 50 * p && skipped == 0);
	/* reached exactly: the next point */
	CHECK(pgwt_tick_next_on_grid(50 * p, 50 * p, p, &skipped) == 51 * p && skipped == 1);
	/* 3.4 periods past: deadlines 50 to 53 skipped, back on the grid (not now + p) */
	CHECK(pgwt_tick_next_on_grid(50 * p, 53 * p + 4000000, p, &skipped) == 54 * p && skipped == 4);
	/* a long stall skips many, still on the grid */
	CHECK(pgwt_tick_next_on_grid(50 * p, 50 * p + 1000 * p - 1, p, &skipped) == 1050 * p && skipped == 1000);
	/* a zero period cannot loop or divide by zero */
	CHECK(pgwt_tick_next_on_grid(5, 7, 0, &skipped) == 7 && skipped == 0);
	report("tick-grid", ok);
}

static PgwtSampleTable *
new_table(uint32_t max_used)
{
	PgwtSampleTable *t = malloc(pgwt_table_bytes(max_used));

	pgwt_table_init(t, max_used);
	return t;
}

/* Every stored key is found through its probe chain; 'used' is right. */
static int
table_consistent(PgwtSampleTable *t)
{
	uint32_t	i,
				n = 0;

	for (i = 0; i < t->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(t)[i];

		if (!e->used)
			continue;
		n++;
		if (pgwt_table_find(t, &e->key) != e)
			return 0;
	}
	return n == t->used;
}

static void
test_table_basic(void)
{
	int			ok = 1;
	PgwtSampleTable *t = new_table(100);
	PgwtSampleKey k = {.id = 42, .id2 = 0, .event = 0x03000004U};
	PgwtSampleEntry *e;

	CHECK(t->size == 256 || t->size == 128 || t->size == 512);
	CHECK(t->size >= 134);
	CHECK(pgwt_table_find(t, &k) == NULL);
	e = pgwt_table_upsert(t, &k);
	CHECK(e != NULL && e->samples == 0);
	pgwt_entry_bill(e, 10000000, 1);
	pgwt_entry_bill(pgwt_table_upsert(t, &k), 12000000, 2);
	e = pgwt_table_find(t, &k);
	CHECK(e && e->samples == 2 && e->time_ns == 22000000 && e->last_tick == 2);
	CHECK(t->used == 1);
	/* keys differing in one field are different entries */
	k.event = 0;
	CHECK(pgwt_table_upsert(t, &k) != e);
	k.event = 0x03000004U;
	k.id2 = 1;
	CHECK(pgwt_table_upsert(t, &k) != e);
	CHECK(t->used == 3 && t->evictions == 0);
	free(t);
	report("table-basic", ok);
}

static void
test_table_eviction(void)
{
	int			ok = 1;
	PgwtSampleTable *t = new_table(50);
	PgwtSampleKey k = {0};
	uint64_t	total_samples = 0,
				held = 0;
	uint32_t	i;
	int			n;

	/* 50 heavy entries, then 500 one-sample ones churn through */
	for (n = 0; n < 50; n++)
	{
		k.id = n;
		k.event = 7;
		for (i = 0; i < 1000; i++)
			pgwt_entry_bill(pgwt_table_upsert(t, &k), 1, 1);
		total_samples += 1000;
	}
	CHECK(t->used == 50 && t->evictions == 0);
	for (n = 1000; n < 1500; n++)
	{
		k.id = n;
		pgwt_entry_bill(pgwt_table_upsert(t, &k), 1, 2 + n);
		total_samples++;
		if (t->used > t->max_used)
			ok = 0;
	}
	CHECK(t->used == 50);
	CHECK(t->evictions == 500);
	CHECK(table_consistent(t));
	/* nothing lost: held + evicted = everything billed */
	for (i = 0; i < t->size; i++)
		if (pgwt_table_rows(t)[i].used)
			held += pgwt_table_rows(t)[i].samples;
	CHECK(held + t->evicted_samples == total_samples);
	/* light newcomers are evicted before heavy entries: a heavy one goes
	 * only when a window holds no light one (a few times at most) */
	held = 0;
	for (i = 0; i < t->size; i++)
		if (pgwt_table_rows(t)[i].used && pgwt_table_rows(t)[i].samples == 1000)
			held++;
	CHECK(held >= 45);
	free(t);
	report("table-eviction", ok);
}

static void
test_table_delete_chains(void)
{
	int			ok = 1;
	PgwtSampleTable *t = new_table(12);	/* 32 rows: long chains, wrap-around */
	PgwtSampleKey k = {0};
	int			round,
				n;
	unsigned	seed = 12345;

	for (round = 0; round < 2000; round++)
	{
		seed = seed * 1103515245U + 12345U;
		k.id = (seed >> 8) % 40;
		k.event = (seed >> 20) % 3;
		pgwt_entry_bill(pgwt_table_upsert(t, &k), 1, (uint64_t) round);
		if (!table_consistent(t) || t->used > 12)
		{
			ok = 0;
			break;
		}
	}
	CHECK(ok);
	for (n = 0; n < (int) t->size && t->used > 0; n++)
		if (pgwt_table_rows(t)[n].used)
		{
			pgwt_table_delete(t, (uint32_t) n);
			n = -1;				/* rows shifted: rescan */
			CHECK(table_consistent(t));
		}
	CHECK(t->used == 0);
	free(t);
	report("table-delete-chains", ok);
}

static void
test_table_hint(void)
{
	int			ok = 1;
	PgwtSampleTable *t = new_table(12);
	PgwtSampleKey a = {.id = 1, .event = 5};
	PgwtSampleKey k = {0};
	uint32_t	hint = UINT32_MAX;
	PgwtSampleEntry *e;
	int			n;

	e = pgwt_table_upsert_hint(t, &a, &hint);
	CHECK(e != NULL && hint == (uint32_t) (e - pgwt_table_rows(t)));
	pgwt_entry_bill(e, 1, 1);
	CHECK(pgwt_table_upsert_hint(t, &a, &hint) == e);
	/* a stale hint (another key there, or out of range) is never trusted */
	hint = t->size + 7;
	CHECK(pgwt_table_upsert_hint(t, &a, &hint) == e);
	for (n = 0; n < 200; n++)
	{
		k.id = 100 + n;
		pgwt_entry_bill(pgwt_table_upsert(t, &k), 1, 2);	/* evictions shift rows */
		e = pgwt_table_upsert_hint(t, &a, &hint);
		if (!e || !pgwt_key_equal(&e->key, &a) || pgwt_table_find(t, &a) != e)
		{
			ok = 0;
			break;
		}
		pgwt_entry_bill(e, 1, 3);
	}
	CHECK(ok);
	CHECK(table_consistent(t));
	free(t);
	report("table-hint", ok);
}

/*
 * Forgetting a backend: every row of (pid, start) goes, other sessions of
 * the same pid (another start) and other pids stay, and the per-event
 * totals lose exactly the forgotten rows' numbers. A small table with
 * long chains makes the backward shifts move rows across the scan.
 */
static void
test_forget_backend(void)
{
	int			ok = 1;
	PgwtSampleTable *by_backend = new_table(24);
	PgwtSampleTable *by_event = new_table(24);
	PgwtSampleKey k = {0};
	uint64_t	want_samples[4] = {0},
				want_ns[4] = {0};
	uint32_t	removed,
				i;
	int			round;
	unsigned	seed = 777;

	for (round = 0; round < 300; round++)
	{
		PgwtSampleKey ev = {0};
		uint64_t	ns;

		seed = seed * 1103515245U + 12345U;
		k.id = 10 + (seed >> 8) % 4;	/* pids 10..13 */
		k.id2 = (k.id == 11 && (seed >> 14) % 2) ? 2 : 1;	/* pid 11: two sessions */
		k.event = (seed >> 20) % 4;
		ns = 1 + (seed >> 4) % 1000;
		if (pgwt_table_find(by_backend, &k) == NULL && by_backend->used >= 20)
			continue;			/* stay below eviction: totals must add up */
		pgwt_entry_bill(pgwt_table_upsert(by_backend, &k), ns, (uint64_t) round);
		ev.event = k.event;
		pgwt_entry_bill(pgwt_table_upsert(by_event, &ev), ns, (uint64_t) round);
		if (!(k.id == 11 && k.id2 == 1))
		{
			want_samples[k.event]++;
			want_ns[k.event] += ns;
		}
	}
	removed = pgwt_table_forget_backend(by_backend, by_event, 11, 1);
	CHECK(removed > 0);
	CHECK(table_consistent(by_backend));
	for (i = 0; i < by_backend->size; i++)
	{
		PgwtSampleEntry *e = &pgwt_table_rows(by_backend)[i];

		if (e->used)
			CHECK(!(e->key.id == 11 && e->key.id2 == 1));
	}
	for (i = 0; i < 4; i++)
	{
		PgwtSampleKey ev = {0};
		PgwtSampleEntry *e;

		ev.event = i;
		e = pgwt_table_find(by_event, &ev);
		CHECK(e != NULL && e->samples == want_samples[i] && e->time_ns == want_ns[i]);
	}
	/* a second forget finds nothing; an unknown backend neither */
	CHECK(pgwt_table_forget_backend(by_backend, by_event, 11, 1) == 0);
	CHECK(pgwt_table_forget_backend(by_backend, by_event, 99, 1) == 0);
	free(by_backend);
	free(by_event);
	report("forget-backend", ok);
}

static void
test_ring(void)
{
	int			ok = 1;
	PgwtHistoryRing *r = malloc(sizeof(PgwtHistoryRing) + 4 * sizeof(PgwtHistorySample));
	PgwtHistorySample s = {0};
	uint32_t	oldest,
				held;
	int			i;

	r->written = 0;
	r->capacity = 4;
	held = pgwt_ring_held(r, &oldest);
	CHECK(held == 0);
	for (i = 1; i <= 3; i++)
	{
		s.ts = i;
		pgwt_ring_push(r, &s);
	}
	held = pgwt_ring_held(r, &oldest);
	CHECK(held == 3 && oldest == 0 && pgwt_ring_slots(r)[oldest].ts == 1);
	for (i = 4; i <= 10; i++)
	{
		s.ts = i;
		pgwt_ring_push(r, &s);
	}
	held = pgwt_ring_held(r, &oldest);
	CHECK(held == 4 && r->written == 10);
	CHECK(pgwt_ring_slots(r)[oldest].ts == 7);
	CHECK(pgwt_ring_slots(r)[(oldest + 3) % 4].ts == 10);
	r->capacity = 0;
	pgwt_ring_push(r, &s);		/* a ring of no room stores nothing */
	CHECK(r->written == 10);
	free(r);
	report("ring", ok);
}

int
main(void)
{
	test_classify();
	test_qid_carry();
	test_tick_bill();
	test_tick_cap();
	test_tick_grid();
	test_table_basic();
	test_table_eviction();
	test_table_delete_chains();
	test_table_hint();
	test_forget_backend();
	test_ring();
	return failures ? 1 : 0;
}
