/*
 * trace_ring.h
 *		A ring of exact waits and statement markers that a traced process
 *		(pg_wait_tracer.capture = trace, or an escalation window) fills from
 *		the wait-event hooks.
 *
 * Pure logic: no server calls, no allocation. The extension places a pool
 * of rings in shared memory, each held by one process at a time
 * (trace_pool.h); the unit tests place them in ordinary memory and race
 * threads over them.
 *
 * Locking protocol (single writer, any number of readers, no locks):
 *
 * - Only the ring's owner appends. Positions grow forever (64 bits); the
 *   record of position p lives in entries[p & mask], so a wrap overwrites
 *   the oldest record.
 * - Each entry carries a sequence word. The writer stores
 *   (p + 1) | PGWT_TRING_WRITING first, then the fields, then p + 1
 *   (release); then it publishes head = p + 1 (release). A reader asking
 *   for position p loads the sequence (acquire), copies the fields, and
 *   loads the sequence again after a fence: unless both loads equal p + 1
 *   the copy is torn or the slot now holds another lap's record, and the
 *   reader drops it (counted as lost). The position check is the identity:
 *   a record is never shown as another position's, however late the
 *   reader is.
 * - Ownership is published under a second seqlock, owner_seq: the owner's
 *   identity (pid, start time, role, the ring's claim count) and the first
 *   position that belongs to it, so a ring handed to a new process never
 *   shows its predecessor's records as the new owner's, and a reader can
 *   tell a process from an earlier one that had the same pid. Only the
 *   owner writes these words: it claims the ring once it holds it in the
 *   pool, fills in its role once known, and releases it (marks it given
 *   back, identity and records kept for the drain) before it gives the
 *   ring back to the pool; the next holder claims it again.
 * - Fields are read and written with relaxed atomic operations, so a torn
 *   read is a detected race, never undefined behaviour.
 *
 * The append is bounded (a fixed number of stores) and lock-free, as the
 * hook contract requires: it may run in a critical section or while an
 * LWLock is held.
 */
#ifndef PGWT_TRACE_RING_H
#define PGWT_TRACE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a ring entry records. */
typedef enum pgwt_tring_kind
{
	PGWT_TRING_WAIT = 1,		/* event = wait_event_info */
	PGWT_TRING_MARKER = 2,		/* event = pgwt_tring_marker */
	PGWT_TRING_EXIT = 3,		/* the process leaves: event 0, start_ns = when;
								 * the CPU* since its last wait ends there */
	PGWT_TRING_START = 4		/* the process's CPU* counts from start_ns (its
								 * start), written before its first wait */
} pgwt_tring_kind;

/* Statement-phase markers (duration 0, start_ns = when it happened). */
typedef enum pgwt_tring_marker
{
	PGWT_TMARK_STMT_START = 1,
	PGWT_TMARK_STMT_END,
	PGWT_TMARK_EXEC_START,
	PGWT_TMARK_EXEC_END,
	PGWT_TMARK_UTILITY_START,
	PGWT_TMARK_UTILITY_END,
	PGWT_TMARK_XACT_COMMIT,
	PGWT_TMARK_XACT_ABORT,
	PGWT_TMARK_IDLE,
	PGWT_TMARK_COUNT			/* one past the last */
} pgwt_tring_marker;

#define PGWT_TRING_WRITING	(UINT64_C(1) << 63)

/* One record as readers see it (a plain copy). */
typedef struct pgwt_tring_rec
{
	uint64_t	pos;			/* position in the owner's stream */
	uint64_t	start_ns;		/* wait start / marker time (monotonic) */
	uint64_t	duration_ns;	/* wait length; 0 for markers */
	uint64_t	query_id;
	uint32_t	event;			/* wait_event_info or pgwt_tring_marker */
	uint32_t	kind;			/* pgwt_tring_kind */
} pgwt_tring_rec;

/* An entry in shared memory: 40 bytes. */
typedef struct pgwt_tring_entry
{
	uint64_t	seq;			/* 0 never written; p+1 complete; |WRITING */
	uint64_t	start_ns;
	uint64_t	duration_ns;
	uint64_t	query_id;
	uint32_t	event;
	uint32_t	kind;
} pgwt_tring_entry;

typedef struct pgwt_trace_ring
{
	uint32_t	capacity;		/* a power of two, fixed at init */
	uint32_t	mask;
	uint64_t	owner_seq;		/* odd while ownership changes */
	uint32_t	owner_pid;		/* 0 = never claimed */
	uint32_t	owner_role;		/* 0 = none, or not known yet */
	int64_t		owner_start;	/* the owner's start time (TimestampTz) */
	uint64_t	owner_gen;		/* claims so far; the owner's is its claim's */
	uint32_t	owner_exited;	/* 1: released by its owner at exit */
	uint32_t	pad;
	uint64_t	owner_base;		/* first position of the current owner */
	uint64_t	head;			/* next position to write */
	uint64_t	drained;		/* the reader (trace writer) has read up to
								 * here: the owner wakes it early when half
								 * the ring waits (pgwt_tring_half_waiting) */
	pgwt_tring_entry entries[];	/* capacity entries */
} pgwt_trace_ring;

/*
 * Who owns (or last owned) a ring: the process's identity as
 * pg_stat_activity shows it (pid, backend_start, role), and which claim of
 * the ring it is.
 */
