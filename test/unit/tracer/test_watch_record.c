/*
 * test_watch_record.c
 *		The exact tier's event-to-record conversion follows the query-id
 *		carry (common/query_carry.h) per pid: a wait seen with id 0 inside a
 *		transaction goes to that transaction's last statement, even when
 *		another backend's events come in between.
 */
#include <string.h>

#include "tracer/watch/watch_record.h"
#include "unit.h"

static struct pgwt_watch_event
ev(uint32_t pid, uint64_t qid, uint64_t xact, uint64_t ts)
{
	struct pgwt_watch_event e;

	memset(&e, 0, sizeof(e));
	e.pid = pid;
	e.query_id = qid;
	e.xact_key = xact;
	e.ts_ns = ts;
	e.duration_ns = 7;
	e.old_event = 0x0A000001;
	e.new_event = 0;
	return e;
}

static uint64_t
billed(PgwtQidCarry *c, struct pgwt_watch_event e)
{
	pgwt_record rec;

	pgwt_watch_event_to_record(&e, c, &rec);
	return rec.query_id;
}

static void
watch_record_fields(void)
{
	struct pgwt_watch_event e = ev(42, 5, 9, 1000);
	pgwt_record rec;

	pgwt_watch_event_to_record(&e, NULL, &rec);
	UNIT_CHECK(rec.kind == PGWT_REC_TRANSITION);
	UNIT_CHECK(rec.pid == 42 && rec.ts_ns == 1000 && rec.duration_ns == 7);
	UNIT_CHECK(rec.old_event == 0x0A000001 && rec.new_event == 0);
	UNIT_CHECK(rec.query_id == 5 && rec.cpu_ns == PGWT_CPU_UNKNOWN);
	/* no carry state: the raw id */
	e.query_id = 0;
	pgwt_watch_event_to_record(&e, NULL, &rec);
	UNIT_CHECK(rec.query_id == 0);
}

static void
watch_record_carry_per_pid(void)
{
	PgwtQidCarry a,
				b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	/* pid 1 runs statement 11 in transaction 100, pid 2 statement 22 in 200 */
	UNIT_CHECK(billed(&a, ev(1, 11, 100, 1)) == 11);
	UNIT_CHECK(billed(&b, ev(2, 22, 200, 2)) == 22);
	/* commit-time waits with no id: each to its own transaction's statement */
	UNIT_CHECK(billed(&b, ev(2, 0, 200, 3)) == 22);
	UNIT_CHECK(billed(&a, ev(1, 0, 100, 4)) == 11);
	/* the next transaction starts empty; outside one nothing is carried */
	UNIT_CHECK(billed(&a, ev(1, 0, 101, 5)) == 0);
	UNIT_CHECK(billed(&a, ev(1, 33, 0, 6)) == 33);
	UNIT_CHECK(billed(&a, ev(1, 0, 0, 7)) == 0);
	/* a non-zero id is never rewritten */
	UNIT_CHECK(billed(&b, ev(2, 44, 200, 8)) == 44);
	UNIT_CHECK(billed(&b, ev(2, 0, 200, 9)) == 44);
}

/*
 * The scheduler tier keeps one carry per traced pid in a table found by
 * pid: two live backends whose pids are 16384 apart (or any power of two)
 * keep their own carries, as two pids far apart do.
 */
static void
watch_record_carry_table_pids_apart(void)
{
	static pgwt_carry_table t;
	uint32_t	a = 1000,
				b = 1000 + 16384;

	memset(&t, 0, sizeof(t));
	UNIT_CHECK(pgwt_carry_table_get(&t, a, true) != NULL);
	UNIT_CHECK(pgwt_carry_table_get(&t, b, true) != NULL);
	UNIT_CHECK(pgwt_carry_table_get(&t, a, false) != pgwt_carry_table_get(&t, b, false));
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, a, false), ev(a, 11, 100, 1)) == 11);
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, b, false), ev(b, 22, 200, 2)) == 22);
	/* each commit-time wait with no id goes to its own statement */
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, a, false), ev(a, 0, 100, 3)) == 11);
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, b, false), ev(b, 0, 200, 4)) == 22);
	/* forgotten: no carry; made again: empty */
	pgwt_carry_table_forget(&t, a);
	UNIT_CHECK(pgwt_carry_table_get(&t, a, false) == NULL);
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, b, false), ev(b, 0, 200, 5)) == 22);
	UNIT_CHECK(billed(pgwt_carry_table_get(&t, a, true), ev(a, 0, 100, 6)) == 0);
}

/* Churn: every live pid stays found after any removals, the table holds its
 * maximum and refuses one more, and removals make room again. */
static void
watch_record_carry_table_churn(void)
{
	static pgwt_carry_table t;
	bool		ok = true;

	memset(&t, 0, sizeof(t));
	for (uint32_t p = 1; p <= PGWT_CARRY_TABLE_MAX; p++)
		if (!pgwt_carry_table_get(&t, p * 4096 + 7, true))
			ok = false;
	UNIT_CHECK(ok);
	UNIT_CHECK(pgwt_carry_table_get(&t, 3, true) == NULL);
	for (uint32_t p = 1; p <= PGWT_CARRY_TABLE_MAX; p += 2)
		pgwt_carry_table_forget(&t, p * 4096 + 7);
	for (uint32_t p = 1; p <= PGWT_CARRY_TABLE_MAX; p++)
	{
		PgwtQidCarry *c = pgwt_carry_table_get(&t, p * 4096 + 7, false);

		if ((p % 2 == 0) != (c != NULL))
			ok = false;
	}
	UNIT_CHECK(ok);
	UNIT_CHECK(t.n == PGWT_CARRY_TABLE_MAX / 2);
	UNIT_CHECK(pgwt_carry_table_get(&t, 3, true) != NULL);
	UNIT_CHECK(pgwt_carry_table_get(&t, 0, true) == NULL);
}

void
run_watch_record_tests(void)
{
	UNIT_RUN(watch_record_fields);
	UNIT_RUN(watch_record_carry_per_pid);
	UNIT_RUN(watch_record_carry_table_pids_apart);
	UNIT_RUN(watch_record_carry_table_churn);
}
