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

/* Home slot of a pid: a multiplicative hash, so pids that differ by a
 * power of two do not collide in the low bits. */
static uint32_t
wr_home(uint32_t pid)
{
	return (uint32_t) ((pid * 2654435761u) >> 17) & (PGWT_CARRY_TABLE_SLOTS - 1);
}

PgwtQidCarry *
pgwt_carry_table_get(pgwt_carry_table *t, uint32_t pid, bool create)
{
	uint32_t	i = wr_home(pid);

	if (pid == 0)
		return NULL;
	while (t->pid[i] != 0)
	{
		if (t->pid[i] == pid)
			return &t->carry[i];
		i = (i + 1) & (PGWT_CARRY_TABLE_SLOTS - 1);
	}
	if (!create || t->n >= PGWT_CARRY_TABLE_MAX)
		return NULL;
	t->pid[i] = pid;
	memset(&t->carry[i], 0, sizeof(t->carry[i]));
	t->n++;
	return &t->carry[i];
}

void
pgwt_carry_table_forget(pgwt_carry_table *t, uint32_t pid)
{
	uint32_t	mask = PGWT_CARRY_TABLE_SLOTS - 1;
	uint32_t	i = wr_home(pid);

	while (t->pid[i] != pid)
	{
		if (t->pid[i] == 0 || pid == 0)
			return;
		i = (i + 1) & mask;
	}
	t->pid[i] = 0;
	t->n--;
	/* move back every later entry of the run that the hole now cuts off */
	for (uint32_t j = (i + 1) & mask; t->pid[j] != 0; j = (j + 1) & mask)
	{
		uint32_t	h = wr_home(t->pid[j]);

		/* j stays when its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		t->pid[i] = t->pid[j];
		t->carry[i] = t->carry[j];
		t->pid[j] = 0;
		i = j;
	}
}
