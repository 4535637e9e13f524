/*
 * test_render.c
 *		Text / JSON / CSV rendering of known view results.
 */
#include "analysis/render.h"
#include "unit.h"

#include <stdlib.h>

#define MS 1000000ull
#define S  1000000000ull

static pgwt_record
rec(uint8_t kind, uint32_t pid, uint64_t ts, uint32_t old_ev, uint32_t new_ev, uint64_t dur, uint64_t w)
{
	pgwt_record r = {0};

	r.kind = kind;
	r.pid = pid;
	r.ts_ns = ts;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.weight_ns = w;
	r.query_id = 42;
	return r;
}

static pgwt_engine *
build(void)
{
	pgwt_window_spec w = {0, 100 * S, "all"};
	pgwt_engine *e = pgwt_engine_create(NULL, &w, 1, NULL);
	pgwt_backend_info b = {.pid = 1, .type = "client backend", .user = "we\"ird,user"};

	pgwt_engine_set_backend(e, &b);
	for (int i = 0; i < 10; i++)
	{
		pgwt_record r = rec(PGWT_REC_TRANSITION, 1, (uint64_t) (i + 1) * S, 0x09000002, 0, 200 * MS, 0);

		pgwt_engine_add(e, &r);
	}
	{
		pgwt_record r = rec(PGWT_REC_SAMPLE, 2, 50 * S, 0, 0x0A000011, 0, 30 * MS);

		pgwt_engine_add(e, &r);
	}
	pgwt_engine_flush(e);
	return e;
}

static void
test_json(void)
{
	pgwt_engine *e = build();
	pgwt_names n;
	pgwt_render_opts o = {.format = PGWT_OUT_JSON, .names = &n};
	pgwt_window_summary sum;
	pgwt_event_rows rows;
	pgwt_session_rows srows;
	pgwt_histogram h;
	pgwt_view_status st;
	pgwt_buf b = {0};

	pgwt_names_init(&n, 15);
	pgwt_view_summary(e, 0, &sum);
	st = pgwt_view_system_event(e, 0, NULL, &rows);
	pgwt_render_system_event(&b, &o, &sum, &rows, st);
	EXPECT(b.len > 0 && b.data[b.len - 1] == '\n');
	EXPECT(strstr(b.data, "\"view\":\"system_event\"") != NULL);
	EXPECT(strstr(b.data, "\"fidelity\":\"mixed\"") != NULL);
	EXPECT(strstr(b.data, "{\"event\":\"Timeout:PgSleep\",\"event_id\":150994946,\"other\":false,\"idle\":false,"
				  "\"fidelity\":\"exact\",\"waits\":10,\"exact_waits\":10,\"total_ns\":2000000000,"
				  "\"exact_ns\":2000000000,\"sampled_ns\":0,\"avg_ns\":200000000,\"max_ns\":200000000,") != NULL);
	/*
	 * percentiles: the bucket of 200 ms, cut at the smallest and largest
	 * wait; ten identical waits give exactly their length
	 */
	EXPECT(strstr(b.data, "\"max_ns\":200000000,\"p50_ns\":200000000,\"p50_lo_ns\":200000000,\"p50_hi_ns\":200000001,"
				  "\"p95_ns\":200000000,\"p95_lo_ns\":200000000,\"p95_hi_ns\":200000001,"
				  "\"p99_ns\":200000000,\"p99_lo_ns\":200000000,\"p99_hi_ns\":200000001,"
				  "\"pct_db\":98.5222}") != NULL);
	EXPECT(strstr(b.data, "\"event\":\"IO:DataFileRead\",\"event_id\":167772177,\"other\":false,\"idle\":false,"
				  "\"fidelity\":\"sampled\",\"waits\":null,\"exact_waits\":0,\"total_ns\":30000000,") != NULL);
	EXPECT(strstr(b.data, "\"avg_ns\":null,\"max_ns\":null,\"p50_ns\":null,\"p95_ns\":null,\"p99_ns\":null") != NULL);
	pgwt_event_rows_free(&rows);
	pgwt_buf_free(&b);

	st = pgwt_view_session_event(e, 0, NULL, &srows);
	pgwt_render_session_event(&b, &o, &sum, &srows, st);
	EXPECT(strstr(b.data, "\"user\":\"we\\\"ird,user\"") != NULL);
	EXPECT(strstr(b.data, "\"top_wait\":\"Timeout:PgSleep\"") != NULL);
	pgwt_session_rows_free(&srows);
	pgwt_buf_free(&b);

	st = pgwt_view_histogram(e, 0, 0x0A000011, &h);
	EXPECT(st == PGWT_VIEW_REQUIRES_EXACT);
	pgwt_render_histogram(&b, &o, &sum, &h, st);
	EXPECT(strstr(b.data, "\"status\":\"requires_exact\"") != NULL);
	EXPECT(strstr(b.data, "\"buckets\":null") != NULL);
	pgwt_buf_free(&b);

	st = pgwt_view_histogram(e, 0, 0x09000002, &h);
	/* one layout, by default: 200 ms in [2^27, 2^28) ns, the open top bucket
	 * from 2^40 ns, and p50 within 200 ms's bucket */
	pgwt_render_histogram(&b, &o, &sum, &h, st);
	EXPECT(strstr(b.data, "\"buckets_unit\":\"log2_ns\"") != NULL);
	EXPECT(strstr(b.data, "{\"lo_ns\":134217728,\"hi_ns\":268435456,\"waits\":10}") != NULL);
	EXPECT(strstr(b.data, "{\"lo_ns\":1099511627776,\"hi_ns\":null,\"waits\":0}") != NULL);
	EXPECT(strstr(b.data, "\"p50_ns\":200000000,\"p50_lo_ns\":200000000,\"p50_hi_ns\":200000001") != NULL);
	pgwt_buf_free(&b);
	o.format = PGWT_OUT_TEXT;
	pgwt_render_histogram(&b, &o, &sum, &h, st);
	EXPECT(strstr(b.data, "134 ms-268 ms") != NULL);
	EXPECT(strstr(b.data, "K us") == NULL);
	pgwt_buf_free(&b);
	pgwt_engine_free(e);
}

