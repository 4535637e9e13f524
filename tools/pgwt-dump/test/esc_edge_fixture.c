/*
 * esc_edge_fixture.c
 *		Writes a trace directory with known truth for windows that begin
 *		inside an escalation window: one backend, sampled every 10 ms for
 *		300 s, and exact between ESC_START at 100 s and ESC_END at 200 s
 *		(0.5 s in IO:DataFileRead, 0.5 s on CPU, alternating), as the
 *		tiered tracer writes it: the samples go on during the window.
 *
 *	esc_edge_fixture DIR [rotate]
 * The trace starts at 2026-01-01T00:00:00Z, or with "rotate" at 00:57:30Z,
 * so that the hourly rotation falls in the middle of the window (150 s).
 * For any window [a, b) of seconds after the start, DB time is b - a; the
 * part inside [100, 200) is exact and split evenly between IO and CPU*.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefmt/tracefmt.h"

#define NS			1000000000ull
#define START_RT	(1767225600ull * NS)	/* 2026-01-01T00:00:00Z */
#define ROTATE_RT	(START_RT + 3450 * NS)	/* 00:57:30Z */
#define START_MONO	(1000ull * NS)
#define PID			4242
#define EV_IO		0x0A000001u			/* IO:DataFileRead (PG15/18 ids alike) */
#define QUERY_ID	77

static uint64_t ete_now = START_MONO;
static uint64_t ete_start_rt = START_RT;

static uint64_t
ete_realtime(void *arg)
{
	(void) arg;
	return ete_start_rt + (ete_now - START_MONO);
}

static uint64_t
ete_monotonic(void *arg)
{
	(void) arg;
	return ete_now;
}

static int
ete_append(pgwt_tf_dir_writer *d, uint8_t kind, uint64_t ts, uint32_t pid, uint32_t old_ev,
		   uint32_t new_ev, uint64_t dur, uint64_t weight, uint64_t qid)
{
	pgwt_record r = {0};

	ete_now = ts;
	r.kind = kind;
	r.ts_ns = ts;
	r.pid = pid;
	r.old_event = old_ev;
	r.new_event = new_ev;
	r.duration_ns = dur;
	r.weight_ns = weight;
	r.query_id = qid;
	r.cpu_ns = PGWT_CPU_UNKNOWN;
	return pgwt_tf_dir_append(d, &r);
}

int
main(int argc, char **argv)
{
	pgwt_tf_dir_opts o = {0};
	pgwt_tf_dir_writer *d;
	const uint64_t period = 10000000ull;	/* 10 ms */
	uint64_t	next_sample = START_MONO;
	uint64_t	next_tr = START_MONO + 100 * NS + NS / 2;
	bool		in_io = true;
	int			rc = 0;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "rotate") != 0))
	{
		fprintf(stderr, "usage: esc_edge_fixture DIR [rotate]\n");
		return 2;
	}
	if (argc == 3)
		ete_start_rt = ROTATE_RT;
	o.file.pg_version = 180006;
	o.file.write_meta = true;
	o.file.group_gid = -1;
	o.file.clock.realtime_ns = ete_realtime;
	o.file.clock.monotonic_ns = ete_monotonic;
	if ((rc = pgwt_tf_dir_open(argv[1], &o, &d)) < 0)
	{
		fprintf(stderr, "esc_edge_fixture: %s\n", pgwt_tf_strerror(rc));
		return 1;
	}
	pgwt_tf_dir_set_sample_period(d, period);
	while (rc >= 0 && next_sample < START_MONO + 300 * NS)
	{
		if (next_sample == START_MONO + 100 * NS)
			rc = ete_append(d, PGWT_REC_TRANSITION, next_sample, 0, PGWT_ESC_CODE_MANUAL,
							PGWT_MARKER_ESC_START, 100 * NS, 0, 0);
		/* exact transitions due before this sample */
		while (rc >= 0 && next_tr <= START_MONO + 200 * NS && next_tr <= next_sample)
		{
			rc = ete_append(d, PGWT_REC_TRANSITION, next_tr, PID, in_io ? EV_IO : 0,
							in_io ? 0 : EV_IO, NS / 2, 0, QUERY_ID);
			in_io = !in_io;
			next_tr += NS / 2;
		}
		if (rc >= 0 && next_sample == START_MONO + 200 * NS)
			rc = ete_append(d, PGWT_REC_TRANSITION, next_sample, 0, PGWT_ESC_CODE_MANUAL,
							PGWT_MARKER_ESC_END, 100 * NS, 0, 0);
		/* the sampler sees IO outside the window; inside, whatever the
		 * backend does: its time is superseded by the exact records */
		if (rc >= 0)
			rc = ete_append(d, PGWT_REC_SAMPLE, next_sample, PID, 0, EV_IO, 0, period, QUERY_ID);
		next_sample += period;
		/* as a writer's loop does: rotate when the hour changed */
		ete_now = next_sample;
		if (rc >= 0)
			rc = pgwt_tf_dir_tick(d);
	}
	if (rc >= 0)
		rc = pgwt_tf_dir_close(d);
	if (rc < 0)
	{
		fprintf(stderr, "esc_edge_fixture: %s\n", pgwt_tf_strerror(rc));
		return 1;
	}
	return 0;
}
