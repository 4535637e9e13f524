/*
 * session_now.h
 *		"Active sessions now": each backend's state at the end of a range
 *		(the event it is in, since when, under which query), from the
 *		range's records in one pass.
 *
 * The rule, one record at a time (records of one pid in time order; a
 * record older than the pid's latest is ignored):
 *	- an exact transition old -> new at t: the backend is in new since t
 *	  (exact); new = exit removes it (it is no session any more);
 *	- a sample of event e at t: the backend is in e; since is the first
 *	  of the samples in a row that saw the same (event, query), else t
 *	  (sampled: the true start lies before it, by up to one period);
 *	- markers change nothing;
 *	- a transition at or past the end whose wait [ts - duration, ts) began
 *	  before it: the backend was in old at the end, since the wait's start
 *	  (exact), unless a later record before the end says otherwise. A
 *	  range loader hands such a wait on cut to the range (ts = the end).
 * Nothing else at or past the end counts. Bounded: max_pids backends
 * (past that, new pids are counted in dropped). Pure; single-threaded.
 */
#ifndef PGWT_ANALYSIS_SESSION_NOW_H
#define PGWT_ANALYSIS_SESSION_NOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/agg_table.h"
#include "tracefmt/record.h"

typedef struct pgwt_now_row
{
	uint32_t	pid;
	uint32_t	event;				/* 0 = CPU* */
	uint64_t	query_id;
	uint64_t	since_ns;			/* entered the event (sampled: first seen) */
	uint64_t	last_ns;			/* the latest record of the pid */
	bool		exact;				/* since comes from a transition */
	bool		gone;				/* exited (kept for record order; not listed) */
} pgwt_now_row;

typedef struct pgwt_now
{
	uint64_t	end_ns;				/* records at or after it are ignored */
	agg_table	pids;				/* (pid, 0) -> pgwt_now_row */
	bool		ok;					/* the table was allocated */
	uint64_t	exited;				/* backends seen leaving */
	uint64_t	dropped;			/* new pids past max_pids */
} pgwt_now;

#define PGWT_NOW_MAX_PIDS 8192

/* false when out of memory. end_ns: the range's end, exclusive (UINT64_MAX:
 * open). */
bool		pgwt_now_init(pgwt_now *n, uint64_t end_ns, unsigned max_pids);
void		pgwt_now_add(pgwt_now *n, const pgwt_record *r);
void		pgwt_now_add_many(pgwt_now *n, const pgwt_record *r, size_t count);

/* The backends still there, by since (oldest first; ties: pid); *rows is
 * malloc'ed (NULL when none), released with free(). false out of memory. */
bool		pgwt_now_rows(const pgwt_now *n, pgwt_now_row **rows, size_t *nrows);
void		pgwt_now_free(pgwt_now *n);

#endif							/* PGWT_ANALYSIS_SESSION_NOW_H */
