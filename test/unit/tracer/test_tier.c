/*
 * test_tier.c
 *		The tiered mode's pure helpers: a tick's load from its samples, the
 *		Lock-class test, escalation markers.
 */
#include <string.h>

#include "tracer/tier_stats.h"
#include "unit.h"

static pgwt_record
tier_sample(uint32_t pid, uint32_t event)
{
	pgwt_record r;

	memset(&r, 0, sizeof(r));
	r.kind = PGWT_REC_SAMPLE;
	r.pid = pid;
	r.new_event = event;
	r.weight_ns = 100000000;
	return r;
}

static void
tier_load(void)
{
	pgwt_record recs[7];
	pgwt_tick_load l;

	recs[0] = tier_sample(1, 0);			/* CPU */
	recs[1] = tier_sample(2, 0x03000000);	/* Lock:relation */
	recs[2] = tier_sample(3, 0x03000004);	/* Lock:transactionid */
	recs[3] = tier_sample(4, 0x06000000);	/* Client:ClientRead: idle */
	recs[4] = tier_sample(5, 0x0A000010);	/* an IO wait */
	recs[5] = tier_sample(6, 0x01000000);	/* LWLock: not the Lock class */
	recs[6] = recs[0];
	recs[6].kind = PGWT_REC_TRANSITION;		/* not a sample: ignored */
	pgwt_tick_load_of(recs, 7, 15, &l);
	UNIT_CHECK(l.samples == 6);
	UNIT_CHECK(l.aas == 5);
	UNIT_CHECK(l.lock_aas == 2);
	UNIT_CHECK(l.cpu_aas == 1);
	pgwt_tick_load_of(recs, 0, 15, &l);
	UNIT_CHECK(l.samples == 0 && l.aas == 0);
}

static void
tier_lock_class(void)
{
	UNIT_CHECK(pgwt_is_lock_wait(0x03000000));
	UNIT_CHECK(pgwt_is_lock_wait(0x03000009));
	UNIT_CHECK(!pgwt_is_lock_wait(0x01000000));
	UNIT_CHECK(!pgwt_is_lock_wait(0));
	UNIT_CHECK(!pgwt_is_lock_wait(PGWT_MARKER_ESC_START));
}

static void
tier_markers(void)
{
	pgwt_record r;

	pgwt_esc_marker(&r, true, 123, PGWT_ESC_CODE_MANUAL, 5000000000ull);
	UNIT_CHECK(r.kind == PGWT_REC_TRANSITION && r.new_event == PGWT_MARKER_ESC_START);
	UNIT_CHECK(r.pid == 0 && r.old_event == 1 && r.duration_ns == 5000000000ull && r.ts_ns == 123);
	UNIT_CHECK(PGWT_IS_MARKER(r.new_event));
	pgwt_esc_marker(&r, false, 456, PGWT_ESC_CODE_ANOMALY_LOCK, 7);
	UNIT_CHECK(r.new_event == PGWT_MARKER_ESC_END && r.old_event == 4 && r.duration_ns == 7);
}

/* --exact-source's order, and the source behind a capture source's name. */
static void
tier_exact_order(void)
{
	pgwt_tf_exact_source o[2] = {PGWT_TF_XSRC_UNKNOWN, PGWT_TF_XSRC_UNKNOWN};

	UNIT_CHECK(pgwt_exact_order(PGWT_EXACT_AUTO, o) == 2 && o[0] == PGWT_TF_XSRC_WATCH &&
			   o[1] == PGWT_TF_XSRC_SCHED);
	UNIT_CHECK(pgwt_exact_order(PGWT_EXACT_WATCH, o) == 1 && o[0] == PGWT_TF_XSRC_WATCH);
	UNIT_CHECK(pgwt_exact_order(PGWT_EXACT_SCHED, o) == 1 && o[0] == PGWT_TF_XSRC_SCHED);
	UNIT_CHECK(pgwt_exact_source_of("full") == PGWT_TF_XSRC_WATCH);
	UNIT_CHECK(pgwt_exact_source_of("sched") == PGWT_TF_XSRC_SCHED);
	UNIT_CHECK(pgwt_exact_source_of("sampled") == PGWT_TF_XSRC_UNKNOWN);
	UNIT_CHECK(pgwt_exact_source_of(NULL) == PGWT_TF_XSRC_UNKNOWN);
}

void
run_tier_tests(void)
{
	UNIT_RUN(tier_load);
	UNIT_RUN(tier_lock_class);
	UNIT_RUN(tier_markers);
	UNIT_RUN(tier_exact_order);
}
