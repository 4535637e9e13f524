/*
 * slot_pool.h
 *		Which pool slot a new backend claims: the free slots (a stack) and
 *		the exited ones (a ring, oldest exit first), kept as two arrays of
 *		slot numbers beside the slots.
 *
 * Why: a claim used to scan the whole pool for a free slot or the oldest
 * exited one. Each slot fills pages of its own, which a new process has
 * not touched yet, so that scan cost every connection a page fault per
 * slot. With these lists a claim reads one small array.
 *
 * Pure logic: no server, no allocation (the caller provides the arrays).
 * Locking: the caller serialises every call (slots_lock in
 * backend_slots.c); the lists never change the slots themselves.
 */
#ifndef PGWT_SLOT_POOL_H
#define PGWT_SLOT_POOL_H

#include <stdint.h>

typedef struct PgwtSlotPool
{
	int32_t    *free_slots;		/* nfree slot numbers, a stack */
	int32_t    *exited;			/* nexited slot numbers from head on, a ring of npool */
	int32_t		npool;
	int32_t		nfree;
	int32_t		nexited;
	int32_t		head;
} PgwtSlotPool;

/* Every slot free; 'mem' holds 2 * npool numbers; slot 0 is taken first. */
static inline void
pgwt_pool_init(PgwtSlotPool *p, int32_t *mem, int32_t npool)
{
	int32_t		i;

	p->free_slots = mem;
	p->exited = mem + npool;
	p->npool = npool;
	p->nfree = npool;
	p->nexited = 0;
	p->head = 0;
	for (i = 0; i < npool; i++)
		p->free_slots[i] = npool - 1 - i;
}

/* A free slot, or -1 when none is. */
static inline int32_t
pgwt_pool_take_free(PgwtSlotPool *p)
{
	return p->nfree > 0 ? p->free_slots[--p->nfree] : -1;
}

/* The slot that exited first, or -1 when none did. */
static inline int32_t
pgwt_pool_take_oldest_exited(PgwtSlotPool *p)
{
	int32_t		slot;

	if (p->nexited == 0)
		return -1;
	slot = p->exited[p->head];
	p->head = p->head + 1 == p->npool ? 0 : p->head + 1;
	p->nexited--;
	return slot;
}

/*
 * A claimed slot's owner exited. A slot is in at most one list, and only
 * claimed slots exit, so the ring has room.
 */
static inline void
pgwt_pool_add_exited(PgwtSlotPool *p, int32_t slot)
{
	int32_t		tail = p->head + p->nexited;

	if (p->nfree + p->nexited >= p->npool || slot < 0 || slot >= p->npool)
		return;					/* not a claimed slot: keep the lists sound */
	p->exited[tail >= p->npool ? tail - p->npool : tail] = slot;
	p->nexited++;
}

#endif							/* PGWT_SLOT_POOL_H */
