/*
 * test_compare.c
 *		The compare-periods merge (analysis/compare.h) and its rendering:
 *		keys in one period only, a key given twice, shares and deltas, the
 *		order by the size of the change; every figure derived in comments.
 */
#include "analysis/compare.h"
#include "analysis/wait_event.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#define MS 1000000ull

static void
test_compare_merge(void)
{
	/* A (DB 1000 ms): class 0 400, class 9 600; B (DB 2000 ms): class 0
	 * 300, class 10 1200 + 500 (given twice) */
	pgwt_cmp_item a[] = {{9, 0, 600 * MS}, {0, 0, 400 * MS}};
	pgwt_cmp_item b[] = {{10, 0, 1200 * MS}, {0, 0, 300 * MS}, {10, 0, 500 * MS}};
	pgwt_cmp_row *r = NULL;
	size_t		n = 0;

	EXPECT(pgwt_compare(a, 2, 1000 * MS, b, 3, 2000 * MS, &r, &n) == 0);
	EXPECT_U64(n, 3);
	if (n != 3)
		return;
	/* |delta|: class 10 +1700, class 9 -600, class 0 -100 */
	EXPECT_U64(r[0].k1, 10);
	EXPECT_U64(r[0].a_ns, 0);
	EXPECT_U64(r[0].b_ns, 1700 * MS);
	EXPECT(r[0].delta_ns == (int64_t) (1700 * MS));
	EXPECT_DBL(r[0].b_pct, 85.0);
	EXPECT_DBL(r[0].delta_pct, 85.0);
	EXPECT_U64(r[1].k1, 9);
	EXPECT(r[1].delta_ns == -(int64_t) (600 * MS));
	EXPECT_DBL(r[1].a_pct, 60.0);
	EXPECT_DBL(r[1].delta_pct, -60.0);
	EXPECT_U64(r[2].k1, 0);
	EXPECT(r[2].delta_ns == -(int64_t) (100 * MS));
	EXPECT_DBL(r[2].delta_pct, 15.0 - 40.0);
	free(r);
}

static void
test_compare_empty_and_zero_db(void)
{
	pgwt_cmp_item b[] = {{7, 3, 5}};
	pgwt_cmp_row *r = NULL;
	size_t		n = 9;

	EXPECT(pgwt_compare(NULL, 0, 0, NULL, 0, 0, &r, &n) == 0);
	EXPECT_U64(n, 0);
	free(r);
	EXPECT(pgwt_compare(NULL, 0, 0, b, 1, 0, &r, &n) == 0);
	EXPECT_U64(n, 1);
	if (n == 1)
	{
		EXPECT_U64(r[0].k2, 3);
		EXPECT_DBL(r[0].b_pct, 0.0);	/* no DB time: no share */
		EXPECT(r[0].delta_ns == 5);
	}
	free(r);
}

static void
test_compare_render(void)
{
	pgwt_names names;
	pgwt_buf b = {0};
	pgwt_render_opts o = {0};
	pgwt_cmp_row row = {0x0A000001u, 0, 10, 30, 10.0, 15.0, 20, 5.0};
	pgwt_cmp_row qrow = {(uint64_t) -5, 0x0A000001u, 1, 0, 1.0, 0.0, -1, -1.0};

	char		want[300],
				label[128];

	pgwt_names_init(&names, 15);
	/* the label is the views' own Class:Name of the id */
	pgwt_event_format(&names, 0x0A000001u, label, sizeof(label));
	o.names = &names;
	o.format = PGWT_OUT_JSON;
	pgwt_render_compare(&b, &o, PGWT_CMP_EVENT, 100, 200, &row, 1);
	snprintf(want, sizeof(want), "\"event\":\"%s\",\"a_ns\":10,", label);
	EXPECT(strncmp(label, "IO:", 3) == 0);
	EXPECT(b.data && strstr(b.data, want) != NULL);
	EXPECT(strstr(b.data, "\"delta_ns\":20,\"delta_pct_db\":5.0000}") != NULL);
	b.len = 0;
	o.format = PGWT_OUT_CSV;
	pgwt_render_compare(&b, &o, PGWT_CMP_QUERY_EVENT, 100, 200, &qrow, 1);
	EXPECT(b.data && strstr(b.data, "query_id,event,a_ns") == b.data);
	snprintf(want, sizeof(want), "\n-5,%s,1,1.0000,0,0.0000,-1,-1.0000\n", label);
	EXPECT(strstr(b.data, want) != NULL);
	pgwt_buf_free(&b);
	pgwt_names_free(&names);
}

int
main(void)
{
	RUN(test_compare_merge);
	RUN(test_compare_empty_and_zero_db);
	RUN(test_compare_render);
	return unit_failures ? 1 : 0;
}
