/*
 * dump_fixture.c
 *		Writes a small trace directory with a known truth for the pgwt-dump
 *		end-to-end test (tools/pgwt-dump/test-dump.sh checks the numbers):
 *
 *	file 2026-02-25_14.trace.lz4, created at 2026-02-25T14:30:00Z =
 *	CLOCK_MONOTONIC 1000 s (so mono 1000+x s is 14:30:x UTC):
 *	 - block 1: pid 999, one CPU burst; its header is then corrupted
 *	   (n = 0) so a reader must skip it and count one bad block
 *	 - pid 100, query 7777: from 1001 s, 10 x (50 ms CPU, 200 ms
 *	   Timeout:PgSleep) -> 10 waits, 2.000 s, all in ns bucket 2^27
 *	 - pid 200, query 8888: IO:DataFileRead of 1, 2 and 4 ms with 10 ms of
 *	   CPU before each, from 1005 s
 *	 - samples (100 ms period): pid 300 in IO:WALWrite at 1010..1014 s,
 *	   weight 100 ms each -> 500 ms sampled, waits unknown
 *	backends.tsv: 100 client backend app/shop, 200 client backend etl/shop.
 *	queries.tsv: 7777 "SELECT pg_sleep(0.2)".
 *
 *	dump_fixture DIR     (DIR must exist and be empty)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tracefmt/tracefmt.h"

#define MS 1000000ull
#define S  1000000000ull
#define EV_PGSLEEP		0x09000002u
#define EV_DATAFILEREAD 0x0A000011u
#define EV_WALWRITE		0x0A000048u

static uint64_t
fx_realtime(void *arg)
{
	return 1772029800ull * S;
}

static uint64_t
fx_monotonic(void *arg)
{
	return 1000ull * S;
}

static void
fx_check(int rc, const char *what)
{
	if (rc < 0)
	{
		fprintf(stderr, "dump_fixture: %s: %s\n", what, pgwt_tf_strerror(rc));
		exit(1);
	}
}

static void
fx_tr(pgwt_tf_file_writer *w, uint32_t pid, uint64_t ts, uint32_t old_ev, uint32_t new_ev,
	  uint64_t dur, uint64_t q)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_TRANSITION;
	r.pid = pid;
	r.ts_ns = ts;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.query_id = q;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	fx_check(pgwt_tf_file_writer_append(w, &r), "append");
}

int
main(int argc, char **argv)
{
	char		path[4096];
	pgwt_tf_file_opts fo = {0};
	pgwt_tf_file_writer *w;
	uint64_t	t;
	int			fd;
	unsigned char zero[4] = {0};

	if (argc != 2)
	{
		fprintf(stderr, "usage: dump_fixture DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/2026-02-25_14.trace.lz4", argv[1]);
	fo.pg_version = 150004;
	fo.group_gid = -1;
	fo.clock.realtime_ns = fx_realtime;
	fo.clock.monotonic_ns = fx_monotonic;
	fx_check(pgwt_tf_file_writer_create(path, &fo, &w), "create");

	/* block 1: the one to corrupt */
	fx_tr(w, 999, 1000 * S + 500 * MS, 0, EV_PGSLEEP, 100 * MS, 1);
	fx_check(pgwt_tf_file_writer_flush(w), "flush");

	t = 1001 * S;
	for (int i = 0; i < 10; i++)
	{
		t += 50 * MS;
		fx_tr(w, 100, t, 0, EV_PGSLEEP, 50 * MS, 7777);
		t += 200 * MS;
		fx_tr(w, 100, t, EV_PGSLEEP, 0, 200 * MS, 7777);
	}
	t = 1005 * S;
	for (int i = 0; i < 3; i++)
	{
		uint64_t	d = (1ull << i) * MS;

		t += 10 * MS;
		fx_tr(w, 200, t, 0, EV_DATAFILEREAD, 10 * MS, 8888);
		t += d;
		fx_tr(w, 200, t, EV_DATAFILEREAD, 0, d, 8888);
	}
	fx_check(pgwt_tf_file_writer_flush(w), "flush");
	fx_check(pgwt_tf_file_writer_set_sample_period(w, 100 * MS), "period");
	for (int i = 0; i < 5; i++)
	{
		pgwt_record r = {0};

		r.kind = PGWT_REC_SAMPLE;
		r.pid = 300;
		r.ts_ns = (1010 + (uint64_t) i) * S;
		r.new_event = EV_WALWRITE;
		r.weight_ns = 100 * MS;
		fx_check(pgwt_tf_file_writer_append(w, &r), "append");
	}
	fx_check(pgwt_tf_file_writer_finish(w), "finish");

	/* n of the first block header (file header 28 B, then first_ts, last_ts) */
	fd = open(path, O_WRONLY);
	if (fd < 0 || pwrite(fd, zero, 4, PGWT_TF_FILE_HEADER_SIZE + 16) != 4 || close(fd) != 0)
	{
		perror("dump_fixture: corrupting block 1");
		return 1;
	}

	{
		pgwt_tf_backend b = {0};

		b.pid = 100;
		b.type = "client backend";
		b.user = "app";
		b.database = "shop";
		b.client_addr = "10.0.0.1";
		b.application_name = "web";
		fx_check(pgwt_tf_backend_append(argv[1], &fo, &b), "backend");
		b.pid = 200;
		b.user = "etl";
		b.application_name = "loader";
		fx_check(pgwt_tf_backend_append(argv[1], &fo, &b), "backend");
	}
	fx_check(pgwt_tf_query_append(argv[1], &fo, PGWT_TF_QUERY_FULL, 7777, "SELECT pg_sleep(0.2)"), "query");
	return 0;
}
