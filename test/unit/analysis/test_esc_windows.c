/*
 * test_esc_windows.c
 *		The escalation windows of scripted marker streams (analysis/
 *		esc_windows.h): a plain window, one extended by a nested start, the
 *		continued copy at a file's head, an end without its start, one
 *		still open, and the bound.
 */
#include "analysis/esc_windows.h"
#include "unit.h"

#define S 1000000000ull

static pgwt_record
mk(bool start, uint64_t ts, unsigned reason, uint64_t len, uint64_t qid)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_TRANSITION;
	r.new_event = start ? PGWT_MARKER_ESC_START : PGWT_MARKER_ESC_END;
	r.old_event = reason;
	r.ts_ns = ts;
	r.duration_ns = len;
	r.query_id = qid;
	return r;
}

static void
feed(pgwt_esc_windows *s, pgwt_record r)
{
	pgwt_esc_windows_add(s, &r);
}

static void
test_plain_and_extended(void)
{
	pgwt_esc_window arr[4];
	pgwt_esc_windows s;
	pgwt_record wait = {0};

	pgwt_esc_windows_init(&s, arr, 4);
	wait.kind = PGWT_REC_TRANSITION;
	wait.ts_ns = 5 * S;
	wait.new_event = 0x09000002u;
	pgwt_esc_windows_add(&s, &wait);
	feed(&s, mk(true, 10 * S, PGWT_ESC_CODE_MANUAL, 5 * S, 0));
	feed(&s, mk(true, 12 * S, PGWT_ESC_CODE_ANOMALY_LOCK, 10 * S, 0));	/* extends */
	feed(&s, mk(true, 13 * S, PGWT_ESC_CODE_ANOMALY_LOCK, 10 * S, PGWT_ESC_CONTINUED));
	feed(&s, mk(false, 22 * S, PGWT_ESC_CODE_MANUAL, 12 * S, 0));
	feed(&s, mk(true, 30 * S, PGWT_ESC_CODE_SCHEDULE, 2 * S, 0));
	pgwt_esc_windows_finish(&s);
	EXPECT_U64(s.n, 2);
	EXPECT_U64(arr[0].start_ns, 10 * S);
	EXPECT_U64(arr[0].end_ns, 22 * S);
	EXPECT_U64(arr[0].planned_end_ns, 22 * S);
	EXPECT_U64(arr[0].extensions, 1);
	EXPECT_STR(pgwt_esc_code_name(arr[0].reason), "manual");
	EXPECT_U64(arr[1].start_ns, 30 * S);
	EXPECT_U64(arr[1].end_ns, 0);	/* still open */
	EXPECT_STR(pgwt_esc_code_name(arr[1].reason), "schedule");
}

static void
test_end_without_start_and_bound(void)
{
	pgwt_esc_window arr[1];
	pgwt_esc_windows s;

	pgwt_esc_windows_init(&s, arr, 1);
	feed(&s, mk(false, 10 * S, PGWT_ESC_CODE_ANOMALY_CPU, 4 * S, 0));
	feed(&s, mk(true, 20 * S, PGWT_ESC_CODE_MANUAL, 1 * S, 0));
	feed(&s, mk(false, 21 * S, PGWT_ESC_CODE_MANUAL, 1 * S, 0));
	pgwt_esc_windows_finish(&s);
	EXPECT_U64(s.n, 1);
	EXPECT_U64(s.dropped, 1);
	EXPECT_U64(arr[0].start_ns, 6 * S);
	EXPECT_U64(arr[0].end_ns, 10 * S);
	EXPECT_STR(pgwt_esc_code_name(arr[0].reason), "cpu_saturation");
	EXPECT_STR(pgwt_esc_code_name(77), "other");
}

int
main(void)
{
	RUN(test_plain_and_extended);
	RUN(test_end_without_start_and_bound);
	return unit_failures ? 1 : 0;
}
