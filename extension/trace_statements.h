/*
 * trace_statements.h
 *		Groups one backend's trace-ring records by statement, for
 *		pgwt_trace_by_statement(): a statement runs from its "statement
 *		start" marker to its "statement end" marker; waits between them are
 *		its own. The start marker is written once the statement is parsed
 *		and analysed, so the non-idle waits just before it (after the last
 *		idle wait: the server reading catalogs for the parse) are its own
 *		too, and its start moves back to the first of them. Other waits
 *		outside any statement (idle in a transaction, client reads, commit
 *		waits after a statement's end) form groups of their own with
 *		in_statement false.
 *
 * Pure logic, no I/O, no allocation: the caller gives the output array.
 */
#ifndef PGWT_TRACE_STATEMENTS_H
#define PGWT_TRACE_STATEMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extension/trace_ring.h"

#define PGWT_TSTMT_TOP_EVENTS 8	/* distinct events kept per statement */

typedef struct pgwt_tstmt_event
{
	uint32_t	event;
	uint32_t	waits;
	uint64_t	wait_ns;
} pgwt_tstmt_event;

typedef struct pgwt_tstmt
{
	bool		in_statement;	/* false: waits between statements */
	bool		started;		/* its start marker is in the ring */
	bool		ended;			/* its end marker is in the ring */
	uint64_t	query_id;
	uint64_t	start_ns;		/* start marker, else the first record */
	uint64_t	end_ns;			/* end marker, else the last record's end */
	uint64_t	waits;
	uint64_t	wait_ns;
	uint64_t	idle_waits;		/* Activity class and Client:ClientRead */
	uint64_t	other_wait_ns;	/* waits of events beyond the kept ones */
	int			nevents;
	pgwt_tstmt_event events[PGWT_TSTMT_TOP_EVENTS];
} pgwt_tstmt;

/*
 * Group n records (position order). Returns the number of groups written
 * (at most max; later records are ignored once max groups are full).
 */
extern size_t pgwt_trace_group_statements(const pgwt_tring_rec *in, size_t n,
										  pgwt_tstmt *out, size_t max);

/* The group's event with the most wait time (index), or -1 if none. */
extern int	pgwt_tstmt_top_event(const pgwt_tstmt *s);

#endif							/* PGWT_TRACE_STATEMENTS_H */
