/*
 * test_session_now.c
 *		"Active sessions now" (analysis/session_now.h): scripted transitions,
 *		samples, markers and exits against each backend's state at the
 *		range's end worked out by hand, then the JSON renderer's rows.
 */
#include "analysis/render.h"
#include "analysis/session_now.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

#define EV_IO	0x0A000001u
#define EV_LOCK 0x03000004u		/* Lock:tuple in PG15 */
#define EV_CLI	0x06000000u

static pgwt_record
rec(uint8_t kind, uint32_t pid, uint64_t ts, uint32_t old_ev, uint32_t new_ev, uint64_t q)
{
	pgwt_record r = {0};

	r.kind = kind;
	r.pid = pid;
	r.ts_ns = ts;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.query_id = q;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	r.weight_ns = 10 * MS;
	return r;
}

static const pgwt_now_row *
find(const pgwt_now_row *rows, size_t n, uint32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

static void
test_now_by_hand(void)
{
	pgwt_now	n;
	pgwt_now_row *rows = NULL;
	size_t		nr = 0;
	const pgwt_now_row *r;
	pgwt_record in[] = {
		/* 10: CPU -> IO at 100, IO -> Lock at 150; a record after the end is not seen */
		rec(PGWT_REC_TRANSITION, 10, 100 * MS, 0, EV_IO, 7),
		rec(PGWT_REC_TRANSITION, 10, 150 * MS, EV_IO, EV_LOCK, 7),
		rec(PGWT_REC_TRANSITION, 10, 1000 * MS, EV_LOCK, 0, 7),
		/* 11: samples in a row of one state keep its first instant */
		rec(PGWT_REC_SAMPLE, 11, 200 * MS, 0, EV_CLI, 0),
		rec(PGWT_REC_SAMPLE, 11, 210 * MS, 0, EV_IO, 3),
		rec(PGWT_REC_SAMPLE, 11, 220 * MS, 0, EV_IO, 3),
		rec(PGWT_REC_SAMPLE, 11, 230 * MS, 0, EV_IO, 3),
		/* 12: exits; 13: exits, then its pid comes back */
		rec(PGWT_REC_TRANSITION, 12, 300 * MS, 0, EV_IO, 1),
		rec(PGWT_REC_TRANSITION, 12, 310 * MS, EV_IO, PGWT_EVENT_EXIT, 1),
		rec(PGWT_REC_TRANSITION, 13, 300 * MS, 0, PGWT_EVENT_EXIT, 0),
		rec(PGWT_REC_SAMPLE, 13, 400 * MS, 0, 0, 9),
		/* 14: a marker changes nothing; an older record is ignored */
		rec(PGWT_REC_TRANSITION, 14, 500 * MS, EV_CLI, 0, 2),
		rec(PGWT_REC_TRANSITION, 14, 510 * MS, 0, PGWT_MARKER_EXEC_START, 2),
		rec(PGWT_REC_SAMPLE, 14, 400 * MS, 0, EV_LOCK, 2),
		/* 15: a wait of 500 ms in IO that ends past the end: in IO since 700 */
		rec(PGWT_REC_TRANSITION, 15, 1200 * MS, EV_IO, 0, 4),
		/* 11: a wait past the end that began before its last sample: no change */
		rec(PGWT_REC_TRANSITION, 11, 1000 * MS, EV_LOCK, 0, 3),
	};

	EXPECT(pgwt_now_init(&n, 900 * MS, 0));
	in[14].duration_ns = 500 * MS;
	in[15].duration_ns = 900 * MS;
	pgwt_now_add_many(&n, in, sizeof(in) / sizeof(in[0]));
	EXPECT(pgwt_now_rows(&n, &rows, &nr));
	EXPECT_U64(nr, 5);
	EXPECT_U64(n.exited, 2);
	r = find(rows, nr, 10);
	EXPECT(r && r->event == EV_LOCK && r->since_ns == 150 * MS && r->exact && r->query_id == 7);
	r = find(rows, nr, 11);
	EXPECT(r && r->event == EV_IO && r->since_ns == 210 * MS && !r->exact && r->query_id == 3);
	EXPECT(find(rows, nr, 12) == NULL);
	r = find(rows, nr, 13);
	EXPECT(r && r->event == 0 && r->since_ns == 400 * MS && !r->exact);
	r = find(rows, nr, 14);
	EXPECT(r && r->event == 0 && r->since_ns == 500 * MS && r->exact);
	r = find(rows, nr, 15);
	EXPECT(r && r->event == EV_IO && r->since_ns == 700 * MS && r->exact && r->query_id == 4);
	/* oldest state first */
	EXPECT(nr == 5 && rows[0].pid == 10 && rows[1].pid == 11 && rows[2].pid == 13 && rows[3].pid == 14 &&
		   rows[4].pid == 15);
	free(rows);
	pgwt_now_free(&n);
}

static void
test_now_bounded(void)
{
	pgwt_now	n;
	pgwt_now_row *rows = NULL;
	size_t		nr = 0;

	EXPECT(pgwt_now_init(&n, UINT64_MAX, 2));
	for (uint32_t pid = 1; pid <= 5; pid++)
	{
		pgwt_record r = rec(PGWT_REC_TRANSITION, pid, pid * MS, 0, EV_IO, 0);

		pgwt_now_add(&n, &r);
	}
	EXPECT(pgwt_now_rows(&n, &rows, &nr));
	EXPECT_U64(nr, 2);
	EXPECT_U64(n.dropped, 3);
	free(rows);
	pgwt_now_free(&n);
}

static void
test_now_render(void)
{
	pgwt_now	n;
	pgwt_now_row *rows = NULL;
	size_t		nr = 0;
	pgwt_buf	b = {0};
	pgwt_names	names;
	pgwt_render_opts ro = {PGWT_OUT_JSON, &names, true, NULL, NULL, false};
	pgwt_window_summary sum;
	pgwt_record r = rec(PGWT_REC_TRANSITION, 10, 100 * MS, 0, EV_LOCK, 5);

	pgwt_names_init(&names, 15);
	memset(&sum, 0, sizeof(sum));
	snprintf(sum.spec.label, sizeof(sum.spec.label), "w");
	sum.spec.to_ns = 900 * MS;
	EXPECT(pgwt_now_init(&n, 900 * MS, 0));
	pgwt_now_add(&n, &r);
	EXPECT(pgwt_now_rows(&n, &rows, &nr));
	pgwt_render_sessions_now(&b, &ro, &sum, &n, rows, nr);
	EXPECT(b.data && strstr(b.data, "\"pid\":10,\"event\":\"Lock:tuple\""));
	EXPECT(b.data && strstr(b.data, "\"since_ns\":100000000,\"for_ns\":800000000,\"fidelity\":\"exact\",\"query_id\":5"));
	pgwt_buf_free(&b);
	pgwt_names_free(&names);
	free(rows);
	pgwt_now_free(&n);
}

int
main(void)
{
	RUN(test_now_by_hand);
	RUN(test_now_bounded);
	RUN(test_now_render);
	return unit_failures ? 1 : 0;
}