static void
test_csv_and_text(void)
{
	pgwt_engine *e = build();
	pgwt_names n;
	pgwt_render_opts o = {.format = PGWT_OUT_CSV, .names = &n, .csv_header = true};
	pgwt_window_summary sum;
	pgwt_event_rows rows;
	pgwt_time_model tm;
	pgwt_view_status st;
	pgwt_buf b = {0};

	pgwt_names_init(&n, 15);
	pgwt_view_summary(e, 0, &sum);
	st = pgwt_view_system_event(e, 0, NULL, &rows);
	pgwt_render_system_event(&b, &o, &sum, &rows, st);
	{
		const char *hdr = "window,fidelity,event,waits,total_ns,avg_ns,max_ns,pct_db,status,p50_ns,p95_ns,p99_ns,"
			"p50_lo_ns,p50_hi_ns,p95_lo_ns,p95_hi_ns,p99_lo_ns,p99_hi_ns\n";

		EXPECT(strncmp(b.data, hdr, strlen(hdr)) == 0);
	}
	EXPECT(strstr(b.data, "\nall,exact,Timeout:PgSleep,10,2000000000,200000000,200000000,98.5222,ok,"
				  "200000000,200000000,200000000,"
				  "200000000,200000001,200000000,200000001,200000000,200000001\n") != NULL);
	EXPECT(strstr(b.data, "\nall,sampled,IO:DataFileRead,,30000000,,,1.4778,ok,,,,,,,,,\n") != NULL);
	pgwt_buf_free(&b);

	o.format = PGWT_OUT_TEXT;
	pgwt_render_system_event(&b, &o, &sum, &rows, st);
	EXPECT(strstr(b.data, "Timeout:PgSleep") != NULL);
	EXPECT(strstr(b.data, "? = not known from samples") != NULL);
	EXPECT(strstr(b.data, "keeps no per-") == NULL);
	pgwt_event_rows_free(&rows);
	pgwt_buf_free(&b);

	/* a query table of an engine without per-key histograms says why its
	 * exact rows have no percentiles */
	st = pgwt_view_query_event(e, 0, NULL, &rows);
	pgwt_render_query_event(&b, &o, &sum, &rows, st);
	EXPECT(strstr(b.data, "p50/p95/p99 ? on exact rows: this view keeps no per-query histogram") != NULL);
	EXPECT(strstr(b.data, "--view query_event has them") != NULL);
	pgwt_event_rows_free(&rows);
	pgwt_buf_free(&b);

	st = pgwt_view_time_model(e, 0, &tm);
	pgwt_render_time_model(&b, &o, &tm, st);
	EXPECT(strstr(b.data, "DB Time") != NULL && strstr(b.data, "Timeout:PgSleep") != NULL);
	pgwt_buf_free(&b);
	o.format = PGWT_OUT_CSV;
	pgwt_render_time_model(&b, &o, &tm, st);
	EXPECT(strstr(b.data, "\nall,mixed,DB Time,2030000000,100.0000,ok\n") != NULL);
	EXPECT(strstr(b.data, "\nall,exact,Timeout,2000000000,98.5222,ok\n") != NULL);
	pgwt_buf_free(&b);
	pgwt_engine_free(e);
}

static void
test_format_parse(void)
{
	pgwt_out_format f;

	EXPECT(pgwt_out_format_parse("json", &f) && f == PGWT_OUT_JSON);
	EXPECT(pgwt_out_format_parse("csv", &f) && f == PGWT_OUT_CSV);
	EXPECT(pgwt_out_format_parse("text", &f) && f == PGWT_OUT_TEXT);
	EXPECT(!pgwt_out_format_parse("xml", &f));
}

int
main(void)
{
	RUN(test_json);
	RUN(test_csv_and_text);
	RUN(test_format_parse);
	return unit_failures ? 1 : 0;
}
