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

void
run_watch_record_tests(void)
{
	UNIT_RUN(watch_record_fields);
	UNIT_RUN(watch_record_carry_per_pid);
}
