/*
 * trace_pool.h
 *		Which trace ring a tracing process holds: one word per ring of the
 *		shared pool (pg_wait_tracer.trace_rings), saying whether the ring is
 *		free, held by a process, or given back and waiting for the trace
 *		writer to read what is left in it.
 *
 * Why: a ring per process slot cost every connection 160 kB whether or not
 * it was ever traced. Rings are needed only by what is traced at once
 * (capture = trace sessions, the busy processes of an escalation window),
 * so they live in a small pool sized by a setting.
 *
 * Pure logic: no server, no allocation; the unit tests race threads over
 * an array of words.
 *
 * Locking protocol (lock-free, one word per ring, compare-and-swap):
 *  - FREE (0) -> HELD(pid, procno): a process that starts tracing takes
 *    the first free word (a bounded pass over the words, in a hook). Only
 *    then does it claim the ring's ownership (trace_ring.h), which starts a
 *    new stream at the ring's head, so records of an earlier holder are
 *    never shown as its own.
 *  - HELD -> RELEASED: the holder gives the ring back (it stopped tracing
 *    or exits), after its last append; the store has release order, so a
 *    reader that sees RELEASED (acquire) sees every record.
 *  - RELEASED -> FREE, or HELD -> FREE when the holder is gone (its PGPROC
 *    has another pid: it can append no more): only the trace writer, after
 *    it has read the ring up to its head. A new holder's claim bumps the
 *    ring's claim count, which the writer compares, so a ring handed on is
 *    never read as its previous holder's.
 */
#ifndef PGWT_TRACE_POOL_H
#define PGWT_TRACE_POOL_H

#include <stdbool.h>
#include <stdint.h>

#define PGWT_TPOOL_FREE		0u
#define PGWT_TPOOL_HELD		1u
#define PGWT_TPOOL_RELEASED	2u

/* A held or released word: holder pid (high half), procno, state. */
static inline uint64_t
pgwt_tpool_word(uint32_t pid, uint32_t procno, uint32_t state)
{
	return ((uint64_t) pid << 32) | ((uint64_t) (procno & 0x3fffffffu) << 2) | (state & 3u);
}

static inline uint32_t
pgwt_tpool_state(uint64_t w)
{
	return (uint32_t) (w & 3u);
}

static inline uint32_t
pgwt_tpool_pid(uint64_t w)
{
	return (uint32_t) (w >> 32);
}

static inline uint32_t
pgwt_tpool_procno(uint64_t w)
{
	return (uint32_t) ((w >> 2) & 0x3fffffffu);
}

static inline uint64_t
pgwt_tpool_load(const uint64_t *words, int i)
{
	return __atomic_load_n(&words[i], __ATOMIC_ACQUIRE);
}

/*
 * Take a free ring for (pid, procno): the first free word from 'start' on
 * (wrapping), at most n looked at. Returns its index, or -1 when none is
 * free.
 */
static inline int
pgwt_tpool_take(uint64_t *words, int n, int start, uint32_t pid, uint32_t procno)
{
	uint64_t	mine = pgwt_tpool_word(pid, procno, PGWT_TPOOL_HELD);

	for (int k = 0; k < n; k++)
	{
		int			i = (start + k) % n;
		uint64_t	expected = PGWT_TPOOL_FREE;

		if (__atomic_load_n(&words[i], __ATOMIC_RELAXED) != PGWT_TPOOL_FREE)
			continue;
		if (__atomic_compare_exchange_n(&words[i], &expected, mine, false,
										__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return i;
	}
	return -1;
}

/* The holder gives ring i back (after its last append). False: not its. */
static inline bool
pgwt_tpool_give_back(uint64_t *words, int i, uint32_t pid, uint32_t procno)
{
	uint64_t	expected = pgwt_tpool_word(pid, procno, PGWT_TPOOL_HELD);

	return __atomic_compare_exchange_n(&words[i], &expected,
									   pgwt_tpool_word(pid, procno, PGWT_TPOOL_RELEASED),
									   false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/*
 * The trace writer frees ring i, which it saw as 'seen' (RELEASED, or
 * HELD by a process that is gone) and has read to its head. False when the
 * word changed meanwhile (then it is left alone).
 */
static inline bool
pgwt_tpool_recycle(uint64_t *words, int i, uint64_t seen)
{
	uint64_t	expected = seen;

	return __atomic_compare_exchange_n(&words[i], &expected, PGWT_TPOOL_FREE, false,
									   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

/* Rings held or waiting for the writer (a racy count, for the status). */
static inline int
pgwt_tpool_in_use(const uint64_t *words, int n)
{
	int			used = 0;

	for (int i = 0; i < n; i++)
		used += __atomic_load_n(&words[i], __ATOMIC_RELAXED) != PGWT_TPOOL_FREE;
	return used;
}

/*
 * After a give-back: should the trace writer free the given-back rings now
 * rather than at its next pass? Only when the pool runs short (half of it
 * or less free): a wake per exiting connection cost the writer a pass each,
 * while a roomy pool loses nothing by waiting for the regular pass. A racy
 * count: a wake missed or extra costs at most one pass's delay or one pass.
 */
static inline bool
pgwt_tpool_short(const uint64_t *words, int n)
{
	return 2 * (n - pgwt_tpool_in_use(words, n)) <= n;
}

/* The ring (pid) holds or last gave back, -1 when none. */
static inline int
pgwt_tpool_find(const uint64_t *words, int n, uint32_t pid)
{
	int			released = -1;

	for (int i = 0; i < n; i++)
	{
		uint64_t	w = __atomic_load_n(&words[i], __ATOMIC_ACQUIRE);

		if (w == PGWT_TPOOL_FREE || pgwt_tpool_pid(w) != pid)
			continue;
		if (pgwt_tpool_state(w) == PGWT_TPOOL_HELD)
			return i;
		released = i;
	}
	return released;
}

#endif							/* PGWT_TRACE_POOL_H */
