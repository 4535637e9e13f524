/*
 * test_self_test.c
 *		The watchpoint self-test's verdict: every write seen is the only
 *		pass; each way of failing names its cause.
 */
#include <string.h>

#include "tracer/watch/self_test.h"
#include "unit.h"

static pgwt_watch_self_test
judge(int writes, uint64_t hits, uint64_t runs)
{
	pgwt_watch_self_test r;

	memset(&r, 0, sizeof(r));
	r.writes = writes;
	r.hits = hits;
	r.runs = runs;
	pgwt_watch_self_test_judge(&r);
	return r;
}

static void
self_test_all_seen_passes(void)
{
	pgwt_watch_self_test r = judge(64, 64, 64);

	UNIT_CHECK(r.ok);
	UNIT_CHECK(strstr(r.why, "64 of 64") != NULL);
	/* the perf count is informative: the program's count decides */
	UNIT_CHECK(judge(64, 0, 64).ok);
}

static void
self_test_never_fires(void)
{
	pgwt_watch_self_test r = judge(64, 0, 0);

	UNIT_CHECK(!r.ok);
	UNIT_CHECK(strstr(r.why, "do not fire") != NULL && strstr(r.why, "0 of 64") != NULL);
	/* the reason fits the tracer's report to the extension with room */
	UNIT_CHECK(strlen(r.why) < 80);
}

static void
self_test_partial_or_no_program(void)
{
	pgwt_watch_self_test r = judge(64, 64, 0);

	UNIT_CHECK(!r.ok && strstr(r.why, "BPF program") != NULL);
	r = judge(64, 40, 40);
	UNIT_CHECK(!r.ok && strstr(r.why, "miss writes") != NULL && strstr(r.why, "40 of 64") != NULL);
	r = judge(0, 0, 0);
	UNIT_CHECK(!r.ok);
	r = judge(-3, 5, 5);
	UNIT_CHECK(!r.ok);
}

/* the stall is a difference of medians: one slow write moves neither */
static void
self_test_trap_stall(void)
{
	uint64_t	armed[5] = {9000, 12000, 500000, 10000, 11000},
				bare[5] = {40, 30, 90000, 50, 45};

	UNIT_CHECK(pgwt_watch_trap_stall(armed, bare, 5) == 11000 - 45);
	/* sorted in place */
	UNIT_CHECK(armed[0] == 9000 && armed[4] == 500000 && bare[4] == 90000);
	/* never below 0, nothing to measure is 0 */
	{
		uint64_t	a[3] = {10, 10, 10},
					b[3] = {20, 20, 20};

		UNIT_CHECK(pgwt_watch_trap_stall(a, b, 3) == 0);
		UNIT_CHECK(pgwt_watch_trap_stall(a, b, 0) == 0);
	}
}

void
run_self_test_tests(void)
{
	UNIT_RUN(self_test_all_seen_passes);
	UNIT_RUN(self_test_never_fires);
	UNIT_RUN(self_test_partial_or_no_program);
	UNIT_RUN(self_test_trap_stall);
}
