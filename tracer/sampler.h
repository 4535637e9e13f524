/*
 * sampler.h
 *		The sampled capture tier: reads every backend's wait_event_info and
 *		query_id with process_vm_readv at a fixed rate.
 */
#ifndef PGWT_TRACER_SAMPLER_H
#define PGWT_TRACER_SAMPLER_H

#include "tracer/attach.h"
#include "tracer/capture.h"
#include "tracer/esc_notify.h"
#include "tracer/self_metrics.h"

typedef struct pgwt_sampler_config
{
	unsigned	rate_hz;		/* 1..1000 */
	int			postmaster_pid;
	pgwt_attach attach;
	pgwt_self_metrics *metrics; /* updated in place; may be NULL */
	int			rt_priority;	/* SCHED_FIFO priority while waiting for a
								 * tick and reading; 0 = normal scheduling */
} pgwt_sampler_config;

/* NULL on out-of-memory. The source starts with no backends known. */
extern pgwt_capture_source *pgwt_sampler_create(const pgwt_sampler_config *cfg);

/* Sampler-specific controls (the capture interface stays generic). */
/* Where st_query_id and st_xact_start_timestamp are (-1: unknown). */
extern void pgwt_sampler_set_qid_offset(pgwt_capture_source *src, int offset, int xact_offset);
/* A backend never sampled: the tracer's own libpq connection. */
extern void pgwt_sampler_ignore_pid(pgwt_capture_source *src, uint32_t pid);
/*
 * Backends never sampled: the SQL listener's and the processes that are no
 * session (read each tick; either may be NULL).
 */
extern void pgwt_sampler_set_exclusions(pgwt_capture_source *src, const pgwt_own_backends *own,
										const pgwt_own_backends *nonsess);
/* List the postmaster's children at the next tick (a pid left a set). */
extern void pgwt_sampler_rescan_soon(pgwt_capture_source *src);

/*
 * Real-time wake-up. The loop calls wait_begin before it sleeps until the
 * next tick: the process is then SCHED_FIFO, so the tick preempts the
 * backends the moment its timer fires instead of waiting for a free CPU,
 * which on a saturated host comes when a backend blocks (samples would
 * then favour waits over CPU). The tick drops back to normal scheduling as
 * soon as the values are read, before records are emitted; wait_end does
 * the same when the loop woke for something else well before the tick
 * (live.c keeps real-time for work just before one). For the same reason
 * wait_begin (called with the time, before the loop reads the deadline)
 * skips a deadline that passed while the loop worked at normal priority
 * (pgwt_tick_realign). The priority part is a no-op when the priority is
 * 0 or could not be set (then *why says why, once).
 */
extern void pgwt_sampler_wait_begin(pgwt_capture_source *src, uint64_t now_ns);
extern void pgwt_sampler_wait_end(pgwt_capture_source *src);
/* The priority in effect (0 = normal), and why not when one was asked. */
extern int	pgwt_sampler_priority(pgwt_capture_source *src, const char **why);

#endif
