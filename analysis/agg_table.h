/*
 * agg_table.h
 *		The fixed-size hash table every aggregation of the analysis engine
 *		keeps its totals in: (k1, k2) -> a value of vsize bytes.
 *
 * A unit of its own, below the engine (engine.c) and the exact-only
 * analyses (exact.c), so neither depends on the other for its tables.
 * Header-only: the engine's hot path looks a key up per record, and the
 * lookup must inline there. No shared state; one table belongs to one
 * thread.
 */
#ifndef PGWT_ANALYSIS_AGG_TABLE_H
#define PGWT_ANALYSIS_AGG_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * A fixed-size open-addressing hash of (k1, k2) -> value. At most cap keys;
 * slots are twice that, rounded up to a power of two, so probes stay short.
 * A slot holds its key and value together (one cache line or two per
 * lookup). Keys arriving when full land in "other". order[] lists used
 * slots in insertion order for iteration and cheap reset.
 */
typedef struct agg_slot
{
	uint64_t	k1;
	uint32_t	k2;
	uint32_t	used;
	/* the value follows, vsize bytes */
} agg_slot;

typedef struct agg_table
{
	unsigned	cap;
	unsigned	mask;
	unsigned	n;
	size_t		vsize;
	size_t		stride;				/* sizeof(agg_slot) + vsize, 8-aligned */
	unsigned char *slots;
	unsigned   *order;
	unsigned char *other;		/* one value */
	uint64_t	other_keys_records;	/* records folded into other */
} agg_table;

static inline agg_slot *
agg_slot_at(const agg_table *t, unsigned slot)
{
	return (agg_slot *) (t->slots + (size_t) slot * t->stride);
}

static inline void *
agg_value(const agg_table *t, unsigned slot)
{
	return (unsigned char *) agg_slot_at(t, slot) + sizeof(agg_slot);
}

static inline uint64_t
agg_k1(const agg_table *t, unsigned slot)
{
	return agg_slot_at(t, slot)->k1;
}

static inline uint32_t
agg_k2(const agg_table *t, unsigned slot)
{
	return agg_slot_at(t, slot)->k2;
}

/*
 * Lookup without inserting: slot or -1 (pgwt_agg_find). Room for cap keys
 * of vsize-byte values, false when out of memory (pgwt_agg_init). The value
 * of a key, inserted zeroed if new, or t->other when full (pgwt_agg_get).
 */
static inline uint64_t
agg_hash(uint64_t k1, uint32_t k2)
{
	uint64_t	x = k1 ^ ((uint64_t) k2 * 0x9E3779B97F4A7C15ull);

	x ^= x >> 30;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 27;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 31;
	return x;
}

static inline bool
pgwt_agg_init(agg_table *t, unsigned cap, size_t vsize)
{
	unsigned	slots = 16;

	memset(t, 0, sizeof(*t));
	while (slots < cap * 2u)
		slots *= 2;
	t->cap = cap;
	t->mask = slots - 1;
	t->vsize = vsize;
	t->stride = (sizeof(agg_slot) + vsize + 7) & ~(size_t) 7;
	t->slots = calloc(slots, t->stride);
	t->order = calloc(cap, sizeof(*t->order));
	t->other = calloc(1, vsize);
	return t->slots && t->order && t->other;
}

static inline void
pgwt_agg_free(agg_table *t)
{
	free(t->slots);
	free(t->order);
	free(t->other);
	memset(t, 0, sizeof(*t));
}

static inline void
pgwt_agg_clear(agg_table *t)
{
	for (unsigned i = 0; i < t->n; i++)
		memset(agg_slot_at(t, t->order[i]), 0, t->stride);
	t->n = 0;
	memset(t->other, 0, t->vsize);
	t->other_keys_records = 0;
}

static inline int
pgwt_agg_find(const agg_table *t, uint64_t k1, uint32_t k2)
{
	unsigned	s = (unsigned) agg_hash(k1, k2) & t->mask;
	agg_slot   *sl;

	while ((sl = agg_slot_at(t, s))->used)
	{
		if (sl->k1 == k1 && sl->k2 == k2)
			return (int) s;
		s = (s + 1) & t->mask;
	}
	return -1;
}

static inline void *
pgwt_agg_get(agg_table *t, uint64_t k1, uint32_t k2)
{
	unsigned	s = (unsigned) agg_hash(k1, k2) & t->mask;
	agg_slot   *sl;

	while ((sl = agg_slot_at(t, s))->used)
	{
		if (sl->k1 == k1 && sl->k2 == k2)
			return (unsigned char *) sl + sizeof(agg_slot);
		s = (s + 1) & t->mask;
	}
	if (t->n >= t->cap)
	{
		t->other_keys_records++;
		return t->other;
	}
	sl->used = 1;
	sl->k1 = k1;
	sl->k2 = k2;
	t->order[t->n++] = s;
	return (unsigned char *) sl + sizeof(agg_slot);
}

/* Start loading the slot a key will probe first. */
static inline void
agg_prefetch(const agg_table *t, uint64_t k1, uint32_t k2)
{
	__builtin_prefetch(agg_slot_at(t, (unsigned) agg_hash(k1, k2) & t->mask), 1);
}

#endif							/* PGWT_ANALYSIS_AGG_TABLE_H */
