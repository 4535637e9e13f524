/*
 * sched_source.h
 *		The scheduler-based exact tier (--mode sched): the sched_wait BPF
 *		program on the scheduler's switch and wakeup tracepoints times every
 *		interval a backend spends blocked, with the wait event it blocked in.
 *		It needs no debug registers, so it runs where watchpoints never fire.
 *
 * The source is the exact tier's (watch_source.c) over this kernel side:
 * the same backends followed, the same TRANSITION records. What it sees
 * exactly, and what shows as CPU*, is in tracer/README.md.
 */
#ifndef PGWT_TRACER_SCHED_SOURCE_H
#define PGWT_TRACER_SCHED_SOURCE_H

#include "tracer/watch_source.h"

/* NULL with err filled when the program cannot load or attach. */
extern pgwt_capture_source *pgwt_sched_source_create(const pgwt_watch_source_config *cfg,
													 char *err, size_t errlen);

#endif
