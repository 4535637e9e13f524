/*
 * event_ids.h
 *		Facts about wait event ids that every tier shares: the class bytes,
 *		Client:ClientRead, and which events are idle time rather than DB
 *		time. Pure, header-only and dependency-free: the extension's hot
 *		path (wait_stats.h), the tracer (wait_class.c) and the analysis
 *		layer (wait_event.h) include it instead of keeping copies.
 *
 * A wait event id is PostgreSQL's wait_event_info: the class in the high
 * byte, the event (or LWLock tranche, or lock tag type) in the low bits.
 */
#ifndef PGWT_COMMON_EVENT_IDS_H
#define PGWT_COMMON_EVENT_IDS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/event_bits.h"

/*
 * CPU* split where the scheduler tier ran. CPU* is the time a session is
 * in no wait event: on a CPU, or runnable and waiting for one. Only the
 * scheduler tier sees the difference; it bills the time a backend is
 * runnable but not running (woken until switched in, or preempted until
 * switched in again) to this reserved id, no server's event, in the CPU
 * class (class byte 0). So every sum by class (the time models, DB time,
 * the history's classes) still counts it in CPU*, which keeps one meaning
 * in every tier; the event views show it as a row of its own,
 * "CPU:RunQueue". Where the split ran, the rest of CPU* is not event 0
 * but PGWT_EVENT_CPU_ONCPU ("CPU:OnCPU": on a CPU, waits that never block
 * included, and blocks with no wait event set), so no view shows an
 * unsplit "CPU*" row beside "CPU:RunQueue" for the same time: a CPU* row
 * next to them is time from a tier that cannot split (samples outside
 * the scheduler's windows). Other tiers never write either id.
 */
#define PGWT_EVENT_CPU_RUNQUEUE		0x00000001u
#define PGWT_EVENT_CPU_ONCPU		0x00000002u

/* CPU*: no wait event (0) or its run-queue part; never a session's top wait. */
static inline bool
pgwt_event_is_cpu(uint32_t id)
{
	return (id >> 24) == PGWT_CLASS_CPU;
}

/* Class index 0..PGWT_NCLASSES-1 of an id, or PGWT_CLASS_UNKNOWN. */
static inline unsigned
pgwt_event_class(uint32_t id)
{
	unsigned	c = id >> 24;

	return c < PGWT_NCLASSES ? c : PGWT_CLASS_UNKNOWN;
}

/* Idle time is not DB time: the Activity class and Client:ClientRead. */
static inline bool
pgwt_event_is_idle(uint32_t id)
{
	return PGWT_EVENT_IS_IDLE(id);
}

/*
 * Which events have a row in the per-event views, live and history
 * (system, session, query events; pgwt-dump and --replay alike): every wait
 * event a process waited on, the idle ones too (the Activity class's main
 * loops, Client:ClientRead), which carry no share of DB time. CPU* is no
 * wait event: the SQL event functions show it in the time model and the
 * per-session summary, not as an event row; the engine keeps it as event 0
 * (pgwt-dump and --replay print it as a row, in the seed tool's layout,
 * and the history's query rows carry a query's CPU*, which only a trace
 * knows).
 */
static inline bool
pgwt_event_is_wait(uint32_t id)
{
	return id != 0;				/* 0: no wait event set (CPU* when active) */
}

/*
 * A one-comparison filter for the hot path: false for every event that is
 * not idle except those of the Client class (so true is to be confirmed by
 * pgwt_event_is_idle).
 */
static inline bool
pgwt_event_maybe_idle(uint32_t id)
{
	return (uint32_t) ((id >> 24) - PGWT_CLASS_ACTIVITY) <= 1;
}

#endif							/* PGWT_COMMON_EVENT_IDS_H */
