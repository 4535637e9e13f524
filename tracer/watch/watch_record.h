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

#include <stdbool.h>

#include "bpf/wait_watch.h"
#include "common/query_carry.h"
#include "tracefmt/record.h"

/*
 * The record of one transition. carry is the pid's carry state (one per
 * watched pid, kept by the consumer); NULL bills the raw id.
 */
void		pgwt_watch_event_to_record(const struct pgwt_watch_event *e,
									   PgwtQidCarry *carry, pgwt_record *rec);

/*
 * The carry states of the traced pids, found by the pid itself (open
 * addressing, linear probing, deletion by backward shift): a source that
 * traces backends without a slot of its own per backend (the scheduler
 * tier) keeps them here, so no two live pids ever share one. Room for
 * PGWT_CARRY_TABLE_MAX pids (the BPF target map's size), at most half
 * full. Pure; one writer.
 */
#define PGWT_CARRY_TABLE_MAX	16384
#define PGWT_CARRY_TABLE_SLOTS	(2 * PGWT_CARRY_TABLE_MAX)

typedef struct pgwt_carry_table
{
	uint32_t	n;
	uint32_t	pid[PGWT_CARRY_TABLE_SLOTS];	/* 0: free */
	PgwtQidCarry carry[PGWT_CARRY_TABLE_SLOTS];
} pgwt_carry_table;

/*
 * pid's carry; when pid has none, a new empty one if create, else NULL.
 * NULL too for pid 0 and when the table is full.
 */
PgwtQidCarry *pgwt_carry_table_get(pgwt_carry_table *t, uint32_t pid, bool create);
/* Forget pid (its next transition starts an empty carry). */
void		pgwt_carry_table_forget(pgwt_carry_table *t, uint32_t pid);

#endif							/* PGWT_TRACER_WATCH_RECORD_H */
