/*
 * exact_fixture.c
 *		Writes a trace directory with a known truth for the exact-only
 *		views of pgwt-dump (tools/pgwt-dump/test-dump.sh checks the numbers).
 *
 *	file 2026-02-25_14.trace.lz4, created at 2026-02-25T14:30:00Z =
 *	CLOCK_MONOTONIC 1000 s (mono 1000+x s is 14:30:x UTC). Times below are
 *	ms after the second named.
 *	 - 1001 s, IO:DataFileRead, query 11: pid 1 [0, 100), 2 [3, 50),
 *	   3 [6, 30), 4 [9, 20): peak 4 at 9 ms, one burst of 4 at 0 ms;
 *	   pids 5 [200, 210) and 6 [205, 215). Overlaps (1,2) 47, (1,3) 24,
 *	   (2,3) 24, (1,4) (2,4) (3,4) 11, (5,6) 5 ms.
 *	   LWLock:WALWrite (0x01000008), query 11: pids 11..14 at 300, 304,
 *	   308, 312 (1 ms each): no burst. Query 11: IO 202 ms, LWLock 4 ms
 *	   -> "IO:98%|LWLock:2%".
 *	 - 1002 s, Lock:tuple (0x03000004), query 22: 200 [0, 150),
 *	   300 [10, 110), 400 [30, 80), 500 [0, 20), 800 [0, 10); blockers.tsv:
 *	   200 <- 100 at 5, 300 <- 200 at 20, 400 <- 100 at 40, 500 <- 600 at 1,
 *	   800 <- 100,600 at 2. Chains: head 100, 4 waiters, 310 ms, path
 *	   300 -> 200 -> 100; head 600, 2 waiters, 30 ms.
 *	 - 1003..1004 s an escalation (ESC_START/ESC_END markers): pid 50,
 *	   query 33, CPU [0, 600) then IO:DataFileRead [600, 1000); ten 100 ms
 *	   samples of pid 50 at 50, 150, ..., 950: 6 CPU, 3 DataFileRead,
 *	   1 IO:WALWrite, all superseded. Over [1003, 1004): exact 60/40/0 %,
 *	   sampled 60/30/10 %, worst 10 pp, top-2 overlap 2.
 *	 - 1010..1011 s: samples only (pid 60, DataFileRead, 100 ms each).
 *
 *	exact_fixture DIR     (DIR must exist and be empty)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

#define MS 1000000ull
#define S  1000000000ull
#define EV_DATAFILEREAD 0x0A000011u
#define EV_WALWRITE_IO	0x0A000048u
#define EV_WALWRITE_LW	0x01000008u
#define EV_LOCK_XID		0x03000004u
#define FX_REALTIME0	1772029800ull	/* 2026-02-25T14:30:00Z */

static uint64_t
fx_realtime(void *arg)
{
	return FX_REALTIME0 * S;
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
		fprintf(stderr, "exact_fixture: %s: %s\n", what, pgwt_tf_strerror(rc));
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

/* A wait [s, e) ms after base, back to CPU at its end. */
static void
fx_wait(pgwt_tf_file_writer *w, uint32_t pid, uint32_t ev, uint64_t base, uint64_t s_ms, uint64_t e_ms,
		uint64_t q)
{
	fx_tr(w, pid, base + e_ms * MS, ev, 0, (e_ms - s_ms) * MS, q);
}

static void
fx_sample(pgwt_tf_file_writer *w, uint32_t pid, uint64_t ts, uint32_t ev)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_SAMPLE;
	r.pid = pid;
	r.ts_ns = ts;
	r.new_event = ev;
	r.weight_ns = 100 * MS;
	fx_check(pgwt_tf_file_writer_append(w, &r), "append");
}