typedef struct pgwt_tring_owner
{
	uint32_t	pid;			/* 0 = never claimed */
	uint32_t	role;			/* role oid; 0 = none, or not known yet */
	int64_t		start_time;		/* the process's start (TimestampTz) */
	uint64_t	generation;		/* the claim's number (1, 2, ...) */
	bool		exited;			/* released: the process has ended */
} pgwt_tring_owner;

/* What a reader got. */
typedef struct pgwt_tring_read_stats
{
	uint64_t	copied;			/* records returned */
	uint64_t	overwritten;	/* positions lost to wraparound before the read */
	uint64_t	torn;			/* records changed while being copied */
} pgwt_tring_read_stats;

/* Capacity rounded up to a power of two, within [16, 2^24]. */
extern uint32_t pgwt_tring_round_capacity(uint64_t requested);

/* Bytes one ring of that (rounded) capacity takes. */
extern size_t pgwt_tring_size(uint32_t capacity);

/* Initialise memory of pgwt_tring_size(capacity) bytes; no owner. */
extern void pgwt_tring_init(pgwt_trace_ring *r, uint32_t capacity);

/*
 * Owner changes, all made by the owner itself, never concurrently with one
 * of its appends. claim: a new owner (generation + 1, not exited; its
 * stream starts at the current head). set_role: the role became known
 * after the claim. release: the owner ends; its identity and records stay
 * (a drain can finish them) until the next claim.
 */
extern void pgwt_tring_claim(pgwt_trace_ring *r, uint32_t pid,
							 int64_t start_time, uint32_t role);
extern void pgwt_tring_set_role(pgwt_trace_ring *r, uint32_t role);
extern void pgwt_tring_release(pgwt_trace_ring *r);

/*
 * A consistent view of ownership: the owner's identity, its first position
 * and the current head. Returns false if ownership changed during every
 * try (the caller shows nothing).
 */
extern bool pgwt_tring_owner_of(const pgwt_trace_ring *r, pgwt_tring_owner *who,
								uint64_t *base, uint64_t *head);

/* The same, the pid only (0 = never claimed; an exited owner's pid stays). */
extern bool pgwt_tring_snapshot(const pgwt_trace_ring *r, uint32_t *pid,
								uint64_t *base, uint64_t *head);

/* Same process and same claim (pid, start time and generation)? */
extern bool pgwt_tring_same_owner(const pgwt_tring_owner *a, const pgwt_tring_owner *b);

/*
 * Copy the owner's records of positions [from, head) that still exist,
 * at most max of them, oldest first, into out. Positions overwritten
 * before the copy and records torn during it are skipped and counted.
 * *next receives the position to continue from. Returns the number
 * copied. expect_pid, when non-zero, must match the owner (else 0).
 */
extern size_t pgwt_tring_read(const pgwt_trace_ring *r, uint32_t expect_pid,
							  uint64_t from, pgwt_tring_rec *out, size_t max,
							  uint64_t *next, pgwt_tring_read_stats *st);

/*
 * The same for one claim only: copies nothing unless the ring's owner is
 * still 'expect' (pgwt_tring_same_owner), checked in the same consistent
 * view of ownership as the positions it copies.
 */
extern size_t pgwt_tring_read_owner(const pgwt_trace_ring *r,
									const pgwt_tring_owner *expect,
									uint64_t from, pgwt_tring_rec *out, size_t max,
									uint64_t *next, pgwt_tring_read_stats *st);

/* Name of a marker ("statement start", ...), or NULL if unknown. */
extern const char *pgwt_tring_marker_name(uint32_t marker);

/* The hot path: inline so the hook pays no call. Owner only. */
static inline void
pgwt_tring_append(pgwt_trace_ring *r, uint32_t kind, uint32_t event,
				  uint64_t start_ns, uint64_t duration_ns, uint64_t query_id)
{
	uint64_t	p = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	pgwt_tring_entry *e = &r->entries[p & r->mask];

	__atomic_store_n(&e->seq, (p + 1) | PGWT_TRING_WRITING, __ATOMIC_RELAXED);
	/* the WRITING mark must be visible before any field changes */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&e->start_ns, start_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&e->duration_ns, duration_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&e->query_id, query_id, __ATOMIC_RELAXED);
	__atomic_store_n(&e->event, event, __ATOMIC_RELAXED);
	__atomic_store_n(&e->kind, kind, __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, p + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&r->head, p + 1, __ATOMIC_RELEASE);
}

/*
 * After the owner appended n records: has half the ring been written since
 * the reader last said how far it read? Asked only when those appends
 * crossed a quarter of the ring, so a burst costs one load per quarter,
 * and the reader is woken a few times per ring at most, instead of finding
 * the oldest records overwritten at its next regular drain.
 */
static inline bool
pgwt_tring_half_waiting(const pgwt_trace_ring *r, uint64_t n)
{
	uint64_t	head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);

	if ((head & (r->mask >> 2)) >= n)
		return false;
	return head - __atomic_load_n(&r->drained, __ATOMIC_RELAXED) >= (r->capacity >> 1);
}

/* The reader: everything before pos has been read. */
static inline void
pgwt_tring_set_drained(pgwt_trace_ring *r, uint64_t pos)
{
	__atomic_store_n(&r->drained, pos, __ATOMIC_RELAXED);
}

#endif							/* PGWT_TRACE_RING_H */
