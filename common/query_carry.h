/*
 * query_carry.h
 *		The one rule for the query id of a wait that has none: within one
 *		transaction of one process, a wait (or sample) seen with query id 0
 *		is billed to the last non-zero query id seen in that transaction.
 *
 * Why: the server reports a statement's query id only once parse analysis
 * is done and clears it when the next statement starts, so some waits that
 * belong to a transaction's work see no id: the commit-time WAL flush and
 * sync after the last statement of an extended-protocol Sync, a lock wait
 * while the next statement is being analysed. They are billed to the
 * statement that did the work. Outside a transaction (transaction key 0)
 * nothing is carried, and another process or another transaction starts
 * empty.
 *
 * The transaction key is whatever identifies one transaction of one
 * process to the caller: the in-server sampler uses the backend's
 * transaction start timestamp; the external tracer the same value, read
 * from the same PgBackendStatus field.
 *
 * A sampler knows only the ids its samples saw: a statement shorter than
 * a tick may pass unseen, and then the carry holds the one before it.
 *
 * Pure and header-only. One PgwtQidCarry per process slot, one writer.
 */
#ifndef PGWT_COMMON_QUERY_CARRY_H
#define PGWT_COMMON_QUERY_CARRY_H

#include <stdint.h>

typedef struct PgwtQidCarry
{
	int32_t		pid;
	int64_t		xact_key;		/* the transaction; 0: none */
	uint64_t	last_qid;
} PgwtQidCarry;

/* The query id to bill for a wait of (pid, xact_key) reported as qid. */
static inline uint64_t
pgwt_qid_carry(PgwtQidCarry *c, int32_t pid, int64_t xact_key, uint64_t qid)
{
	if (c->pid != pid || c->xact_key != xact_key)
	{
		c->pid = pid;
		c->xact_key = xact_key;
		c->last_qid = 0;
	}
	if (qid != 0)
	{
		/* outside a transaction there is nothing to carry into */
		if (xact_key != 0)
			c->last_qid = qid;
		return qid;
	}
	return c->last_qid;
}

#endif							/* PGWT_COMMON_QUERY_CARRY_H */