int
main(int argc, char **argv)
{
	char		path[4096];
	pgwt_tf_file_opts fo = {0};
	pgwt_tf_file_writer *w;
	uint64_t	b;
	FILE	   *f;

	if (argc != 2)
	{
		fprintf(stderr, "usage: exact_fixture DIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/2026-02-25_14.trace.lz4", argv[1]);
	fo.pg_version = 150004;
	fo.group_gid = -1;
	fo.clock.realtime_ns = fx_realtime;
	fo.clock.monotonic_ns = fx_monotonic;
	fx_check(pgwt_tf_file_writer_create(path, &fo, &w), "create");

	/* the herd, in end order */
	b = 1001 * S;
	fx_wait(w, 4, EV_DATAFILEREAD, b, 9, 20, 11);
	fx_wait(w, 3, EV_DATAFILEREAD, b, 6, 30, 11);
	fx_wait(w, 2, EV_DATAFILEREAD, b, 3, 50, 11);
	fx_wait(w, 1, EV_DATAFILEREAD, b, 0, 100, 11);
	fx_wait(w, 5, EV_DATAFILEREAD, b, 200, 210, 11);
	fx_wait(w, 6, EV_DATAFILEREAD, b, 205, 215, 11);
	for (uint32_t i = 0; i < 4; i++)
		fx_wait(w, 11 + i, EV_WALWRITE_LW, b, 300 + 4 * i, 301 + 4 * i, 11);

	/* the lock waits, in end order */
	b = 1002 * S;
	fx_wait(w, 800, EV_LOCK_XID, b, 0, 10, 22);
	fx_wait(w, 500, EV_LOCK_XID, b, 0, 20, 22);
	fx_wait(w, 400, EV_LOCK_XID, b, 30, 80, 22);
	fx_wait(w, 300, EV_LOCK_XID, b, 10, 110, 22);
	fx_wait(w, 200, EV_LOCK_XID, b, 0, 150, 22);

	/* the escalation */
	b = 1003 * S;
	fx_tr(w, 0, b, 0, PGWT_MARKER_ESC_START, 0, 0);
	fx_tr(w, 50, b + 600 * MS, 0, EV_DATAFILEREAD, 600 * MS, 33);
	fx_tr(w, 50, b + 1000 * MS, EV_DATAFILEREAD, 0, 400 * MS, 33);
	fx_tr(w, 0, b + 1000 * MS, 0, PGWT_MARKER_ESC_END, 0, 0);
	fx_check(pgwt_tf_file_writer_flush(w), "flush");

	fx_check(pgwt_tf_file_writer_set_sample_period(w, 100 * MS), "period");
	for (int i = 0; i < 10; i++)
		fx_sample(w, 50, b + (uint64_t) i * 100 * MS + 50 * MS,
				  i < 6 ? 0 : i < 9 ? EV_DATAFILEREAD : EV_WALWRITE_IO);
	for (int i = 0; i < 10; i++)
		fx_sample(w, 60, 1010 * S + (uint64_t) i * 100 * MS, EV_DATAFILEREAD);
	fx_check(pgwt_tf_file_writer_finish(w), "finish");

	/* the server's blocker lists, CLOCK_MONOTONIC ns like the records */
	snprintf(path, sizeof(path), "%s/blockers.tsv", argv[1]);
	f = fopen(path, "w");
	if (!f)
	{
		perror("exact_fixture: blockers.tsv");
		return 1;
	}
	b = 1002 * S;
	fprintf(f, "#pgwt-blockers\t1\n");
	fprintf(f, "%llu\t200\t100\n", (unsigned long long) (b + 5 * MS));
	fprintf(f, "%llu\t300\t200\n", (unsigned long long) (b + 20 * MS));
	fprintf(f, "%llu\t400\t100\n", (unsigned long long) (b + 40 * MS));
	fprintf(f, "%llu\t500\t600\n", (unsigned long long) (b + 1 * MS));
	fprintf(f, "%llu\t800\t100,600\n", (unsigned long long) (b + 2 * MS));
	fprintf(f, "# a comment line, then a malformed one\n");
	fprintf(f, "%llu\tnot-a-pid\t100\n", (unsigned long long) (b + 3 * MS));
	if (fclose(f) != 0)
	{
		perror("exact_fixture: blockers.tsv");
		return 1;
	}
	fx_check(pgwt_tf_query_append(argv[1], &fo, PGWT_TF_QUERY_FULL, 33, "UPDATE t SET v = v + 1"), "query");
	return 0;
}
