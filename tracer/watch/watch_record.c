/*
 * watch_record.c
 *		One exact-tier transition (struct pgwt_watch_event, read by the BPF
 *		program at the trap) as the common record. The program reads the
 *		backend's query id and transaction start at the trap; the carry
 *		bills a wait seen with id 0 inside a transaction to the
 *		transaction's last statement, as the samplers do.
 */
#include <string.h>

#include "tracer/watch/watch_record.h"

void
pgwt_watch_event_to_record(const struct pgwt_watch_event *e, PgwtQidCarry *carry,
						   pgwt_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = PGWT_REC_TRANSITION;
	rec->ts_ns = e->ts_ns;
	rec->duration_ns = e->duration_ns;
	rec->query_id = carry ? pgwt_qid_carry(carry, (int32_t) e->pid, (int64_t) e->xact_key, e->query_id)
		: e->query_id;
	rec->cpu_ns = PGWT_CPU_UNKNOWN;
	rec->pid = e->pid;
	rec->old_event = e->old_event;
	rec->new_event = e->new_event;
}
