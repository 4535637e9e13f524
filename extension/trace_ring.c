/*
 * trace_ring.c
 *		The per-backend trace ring: sizing, ownership (the owner's identity:
 *		pid, start time, role, claim count; claim, release) and the reader
 *		side. The append, the only hot-path part, is inline in trace_ring.h,
 *		which also states the locking protocol (single writer, seqlocked
 *		entries checked by position, seqlocked ownership written by the
 *		owner only).
 */
#include "extension/trace_ring.h"

#include <string.h>

#define TRING_MIN_CAPACITY	16u
#define TRING_MAX_CAPACITY	(1u << 24)
#define TRING_OWNER_TRIES	100

uint32_t
pgwt_tring_round_capacity(uint64_t requested)
{
	uint32_t	c = TRING_MIN_CAPACITY;

	if (requested >= TRING_MAX_CAPACITY)
		return TRING_MAX_CAPACITY;
	while (c < requested)
		c <<= 1;
	return c;
}

size_t
pgwt_tring_size(uint32_t capacity)
{
	return offsetof(pgwt_trace_ring, entries) +
		(size_t) pgwt_tring_round_capacity(capacity) * sizeof(pgwt_tring_entry);
}

void
pgwt_tring_init(pgwt_trace_ring *r, uint32_t capacity)
{
	uint32_t	c = pgwt_tring_round_capacity(capacity);

	memset(r, 0, pgwt_tring_size(c));
	r->capacity = c;
	r->mask = c - 1;
}

/*
 * Ownership changes are rare: a plain seqlock around the identity words and
 * base. Only the owner writes them (trace_ring.h), so there is one writer.
 */
static void
tring_owner_write_begin(pgwt_trace_ring *r)
{
	uint64_t	s = __atomic_load_n(&r->owner_seq, __ATOMIC_RELAXED);

	__atomic_store_n(&r->owner_seq, s + 1, __ATOMIC_RELAXED);
	/* the odd count must be visible before any identity word changes */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void
tring_owner_write_end(pgwt_trace_ring *r)
{
	uint64_t	s = __atomic_load_n(&r->owner_seq, __ATOMIC_RELAXED);

	__atomic_store_n(&r->owner_seq, s + 1, __ATOMIC_RELEASE);
}

void
pgwt_tring_claim(pgwt_trace_ring *r, uint32_t pid, int64_t start_time, uint32_t role)
{
	uint64_t	head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	uint64_t	gen = __atomic_load_n(&r->owner_gen, __ATOMIC_RELAXED);

	tring_owner_write_begin(r);
	__atomic_store_n(&r->owner_pid, pid, __ATOMIC_RELAXED);
	__atomic_store_n(&r->owner_role, role, __ATOMIC_RELAXED);
	__atomic_store_n(&r->owner_start, start_time, __ATOMIC_RELAXED);
	__atomic_store_n(&r->owner_gen, gen + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->owner_exited, 0, __ATOMIC_RELAXED);
	/* the new owner's stream starts after every record already written */
	__atomic_store_n(&r->owner_base, head, __ATOMIC_RELAXED);
	tring_owner_write_end(r);
}

void
pgwt_tring_set_role(pgwt_trace_ring *r, uint32_t role)
{
	tring_owner_write_begin(r);
	__atomic_store_n(&r->owner_role, role, __ATOMIC_RELAXED);
	tring_owner_write_end(r);
}

void
pgwt_tring_release(pgwt_trace_ring *r)
{
	tring_owner_write_begin(r);
	__atomic_store_n(&r->owner_exited, 1, __ATOMIC_RELAXED);
	tring_owner_write_end(r);
}

bool
pgwt_tring_owner_of(const pgwt_trace_ring *r, pgwt_tring_owner *who,
					uint64_t *base, uint64_t *head)
{
	for (int i = 0; i < TRING_OWNER_TRIES; i++)
	{
		uint64_t	s1 = __atomic_load_n(&r->owner_seq, __ATOMIC_ACQUIRE);
		pgwt_tring_owner w;
		uint64_t	b,
					h;

		if (s1 & 1)
			continue;
		w.pid = __atomic_load_n(&r->owner_pid, __ATOMIC_RELAXED);
		w.role = __atomic_load_n(&r->owner_role, __ATOMIC_RELAXED);
		w.start_time = __atomic_load_n(&r->owner_start, __ATOMIC_RELAXED);
		w.generation = __atomic_load_n(&r->owner_gen, __ATOMIC_RELAXED);
		w.exited = __atomic_load_n(&r->owner_exited, __ATOMIC_RELAXED) != 0;
		b = __atomic_load_n(&r->owner_base, __ATOMIC_RELAXED);
		h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->owner_seq, __ATOMIC_RELAXED) != s1)
			continue;
		*who = w;
		*base = b;
		*head = h < b ? b : h;
		return true;
	}
	return false;
}

