/*
 * engine_fixture.h
 *		What the engine's unit tests (test_engine.c, test_engine_batch.c,
 *		test_exact.c, test_series.c) build their streams from: event ids,
 *		record makers, a one-window engine.
 */
#ifndef PGWT_TEST_ENGINE_FIXTURE_H
#define PGWT_TEST_ENGINE_FIXTURE_H

#include "analysis/engine.h"

#include <stdio.h>
#include <stdlib.h>

#define MS 1000000ull
#define S  1000000000ull

#define EV_PGSLEEP		0x09000002u
#define EV_CLIENTREAD	0x06000000u
#define EV_DATAFILEREAD 0x0A000011u
#define EV_WALWRITE		0x0A000048u
#define EV_LOCK_XID		0x03000005u
#define EV_WALINSERT	0x01000037u
#define EV_ARCHIVER		0x05000000u

static inline pgwt_record
tr(uint32_t pid, uint64_t ts, uint32_t old_ev, uint32_t new_ev, uint64_t dur, uint64_t q)
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
	return r;
}

static inline pgwt_record
smp(uint32_t pid, uint64_t ts, uint32_t ev, uint64_t weight, uint64_t q)
{
	pgwt_record r = {0};

	r.kind = PGWT_REC_SAMPLE;
	r.pid = pid;
	r.ts_ns = ts;
	r.new_event = ev;
	r.weight_ns = weight;
	r.query_id = q;
	return r;
}

static inline pgwt_engine *
one_window(uint64_t from, uint64_t to, const pgwt_engine_config *cfg)
{
	pgwt_window_spec w = {from, to, "all"};
	const char *err = NULL;
	pgwt_engine *e = pgwt_engine_create(cfg, &w, 1, &err);

	if (!e)
	{
		fprintf(stderr, "engine: %s\n", err);
		abort();
	}
	return e;
}

#endif							/* PGWT_TEST_ENGINE_FIXTURE_H */
