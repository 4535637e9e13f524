/*
 * watch_record.h
 *		The exact tier's ring-buffer event as the common record, with the
 *		query-id carry of common/query_carry.h applied: the one rule every
 *		tier follows for a wait that the server shows with no query id.
 *
 * Pure (no libbpf): the tracer's unit tests link it without the program.
 */
#ifndef PGWT_TRACER_WATCH_RECORD_H
#define PGWT_TRACER_WATCH_RECORD_H

#include "bpf/wait_watch.h"
#include "common/query_carry.h"
#include "tracefmt/record.h"

/*
 * The record of one transition. carry is the pid's carry state (one per
 * watched pid, kept by the consumer); NULL bills the raw id.
 */
void		pgwt_watch_event_to_record(const struct pgwt_watch_event *e,
									   PgwtQidCarry *carry, pgwt_record *rec);

#endif							/* PGWT_TRACER_WATCH_RECORD_H */