bool
pgwt_tring_snapshot(const pgwt_trace_ring *r, uint32_t *pid,
					uint64_t *base, uint64_t *head)
{
	pgwt_tring_owner w;

	if (!pgwt_tring_owner_of(r, &w, base, head))
		return false;
	*pid = w.pid;
	return true;
}

bool
pgwt_tring_same_owner(const pgwt_tring_owner *a, const pgwt_tring_owner *b)
{
	return a->pid != 0 && a->pid == b->pid && a->start_time == b->start_time &&
		a->generation == b->generation;
}

/* Copy position p; false if it is torn or no longer (or not yet) there. */
static bool
tring_copy(const pgwt_trace_ring *r, uint64_t p, pgwt_tring_rec *out)
{
	const pgwt_tring_entry *e = &r->entries[p & r->mask];
	uint64_t	s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

	if (s1 != p + 1)
		return false;
	out->pos = p;
	out->start_ns = __atomic_load_n(&e->start_ns, __ATOMIC_RELAXED);
	out->duration_ns = __atomic_load_n(&e->duration_ns, __ATOMIC_RELAXED);
	out->query_id = __atomic_load_n(&e->query_id, __ATOMIC_RELAXED);
	out->event = __atomic_load_n(&e->event, __ATOMIC_RELAXED);
	out->kind = __atomic_load_n(&e->kind, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&e->seq, __ATOMIC_RELAXED) == s1;
}

/* Copy [from, head) of the owner whose stream starts at base. */
static size_t
tring_read_range(const pgwt_trace_ring *r, uint64_t base, uint64_t head,
				 uint64_t from, pgwt_tring_rec *out, size_t max,
				 uint64_t *next, pgwt_tring_read_stats *st)
{
	uint64_t	p;
	size_t		n = 0;

	if (from < base)
		from = base;
	/* what the writer may already have lapped is gone: skip it at once */
	if (head > from && head - from > r->capacity)
	{
		st->overwritten += head - r->capacity - from;
		from = head - r->capacity;
	}
	for (p = from; p < head && n < max; p++)
	{
		if (tring_copy(r, p, &out[n]))
		{
			n++;
			st->copied++;
		}
		else
		{
			/*
			 * The writer got here first. The records up to head - capacity
			 * are gone too, but the ones after may still be intact.
			 */
			uint64_t	h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

			if (h > p + 1 && h - (p + 1) >= r->capacity)
			{
				uint64_t	skip_to = h - r->capacity + 1;

				st->torn++;
				st->overwritten += skip_to > p + 1 ? skip_to - (p + 1) : 0;
				p = skip_to - 1;
			}
			else
				st->torn++;
		}
	}
	*next = p;
	return n;
}

size_t
pgwt_tring_read(const pgwt_trace_ring *r, uint32_t expect_pid,
				uint64_t from, pgwt_tring_rec *out, size_t max,
				uint64_t *next, pgwt_tring_read_stats *st)
{
	pgwt_tring_owner w;
	uint64_t	base,
				head;

	*next = from;
	if (!pgwt_tring_owner_of(r, &w, &base, &head) || w.pid == 0 ||
		(expect_pid != 0 && w.pid != expect_pid))
		return 0;
	return tring_read_range(r, base, head, from, out, max, next, st);
}

size_t
pgwt_tring_read_owner(const pgwt_trace_ring *r, const pgwt_tring_owner *expect,
					  uint64_t from, pgwt_tring_rec *out, size_t max,
					  uint64_t *next, pgwt_tring_read_stats *st)
{
	pgwt_tring_owner w;
	uint64_t	base,
				head;

	*next = from;
	if (!pgwt_tring_owner_of(r, &w, &base, &head) || !pgwt_tring_same_owner(&w, expect))
		return 0;
	return tring_read_range(r, base, head, from, out, max, next, st);
}

const char *
pgwt_tring_marker_name(uint32_t marker)
{
	switch ((pgwt_tring_marker) marker)
	{
		case PGWT_TMARK_STMT_START:
			return "statement start";
		case PGWT_TMARK_STMT_END:
			return "statement end";
		case PGWT_TMARK_EXEC_START:
			return "executor start";
		case PGWT_TMARK_EXEC_END:
			return "executor end";
		case PGWT_TMARK_UTILITY_START:
			return "utility start";
		case PGWT_TMARK_UTILITY_END:
			return "utility end";
		case PGWT_TMARK_XACT_COMMIT:
			return "commit";
		case PGWT_TMARK_XACT_ABORT:
			return "abort";
		case PGWT_TMARK_IDLE:
			return "idle";
		case PGWT_TMARK_COUNT:
			break;
	}
	return NULL;
}
