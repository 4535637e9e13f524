/*
 * exact_internal.h
 *		State of the exact-only analyses (exact.c fills it, exact_views.c
 *		reads it). Not for use outside analysis/.
 *
 * Owned by one engine and, like it, single-threaded.
 */
#ifndef PGWT_ANALYSIS_EXACT_INTERNAL_H
#define PGWT_ANALYSIS_EXACT_INTERNAL_H

#include "analysis/engine_internal.h"

/* One wait of one backend: [s, e) in event. */
typedef struct xa_interval
{
	uint64_t	s;
	uint64_t	e;
	uint32_t	pid;
	uint32_t	event;
} xa_interval;

typedef struct xa_start
{
	uint64_t	s;
	uint32_t	pid;
} xa_start;

/* Backends per event remembered for burst detection (their latest start
 * within burst_window_ns); a burst larger than this is counted as this. */
#define XA_RECENT 64

/* The sweep's state of one event. */
typedef struct xa_event
{
	uint32_t	event;
	unsigned	nactive;
	xa_interval *active;		/* max_concurrent entries */
	uint64_t	active_min_e;	/* at most the earliest end in active[]: a
								 * retire before it has nothing to forget */
	unsigned	nrecent;
	xa_start	recent[XA_RECENT];	/* one per pid, by start */
	bool		burst_open;
	uint64_t	burst_t0;		/* first start of the open (or last) burst */
	uint64_t	burst_end;		/* starts before this belong to a past burst */
	unsigned	burst_sessions;
	int			burst_listed;	/* index in bursts[], or -1 */
} xa_event;

/* Per (window, event): concurrency. */
typedef struct xa_conc
{
	uint64_t	intervals;		/* waits that started in the window */
	uint64_t	peak_ns;		/* first instant the peak was reached */
	uint32_t	peak;
	uint32_t	max_burst_sessions;
	uint64_t	bursts;			/* that started in the window */
} xa_conc;

/* Per (window, pid pair, event): time both waited in event at once. */
typedef struct xa_pair
{
	uint64_t	overlap_ns;
	uint64_t	overlaps;
} xa_pair;

/* Per (window, old, new). */
typedef struct xa_trans
{
	uint64_t	count;
	uint64_t	ns;				/* time spent in old before moving on */
} xa_trans;

/* Per (window, waiter): Lock wait time matched to an observation. */
typedef struct xa_lockwait
{
	uint64_t	wait_ns;
	uint64_t	waits;
} xa_lockwait;

/* Per (window, waiter, blocker). */
typedef struct xa_lockedge
{
	uint64_t	wait_ns;
	uint64_t	waits;
	uint64_t	observations;
} xa_lockedge;

#define XA_OBS_RING 4

/* Per waiter (all windows): its last observations and last Lock wait, so
 * either may arrive first. */
typedef struct xa_lockpid
{
	unsigned	nobs;			/* total ever; ring index = nobs % XA_OBS_RING */
	pgwt_blocker_obs obs[XA_OBS_RING];
	bool		has_wait;
	uint64_t	wait_s;
	uint64_t	wait_e;
	unsigned	nattr;			/* blockers the wait was billed to */
	uint32_t	attr[PGWT_MAX_BLOCKERS];
} xa_lockpid;

typedef struct xa_window
{
	agg_table	conc;			/* (event, 0) -> xa_conc */
	agg_table	pairs;			/* (pid_lo << 32 | pid_hi, event) -> xa_pair */
	agg_table	trans;			/* (old, new) -> xa_trans */
	agg_table	lock_waiters;	/* (waiter, 0) -> xa_lockwait */
	agg_table	lock_edges;		/* (waiter, blocker) -> xa_lockedge */
	bool		crossed;		/* the sweep has passed the window's start */
} xa_window;

typedef struct xa_burst
{
	uint32_t	event;
	uint32_t	sessions;
	uint64_t	first_ns;
} xa_burst;

struct pgwt_exact
{
	xa_window	win[PGWT_MAX_WINDOWS];
	/* sweep */
	xa_interval *heap;			/* min-heap by start */
	unsigned	nheap;
	uint64_t	sweep_ns;		/* latest start swept */
	bool		swept_any;
	agg_table	event_index;	/* (event, 0) -> unsigned index into events */
	xa_event   *events;
	unsigned	nevents;
	xa_interval *active_pool;	/* max_sweep_events * max_concurrent */
	xa_burst   *bursts;
	unsigned	nbursts;
	/* lock chains */
	agg_table	lock_pids;		/* (pid, 0) -> xa_lockpid */
};

typedef struct pgwt_exact pgwt_exact;

/* Called by engine.c. */
/* Fills the defaults of eng->cfg's exact-analysis caps; NULL on failure. */
pgwt_exact *pgwt_exact_create(pgwt_engine *eng);
void		pgwt_exact_free(pgwt_exact *x, int nwindows);
void		pgwt_exact_reset(pgwt_exact *x, int nwindows);
void		pgwt_exact_transition(pgwt_engine *eng, const pgwt_record *r);
void		pgwt_exact_flush(pgwt_engine *eng);

#endif							/* PGWT_ANALYSIS_EXACT_INTERNAL_H */
